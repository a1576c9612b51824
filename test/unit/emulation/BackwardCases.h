// The attention backward configurations run on the device emulator
// (AttentionBackwardEmulationTest.cpp): the generator's spec and the
// problem's shapes. tgc-emulation-sources writes each case's kernels at build
// time; the names must match EMULATION_CASES in test/unit/CMakeLists.txt.
#ifndef TG_TEST_EMULATION_BACKWARDCASES_H
#define TG_TEST_EMULATION_BACKWARDCASES_H

#include "tg/Codegen/AttentionBackward.h"

#include <cmath>
#include <string>
#include <vector>

namespace emu_cases {

using namespace tg::codegen;

struct Case {
  std::string name;
  AttentionBackwardSpec spec;
  int batch = 1, seqQ = 64, seqKv = 64;
  bool bshd = false;              // [B, S, H, D] buffers
  std::vector<int> lenQ, lenKv;   // padding (per batch)
  bool softcapBias = false;       // score: 20 tanh(s / 20) + bias[h, q, kv]
  // Table captures: score + rel[h, clamp(q - kv + Skv - 1)] (a bf16 table
  // shorter than 2S - 1, so that reads clamp), masked where
  // doc[b, q] != doc[b, kv] (i64 document ids); rel's gradient scatter-added.
  bool relBiasDocMask = false;
  int relShortBy = 0; // rel has Sq + Skv - 1 - relShortBy columns
  int docLength = 37;  // documents' mean length
  bool docIdsReturn = false; // in odd batches every other document reuses the first id
  bool docMaskOnly = false;  // relBiasDocMask without rel: the region only masks (documentMask)
  // Prefix-LM (per batch): masked where !(kv < prefix[b] or kv <= q), the
  // lengths an i64 table; the spec's key bound narrows the query rows.
  std::vector<long long> prefix;
};

inline AttentionBackwardSpec spec(int dqk, int dv, int hq, int hkv) {
  AttentionBackwardSpec s;
  s.headDimQK = dqk;
  s.headDimV = dv;
  s.numHeadsQ = hq;
  s.numHeadsKV = hkv;
  s.scale = 1.0 / std::sqrt(double(dqk));
  return s;
}

/// The score 20 tanh(s / 20) + bias[h, q, kv] (Case::softcapBias), its
/// gradient and the bias's.
inline void softcapBias(Case &c) {
  c.softcapBias = true;
  c.spec.scoreModifier = "s = 20.0f * tanhf(s / 20.0f);\ns += capture0;";
  c.spec.scoreGradient = "const float t = tanhf(s / 20.0f);\nds = dz * (1.0f - t * t);";
  c.spec.captures = {{"capture0", CaptureType::F32}};
  c.spec.captureGradients = {{"capture0", "dcap = dz;"}};
}

/// score + rel[h, clamp(q - kv + S - 1)], masked where doc[b, q] !=
/// doc[b, kv] (Case::relBiasDocMask), for Sq = Skv = S and batch 2; rel's
/// gradient scatter-added. `narrowed`: the spec names the document mask (the
/// kernel narrows its ranges to the documents); `sameDocument`: the
/// modifier drops the test in tiles of one document, as the generator
/// writes it; `tabulated`: also the relative bias as the plan's distance
/// term (ScoreMod::distance_term, read through distance.at).
inline void relBiasDocMask(Case &c, int S, bool narrowed, bool sameDocument, bool tabulated = false) {
  const std::string offset = std::to_string(S - 1);
  const std::string mask = std::string("if (") + (sameDocument ? "!kSameDocument && " : "") +
                           "doc_at(captures, b, q_idx) != doc_at(captures, b, kv_idx))\n"
                           "  s = -__int_as_float(0x7f800000);";
  c.relBiasDocMask = true;
  c.spec.scoreModifier = "s += rel_at(captures, h, q_idx - kv_idx + " + offset + ");\n" + mask;
  c.spec.captures = {{"rel", CaptureType::BF16, 2}, {"doc", CaptureType::I64, 2}};
  c.spec.captureGradients = {{"rel", "rel_grad_add(dz, h, q_idx - kv_idx + " + offset + ");"}};
  if (narrowed)
    c.spec.documentMask =
        AttentionForwardSpec::DocumentMask{"doc_at(captures, b, q_idx)", "doc_at(captures, b, kv_idx)"};
  if (tabulated) {
    c.spec.distanceTerm = "value = rel_at(captures, h, d + " + offset + ");";
    c.spec.scoreModifierTabulated = "s += distance.at(q_idx, kv_idx);\n" + mask;
  }
  c.batch = 2;
  c.seqQ = c.seqKv = S;
}

/// Only the document mask of relBiasDocMask (Case::docMaskOnly): the region
/// keeps s or gives -inf, so the kernel folds the scale into the
/// probabilities' FMA (spec.scoreModifierMasksOnly), as the plan finds it.
inline void documentMask(Case &c, int S, bool sameDocument) {
  c.relBiasDocMask = c.docMaskOnly = true;
  c.spec.scoreModifier = std::string("if (") + (sameDocument ? "!kSameDocument && " : "") +
                         "doc_at(captures, b, q_idx) != doc_at(captures, b, kv_idx))\n"
                         "  s = -__int_as_float(0x7f800000);";
  c.spec.scoreModifierMasksOnly = true;
  c.spec.captures = {{"doc", CaptureType::I64, 2}};
  c.spec.documentMask =
      AttentionForwardSpec::DocumentMask{"doc_at(captures, b, q_idx)", "doc_at(captures, b, kv_idx)"};
  c.batch = 2;
  c.seqQ = c.seqKv = S;
}

/// The prefix-LM mask of Case::prefix as the plan writes it: the region,
/// and its key bound max(prefix[b], q + 1).
inline void prefixLM(Case &c, std::vector<long long> prefix) {
  c.prefix = std::move(prefix);
  c.batch = int(c.prefix.size());
  c.spec.scoreModifier = "if (!(kv_idx < prefix_at(captures, b) || kv_idx <= q_idx))\n"
                         "  s = -__int_as_float(0x7f800000);";
  c.spec.scoreModifierMasksOnly = true;
  c.spec.captures = {{"prefix", CaptureType::I64, 1}};
  c.spec.keyBound = AttentionForwardSpec::KeyBound{"prefix_at(captures, b)", 1};
}

inline std::vector<Case> cases() {
  std::vector<Case> v;
  using C = AttentionCausalMode;
  {
    Case c{"plain_d64", spec(64, 64, 2, 2)};
    c.seqQ = 150; // two query tiles, the last partial; two key tiles
    c.seqKv = 150;
    v.push_back(c);
  }
  {
    Case c{"causal_tl_d72_f16", spec(72, 72, 2, 1)}; // pad columns, GQA 2
    c.spec.elementType = AttentionElementType::F16;
    c.spec.causal = C::TopLeft;
    c.seqQ = 100;
    c.seqKv = 130;
    v.push_back(c);
  }
  {
    Case c{"causal_br_gqa4_d64", spec(64, 64, 4, 1)};
    c.spec.causal = C::BottomRight;
    c.seqQ = 70;
    c.seqKv = 200;
    v.push_back(c);
  }
  {
    Case c{"window_padding_dqk80_dv64", spec(80, 64, 2, 2)};
    c.spec.windowLeft = 20;
    c.spec.windowRight = 10;
    c.spec.hasSeqLenQ = c.spec.hasSeqLenKv = true;
    c.batch = 2;
    c.seqQ = 90;
    c.seqKv = 140;
    c.lenQ = {77, 0};
    c.lenKv = {140, 33};
    v.push_back(c);
  }
  {
    Case c{"dropout_d64", spec(64, 64, 2, 2)};
    c.spec.dropoutProbability = 0.2;
    c.seqQ = 67;
    c.seqKv = 131; // rows straddle Philox groups
    v.push_back(c);
  }
  {
    Case c{"softcap_bias_d64", spec(64, 64, 2, 2)};
    softcapBias(c); // dbias summed over the batch
    c.spec.causal = C::TopLeft;
    c.batch = 2;
    c.seqQ = 96;
    c.seqKv = 96;
    v.push_back(c);
  }
  {
    Case c{"sm90_two_stages_bshd_d128", spec(128, 128, 2, 2)};
    c.spec.target = tgc::CompileTarget::cubin(90); // two Q/dO buffers
    c.bshd = true;
    c.seqQ = 160;
    c.seqKv = 100;
    v.push_back(c);
  }
  {
    // The mma.sync kernel as an sm_90a plan's fallback: its dQ atomics into
    // the swizzled accumulator (dq_accumulator.cuh), the convert kernel
    // reading it back; causal with padded query rows.
    Case c{"sm90_fallback_swizzled_dq_d128", spec(128, 128, 2, 2)};
    c.spec.target = tgc::CompileTarget::cubin(90);
    c.spec.dqAccumSwizzled = true;
    c.spec.causal = C::TopLeft;
    c.spec.hasSeqLenQ = true;
    c.batch = 2;
    c.seqQ = 140;
    c.seqKv = 140;
    c.lenQ = {140, 75};
    v.push_back(c);
  }
  {
    // Key padding alone (a mask_mod `kv < lengths[b]` lifts to it).
    Case c{"padding_kv_only_d64", spec(64, 64, 2, 2)};
    c.spec.hasSeqLenKv = true;
    c.batch = 2;
    c.seqQ = 96;
    c.seqKv = 160;
    c.lenKv = {160, 37};
    v.push_back(c);
  }
  {
    Case c{"d256_padding_q", spec(256, 256, 1, 1)};
    c.spec.hasSeqLenQ = true;
    c.lenQ = {50};
    c.seqQ = 70;
    c.seqKv = 70;
    v.push_back(c);
  }
  {
    Case c{"tile32_causal_dropout_f16", spec(64, 64, 2, 1)};
    c.spec.elementType = AttentionElementType::F16;
    c.spec.causal = C::TopLeft;
    c.spec.dropoutProbability = 0.3;
    AttentionBackwardTile t;
    t.blockM = 32;
    t.blockN = 32;
    t.warps = 4;
    t.warpsKeysS = 2;
    t.warpsKeysKV = 2;
    t.warpsRowsQ = 2;
    t.qStages = 2;
    c.spec.tileOverride = t;
    c.seqQ = 75;
    c.seqKv = 75;
    v.push_back(c);
  }
  {
    Case c{"deterministic_causal_window_gqa2", spec(64, 64, 4, 2)};
    c.spec.deterministic = true; // query tiles wait for the kv tiles before them
    c.spec.causal = C::TopLeft;
    c.spec.windowLeft = 150;
    c.seqQ = 300;
    c.seqKv = 300;
    v.push_back(c);
  }
  {
    Case c{"one_row_bottom_right_gqa2", spec(64, 64, 4, 2)}; // Sq = 1 sees every key
    c.spec.causal = C::BottomRight;
    c.seqQ = 1;
    c.seqKv = 333;
    v.push_back(c);
  }
  {
    Case c{"relbias_docmask_gqa2_d64", spec(64, 64, 4, 2)};
    relBiasDocMask(c, 150, /*narrowed=*/false, /*sameDocument=*/false);
    c.relShortBy = 120; // causal: columns 149 + (q - kv), clamped from q - kv = 30 on
    c.spec.causal = C::TopLeft;
    v.push_back(c);
  }
  {
    // The same graph without causal, with the document mask found: each CTA
    // walks only the query rows of its keys' documents.
    Case c{"docmask_narrowed_gqa2_d64", spec(64, 64, 4, 2)};
    relBiasDocMask(c, 150, /*narrowed=*/true, /*sameDocument=*/false);
    v.push_back(c);
  }
  {
    // Documents longer than a tile: the tiles inside one document skip the
    // test (ScoreMod::apply<true>, written here as the generator writes it);
    // in batch 1 the ids return, so no range is one document there.
    Case c{"docmask_same_document_gqa2_d64", spec(64, 64, 4, 2)};
    relBiasDocMask(c, 320, /*narrowed=*/true, /*sameDocument=*/true);
    c.docLength = 130;
    c.docIdsReturn = true;
    v.push_back(c);
  }
  {
    // A region that only masks (packed documents, causal): the scale folded.
    Case c{"docmask_only_causal_d64", spec(64, 64, 2, 2)};
    documentMask(c, 200, /*sameDocument=*/true);
    c.spec.causal = C::TopLeft;
    c.docLength = 90;
    v.push_back(c);
  }
  {
    // Deterministic dQ with a document mask: the kv tiles that add into a
    // query tile are the mask's, whatever the documents (the turns count
    // every one of them).
    Case c{"deterministic_docmask_gqa2_d64", spec(64, 64, 4, 2)};
    documentMask(c, 300, /*sameDocument=*/true);
    c.spec.deterministic = true;
    c.spec.causal = C::TopLeft;
    c.docLength = 100;
    c.docIdsReturn = true;
    v.push_back(c);
  }
  {
    // Prefix-LM: a bidirectional prefix, then causal; each kv tile starts at
    // the first query row that may see it (a prefix past the sequence, one
    // inside a tile, none).
    Case c{"prefix_lm_gqa2_d64", spec(64, 64, 4, 2)};
    prefixLM(c, {300, 70, 0});
    c.seqQ = c.seqKv = 260;
    v.push_back(c);
  }
  {
    Case c{"one_stage_gqa2_d96", spec(96, 96, 4, 2)};
    AttentionBackwardTile t; // the sm_80 tile of head dim 128: one Q/dO buffer
    t.qStages = 1;
    c.spec.tileOverride = t;
    c.seqQ = 150;
    c.seqKv = 100;
    v.push_back(c);
  }
  // sm_90a: the wgmma kernel (wgmma, bulk reductions and named barriers
  // emulated): each dQ split and element path once.
  const tgc::CompileTarget sm90a = tgc::CompileTarget::cubin(90, true);
  {
    // Head dims 64: 128-row query tiles, dQ split by rows; GQA 2.
    Case c{"wgmma_causal_br_gqa2_d64", spec(64, 64, 4, 2)};
    c.spec.target = sm90a;
    c.spec.causal = C::BottomRight;
    c.seqQ = 200;
    c.seqKv = 150;
    v.push_back(c);
  }
  {
    // 64-row tiles at head dim 64: dQ split by keys (two adds per element),
    // dV issued before dP^T is waited for; f16.
    Case c{"wgmma_rows64_f16_d64", spec(64, 64, 2, 2)};
    c.spec.target = sm90a;
    c.spec.elementType = AttentionElementType::F16;
    AttentionBackwardTile t;
    t.blockM = 64;
    t.blockN = 128;
    t.warps = 8;
    t.qStages = 2;
    t.wgmma = true;
    c.spec.tileOverride = t;
    c.seqQ = 100;
    c.seqKv = 130;
    v.push_back(c);
  }
  {
    // Head dim 128: dQ split by columns; the region's gradient and dbias
    // (one element step), dropout, padding with an empty sequence.
    Case c{"wgmma_softcap_bias_dropout_padding_d128", spec(128, 128, 2, 2)};
    c.spec.target = sm90a;
    softcapBias(c);
    c.spec.dropoutProbability = 0.2;
    c.spec.hasSeqLenQ = c.spec.hasSeqLenKv = true;
    c.batch = 2;
    c.seqQ = 80;
    c.seqKv = 96;
    c.lenQ = {80, 0};
    c.lenKv = {70, 96};
    v.push_back(c);
  }
  {
    // Padding on the split element path (P from S^T alone, dS = P (dP -
    // delta), no P = 0 test): NaN in the padded rows of q, k, v and dO,
    // which the kernel must not read.
    Case c{"wgmma_padding_nan_rows_d128", spec(128, 128, 2, 2)};
    c.spec.target = sm90a;
    c.spec.hasSeqLenQ = c.spec.hasSeqLenKv = true;
    c.batch = 2;
    c.seqQ = 150;
    c.seqKv = 140;
    c.lenQ = {130, 70};
    c.lenKv = {100, 140};
    v.push_back(c);
  }
  {
    // The same-document tiles of the wgmma kernel (128-row query tiles).
    Case c{"wgmma_docmask_same_document_d64", spec(64, 64, 4, 2)};
    c.spec.target = sm90a;
    relBiasDocMask(c, 400, /*narrowed=*/true, /*sameDocument=*/true);
    c.docLength = 200;
    c.docIdsReturn = true;
    v.push_back(c);
    // The relative bias tabulated per query tile and warpgroup (the plan's
    // distance term, ScoreMod::distance_term), on a short table whose reads
    // clamp.
    c.name = "wgmma_distance_table_d64";
    relBiasDocMask(c, 400, /*narrowed=*/true, /*sameDocument=*/true, /*tabulated=*/true);
    c.relShortBy = 60;
    v.push_back(c);
  }
  {
    // The split element step's masks-only probability (the scale in its FMA):
    // documents longer than a tile, ids that return, causal, GQA 2.
    Case c{"wgmma_docmask_only_causal_gqa2_d128", spec(128, 128, 4, 2)};
    c.spec.target = sm90a;
    documentMask(c, 330, /*sameDocument=*/true);
    c.spec.causal = C::TopLeft;
    c.docLength = 150;
    c.docIdsReturn = true;
    v.push_back(c);
  }
  {
    // Deterministic turns with the wgmma kernel's document mask.
    Case c{"wgmma_deterministic_docmask_d128", spec(128, 128, 2, 2)};
    c.spec.target = sm90a;
    documentMask(c, 300, /*sameDocument=*/true);
    c.spec.deterministic = true;
    c.spec.causal = C::TopLeft;
    c.docLength = 120;
    v.push_back(c);
  }
  {
    // Prefix-LM on the wgmma kernel, deterministic: the kv tiles that see a
    // query tile stay a prefix of the masks' range, as the turns count them.
    Case c{"wgmma_prefix_lm_deterministic_d128", spec(128, 128, 2, 2)};
    c.spec.target = sm90a;
    prefixLM(c, {150, 20});
    c.spec.deterministic = true;
    c.seqQ = c.seqKv = 400;
    v.push_back(c);
  }
  {
    Case c{"wgmma_deterministic_window_gqa2_d128", spec(128, 128, 4, 2)};
    c.spec.target = sm90a;
    c.spec.deterministic = true;
    c.spec.causal = C::TopLeft;
    c.spec.windowLeft = 100;
    c.seqQ = 200;
    c.seqKv = 260;
    v.push_back(c);
  }
  return v;
}

} // namespace emu_cases

#endif // TG_TEST_EMULATION_BACKWARDCASES_H
