// Tests of the attention forward kernel generator: spec validation, the
// launch configuration, the structure of the generated source, and NVRTC
// compilation of the kernel variants for sm_80, sm_90a and compute_80 PTX
// (NVRTC needs no GPU).

#include "tg/Codegen/AttentionKernel.h"

#include <gtest/gtest.h>
#include "NvrtcCompile.h"

#include <nvrtc.h>

#include <cmath>
#include <cstdint>
#include <future>
#include <map>
#include <random>
#include <string>
#include <ostream>
#include <vector>

using namespace tg::codegen;

namespace {

//===----------------------------------------------------------------------===//
// Validation and launch configuration
//===----------------------------------------------------------------------===//

AttentionForwardSpec baseSpec(int headDim = 128) {
  AttentionForwardSpec s;
  s.headDimQK = s.headDimV = headDim;
  s.numHeadsQ = s.numHeadsKV = 8;
  s.scale = 1.0 / std::sqrt(double(headDim));
  return s;
}

std::string errorOf(const AttentionForwardSpec &spec) {
  std::string error;
  EXPECT_FALSE(generateAttentionForward(spec, &error).has_value());
  return error;
}

TEST(AttentionSpec, RejectsBadSpecs) {
  AttentionForwardSpec s = baseSpec();
  s.headDimQK = 100;
  EXPECT_NE(errorOf(s).find("multiple of 8"), std::string::npos);
  s = baseSpec();
  s.headDimV = 264;
  EXPECT_NE(errorOf(s).find("head dim V is 264"), std::string::npos);
  s = baseSpec();
  s.numHeadsKV = 3;
  EXPECT_NE(errorOf(s).find("multiple of kv heads"), std::string::npos);
  s = baseSpec();
  s.dropoutProbability = 1.0;
  EXPECT_NE(errorOf(s).find("[0, 1)"), std::string::npos);
  s = baseSpec();
  s.scale = 0.0;
  EXPECT_NE(errorOf(s).find("scale"), std::string::npos);
  s = baseSpec();
  s.targetSm = 75;
  EXPECT_NE(errorOf(s).find("sm_80"), std::string::npos);
  s = baseSpec();
  s.scoreModifier = "s += bias;";
  s.captures = {{"q_idx", CaptureType::F32}};
  EXPECT_NE(errorOf(s).find("named 'q_idx'"), std::string::npos);
  s.captures = {{"bias", CaptureType::F32}, {"bias", CaptureType::F16}};
  EXPECT_NE(errorOf(s).find("used twice"), std::string::npos);
  s.captures = {{"kBias", CaptureType::F32}};
  EXPECT_NE(errorOf(s).find("named 'kBias'"), std::string::npos);
  s = baseSpec();
  s.captures = {{"bias", CaptureType::F32}};
  EXPECT_NE(errorOf(s).find("score modifier is empty"), std::string::npos);
  s.scoreModifier = "s += bias_at(captures, h);";
  s.captures = {{"bias", CaptureType::F32, 1}};
  s.documentMask = AttentionForwardSpec::DocumentMask{"bias_at(captures, b)", ""};
  EXPECT_NE(errorOf(s).find("document mask needs"), std::string::npos);
  s.documentMask.reset();
  s.captures = {{"bias", CaptureType::F32, 9}};
  EXPECT_NE(errorOf(s).find("table rank 9; expected 0 (an element capture) to 8"),
            std::string::npos);
  s = baseSpec();
  s.tileOverride = AttentionTileConfig{96, 64, 4, true, 1};
  EXPECT_NE(errorOf(s).find("multiple of 16 * warps"), std::string::npos);
  s.tileOverride = AttentionTileConfig{128, 40, 4, true, 1};
  EXPECT_NE(errorOf(s).find("blockN 40"), std::string::npos);
  s.tileOverride = AttentionTileConfig{128, 64, 4, true, 1, 3, 1};
  EXPECT_NE(errorOf(s).find("3 K/V stages"), std::string::npos);
  s.tileOverride = AttentionTileConfig{128, 32, 4, true, 1, 2, 3};
  EXPECT_NE(errorOf(s).find("fragment prefetch 3"), std::string::npos);
}

TEST(AttentionSpec, LaunchConfiguration) {
  AttentionForwardSpec s = baseSpec(64);
  s.tileOverride = AttentionTileConfig{128, 64, 4, true, 2, 2, 1};
  auto k = generateAttentionForward(s);
  ASSERT_TRUE(k);
  EXPECT_EQ(k->threads, 128u);
  EXPECT_EQ(k->numParams, 25u);
  // Q region 128 rows x 72 (64 + one 16-byte chunk), 2 stages of K and V
  // with 64 rows x 72.
  EXPECT_EQ(k->sharedBytes, 128u * 72 * 2 + 2 * 2 * 64u * 72 * 2);
  s.tileOverride->stages = 1; // one K and one V buffer
  EXPECT_EQ(generateAttentionForward(s)->sharedBytes, 128u * 72 * 2 + 2 * 64u * 72 * 2);
  s.tileOverride->stages = 2;
  EXPECT_EQ(k->grid(2, 16, 1000), (std::array<unsigned, 3>{8, 16, 2}));
  EXPECT_EQ(k->grid(3, 4, 1), (std::array<unsigned, 3>{1, 4, 3}));
  EXPECT_EQ(k->grid(1, 1, 128), (std::array<unsigned, 3>{1, 1, 1}));
  EXPECT_EQ(k->grid(1, 1, 129), (std::array<unsigned, 3>{2, 1, 1}));
  s.captures = {{"bias", CaptureType::F32}, {"slope", CaptureType::F32}};
  s.scoreModifier = "s += bias * slope;";
  EXPECT_EQ(generateAttentionForward(s)->numParams, 35u);
  // A rank-2 table: pointer, 2 sizes, 2 strides.
  s.captures = {{"bias", CaptureType::F32}, {"table", CaptureType::BF16, 2}};
  s.scoreModifier = "s += bias + table_at(captures, h, q_idx - kv_idx);";
  EXPECT_EQ(generateAttentionForward(s)->numParams, 35u);
  s.captures = {{"table", CaptureType::BF16, 3}};
  EXPECT_EQ(generateAttentionForward(s)->numParams, 32u);
}

bool contains(const std::string &s, const std::string &what);

TEST(AttentionSource, TableCapturesClampEveryIndex) {
  AttentionForwardSpec s = baseSpec(64);
  s.captures = {{"doc", CaptureType::I32, 2}, {"bias", CaptureType::F32}};
  s.scoreModifier = "if (doc_at(captures, b, q_idx) != doc_at(captures, b, kv_idx)) s = neg_inf();";
  auto k = generateAttentionForward(s);
  ASSERT_TRUE(k);
  const std::string &src = k->source;
  // Parameters, struct members and readers of the table.
  EXPECT_TRUE(contains(src, "const int *__restrict__ capture_doc, long long doc_size0, long long "
                            "doc_size1, long long doc_stride0, long long doc_stride1"));
  EXPECT_TRUE(contains(src, "long long doc_size[2], doc_stride[2];"));
  EXPECT_TRUE(contains(src, "capture_doc, {doc_size0, doc_size1}, {doc_stride0, doc_stride1}"));
  // The offset clamps every index; the read uses it at the table's strides.
  EXPECT_TRUE(contains(src, "offset += (i0 < 0 ? 0 : i0 < captures.doc_size[0] ? i0 : "
                            "captures.doc_size[0] - 1) * stride[0];"));
  EXPECT_TRUE(contains(src, "offset += (i1 < 0 ? 0 : i1 < captures.doc_size[1] ? i1 : "
                            "captures.doc_size[1] - 1) * stride[1];"));
  EXPECT_TRUE(contains(src, "const int raw = captures.doc[doc_offset(captures, captures.doc_stride, i0, i1)];"));
  EXPECT_TRUE(contains(src, "__device__ __forceinline__ bool doc_in_range(const Captures "
                            "&captures, long long i0, long long i1)"));
  // The table is not loaded at the score's position; the element capture is.
  EXPECT_FALSE(contains(src, "load_capture_doc"));
  EXPECT_TRUE(contains(src, "const float bias = load_capture_bias(captures, b, h, q_idx, kv_idx);"));
}

TEST(AttentionSpec, DefaultTilesFitSharedMemory) {
  for (int sm : {80, 86, 89, 90, 100, 120})
    for (int d : {64, 72, 80, 96, 128, 192, 256}) {
      AttentionForwardSpec s = baseSpec(d);
      s.targetSm = sm;
      auto k = generateAttentionForward(s);
      ASSERT_TRUE(k);
      unsigned limit = sm == 90 || sm == 100 ? 232448 : sm == 80 ? 166912 : 101376;
      EXPECT_LE(k->sharedBytes, limit) << "sm_" << sm << " head dim " << d;
      EXPECT_EQ(k->tile.blockM % (16 * k->tile.warps), 0);
    }
}

TEST(AttentionSpec, TileTable) {
  // Portable (mma.sync) tiles: sm_80, and sm_90 head dims not a multiple of 64.
  AttentionForwardSpec s = baseSpec(64);
  AttentionTileConfig t = defaultAttentionTile(s);
  EXPECT_FALSE(t.wgmma);
  EXPECT_TRUE(t.qInRegisters);
  EXPECT_EQ(t.warps, 4);
  s = baseSpec(128);
  EXPECT_EQ(defaultAttentionTile(s).blockN, 48);
  EXPECT_EQ(defaultAttentionTile(s).stages, 2);
  s.causal = AttentionCausalMode::TopLeft;
  EXPECT_EQ(defaultAttentionTile(s).stages, 1); // masked: single K/V buffers
  s = baseSpec(256);
  EXPECT_EQ(defaultAttentionTile(s).blockN, 32); // 163 KB on sm_80: fewer keys per tile
  s.targetSm = 86;
  EXPECT_FALSE(defaultAttentionTile(s).wgmma);
  s = baseSpec(96);
  s.targetSm = 90;
  s.archSpecific = true;
  EXPECT_FALSE(defaultAttentionTile(s).wgmma); // 96 is not a multiple of 64
  s = baseSpec(128);
  s.targetSm = 90;
  EXPECT_FALSE(defaultAttentionTile(s).wgmma); // portable unless asked
  EXPECT_EQ(generateAttentionForward(s)->requiredTarget, "");
  // sm_90 arch-specific: wgmma for head dims that are multiples of 64.
  for (int d : {64, 128, 192, 256}) {
    s = baseSpec(d);
    s.targetSm = 90;
    s.archSpecific = true;
    t = defaultAttentionTile(s);
    EXPECT_TRUE(t.wgmma) << d;
    EXPECT_EQ(t.blockM, 16 * t.warps);
    auto k = generateAttentionForward(s);
    ASSERT_TRUE(k);
    EXPECT_EQ(k->requiredTarget, "sm_90a");
    EXPECT_TRUE(contains(k->source, "wgmma.mma_async.sync.aligned.m64n"));
  }
  s = baseSpec(128);
  s.targetSm = 90;
  s.archSpecific = true;
  EXPECT_EQ(defaultAttentionTile(s).blockN, 128);
  s.headDimV = 64; // Dqk != Dv
  EXPECT_TRUE(defaultAttentionTile(s).wgmma);
}

TEST(AttentionSpec, RejectsBadWgmmaTiles) {
  AttentionForwardSpec s = baseSpec(128);
  s.tileOverride = AttentionTileConfig{128, 64, 8, false, 1, 2, 1, true};
  EXPECT_NE(errorOf(s).find("needs target sm_90"), std::string::npos);
  s.targetSm = 90;
  EXPECT_NE(errorOf(s).find("without archSpecific"), std::string::npos);
  s.archSpecific = true;
  s.headDimQK = s.headDimV = 96;
  EXPECT_NE(errorOf(s).find("multiples of 64"), std::string::npos);
  s.headDimQK = s.headDimV = 128;
  s.tileOverride = AttentionTileConfig{128, 64, 4, false, 1, 2, 1, true};
  EXPECT_NE(errorOf(s).find("whole warpgroups"), std::string::npos);
}

//===----------------------------------------------------------------------===//
// Structure of the generated source
//===----------------------------------------------------------------------===//

bool contains(const std::string &s, const std::string &what) {
  return s.find(what) != std::string::npos;
}

TEST(AttentionSource, PlainKernelHasOnlyWhatItNeeds) {
  auto k = generateAttentionForward(baseSpec(128));
  ASSERT_TRUE(k);
  const std::string &src = k->source;
  EXPECT_TRUE(contains(src, "extern \"C\" __global__"));
  EXPECT_TRUE(contains(src, k->entry + "("));
  EXPECT_TRUE(contains(src, "mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32"));
  EXPECT_TRUE(contains(src, "ldmatrix.sync.aligned.m8n8.x4.trans.shared.b16"));
  EXPECT_TRUE(contains(src, "cp.async.cg.shared.global"));
  EXPECT_TRUE(contains(src, "ex2.approx.ftz.f32"));
  EXPECT_TRUE(contains(src, "if (boundary_tile) apply_masks("));
  EXPECT_FALSE(contains(src, "#include"));
  EXPECT_FALSE(contains(src, "philox"));
  EXPECT_FALSE(contains(src, "apply_score_modifier"));
  EXPECT_FALSE(contains(src, "diag_shift"));
  EXPECT_FALSE(contains(src, "lse_tile[row]"));
  EXPECT_FALSE(contains(src, "$("));
  // The scale is folded into the exp2 argument: 1/sqrt(128) * log2(e).
  EXPECT_TRUE(contains(src, "kSoftmaxScaleLog2 = 0.12751743"));
}

TEST(AttentionSource, OptionsGenerateTheirStages) {
  AttentionForwardSpec s = baseSpec(64);
  s.elementType = AttentionElementType::F16;
  s.causal = AttentionCausalMode::BottomRight;
  s.windowLeft = 32;
  s.hasSeqLenKv = true;
  s.dropoutProbability = 0.25;
  s.training = true;
  s.numHeadsKV = 2;
  s.scoreModifier = "s = 20.0f * tanhf(s / 20.0f);\ns += bias;";
  s.captures = {{"bias", CaptureType::BF16}};
  auto k = generateAttentionForward(s);
  ASSERT_TRUE(k);
  const std::string &src = k->source;
  EXPECT_TRUE(contains(src, "mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32"));
  EXPECT_TRUE(contains(src, "const int diag_shift = len_kv - len_q;"));
  EXPECT_TRUE(contains(src, "constexpr int kRightLimit = 0;"));
  EXPECT_TRUE(contains(src, "constexpr int kWindowLeft = 32;"));
  EXPECT_TRUE(contains(src, "seq_lens_kv[b]"));
  EXPECT_FALSE(contains(src, "seq_lens_q[b]"));
  EXPECT_TRUE(contains(src, "constexpr unsigned kDropoutThreshold = 1073741824u;"));
  EXPECT_TRUE(contains(src, "kDropoutRescale / sum"));
  EXPECT_TRUE(contains(src, "lse_tile[row] ="));
  EXPECT_TRUE(contains(src, "constexpr long long kQueryHeadsPerKvHead = 4;"));
  EXPECT_TRUE(contains(src, "            s = 20.0f * tanhf(s / 20.0f);\n"));
  EXPECT_TRUE(contains(src, "const float bias = load_capture_bias(captures, b, h, q_idx, kv_idx);"));
  EXPECT_TRUE(contains(src, "gridDim.x - 1 - blockIdx.x")); // heavy tiles first
  EXPECT_FALSE(contains(src, "$("));
}

//===----------------------------------------------------------------------===//
// NVRTC compilation of the kernel variants
//===----------------------------------------------------------------------===//

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
std::vector<Variant> variants() {
  std::vector<Variant> v;
  auto add = [&](const char *name, int dqk, int dv, AttentionElementType t,
                 auto configure, bool noSpills = false) {
    AttentionForwardSpec s = baseSpec(dqk);
    s.headDimV = dv;
    s.elementType = t;
    configure(s);
    v.push_back({name, s, noSpills, s.archSpecific});
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
    s.targetSm = 90;
    s.archSpecific = true;
  }, true);
  add("wgmma_d128_bf16_causal_training", 128, 128, T::BF16, [](auto &s) {
    s.targetSm = 90;
    s.archSpecific = true;
    s.causal = C::BottomRight;
    s.training = true;
  }, true);
  add("wgmma_d256_f16_plain", 256, 256, T::F16, [](auto &s) {
    s.targetSm = 90;
    s.archSpecific = true;
  }, true);
  add("wgmma_dqk192_dv128_bf16_everything", 192, 128, T::BF16, [](auto &s) {
    s.targetSm = 90;
    s.archSpecific = true;
    s.causal = C::TopLeft;
    s.windowLeft = 100;
    s.hasSeqLenQ = s.hasSeqLenKv = true;
    s.dropoutProbability = 0.1;
    s.training = true;
    s.numHeadsKV = 2;
    s.scoreModifier = "s = 30.0f * tanhf(s / 30.0f);\ns += bias;";
    s.captures = {{"bias", CaptureType::F16}};
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
    s.targetSm = 90;
    s.archSpecific = true;
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
    s.targetSm = 90;
    s.archSpecific = true;
    s.scoreModifier = "if (dq != dk) s = neg_inf();";
    s.captures = {{"dq", CaptureType::I64}, {"dk", CaptureType::I64}};
    s.documentMask = AttentionForwardSpec::DocumentMask{
        "load_capture_dq(captures, b, h, q_idx, 0)", "load_capture_dk(captures, b, h, 0, kv_idx)"};
  });
  add("d256_f16_single_buffer_override", 256, 256, T::F16, [](auto &s) {
    s.tileOverride = AttentionTileConfig{64, 64, 4, false, 2, 1, 2};
    s.causal = AttentionCausalMode::TopLeft;
  }, true);
  return v;
}

void PrintTo(const Variant &v, std::ostream *os) { *os << v.name; }

class AttentionNvrtc : public ::testing::TestWithParam<Variant> {};

TEST_P(AttentionNvrtc, CompilesForEveryTarget) {
  const Variant &var = GetParam();
  std::string error;
  auto k = generateAttentionForward(var.spec, &error);
  ASSERT_TRUE(k) << error;
  std::vector<const char *> archs = {"sm_80", "sm_90a", "compute_80"};
  if (var.wgmmaOnly)
    archs = {"sm_90a"};
  EXPECT_EQ(k->requiredTarget, var.wgmmaOnly ? "sm_90a" : "");
  // NVRTC programs are independent: compile the targets concurrently.
  std::vector<std::future<NvrtcCompiled>> jobs;
  for (const char *arch : archs)
    jobs.push_back(std::async(std::launch::async, [&k, arch] { return compileWithNvrtc(k->source, arch, "attention.cu"); }));
  for (size_t i = 0; i < jobs.size(); ++i) {
    const char *arch = archs[i];
    NvrtcCompiled c = jobs[i].get();
    ASSERT_TRUE(c.ok) << var.name << " for " << arch << ":\n" << c.log;
    EXPECT_GT(c.bytes, 0u);
    EXPECT_EQ(c.log.find("warning"), std::string::npos) << var.name << " for " << arch << ":\n"
                                                         << c.log;
    if (var.expectNoSpills && std::string(arch) != "compute_80") {
      // No spills and no local arrays (a register array indexed at run time).
      EXPECT_NE(c.log.find(" 0 bytes stack frame, 0 bytes spill stores"), std::string::npos)
          << var.name << " for " << arch << " uses local memory:\n" << c.log;
    }
  }
}

INSTANTIATE_TEST_SUITE_P(Variants, AttentionNvrtc, ::testing::ValuesIn(variants()),
                         [](const ::testing::TestParamInfo<Variant> &info) {
                           return std::string(info.param.name);
                         });

} // namespace
