// Tests of the attention backward generator: spec and tile validation, the
// tile table, launch configuration, the structure of the generated sources,
// and NVRTC compiles of every backward variant for sm_80, sm_90a and
// compute_80 (no spills for the default tiles of the plain paths).

#include "tg/Codegen/AttentionBackward.h"

#include <gtest/gtest.h>
#include "NvrtcCompile.h"

#include <nvrtc.h>

#include <cmath>
#include <future>
#include <ostream>
#include <string>
#include <vector>

using namespace tg::codegen;

namespace {

AttentionBackwardSpec baseSpec(int headDim = 128) {
  AttentionBackwardSpec s;
  s.headDimQK = s.headDimV = headDim;
  s.numHeadsQ = s.numHeadsKV = 8;
  s.scale = 1.0 / std::sqrt(double(headDim));
  return s;
}

std::string errorOf(const AttentionBackwardSpec &spec) {
  std::string error;
  EXPECT_FALSE(generateAttentionBackward(spec, &error).has_value());
  return error;
}

bool contains(const std::string &s, const std::string &what) { return s.find(what) != std::string::npos; }

TEST(AttentionBackwardSpec, RejectsBadSpecs) {
  AttentionBackwardSpec s = baseSpec();
  s.headDimQK = 100;
  EXPECT_TRUE(contains(errorOf(s), "head dim QK is 100; expected a multiple of 8"));
  s = baseSpec();
  s.headDimV = 264;
  EXPECT_TRUE(contains(errorOf(s), "head dim V is 264"));
  s = baseSpec();
  s.numHeadsKV = 3;
  EXPECT_TRUE(contains(errorOf(s), "multiple of kv heads"));
  s = baseSpec();
  s.dropoutProbability = 1.0;
  EXPECT_TRUE(contains(errorOf(s), "[0, 1)"));
  s = baseSpec();
  s.scale = 1e300;
  EXPECT_TRUE(contains(errorOf(s), "finite non-zero f32"));
  s = baseSpec();
  s.target = tgc::CompileTarget::cubin(75);
  EXPECT_TRUE(contains(errorOf(s), "sm_80"));
  s = baseSpec();
  s.scoreModifier = "s += bias;";
  s.captures = {{"dz", CaptureType::F32}};
  EXPECT_TRUE(contains(errorOf(s), "named 'dz'"));
  s.captures = {{"bias", CaptureType::F32}, {"bias", CaptureType::F16}};
  EXPECT_TRUE(contains(errorOf(s), "used twice"));
  s = baseSpec();
  s.captures = {{"bias", CaptureType::F32}};
  EXPECT_TRUE(contains(errorOf(s), "modifier and its gradient are empty"));
  s.scoreModifier = "s += bias;";
  s.captureGradients = {{"slope", "dcap = dz;"}};
  EXPECT_TRUE(contains(errorOf(s), "names 'slope', which is not a capture"));
  s.captureGradients = {{"bias", "dcap = dz;"}, {"bias", "dcap = dz;"}};
  EXPECT_TRUE(contains(errorOf(s), "asked for twice"));
  s.captures = {{"bias", CaptureType::I32}};
  s.captureGradients = {{"bias", "dcap = dz;"}};
  EXPECT_TRUE(contains(errorOf(s), "capture 'bias' of type i32 has no gradient"));
  s.captures = {{"grad_x", CaptureType::F32}};
  s.captureGradients.clear();
  EXPECT_TRUE(contains(errorOf(s), "named 'grad_x'"));
  s = baseSpec();
  s.documentMask = AttentionForwardSpec::DocumentMask{"0", "0"};
  EXPECT_TRUE(contains(errorOf(s), "a document mask needs a score modifier"));
}

TEST(AttentionBackwardSpec, RejectsBadTiles) {
  AttentionBackwardSpec s = baseSpec(128);
  AttentionBackwardTile t;
  t.blockN = 48;
  s.tileOverride = t;
  EXPECT_TRUE(contains(errorOf(s), "blockN 48 must be a multiple of 32"));
  t = AttentionBackwardTile{};
  t.warpsKeysS = 3;
  s.tileOverride = t;
  EXPECT_TRUE(contains(errorOf(s), "S^T split 3"));
  t = AttentionBackwardTile{};
  t.warpsKeysKV = 1; // 8 warps over head dims: 16 each, fine; but
  t.warpsRowsQ = 8;  // 8 rows per warp is less than an m16 tile
  s.tileOverride = t;
  EXPECT_TRUE(contains(errorOf(s), "dQ split 8"));
  t = AttentionBackwardTile{};
  t.qStages = 3;
  s.tileOverride = t;
  EXPECT_TRUE(contains(errorOf(s), "3 Q/dO stages"));
  t = AttentionBackwardTile{};
  t.qStages = 2; // 177 KB: over sm_80's 163 KB
  s.tileOverride = t;
  EXPECT_TRUE(contains(errorOf(s), "needs 177152 bytes of shared memory; sm_80 allows 166912"));
  s.target = tgc::CompileTarget::cubin(90);
  EXPECT_TRUE(generateAttentionBackward(s).has_value());
}

TEST(AttentionBackwardSpec, TileTableFitsEveryTarget) {
  for (int sm : {80, 86, 89, 90, 100, 120})
    for (int d : {64, 72, 80, 96, 128, 160, 192, 256})
      for (double dropout : {0.0, 0.1}) {
        AttentionBackwardSpec s = baseSpec(d);
        s.target = tgc::CompileTarget::cubin(sm);
        s.dropoutProbability = dropout;
        AttentionBackwardTile t = defaultAttentionBackwardTile(s);
        EXPECT_EQ(validateAttentionBackwardTile(s, t), "") << "sm_" << sm << " hd " << d;
      }
  // Dqk != Dv.
  AttentionBackwardSpec s = baseSpec(192);
  s.headDimV = 128;
  EXPECT_EQ(validateAttentionBackwardTile(s, defaultAttentionBackwardTile(s)), "");
  s = baseSpec(64);
  s.headDimV = 256;
  EXPECT_EQ(validateAttentionBackwardTile(s, defaultAttentionBackwardTile(s)), "");
  // What the table picks where it matters (docs/kernels.md).
  s = baseSpec(128);
  AttentionBackwardTile t = defaultAttentionBackwardTile(s);
  EXPECT_EQ(t.blockN, 128);
  EXPECT_EQ(t.blockM, 64);
  EXPECT_EQ(t.qStages, 1); // sm_80: two Q/dO buffers do not fit
  s.target = tgc::CompileTarget::cubin(90);
  EXPECT_EQ(defaultAttentionBackwardTile(s).qStages, 2);
  // sm_90a: the wgmma kernel at head dims 64 and 128 (not deterministic at 64).
  s.target = tgc::CompileTarget::cubin(90, true);
  EXPECT_TRUE(defaultAttentionBackwardTile(s).wgmma);
  // (two dQ stages for the bulk reductions: 210 KB)
  EXPECT_EQ(attentionBackwardSharedBytes(s, defaultAttentionBackwardTile(s)), 215040u);
  s.headDimV = 96;
  EXPECT_FALSE(defaultAttentionBackwardTile(s).wgmma);
  EXPECT_TRUE(contains(attentionBackwardWgmmaProblem(s), "head dims 64 and 128 (here 96)"));
  s = baseSpec(64);
  s.target = tgc::CompileTarget::cubin(90, true);
  EXPECT_EQ(defaultAttentionBackwardTile(s).blockM, 128);  // head dims 64: 128-row query tiles
  s.deterministic = true;
  AttentionBackwardTile rows64 = defaultAttentionBackwardTile(s);
  EXPECT_TRUE(rows64.wgmma);
  rows64.blockM = 64;
  s.tileOverride = rows64;
  EXPECT_TRUE(contains(errorOf(s), "at head dim 64 needs 128-row query tiles"));
  s.tileOverride.reset();
  s.target = tgc::CompileTarget::cubin(90);
  EXPECT_TRUE(contains(attentionBackwardWgmmaProblem(s), "needs target sm_90a"));
  AttentionBackwardTile forced;
  forced.wgmma = true;
  s.tileOverride = forced;
  EXPECT_TRUE(contains(errorOf(s), "needs target sm_90a"));
  s = baseSpec(256);
  EXPECT_EQ(defaultAttentionBackwardTile(s).blockN, 64);
  s.target = tgc::CompileTarget::cubin(86); // 99 KB
  EXPECT_LE(attentionBackwardSharedBytes(s, defaultAttentionBackwardTile(s)), 101376u);
}

TEST(AttentionBackwardSpec, LaunchConfiguration) {
  AttentionBackwardSpec s = baseSpec(64);
  s.numHeadsKV = 2;
  AttentionBackwardTile t;
  t.blockM = 64;
  t.blockN = 128;
  t.qStages = 1;
  s.tileOverride = t;
  auto k = generateAttentionBackward(s);
  ASSERT_TRUE(k);
  EXPECT_EQ(k->main.threads, 256u);
  EXPECT_EQ(k->main.numParams, 36u);
  // K, V: 128 x 72; Q, dO: 64 x 72; P^T, dS^T: 128 x 72; lse, delta: 64 floats.
  EXPECT_EQ(k->main.sharedBytes, 2u * 128 * 72 * 2 + 2u * 64 * 72 * 2 + 2u * 128 * 72 * 2 + 2u * 64 * 4);
  // Main: x = kv tiles, y = kv heads, z = batch.
  EXPECT_EQ(k->main.gridFor(3, 8, 2, 100, 1000), (std::array<unsigned, 3>{8, 2, 3}));
  EXPECT_EQ(k->main.gridFor(1, 8, 2, 100, 128), (std::array<unsigned, 3>{1, 2, 1}));
  EXPECT_EQ(k->main.gridFor(1, 8, 2, 100, 129), (std::array<unsigned, 3>{2, 2, 1}));
  // Preprocess and convert: 16 query rows per CTA, y = query heads.
  EXPECT_EQ(k->preprocess.gridFor(3, 8, 2, 100, 1000), (std::array<unsigned, 3>{7, 8, 3}));
  EXPECT_EQ(k->convert.gridFor(3, 8, 2, 17, 1000), (std::array<unsigned, 3>{2, 8, 3}));
  EXPECT_EQ(k->preprocess.threads, 128u);
  EXPECT_EQ(k->preprocess.numParams, 10u);
  EXPECT_EQ(k->convert.numParams, 7u);
  EXPECT_EQ(k->preprocess.sharedBytes, 0u);
  s.dropoutProbability = 0.1; // + the keep bits: 64 rows x 4 words
  EXPECT_EQ(generateAttentionBackward(s)->main.sharedBytes, k->main.sharedBytes + 64u * 4 * 4);
  s.captures = {{"bias", CaptureType::F32}};
  s.scoreModifier = "s += bias;";
  EXPECT_EQ(generateAttentionBackward(s)->main.numParams, 41u);
  s.captureGradients = {{"bias", "dcap = dz;"}};
  EXPECT_EQ(generateAttentionBackward(s)->main.numParams, 46u);
  // A table of rank 2: pointer, 2 sizes, 2 strides; its gradient: pointer, 2 strides.
  s.captures.push_back({"rel", CaptureType::F32, 2});
  s.scoreModifier = "s += bias + rel_at(captures, h, q_idx - kv_idx + 127);";
  EXPECT_EQ(generateAttentionBackward(s)->main.numParams, 51u);
  s.captureGradients.push_back({"rel", "rel_grad_add(dz, h, q_idx - kv_idx + 127);"});
  EXPECT_EQ(generateAttentionBackward(s)->main.numParams, 54u);
  // Packed sequences: + the token counts (main), the offsets, token count,
  // stats and their copy (preprocess), the offsets and token count (dq).
  AttentionBackwardSpec packed = baseSpec(64);
  packed.ragged = true;
  auto ragged = generateAttentionBackward(packed);
  ASSERT_TRUE(ragged);
  EXPECT_EQ(ragged->main.numParams, 38u);
  EXPECT_EQ(ragged->preprocess.numParams, 14u);
  EXPECT_EQ(ragged->convert.numParams, 9u);
  EXPECT_TRUE(contains(ragged->main.source, "static constexpr bool kRagged = true;"));
  packed.hasSeqLenQ = true;
  EXPECT_FALSE(generateAttentionBackward(packed));
  AttentionBackwardLaunch convert = attentionBackwardCaptureGradConvert(AttentionElementType::F16);
  EXPECT_EQ(convert.numParams, 10u);
  EXPECT_EQ(convert.threads, 256u);
  EXPECT_TRUE(contains(convert.source, "capture_grad_convert<tg::device::Elem::F16>"));
}

TEST(AttentionBackwardSource, PlainKernelHasOnlyWhatItNeeds) {
  auto k = generateAttentionBackward(baseSpec(128));
  ASSERT_TRUE(k);
  const std::string &src = k->main.source;
  EXPECT_TRUE(contains(src, "extern \"C\" __global__"));
  EXPECT_TRUE(contains(src, k->main.entry + "("));
  EXPECT_TRUE(contains(src, "// ---- device/attention_bwd.cuh ----"));
  EXPECT_TRUE(contains(src, "mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32"));
  EXPECT_TRUE(contains(src, "static constexpr bool kDropout = false;"));
  EXPECT_TRUE(contains(src, "static constexpr bool kScoreMod = false;"));
  EXPECT_TRUE(contains(src, "static constexpr float kScale = 0.0883883461f;"));
  EXPECT_TRUE(contains(src, "tg::device::attention_backward<BackwardConfig>(params, score_mod);"));
  EXPECT_FALSE(contains(src, "#include"));
  EXPECT_FALSE(contains(src, "#pragma once"));
  EXPECT_FALSE(contains(src, "$("));
  EXPECT_TRUE(contains(k->preprocess.source, "tg::device::attention_bwd_preprocess<tg::device::Elem::BF16, 128, 128>"));
  EXPECT_TRUE(contains(k->convert.source, "0.0883883461f);"));
}

TEST(AttentionBackwardSource, OptionsGenerateTheirConfiguration) {
  AttentionBackwardSpec s = baseSpec(64);
  s.elementType = AttentionElementType::F16;
  s.causal = AttentionCausalMode::BottomRight;
  s.windowLeft = 32;
  s.windowRight = 5;
  s.hasSeqLenKv = true;
  s.dropoutProbability = 0.25;
  s.numHeadsKV = 2;
  s.scoreModifier = "s = 20.0f * tanhf(s / 20.0f);\ns += bias;";
  s.scoreGradient = "const float t = tanhf(s / 20.0f);\nds = dz * (1.0f - t * t);";
  s.captures = {{"bias", CaptureType::BF16}};
  auto k = generateAttentionBackward(s);
  ASSERT_TRUE(k);
  const std::string &src = k->main.source;
  EXPECT_TRUE(contains(src, "kElem = tg::device::Elem::F16;"));
  EXPECT_TRUE(contains(src, "static constexpr bool kUpper = true;"));
  EXPECT_TRUE(contains(src, "static constexpr int kRightLimit = 0;")); // causal caps window right
  EXPECT_TRUE(contains(src, "static constexpr int kWindowLeft = 32;"));
  EXPECT_TRUE(contains(src, "static constexpr bool kBottomRight = true;"));
  EXPECT_TRUE(contains(src, "kSeqLenQ = false, kSeqLenKv = true;"));
  EXPECT_TRUE(contains(src, "static constexpr unsigned kDropoutThreshold = 1073741824u;"));
  EXPECT_TRUE(contains(src, "static constexpr float kDropoutRescale = 1.33333337f;"));
  EXPECT_TRUE(contains(src, "static constexpr long long kGroup = 4;"));
  EXPECT_TRUE(contains(src, "      s = 20.0f * tanhf(s / 20.0f);\n"));
  EXPECT_TRUE(contains(src, "      ds = dz * (1.0f - t * t);\n"));
  EXPECT_TRUE(contains(src, "const unsigned short *ptr_bias;  // bf16"));
  EXPECT_TRUE(contains(src, "[[maybe_unused]] const float bias = bias_at(b, h, q_idx, kv_idx);"));
  EXPECT_TRUE(contains(src, "const unsigned short *__restrict__ capture_bias, long long bias_stride_b"));
  EXPECT_FALSE(contains(src, "$("));
  // Different variants get different entry names.
  s.scoreGradient.clear();
  EXPECT_NE(generateAttentionBackward(s)->main.entry, k->main.entry);
}

TEST(AttentionBackwardSource, TablesAreReadLikeTheForwardAndGetGradients) {
  AttentionBackwardSpec s = baseSpec(64);
  s.scoreModifier = "s += rel_at(captures, h, q_idx - kv_idx + 127) + bias;";
  s.captures = {{"bias", CaptureType::F32}, {"rel", CaptureType::BF16, 2}};
  s.captureGradients = {{"rel", "rel_grad_add(dz, h, q_idx - kv_idx + 127);"}};
  auto k = generateAttentionBackward(s);
  ASSERT_TRUE(k);
  const std::string &src = k->main.source;
  // The forward's Captures struct and readers (TableCaptures.cpp).
  EXPECT_TRUE(contains(src, "struct Captures {\n  const unsigned short *rel;  // bf16 table of rank 2\n"
                            "  long long rel_size[2], rel_stride[2];\n};"));
  EXPECT_TRUE(contains(src, "__device__ __forceinline__ float rel_at(const Captures &captures, long long i0, "
                            "long long i1) {"));
  EXPECT_TRUE(contains(src, "offset += (i1 < 0 ? 0 : i1 < captures.rel_size[1] ? i1 : captures.rel_size[1] - "
                            "1) * stride[1];"));
  EXPECT_TRUE(contains(src, "__device__ __forceinline__ bool rel_in_range(const Captures &captures"));
  // Element captures keep their broadcast reads; the table is a member.
  EXPECT_TRUE(contains(src, "const float bias = bias_at(b, h, q_idx, kv_idx);"));
  EXPECT_FALSE(contains(src, "const float rel = "));
  EXPECT_TRUE(contains(src, "  Captures captures;  // the tables\n"));
  // Parameters: the table's pointer, sizes, strides; the gradient's pointer and strides.
  EXPECT_TRUE(contains(src, "const unsigned short *__restrict__ capture_rel, long long rel_size0, long long "
                            "rel_size1, long long rel_stride0, long long rel_stride1"));
  EXPECT_TRUE(contains(src, "float *__restrict__ grad_rel, long long rel_grad_stride0, long long rel_grad_stride1"));
  EXPECT_TRUE(contains(src, "grad_rel, {rel_grad_stride0, rel_grad_stride1},\n"
                            "                           Captures{capture_rel, {rel_size0, rel_size1}, "
                            "{rel_stride0, rel_stride1}}};"));
  // The gradient is added at the clamped offset of the accumulator's strides.
  EXPECT_TRUE(contains(src, "atomicAdd(grad_rel + rel_offset(captures, rel_grad_stride, i0, i1), value);"));
  EXPECT_TRUE(contains(src, "rel_grad_add(dz, h, q_idx - kv_idx + 127);"));
  EXPECT_EQ(k->main.numParams, 36u + 5 + 5 + 3);
  // A table's rank is checked; its name may not shadow the struct.
  s.captures[1].tableRank = kMaxTableRank + 1;
  EXPECT_TRUE(contains(errorOf(s), "capture 'rel' has table rank 9; expected 0"));
  s.captures[1] = {"captures", CaptureType::BF16, 2};
  EXPECT_TRUE(contains(errorOf(s), "capture #1 is named 'captures'"));
}

//===----------------------------------------------------------------------===//
// NVRTC compilation of the backward variants
//===----------------------------------------------------------------------===//

struct Variant {
  const char *name;
  AttentionBackwardSpec spec;
  bool expectNoSpills; // default tiles of the plain paths, on their target
};

/// Every option at least once per head-dim class and type: each head dim
/// (64, 72, 80, 96, 128, 192, 256, Dqk != Dv), bf16 and f16, causal
/// top-left/bottom-right, windows, padding, dropout, GQA/MQA, score
/// modifiers with gradients and captures of several types, the sm_90 tiles
/// (two Q/dO buffers), the small-shared-memory tiles, an odd tile override.
std::vector<Variant> variants() {
  std::vector<Variant> v;
  auto add = [&](const char *name, int dqk, int dv, AttentionElementType t, auto configure,
                 bool noSpills = false) {
    AttentionBackwardSpec s = baseSpec(dqk);
    s.headDimV = dv;
    s.elementType = t;
    configure(s);
    v.push_back({name, s, noSpills});
  };
  using T = AttentionElementType;
  using C = AttentionCausalMode;
  add("d64_bf16_plain", 64, 64, T::BF16, [](auto &) {}, true);
  add("d128_bf16_plain", 128, 128, T::BF16, [](auto &) {}, true);
  // Causal kernels (per-element masks on diagonal tiles) spill 8-16 bytes.
  add("d128_bf16_causal_sm90", 128, 128, T::BF16, [](auto &s) {
    s.causal = C::TopLeft;
    s.target = tgc::CompileTarget::cubin(90);
  });
  add("d256_bf16_plain", 256, 256, T::BF16, [](auto &) {}, true);
  add("d256_f16_causal_sm90", 256, 256, T::F16, [](auto &s) {
    s.causal = C::BottomRight;
    s.target = tgc::CompileTarget::cubin(90);
  });
  add("d256_bf16_plain_sm90", 256, 256, T::BF16, [](auto &s) { s.target = tgc::CompileTarget::cubin(90); }, true);
  add("d128_f16_plain_sm90", 128, 128, T::F16, [](auto &s) { s.target = tgc::CompileTarget::cubin(90); }, true);
  add("d72_f16_causal_top_left", 72, 72, T::F16, [](auto &s) { s.causal = C::TopLeft; });
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
  // Every mask, dropout, MQA and a soft-capped score with a bias and ALiBi.
  auto everything = [](AttentionBackwardSpec &s) {
    s.causal = C::BottomRight;
    s.windowLeft = 256;
    s.hasSeqLenQ = s.hasSeqLenKv = true;
    s.dropoutProbability = 0.2;
    s.numHeadsKV = 1;
    s.scoreModifier = "s = 30.0f * tanhf(s / 30.0f);\n"
                      "s += bias;\n"
                      "s += slope * static_cast<float>(kv_idx - q_idx);";
    s.scoreGradient = "const float t = tanhf(s / 30.0f);\nds = dz * (1.0f - t * t);";
    s.captures = {{"bias", CaptureType::BF16}, {"slope", CaptureType::F32}};
  };
  add("d128_bf16_everything", 128, 128, T::BF16, everything);
  add("d192_f16_padding_kv_mask_capture", 192, 192, T::F16, [](auto &s) {
    s.hasSeqLenKv = true;
    s.scoreModifier = "if (!keep) s = -__int_as_float(0x7f800000);\ns += static_cast<float>(offset);";
    s.captures = {{"keep", CaptureType::Bool}, {"offset", CaptureType::I32}};
  });
  add("d64_f16_causal_dropout_modifier_i64_i8_f16_sm90", 64, 64, T::F16, [](auto &s) {
    s.causal = C::BottomRight;
    s.dropoutProbability = 0.3;
    s.target = tgc::CompileTarget::cubin(90);
    s.scoreModifier = "s += static_cast<float>(pos - tag) * scale16;";
    s.scoreGradient = "ds = dz;";
    s.captures = {{"pos", CaptureType::I64}, {"tag", CaptureType::I8}, {"scale16", CaptureType::F16}};
  });
  add("dqk192_dv128_bf16_negative_scale", 192, 128, T::BF16, [](auto &s) { s.scale = -0.05; });
  add("d128_f16_bias_and_scale_gradients_sm90", 128, 128, T::F16, [](auto &s) {
    s.target = tgc::CompileTarget::cubin(90);
    s.causal = C::TopLeft;
    s.scoreModifier = "s = s * scale16 + bias;";
    s.scoreGradient = "ds = dz * scale16;";
    s.captures = {{"bias", CaptureType::BF16}, {"scale16", CaptureType::F32}};
    s.captureGradients = {{"bias", "dcap = dz;"}, {"scale16", "dcap = dz * s;"}};
  });
  // Table captures (tg.gather): a relative-position bias with its gradient,
  // a document mask from an i64 id table, a fill-mode rank-3 table.
  add("d64_bf16_relbias_docmask_table_gradient_sm90", 64, 64, T::BF16, [](auto &s) {
    s.target = tgc::CompileTarget::cubin(90);
    s.causal = C::TopLeft;
    s.scoreModifier = "s += rel_at(captures, h, q_idx - kv_idx + 1023);\n"
                      "if (doc_at(captures, b, q_idx) != doc_at(captures, b, kv_idx)) s = -__int_as_float(0x7f800000);";
    s.captures = {{"rel", CaptureType::BF16, 2}, {"doc", CaptureType::I64, 2}};
    s.captureGradients = {{"rel", "rel_grad_add(dz, h, q_idx - kv_idx + 1023);"}};
  });
  // The same with the document mask found: each CTA narrows its query rows.
  add("d128_f16_docmask_narrowed_gqa4", 128, 128, T::F16, [](auto &s) {
    s.numHeadsKV = 2;
    s.scoreModifier =
        "if (doc_at(captures, b, q_idx) != doc_at(captures, b, kv_idx)) s = -__int_as_float(0x7f800000);";
    s.captures = {{"doc", CaptureType::I32, 2}};
    s.documentMask = AttentionForwardSpec::DocumentMask{"doc_at(captures, b, q_idx)",
                                                        "doc_at(captures, b, kv_idx)"};
  });
  add("d128_f16_fill_table_rank3_gradient", 128, 128, T::F16, [](auto &s) {
    s.scoreModifier = "const bool in = t3_in_range(captures, b, h, kv_idx - q_idx);\n"
                      "s = s * (in ? t3_at(captures, b, h, kv_idx - q_idx) : 1.0f);";
    s.scoreGradient = "ds = dz * (t3_in_range(captures, b, h, kv_idx - q_idx) ? t3_at(captures, b, h, kv_idx - q_idx) : 1.0f);";
    s.captures = {{"t3", CaptureType::F32, 3}};
    s.captureGradients = {{"t3", "if (t3_in_range(captures, b, h, kv_idx - q_idx)) t3_grad_add(dz * s, b, h, kv_idx - q_idx);"}};
  });
  add("dqk64_dv256_bf16_window_sm86", 64, 256, T::BF16, [](auto &s) {
    s.windowLeft = 100;
    s.target = tgc::CompileTarget::cubin(86);
  });
  add("d128_bf16_deterministic_causal_gqa", 128, 128, T::BF16, [](auto &s) {
    s.deterministic = true;
    s.causal = C::BottomRight;
    s.numHeadsKV = 2;
  });
  // Packed sequences (cu_seqlens): the three kernels take the offsets.
  add("d128_bf16_ragged_bottom_right_gqa4", 128, 128, T::BF16, [](auto &s) {
    s.ragged = true;
    s.causal = C::BottomRight;
    s.numHeadsKV = 2;
  });
  add("d64_f16_ragged_window_dropout_softcap_sm90", 64, 64, T::F16, [](auto &s) {
    s.ragged = true;
    s.windowLeft = 32;
    s.dropoutProbability = 0.1;
    s.target = tgc::CompileTarget::cubin(90);
    s.scoreModifier = "s = 30.0f * tanhf(s / 30.0f);";
    s.scoreGradient = "const float t = tanhf(s / 30.0f);\nds = dz * (1.0f - t * t);";
  });
  add("d256_bf16_dropout_sm86", 256, 256, T::BF16, [](auto &s) {
    s.dropoutProbability = 0.1;
    s.target = tgc::CompileTarget::cubin(86);
  });
  // sm_90a: the wgmma kernel (head dims 64 and 128), every option once.
  const tgc::CompileTarget sm90a = tgc::CompileTarget::cubin(90, true);
  // (plain at head dim 128: 255 registers and 24 bytes of spills)
  add("d128_bf16_wgmma_plain_sm90a", 128, 128, T::BF16, [&](auto &s) { s.target = sm90a; });
  // (head dim 64, 128-row query tiles: 255 registers and 88 bytes of spills)
  add("d64_f16_wgmma_causal_gqa4_sm90a", 64, 64, T::F16, [&](auto &s) {
    s.target = sm90a;
    s.causal = C::BottomRight;
    s.numHeadsKV = 2;
  });
  add("d128_bf16_wgmma_everything_sm90a", 128, 128, T::BF16, [&](auto &s) {
    everything(s);
    s.target = sm90a;
    s.captureGradients = {{"bias", "dcap = dz;"}};
  });
  add("d64_f16_wgmma_ragged_window_dropout_sm90a", 64, 64, T::F16, [&](auto &s) {
    s.target = sm90a;
    s.ragged = true;
    s.windowLeft = 32;
    s.dropoutProbability = 0.1;
  });
  add("d128_bf16_wgmma_deterministic_docmask_sm90a", 128, 128, T::BF16, [&](auto &s) {
    s.target = sm90a;
    s.deterministic = true;
    s.numHeadsKV = 2;
    s.scoreModifier =
        "if (doc_at(captures, b, q_idx) != doc_at(captures, b, kv_idx)) s = -__int_as_float(0x7f800000);";
    s.captures = {{"doc", CaptureType::I32, 2}};
    s.documentMask = AttentionForwardSpec::DocumentMask{"doc_at(captures, b, q_idx)",
                                                        "doc_at(captures, b, kv_idx)"};
  });
  add("dqk128_dv64_bf16_wgmma_relbias_table_gradient_sm90a", 128, 64, T::BF16, [&](auto &s) {
    s.target = sm90a;
    s.scoreModifier = "s += rel_at(captures, h, q_idx - kv_idx + 1023);";
    s.captures = {{"rel", CaptureType::BF16, 2}};
    s.captureGradients = {{"rel", "rel_grad_add(dz, h, q_idx - kv_idx + 1023);"}};
  });
  add("d128_bf16_tile_override_32x32", 128, 128, T::BF16, [](auto &s) {
    AttentionBackwardTile t;
    t.blockM = 32;
    t.blockN = 32;
    t.warps = 4;
    t.warpsKeysS = 2;
    t.warpsKeysKV = 2;
    t.warpsRowsQ = 2;
    t.qStages = 2;
    s.tileOverride = t;
    s.causal = C::TopLeft;
  });
  return v;
}

void PrintTo(const Variant &v, std::ostream *os) { *os << v.name; }

class AttentionBackwardNvrtc : public ::testing::TestWithParam<Variant> {};

TEST_P(AttentionBackwardNvrtc, CompilesForEveryTarget) {
  const Variant &var = GetParam();
  std::string error;
  auto k = generateAttentionBackward(var.spec, &error);
  ASSERT_TRUE(k) << error;
  std::vector<std::string> archs = {"sm_80", "sm_90a", "compute_80"};
  // The wgmma kernel exists for sm_90a only; its spec falls back elsewhere.
  EXPECT_EQ(k->tile.wgmma, var.spec.target.archSpecific);
  if (k->tile.wgmma) {
    EXPECT_EQ(k->requiredTarget, "sm_90a");
    archs = {"sm_90a"};
  }
  struct Job {
    std::string what, arch;
    std::future<NvrtcCompiled> result;
  };
  std::vector<Job> jobs;
  for (const std::string &arch : archs)
    jobs.push_back({"main", arch, std::async(std::launch::async, [&k, arch] {
                      return compileWithNvrtc(k->main.source, arch, "attention_bwd.cu");
                    })});
  // The small kernels once per variant (they depend on type and head dims).
  for (auto *launch : {&k->preprocess, &k->convert})
    jobs.push_back({launch == &k->preprocess ? "preprocess" : "convert", "sm_80",
                    std::async(std::launch::async,
                               [launch] { return compileWithNvrtc(launch->source, "sm_80", "attention_bwd.cu"); })});
  for (Job &job : jobs) {
    NvrtcCompiled c = job.result.get();
    std::string what = std::string(var.name) + " " + job.what + " for " + job.arch;
    ASSERT_TRUE(c.ok) << what << ":\n" << c.log;
    EXPECT_GT(c.bytes, 0u);
    EXPECT_EQ(c.log.find("warning"), std::string::npos) << what << ":\n" << c.log;
    // ptxas serialises every wgmma of a kernel where a path defines an
    // in-flight product's registers (an info line, not a warning).
    EXPECT_EQ(c.log.find("C7515"), std::string::npos) << what << ": wgmma serialised:\n" << c.log;
    // The default tiles are tuned (register budget) for their target.
    std::string tunedFor = var.spec.target.arch == 80 ? "sm_80" : "sm_90a";
    if (var.expectNoSpills && job.arch == tunedFor) {
      EXPECT_NE(c.log.find(" 0 bytes stack frame, 0 bytes spill stores"), std::string::npos)
          << what << " uses local memory:\n"
          << c.log;
    }
    if (getenv("TGC_PRINT_PTXAS") && job.what == "main")
      std::printf("%s:\n%s\n", what.c_str(), c.log.c_str());
  }
}

INSTANTIATE_TEST_SUITE_P(Variants, AttentionBackwardNvrtc, ::testing::ValuesIn(variants()),
                         [](const ::testing::TestParamInfo<Variant> &info) {
                           return std::string(info.param.name);
                         });

} // namespace
