#ifndef TGC_TEST_UNIT_ATTENTIONFORWARDVARIANTS_H
#define TGC_TEST_UNIT_ATTENTIONFORWARDVARIANTS_H
// The attention forward kernel variants that the generator's tests compile
// with NVRTC (AttentionKernelTest.cpp) and whose compiled resources
// tgc-kernel-fingerprint records (KernelFingerprint.cpp).
#include "tg/Codegen/AttentionKernel.h"

#include <cmath>
#include <ostream>
#include <vector>

namespace tg::codegen::testing {

inline AttentionForwardSpec baseSpec(int headDim = 128) {
  AttentionForwardSpec s;
  s.headDimQK = s.headDimV = headDim;
  s.numHeadsQ = s.numHeadsKV = 8;
  s.scale = 1.0 / std::sqrt(double(headDim));
  return s;
}

struct Variant {
  const char *name;
  AttentionForwardSpec spec;
  bool expectNoSpills; // default tiles of the plain fast paths
  bool wgmmaOnly = false; // sm_90a kernels compile for sm_90a alone
};

/// A representative subset of the full product (7 head dims x 2 types x 4
/// mask kinds x dropout x training x score modifier = 448 kernels, too slow
/// to compile in CI): every head dim and both types, every mask kind
/// (causal top_left/bottom_right, window, padding q/kv), GQA, dropout,
/// training, score modifiers with captures of several types, Dqk != Dv, a
/// negative scale (unfolded), and a tile override with Q in registers.
inline std::vector<Variant> variants() {
  std::vector<Variant> v;
  auto add = [&](const char *name, int dqk, int dv, AttentionElementType t,
                 auto configure, bool noSpills = false) {
    AttentionForwardSpec s = baseSpec(dqk);
    s.headDimV = dv;
    s.elementType = t;
    configure(s);
    v.push_back({name, s, noSpills, s.target.archSpecific});
  };
  using T = AttentionElementType;
  using C = AttentionCausalMode;
  add("d64_bf16_plain", 64, 64, T::BF16, [](auto &) {}, true);
  add("d128_bf16_plain", 128, 128, T::BF16, [](auto &) {}, true);
  add("d256_bf16_causal", 256, 256, T::BF16,
      [](auto &s) { s.causal = C::BottomRight; }, true);
  add("d128_f16_causal_training", 128, 128, T::F16, [](auto &s) {
    s.causal = C::TopLeft;
    s.training = true;
  }, true);
  add("d72_f16_causal_top_left_training", 72, 72, T::F16, [](auto &s) {
    s.causal = C::TopLeft;
    s.training = true;
  });
  add("d80_bf16_bottom_right_padding_gqa4", 80, 80, T::BF16, [](auto &s) {
    s.causal = C::BottomRight;
    s.hasSeqLenQ = s.hasSeqLenKv = true;
    s.numHeadsKV = 2;
  });
  add("d96_f16_window_dropout", 96, 96, T::F16, [](auto &s) {
    s.windowLeft = 64;
    s.windowRight = 16;
    s.dropoutProbability = 0.1;
  });
  add("d128_bf16_everything", 128, 128, T::BF16, [](auto &s) {
    s.causal = C::BottomRight;
    s.windowLeft = 256;
    s.hasSeqLenQ = s.hasSeqLenKv = true;
    s.dropoutProbability = 0.2;
    s.training = true;
    s.numHeadsKV = 1;
    s.scoreModifier = "s = 30.0f * tanhf(s / 30.0f);\n"
                      "s += bias;\n"
                      "s += slope * static_cast<float>(kv_idx - q_idx);";
    s.captures = {{"bias", CaptureType::BF16}, {"slope", CaptureType::F32}};
  });
  add("d192_f16_padding_kv_mask_capture_training", 192, 192, T::F16, [](auto &s) {
    s.hasSeqLenKv = true;
    s.training = true;
    s.scoreModifier = "if (!keep) s = neg_inf();\ns += static_cast<float>(offset);";
    s.captures = {{"keep", CaptureType::Bool}, {"offset", CaptureType::I32}};
  });
  add("d256_bf16_top_left_window_padding_q_dropout_training", 256, 256, T::BF16, [](auto &s) {
    s.causal = C::TopLeft;
    s.windowLeft = 128;
    s.hasSeqLenQ = true;
    s.dropoutProbability = 0.5;
    s.training = true;
  });
  add("d64_f16_causal_dropout_training_modifier_i64_i8_f16", 64, 64, T::F16, [](auto &s) {
    s.causal = C::BottomRight;
    s.dropoutProbability = 0.3;
    s.training = true;
    s.scoreModifier = "s += static_cast<float>(pos - tag) * scale16;";
    s.captures = {{"pos", CaptureType::I64}, {"tag", CaptureType::I8},
                  {"scale16", CaptureType::F16}};
  });
  add("dqk192_dv128_bf16_negative_scale", 192, 128, T::BF16,
      [](auto &s) { s.scale = -0.05; });
  add("d64_bf16_q_in_registers_override", 64, 64, T::BF16, [](auto &s) {
    s.tileOverride = AttentionTileConfig{64, 128, 4, true, 2, 2, 4};
    s.windowRight = 0;
  });
  // sm_90a (wgmma) kernels: the default tiles of every head-dim class, and
  // every option on that path.
  add("wgmma_d64_bf16_plain", 64, 64, T::BF16, [](auto &s) {
    s.target = tgc::CompileTarget::cubin(90, true);
  }, true);
  add("wgmma_d128_bf16_causal_training", 128, 128, T::BF16, [](auto &s) {
    s.target = tgc::CompileTarget::cubin(90, true);
    s.causal = C::BottomRight;
    s.training = true;
  }, true);
  add("wgmma_d256_f16_plain", 256, 256, T::F16, [](auto &s) {
    s.target = tgc::CompileTarget::cubin(90, true);
  }, true);
  // (warp-specialised: dropout and a score modifier with its captures)
  add("wgmma_d128_f16_dropout_padding_causal_training", 128, 128, T::F16, [](auto &s) {
    s.target = tgc::CompileTarget::cubin(90, true);
    s.causal = C::TopLeft;
    s.hasSeqLenQ = s.hasSeqLenKv = true;
    s.dropoutProbability = 0.2;
    s.training = true;
  }, true);
  add("wgmma_d64_bf16_softcap_gqa4_training", 64, 64, T::BF16, [](auto &s) {
    s.target = tgc::CompileTarget::cubin(90, true);
    s.numHeadsKV = 2;
    s.training = true;
    s.scoreModifier = "s = 30.0f * tanhf(s / 30.0f);";
  }, true);
  add("wgmma_dqk192_dv128_bf16_everything", 192, 128, T::BF16, [](auto &s) {
    s.target = tgc::CompileTarget::cubin(90, true);
    s.causal = C::TopLeft;
    s.windowLeft = 100;
    s.hasSeqLenQ = s.hasSeqLenKv = true;
    s.dropoutProbability = 0.1;
    s.training = true;
    s.numHeadsKV = 2;
    s.scoreModifier = "s = 30.0f * tanhf(s / 30.0f);\ns += bias;";
    s.captures = {{"bias", CaptureType::F16}};
  }, true);
  // Packed sequences (cu_seqlens): per-sequence masks, GQA and stats, on
  // both paths.
  add("d128_bf16_ragged_bottom_right_gqa4_training", 128, 128, T::BF16, [](auto &s) {
    s.ragged = true;
    s.causal = C::BottomRight;
    s.numHeadsKV = 2;
    s.training = true;
  });
  add("d64_f16_ragged_window_dropout_modifier", 64, 64, T::F16, [](auto &s) {
    s.ragged = true;
    s.windowLeft = 32;
    s.dropoutProbability = 0.1;
    s.scoreModifier = "s = 30.0f * tanhf(s / 30.0f);";
  });
  add("wgmma_d128_bf16_ragged_causal_training", 128, 128, T::BF16, [](auto &s) {
    s.target = tgc::CompileTarget::cubin(90, true);
    s.ragged = true;
    s.causal = C::TopLeft;
    s.training = true;
  });
  // Paged K/V caches: pages smaller and larger than a key tile.
  add("d128_bf16_paged16_decode_gqa8", 128, 128, T::BF16, [](auto &s) {
    s.paged = true;
    s.pageSize = 16;
    s.hasSeqLenKv = true;
    s.causal = C::BottomRight;
    s.numHeadsKV = 1;
  });
  add("wgmma_d128_bf16_paged256_causal", 128, 128, T::BF16, [](auto &s) {
    s.target = tgc::CompileTarget::cubin(90, true);
    s.paged = true;
    s.pageSize = 256;
    s.hasSeqLenKv = true;
    s.causal = C::BottomRight;
  });
  // Paged tiles within one page (64 of 64) and the page-per-lookup path
  // when pages are neither (48 keys, pages of 32).
  add("d128_bf16_decode_gqa8_paged64", 128, 128, T::BF16, [](auto &s) {
    s.decode = true;
    s.decodeRows = 8;
    s.numHeadsKV = 1;
    s.paged = true;
    s.pageSize = 64;
    s.hasSeqLenKv = true;
    s.causal = C::BottomRight;
  });
  add("d128_f16_paged32_rows", 128, 128, T::F16, [](auto &s) {
    s.paged = true;
    s.pageSize = 32;
    s.hasSeqLenKv = true;
  });
  // Decode with each key tile split among warps (tile overrides): 4 slices
  // of one row block, and 2 slices of 3 row blocks (speculative decoding).
  add("d128_bf16_decode_gqa8_four_key_slices", 128, 128, T::BF16, [](auto &s) {
    s.decode = true;
    s.decodeRows = 8;
    s.numHeadsKV = 1;
    s.causal = C::BottomRight;
    AttentionTileConfig t{16, 128, 4, false, 1, 2, 1};
    t.keyWarps = 4;
    s.tileOverride = t;
  });
  add("d64_f16_decode_48_rows_two_key_slices_paged16", 64, 64, T::F16, [](auto &s) {
    s.decode = true;
    s.decodeRows = 48;
    s.numHeadsKV = 1;
    s.paged = true;
    s.pageSize = 16;
    s.hasSeqLenKv = true;
    s.windowLeft = 100;
    AttentionTileConfig t{48, 64, 6, false, 1, 2, 1};
    t.keyWarps = 2;
    s.tileOverride = t;
  });
  // A score modifier in the decode kernel (each packed row's own head and
  // query), with key slices.
  add("d128_bf16_decode_gqa4_sq3_score_mod", 128, 128, T::BF16, [](auto &s) {
    s.decode = true;
    s.decodeRows = 12;
    s.numHeadsQ = 8;
    s.numHeadsKV = 2;
    s.causal = C::BottomRight;
    s.scoreModifier = "s = 20.0f * tanhf(s / 20.0f) - 0.01f * static_cast<float>(h) * "
                      "static_cast<float>(q_idx - kv_idx);";
  });
  // A ring of three K/V buffers (tile override).
  add("d64_bf16_three_stage_ring", 64, 64, T::BF16, [](auto &s) {
    s.tileOverride = AttentionTileConfig{128, 64, 4, true, 1, 3, 2};
    s.causal = C::TopLeft;
  });
  // Split-KV decode: a GQA group's queries packed into one tile.
  add("d128_bf16_decode_gqa8_paged16", 128, 128, T::BF16, [](auto &s) {
    s.decode = true;
    s.decodeRows = 8;
    s.numHeadsKV = 1;
    s.paged = true;
    s.pageSize = 16;
    s.hasSeqLenKv = true;
    s.causal = C::BottomRight;
  });
  add("d64_f16_decode_speculative_48_rows_window", 64, 64, T::F16, [](auto &s) {
    s.decode = true;
    s.decodeRows = 48;
    s.numHeadsKV = 2;
    s.causal = C::BottomRight;
    s.windowLeft = 256;
  });
  // Table captures (tg.gather): a relative-position table, a T5 bucket
  // lookup, document ids and prefix lengths, mixed with an element capture.
  add("d128_bf16_relative_bias_table_causal", 128, 128, T::BF16, [](auto &s) {
    s.causal = C::TopLeft;
    s.scoreModifier = "s += rel_at(captures, h, q_idx - kv_idx + 4095);";
    s.captures = {{"rel", CaptureType::F32, 2}};
  });
  add("d64_f16_document_prefix_tables_fill_training", 64, 64, T::F16, [](auto &s) {
    s.training = true;
    s.scoreModifier =
        "const bool same = doc_at(captures, b, q_idx) == doc_at(captures, b, kv_idx);\n"
        "const bool prefix = kv_idx < prefix_at(captures, b);\n"
        "if (!same || !(prefix || kv_idx <= q_idx)) s = neg_inf();\n"
        "s += rel_in_range(captures, kv_idx - q_idx + 8) ? rel_at(captures, kv_idx - q_idx + 8) "
        ": 0.0f;\n"
        "s += bias;";
    s.captures = {{"doc", CaptureType::I32, 2}, {"prefix", CaptureType::I64, 1},
                  {"rel", CaptureType::BF16, 1}, {"bias", CaptureType::F16}};
  });
  add("wgmma_d128_bf16_t5_buckets_table", 128, 128, T::BF16, [](auto &s) {
    s.target = tgc::CompileTarget::cubin(90, true);
    s.scoreModifier =
        "const long long rel = kv_idx - q_idx;\n"
        "const long long n = rel < 0 ? -rel : rel;\n"
        "const long long large = 8 + static_cast<long long>(logf(static_cast<float>(n) / 8.0f) / "
        "2.7725887f * 8.0f);\n"
        "const long long bucket = (rel > 0 ? 16 : 0) + (n < 8 ? n : (large < 15 ? large : 15));\n"
        "s += emb_at(captures, bucket, h);";
    s.captures = {{"emb", CaptureType::BF16, 2}};
  });
  // A document mask narrows each CTA's K/V range from the ids (a table
  // capture read at (b, q_idx) and (b, kv_idx)), with causal masking.
  add("d128_bf16_document_mask_causal", 128, 128, T::BF16, [](auto &s) {
    s.causal = C::TopLeft;
    s.scoreModifier = "if (doc_at(captures, b, q_idx) != doc_at(captures, b, kv_idx)) s = neg_inf();";
    s.captures = {{"doc", CaptureType::I32, 2}};
    s.documentMask = AttentionForwardSpec::DocumentMask{"doc_at(captures, b, q_idx)",
                                                        "doc_at(captures, b, kv_idx)"};
  });
  add("wgmma_d64_f16_document_mask_element_captures", 64, 64, T::F16, [](auto &s) {
    s.target = tgc::CompileTarget::cubin(90, true);
    s.scoreModifier = "if (dq != dk) s = neg_inf();";
    s.captures = {{"dq", CaptureType::I64}, {"dk", CaptureType::I64}};
    s.documentMask = AttentionForwardSpec::DocumentMask{
        "load_capture_dq(captures, b, h, q_idx, 0)", "load_capture_dk(captures, b, h, 0, kv_idx)"};
  });
  add("d256_f16_single_buffer_override", 256, 256, T::F16, [](auto &s) {
    s.tileOverride = AttentionTileConfig{64, 64, 4, false, 2, 1, 2};
    s.causal = AttentionCausalMode::TopLeft;
  }, true);
  // FP8 (sm_90a only): both types, an fp8 and a 16-bit output, with every
  // option the FP8 kernel has (masks, padding, GQA, training stats).
  add("wgmma_d128_e4m3_plain", 128, 128, T::E4M3, [](auto &s) {
    s.target = tgc::CompileTarget::cubin(90, true);
  }, true);
  add("wgmma_d128_e5m2_bf16_out_causal_padding_gqa4_training", 128, 128, T::E5M2, [](auto &s) {
    s.target = tgc::CompileTarget::cubin(90, true);
    s.outputType = T::BF16;
    s.causal = C::BottomRight;
    s.windowLeft = 200;
    s.hasSeqLenQ = s.hasSeqLenKv = true;
    s.numHeadsKV = 2;
    s.training = true;
  }, true);
  add("wgmma_d256_e4m3_f16_out_causal", 256, 256, T::E4M3, [](auto &s) {
    s.target = tgc::CompileTarget::cubin(90, true);
    s.outputType = T::F16;
    s.causal = C::TopLeft;
  });
  return v;
}

/// gtest prints a variant by its name (found by argument-dependent lookup).
inline void PrintTo(const Variant &v, std::ostream *os) { *os << v.name; }

} // namespace tg::codegen::testing

#endif // TGC_TEST_UNIT_ATTENTIONFORWARDVARIANTS_H
