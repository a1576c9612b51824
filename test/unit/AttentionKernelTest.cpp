// Tests of the attention forward kernel generator: spec validation, the
// launch configuration, the structure of the generated source, and NVRTC
// compilation of the kernel variants for sm_80, sm_90a and compute_80 PTX
// (NVRTC needs no GPU).

#include "tg/Codegen/AttentionKernel.h"

#include <gtest/gtest.h>
#include "AttentionForwardVariants.h"
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
using namespace tg::codegen::testing;

namespace {

//===----------------------------------------------------------------------===//
// Validation and launch configuration
//===----------------------------------------------------------------------===//


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
  s.target = tgc::CompileTarget::cubin(75);
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
  s.tileOverride = AttentionTileConfig{128, 64, 4, true, 1, 5, 1};
  EXPECT_NE(errorOf(s).find("5 K/V stages: expected 1 to 4"), std::string::npos);
  {
    AttentionTileConfig t{128, 64, 4, false, 1, 2, 1};
    t.keyWarps = 2;  // not a decode kernel
    s.tileOverride = t;
    EXPECT_NE(errorOf(s).find("only the decode kernel has them"), std::string::npos);
  }
  s.tileOverride = AttentionTileConfig{128, 32, 4, true, 1, 2, 3};
  EXPECT_NE(errorOf(s).find("fragment prefetch 3"), std::string::npos);
  s = baseSpec();
  s.ragged = true;
  s.hasSeqLenKv = true;
  EXPECT_NE(errorOf(s).find("lengths from cu_seqlens"), std::string::npos);
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
  // Packed sequences add the two token counts after seq_len_kv.
  s.ragged = true;
  auto ragged = generateAttentionForward(s);
  ASSERT_TRUE(ragged);
  EXPECT_EQ(ragged->numParams, 34u);
  EXPECT_NE(ragged->source.find("long long tokens_q, long long tokens_kv,"), std::string::npos);
  EXPECT_NE(ragged->source.find("static constexpr bool kRagged = true;"), std::string::npos);
  // A paged cache adds the page table, its row stride and the page count.
  s.ragged = false;
  s.paged = true;
  s.pageSize = 32;
  s.hasSeqLenKv = true;
  auto paged = generateAttentionForward(s);
  ASSERT_TRUE(paged);
  EXPECT_EQ(paged->numParams, 35u);
  EXPECT_NE(paged->source.find("static constexpr int kPageSize = 32;"), std::string::npos);
  s.hasSeqLenKv = false;
  EXPECT_FALSE(generateAttentionForward(s));
  // Decode: + the partial outputs and log-sum-exps, and a combine kernel.
  AttentionForwardSpec d = baseSpec(128);
  d.numHeadsKV = 1;
  d.decode = true;
  d.decodeRows = 8;
  auto decode = generateAttentionForward(d);
  ASSERT_TRUE(decode);
  EXPECT_EQ(decode->numParams, 27u);
  EXPECT_EQ(decode->tile.blockM, 16);  // 8 rows, two warps of 32 keys each
  EXPECT_EQ(decode->tile.warps, 2);
  EXPECT_EQ(decode->tile.keyWarps, 2);
  EXPECT_EQ(decode->tile.blockN, 64);
  EXPECT_EQ(decode->combineRowsPerBlock, 8u);
  EXPECT_NE(decode->combineSource.find("attention_decode_combine<tg::device::Elem::BF16, 128, 4>"),
            std::string::npos);
  d.decodeRows = 65;
  EXPECT_NE(errorOf(d).find("1 to 64 packed query rows"), std::string::npos);
  d.decodeRows = 8;
  d.training = true;
  EXPECT_NE(errorOf(d).find("no dropout, training"), std::string::npos);
  // One wave: 5 CTAs per SM on 132 SMs hold 660.
  EXPECT_EQ(decodeSplits(64, 128, 5), 10);
  EXPECT_EQ(decodeSplits(1024, 128, 5), 1);
  EXPECT_EQ(decodeSplits(8, 6, 5), 3);  // at least two tiles each
  d.target = tgc::CompileTarget::cubin(90);
  EXPECT_EQ(decodeCtasPerSM(d), 3);  // 74 KB of tiles (64 keys), 228 KB per SM
  d.paged = true;
  d.pageSize = 16;
  d.hasSeqLenKv = true;
  EXPECT_EQ(defaultAttentionTile(d).blockN, 32);  // pages of 16: tiles of 32, seen whole
  EXPECT_EQ(defaultAttentionTile(d).keyWarps, 1);
  EXPECT_EQ(defaultAttentionTile(d).blockM, 32);  // 8 rows and padding: two warps issue the copies
  EXPECT_EQ(decodeCtasPerSM(d), 4);  // 43 KB of tiles + the 4 KB page cache
  d.headDimQK = d.headDimV = 256;
  d.target = tgc::CompileTarget::cubin(86);  // 99 KB per CTA: 32 keys at hd 256
  d.paged = false;
  EXPECT_EQ(defaultAttentionTile(d).blockN, 32);
  d.headDimQK = d.headDimV = 128;
  d.paged = false;
  d.hasSeqLenKv = false;
  // When the decode kernel runs (d has 8 query heads per kv head).
  d.training = false;
  d.decode = false;
  EXPECT_TRUE(decodeKernelApplies(d, 1, 8192));
  EXPECT_TRUE(decodeKernelApplies(d, 8, 256));
  EXPECT_FALSE(decodeKernelApplies(d, 9, 8192));  // 72 rows
  EXPECT_FALSE(decodeKernelApplies(d, 1, 255));   // too few keys to split
  d.dropoutProbability = 0.1;
  EXPECT_FALSE(decodeKernelApplies(d, 1, 8192));
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
      s.target = tgc::CompileTarget::cubin(sm);
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
  s.target = tgc::CompileTarget::cubin(86);
  EXPECT_FALSE(defaultAttentionTile(s).wgmma);
  s = baseSpec(96);
  s.target = tgc::CompileTarget::cubin(90, true);
  EXPECT_FALSE(defaultAttentionTile(s).wgmma); // 96 is not a multiple of 64
  s = baseSpec(128);
  s.target = tgc::CompileTarget::cubin(90);
  EXPECT_FALSE(defaultAttentionTile(s).wgmma); // portable unless asked
  EXPECT_EQ(generateAttentionForward(s)->requiredTarget, "");
  // sm_90 arch-specific: wgmma for head dims that are multiples of 64.
  for (int d : {64, 128, 192, 256}) {
    s = baseSpec(d);
    s.target = tgc::CompileTarget::cubin(90, true);
    t = defaultAttentionTile(s);
    EXPECT_TRUE(t.wgmma) << d;
    EXPECT_EQ(t.blockM, 16 * t.warps);
    auto k = generateAttentionForward(s);
    ASSERT_TRUE(k);
    EXPECT_EQ(k->requiredTarget, "sm_90a");
    EXPECT_TRUE(contains(k->source, "kWgmma = true;"));
  }
  s = baseSpec(128);
  s.target = tgc::CompileTarget::cubin(90, true);
  EXPECT_EQ(defaultAttentionTile(s).blockN, 128);
  s.headDimV = 64; // Dqk != Dv
  EXPECT_TRUE(defaultAttentionTile(s).wgmma);
}

TEST(AttentionSpec, RejectsBadWgmmaTiles) {
  AttentionForwardSpec s = baseSpec(128);
  s.tileOverride = AttentionTileConfig{128, 64, 8, false, 1, 2, 1, true};
  EXPECT_NE(errorOf(s).find("needs target sm_90a"), std::string::npos);
  s.target = tgc::CompileTarget::cubin(90);
  EXPECT_NE(errorOf(s).find("needs target sm_90a (the arch-specific sm_90 features), got sm_90"),
            std::string::npos);
  s.target = tgc::CompileTarget::cubin(90, true);
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
  EXPECT_TRUE(contains(src, "tg::device::attention_forward<ForwardConfig>(params, tg::device::NoScoreMod{});"));
  EXPECT_FALSE(contains(src, "#include"));
  // Options are constants of the configuration; the stages are the library's.
  for (const char *off : {"kScoreMod = false", "kDropout = false", "kUpper = false", "kLeft = false",
                          "kSeqLenQ = false, kSeqLenKv = false", "kTraining = false",
                          "kDocumentMask = false", "kWgmma = false"})
    EXPECT_TRUE(contains(src, off)) << off;
  EXPECT_FALSE(contains(src, "struct ScoreMod"));
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
  EXPECT_TRUE(contains(src, "kUpper = true;"));
  EXPECT_TRUE(contains(src, "kBottomRight = true;"));
  EXPECT_TRUE(contains(src, "constexpr int kRightLimit = 0;"));
  EXPECT_TRUE(contains(src, "constexpr int kWindowLeft = 32;"));
  EXPECT_TRUE(contains(src, "kSeqLenQ = false, kSeqLenKv = true;"));
  EXPECT_TRUE(contains(src, "constexpr unsigned kDropoutThreshold = 1073741824u;"));
  EXPECT_TRUE(contains(src, "kDropout = true;"));
  EXPECT_TRUE(contains(src, "kTraining = true;"));
  EXPECT_TRUE(contains(src, "kScoreMod = true;"));
  EXPECT_TRUE(contains(src, "constexpr long long kQueryHeadsPerKvHead = 4;"));
  EXPECT_TRUE(contains(src, "              s = 20.0f * tanhf(s / 20.0f);\n"));
  EXPECT_TRUE(contains(src, "ScoreMod{captures}"));
  // Between the header comment and the configuration is the device library,
  // the same text for every variant.
  auto library = [](const std::string &text) {
    size_t from = text.find("\n// ---- device/");
    return text.substr(from, text.find("// Configuration") - from);
  };
  auto plain = generateAttentionForward(baseSpec(128));
  ASSERT_TRUE(plain);
  EXPECT_EQ(library(src), library(plain->source));
  EXPECT_TRUE(contains(library(src), "// ---- device/attention_fwd.cuh ----"));
  EXPECT_TRUE(contains(src, "const float bias = load_capture_bias(captures, b, h, q_idx, kv_idx);"));
  EXPECT_FALSE(contains(src, "$("));
}

//===----------------------------------------------------------------------===//
// NVRTC compilation of the kernel variants
//===----------------------------------------------------------------------===//

TEST(AttentionNvrtcErrors, WgmmaKernelNeedsSm90a) {
  AttentionForwardSpec s = baseSpec(64);
  s.target = tgc::CompileTarget::cubin(90, true);
  auto k = generateAttentionForward(s);
  ASSERT_TRUE(k);
  NvrtcCompiled c = compileWithNvrtc(k->source, "sm_80", "attention.cu");
  EXPECT_FALSE(c.ok);
  EXPECT_NE(c.log.find("this kernel uses wgmma: compile it for sm_90a"), std::string::npos) << c.log;
}

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
      // ptxas serialises wgmma it cannot keep in flight (C7512, C7515, ...).
      EXPECT_EQ(c.log.find("Potential Performance Loss"), std::string::npos) << var.name << " for " << arch
                                                                             << ":\n" << c.log;
    }
  }
  EXPECT_EQ(k->prepareSource.empty(), !isFp8(var.spec.elementType));
  if (!k->prepareSource.empty()) {
    // The V transpose is portable: it runs wherever the forward does.
    NvrtcCompiled c = compileWithNvrtc(k->prepareSource, "compute_80", "prepare.cu");
    ASSERT_TRUE(c.ok) << var.name << " prepare:\n" << c.log;
    EXPECT_EQ(c.log.find("warning"), std::string::npos) << c.log;
  }
  if (var.spec.decode) {
    NvrtcCompiled c = compileWithNvrtc(k->combineSource, "compute_80", "combine.cu");
    ASSERT_TRUE(c.ok) << var.name << " combine:\n" << c.log;
    EXPECT_EQ(c.log.find("warning"), std::string::npos) << c.log;
  }
}

INSTANTIATE_TEST_SUITE_P(Variants, AttentionNvrtc, ::testing::ValuesIn(variants()),
                         [](const ::testing::TestParamInfo<Variant> &info) {
                           return std::string(info.param.name);
                         });

} // namespace
