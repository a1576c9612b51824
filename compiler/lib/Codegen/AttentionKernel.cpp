// Emits the fused attention forward kernel for one AttentionForwardSpec.
//
// The emitted translation unit is, in order: a header comment (spec and
// tile), the configuration constants, the device helpers (CudaPrelude.cpp),
// the optional Philox generator, the stages as __forceinline__ device
// functions (AttentionKernelTemplates.h plus the spec-dependent ones built
// here: masks, score modifier, dropout), and the kernel, whose body reads as
// the list of stages. Options a spec does not use generate no code.

#include "tg/Codegen/AttentionKernel.h"

#include "AttentionKernelTemplates.h"
#include "AttentionLayout.h"
#include "CudaPrelude.h"
#include "SourceTemplate.h"
#include "TableCaptures.h"
#include "device/philox.cuh" // dropout_threshold

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdio>
#include <sstream>

namespace tg::codegen {

//===----------------------------------------------------------------------===//
// Names and validation
//===----------------------------------------------------------------------===//

const char *toString(AttentionElementType type) {
  return type == AttentionElementType::BF16 ? "bf16" : "f16";
}

const char *toString(AttentionCausalMode mode) {
  switch (mode) {
  case AttentionCausalMode::None:
    return "none";
  case AttentionCausalMode::TopLeft:
    return "top_left";
  case AttentionCausalMode::BottomRight:
    return "bottom_right";
  }
  return "?";
}

const char *toString(CaptureType type) {
  switch (type) {
  case CaptureType::F32:
    return "f32";
  case CaptureType::F16:
    return "f16";
  case CaptureType::BF16:
    return "bf16";
  case CaptureType::I32:
    return "i32";
  case CaptureType::I64:
    return "i64";
  case CaptureType::I8:
    return "i8";
  case CaptureType::Bool:
    return "i1";
  }
  return "?";
}

namespace {

/// Names the score modifier's scope already defines.
bool isReservedName(const std::string &name) {
  static const char *reserved[] = {"s",         "b",         "h",    "q_idx", "kv_idx",
                                   "scores",    "captures",  "m",    "n",     "j",
                                   "half",      "lane",      "n0",   "warp_row0",
                                   "seq_len_q", "seq_len_kv"};
  for (const char *r : reserved)
    if (name == r)
      return true;
  // __x is the implementation's; kX is the configuration's.
  return name.rfind("__", 0) == 0 ||
         (name.size() > 1 && name[0] == 'k' && std::isupper((unsigned char)name[1]));
}

bool hasUpperBound(const AttentionForwardSpec &spec) {
  return spec.causal != AttentionCausalMode::None || spec.windowRight.has_value();
}

/// The window limits are clamped so that index arithmetic stays in int32
/// for any sequence shorter than 2^30 (a larger window masks nothing more).
constexpr double kLog2e = 1.4426950408889634;

constexpr int64_t kWindowClamp = int64_t(1) << 30;

int64_t clampWindow(int64_t w) {
  return std::max(-kWindowClamp, std::min(kWindowClamp, w));
}

/// Last visible key relative to the diagonal: kv_idx <= diag + this.
int64_t rightLimit(const AttentionForwardSpec &spec) {
  if (spec.causal != AttentionCausalMode::None)
    return spec.windowRight ? std::min<int64_t>(0, clampWindow(*spec.windowRight)) : 0;
  return clampWindow(*spec.windowRight);
}

} // namespace

std::string validateAttentionSpec(const AttentionForwardSpec &spec) {
  std::ostringstream err;
  for (auto [name, d] : {std::pair{"QK", spec.headDimQK}, {"V", spec.headDimV}})
    if (d <= 0 || d % 8 != 0 || d > 256) {
      err << "head dim " << name << " is " << d
          << "; expected a multiple of 8 in [8, 256]";
      return err.str();
    }
  if (spec.numHeadsQ <= 0 || spec.numHeadsKV <= 0 ||
      spec.numHeadsQ % spec.numHeadsKV != 0) {
    err << "query heads (" << spec.numHeadsQ
        << ") must be a positive multiple of kv heads (" << spec.numHeadsKV << ")";
    return err.str();
  }
  if (!(spec.dropoutProbability >= 0.0 && spec.dropoutProbability < 1.0)) {
    err << "dropout probability is " << spec.dropoutProbability
        << "; expected a value in [0, 1)";
    return err.str();
  }
  if (!std::isfinite(spec.scale) || spec.scale == 0.0) {
    err << "scale is " << spec.scale << "; expected a finite non-zero value";
    return err.str();
  }
  if (spec.targetSm < 80) {
    err << "target sm_" << spec.targetSm
        << " is not supported; the kernel needs sm_80 or newer (mma.sync bf16, cp.async)";
    return err.str();
  }
  if (std::string problem =
          captureSpecProblem(spec.captures, isReservedName, "s, b, h, q_idx, kv_idx");
      !problem.empty())
    return problem;
  if (!spec.captures.empty() && spec.scoreModifier.empty())
    return "captures are given but the score modifier is empty";
  if (spec.documentMask && (spec.scoreModifier.empty() || spec.documentMask->queryId.empty() ||
                            spec.documentMask->keyId.empty()))
    return "a document mask needs a score modifier (which masks the keys of other documents) "
           "and both id expressions";
  if (spec.tileOverride) {
    const AttentionTileConfig &t = *spec.tileOverride;
    if (t.warps <= 0 || t.blockM <= 0 || t.blockM % (16 * t.warps) != 0) {
      err << "tile " << t.blockM << "x" << t.blockN << " with " << t.warps
          << " warps: blockM must be a multiple of 16 * warps";
      return err.str();
    }
    if (t.blockN < 16 || t.blockN % 16 != 0 || t.blockN > 256) {
      err << "tile blockN " << t.blockN << " must be a multiple of 16 in [16, 256]";
      return err.str();
    }
    if (t.wgmma) {
      if (spec.targetSm != 90 || !spec.archSpecific) {
        err << "the wgmma tile needs target sm_90 with archSpecific (compiled for sm_90a only), "
               "got sm_"
            << spec.targetSm << (spec.archSpecific ? "" : " without archSpecific");
        return err.str();
      }
      if (spec.headDimQK % 64 != 0 || spec.headDimV % 64 != 0) {
        err << "the wgmma tile needs head dims that are multiples of 64 (128-byte swizzle), got "
            << spec.headDimQK << " and " << spec.headDimV;
        return err.str();
      }
      if (t.warps % 4 != 0 || t.blockM != 16 * t.warps) {
        err << "the wgmma tile needs whole warpgroups of 64 rows: blockM = 16 * warps, warps a "
               "multiple of 4 (got "
            << t.blockM << " rows, " << t.warps << " warps)";
        return err.str();
      }
    }
    if (t.prefetch < 1 || t.prefetch > 4 || t.prefetch > t.blockN / 16) {
      err << "fragment prefetch " << t.prefetch << " must be in [1, min(4, blockN / 16)]";
      return err.str();
    }
    if (t.stages != 1 && t.stages != 2) {
      err << "tile with " << t.stages << " K/V stages: expected 1 or 2";
      return err.str();
    }
    if (t.warps > 16 || t.minBlocksPerSM < 1) {
      err << "tile with " << t.warps << " warps and " << t.minBlocksPerSM
          << " blocks per SM is out of range";
      return err.str();
    }
  }
  return "";
}

std::array<unsigned, 3> AttentionKernel::grid(int64_t batch, int64_t numHeadsQ,
                                              int64_t seqLenQ) const {
  int64_t tiles = (seqLenQ + tile.blockM - 1) / tile.blockM;
  return {static_cast<unsigned>(std::max<int64_t>(tiles, 1)),
          static_cast<unsigned>(numHeadsQ), static_cast<unsigned>(batch)};
}

namespace {

//===----------------------------------------------------------------------===//
// Emitter
//===----------------------------------------------------------------------===//

using CaptureInfo = CaptureAccess;

CaptureInfo captureInfo(CaptureType type) {
  switch (type) {
  case CaptureType::F32:
    return {"float", "float", "raw"};
  case CaptureType::F16:
    return {"unsigned short", "float", "f16_bits_to_float(raw)"};
  case CaptureType::BF16:
    return {"unsigned short", "float", "bf16_bits_to_float(raw)"};
  case CaptureType::I32:
    return {"int", "long long", "static_cast<long long>(raw)"};
  case CaptureType::I64:
    return {"long long", "long long", "raw"};
  case CaptureType::I8:
    return {"signed char", "long long", "static_cast<long long>(raw)"};
  case CaptureType::Bool:
    return {"unsigned char", "bool", "raw != 0"};
  }
  return {"float", "float", "raw"};
}

/// The wgmma wrappers for this kernel's shapes: S (m64 x blockN, A and B
/// from shared memory) and O (m64 x Dv, A = P from registers, B = V
/// MN-major). Their operand lists depend on N, so they are generated.
std::string wgmmaHelpers(AttentionElementType type, int blockN, int headDimV) {
  std::string t = type == AttentionElementType::BF16 ? "bf16" : "f16";
  std::ostringstream os;
  os << R"cuda(
// ---------------------------------------------------------------------------
// Device helpers: wgmma (sm_90a)
// ---------------------------------------------------------------------------
#if !defined(__CUDA_ARCH_FEAT_SM90_ALL)
#error "this kernel uses wgmma: compile it for sm_90a"
#endif

__device__ __forceinline__ void wgmma_fence() { asm volatile("wgmma.fence.sync.aligned;\n" ::: "memory"); }
__device__ __forceinline__ void wgmma_commit() { asm volatile("wgmma.commit_group.sync.aligned;\n" ::: "memory"); }
template <int kPending>
__device__ __forceinline__ void wgmma_wait() {
  asm volatile("wgmma.wait_group.sync.aligned %0;\n" :: "n"(kPending) : "memory");
}
// Keeps the compiler from moving accumulator accesses across wgmma fences and waits.
__device__ __forceinline__ void fence_operand(float (&r)[4]) {
#pragma unroll
  for (int e = 0; e < 4; ++e) asm volatile("" : "+f"(r[e]) :: "memory");
}
// cp.async writes shared memory through the generic proxy; wgmma reads it
// through the async proxy.
__device__ __forceinline__ void fence_proxy_async() {
  asm volatile("fence.proxy.async.shared::cta;\n" ::: "memory");
}

// Shared-memory matrix descriptor: start address >> 4 (bits 0-13), leading
// byte offset >> 4 (16-29), stride byte offset >> 4 (32-45), swizzle mode
// (62-63; 1 = 128-byte).
__device__ __forceinline__ unsigned long long make_descriptor(unsigned address, unsigned leading,
                                                              unsigned stride) {
  return static_cast<unsigned long long>((address & 0x3FFFF) >> 4) |
         (static_cast<unsigned long long>(leading >> 4) << 16) |
         (static_cast<unsigned long long>(stride >> 4) << 32) | (1ull << 62);
}
// K-major, 128-byte swizzle: 8-row groups of 128-byte rows are 1024 bytes
// apart; the leading offset is unused (16 by convention).
__device__ __forceinline__ unsigned long long k_major_descriptor(unsigned address) {
  return make_descriptor(address, 16, 1024);
}
// MN-major (V, dims contiguous), 128-byte swizzle: 64-dim blocks are
// kBlockN * 128 bytes apart (leading), 8-key groups 1024 bytes (stride).
__device__ __forceinline__ unsigned long long mn_major_descriptor(unsigned address) {
  return make_descriptor(address, kBlockN * 128, 1024);
}
)cuda";
  auto regList = [](int first, int count) {
    std::string r;
    for (int i = 0; i < count; ++i)
      r += (i ? ", %" : "%") + std::to_string(first + i);
    return r;
  };
  auto accOperands = [](int tiles) {
    std::string r;
    for (int n = 0; n < tiles; ++n)
      for (int e = 0; e < 4; ++e)
        r += std::string(n || e ? ", " : "") + "\"+f\"(d[" + std::to_string(n) + "][" +
             std::to_string(e) + "])";
    return r;
  };
  int sRegs = blockN / 2, oRegs = headDimV / 2;
  os << "\n// S (+)= Q K^T for one k16 step: m64n" << blockN << "k16, A and B from shared memory.\n"
     << "__device__ __forceinline__ void wgmma_scores(float (&d)[" << blockN / 8
     << "][4], unsigned long long desc_a,\n"
     << "                                             unsigned long long desc_b, bool accumulate) {\n"
     << "  asm volatile(\n"
     << "      \"{\\n.reg .pred p;\\nsetp.ne.b32 p, %" << sRegs + 2 << ", 0;\\n\"\n"
     << "      \"wgmma.mma_async.sync.aligned.m64n" << blockN << "k16.f32." << t << "." << t
     << " {" << regList(0, sRegs) << "}, %" << sRegs << ", %" << sRegs + 1
     << ", p, 1, 1, 0, 0;\\n}\\n\"\n"
     << "      : " << accOperands(blockN / 8) << "\n"
     << "      : \"l\"(desc_a), \"l\"(desc_b), \"r\"(static_cast<int>(accumulate)));\n}\n";
  os << "\n// O += P V for one k16 step: m64n" << headDimV
     << "k16, A = P from registers, B = V (MN-major).\n"
     << "__device__ __forceinline__ void wgmma_output(float (&d)[" << headDimV / 8
     << "][4], const unsigned (&a)[4],\n"
     << "                                             unsigned long long desc_b) {\n"
     << "  asm volatile(\n"
     << "      \"{\\n.reg .pred p;\\nsetp.ne.b32 p, %" << oRegs + 5 << ", 0;\\n\"\n"
     << "      \"wgmma.mma_async.sync.aligned.m64n" << headDimV << "k16.f32." << t << "." << t
     << " {" << regList(0, oRegs) << "}, {" << regList(oRegs, 4) << "}, %" << oRegs + 4
     << ", p, 1, 1, 1;\\n}\\n\"\n"
     << "      : " << accOperands(headDimV / 8) << "\n"
     << "      : \"r\"(a[0]), \"r\"(a[1]), \"r\"(a[2]), \"r\"(a[3]), \"l\"(desc_b), \"r\"(1));\n}\n";
  return os.str();
}

class AttentionEmitter {
public:
  AttentionEmitter(const AttentionForwardSpec &spec, AttentionTileConfig tile)
      : spec(spec), tile(tile), layout(attentionLayout(spec, tile)) {
    upper = hasUpperBound(spec);
    left = spec.windowLeft.has_value();
    needsDiagonal = upper || left;
    dropout = spec.dropoutProbability > 0.0;
    // Folding the scale into the exp2 argument needs max(scale * x) =
    // scale * max(x): a positive scale and no modifier in between. Otherwise
    // a score pass computes s = scale * x (and runs the modifier, if any).
    foldScale = spec.scoreModifier.empty() && spec.scale > 0.0;
    modifier = !foldScale;
  }

  AttentionKernel emit();

private:
  std::string headerComment() const;
  std::string configuration() const;
  std::string captureSupport() const;
  std::string masks() const;
  std::string dropoutStage() const;
  std::string epilogue() const;
  std::string kernel() const;
  std::string entryName() const;

  const AttentionForwardSpec &spec;
  AttentionTileConfig tile;
  AttentionSmemLayout layout;
  bool upper, left, needsDiagonal, dropout, modifier, foldScale;
};

std::string AttentionEmitter::headerComment() const {
  std::ostringstream os;
  os << "// tgc fused attention forward (generated by tg::codegen; edit the generator,\n"
     << "// not this file).\n//\n";
  os << "// spec:  " << toString(spec.elementType) << ", head dim qk " << spec.headDimQK
     << " / v " << spec.headDimV << ", " << spec.numHeadsQ << " query heads / "
     << spec.numHeadsKV << " kv heads\n";
  os << "//        causal " << toString(spec.causal) << ", window left "
     << (spec.windowLeft ? std::to_string(*spec.windowLeft) : "none") << " right "
     << (spec.windowRight ? std::to_string(*spec.windowRight) : "none") << ", padding q "
     << (spec.hasSeqLenQ ? "yes" : "no") << " kv " << (spec.hasSeqLenKv ? "yes" : "no")
     << "\n";
  os << "//        dropout " << spec.dropoutProbability << ", training "
     << (spec.training ? "yes" : "no") << ", scale " << spec.scale
     << ", score modifier " << (modifier ? "yes" : "no") << ", "
     << spec.captures.size() << " captures\n";
  os << "// tile:  " << tile.blockM << " query rows x " << tile.blockN << " keys, "
     << tile.warps << " warps of " << tile.blockM / tile.warps << " rows, Q in "
     << (tile.qInRegisters ? "registers" : "shared memory") << ", "
     << (tile.stages > 1 ? "K/V double-buffered" : "single K and V buffers (split loads)") << ", "
     << (tile.wgmma ? "wgmma (sm_90a), " : "mma.sync, ")
     << layout.totalBytes << " bytes of shared memory\n";
  os << "//\n// Stages per CTA: load Q -> for each visible K/V tile (the next one in flight):\n"
     << "// S = Q K^T -> "
     << (modifier ? "score modifier -> " : "") << "masks (boundary tiles only) -> online softmax -> "
     << (dropout ? "dropout -> " : "") << "O += P V -> epilogue: O / rowsum"
     << (spec.training ? ", log-sum-exp" : "") << ".\n";
  return os.str();
}

std::string AttentionEmitter::configuration() const {
  SourceTemplate t;
  t.set("HEAD_DIM_QK", spec.headDimQK)
      .set("HEAD_DIM_QK_PADDED", layout.headDimQKPadded)
      .set("HEAD_DIM_V", spec.headDimV)
      .set("BLOCK_M", tile.blockM)
      .set("BLOCK_N", tile.blockN)
      .set("WARPS", tile.warps)
      .set("MIN_BLOCKS", tile.minBlocksPerSM)
      .set("QK_PITCH", layout.qkPitch)
      .set("V_PITCH", layout.vPitch)
      .set("O_PITCH", layout.oPitch)
      .set("Q_REGION_PITCH", layout.qRegionPitch)
      .set("Q_REGION_BYTES", layout.qRegionBytes)
      .set("K_STAGE_BYTES", layout.kStageBytes)
      .set("V_STAGE_BYTES", layout.vStageBytes)
      .set("SMEM_BYTES", layout.totalBytes - layout.alignSlack)
      .set("STAGES", tile.stages)
      .set("PREFETCH_DECL",
           tile.wgmma ? std::string()
                      : "constexpr int kFragmentPrefetch = " + std::to_string(tile.prefetch) +
                            ";  // ldmatrix this many mma steps ahead\n")
      .set("GROUP", spec.numHeadsQ / spec.numHeadsKV)
      .set("SCORE_SCALE_DECL",
           foldScale ? std::string()
                     : "constexpr float kScoreScale = " + floatLiteral(spec.scale) +
                           ";  // s = kScoreScale * (q . k)\n")
      .set("SOFTMAX_SCALE_LOG2",
           floatLiteral(foldScale ? spec.scale * kLog2e : kLog2e))
      .set("SUBTRACT_MAX_FIRST", modifier ? "true" : "false")
      .set("SOFTMAX_SCALE_NOTE",
           foldScale ? "x is the raw dot product q.k: the score scale is folded in"
                     : "x is the score after scaling and the score modifier");
  std::string text = t.expand(R"cuda(
// ---------------------------------------------------------------------------
// Configuration
// ---------------------------------------------------------------------------
constexpr int kHeadDimQK = $(HEAD_DIM_QK);
constexpr int kHeadDimQKPadded = $(HEAD_DIM_QK_PADDED);  // multiple of the mma k-step (16); pad columns hold zeros
constexpr int kHeadDimV = $(HEAD_DIM_V);
constexpr int kBlockM = $(BLOCK_M);  // query rows per CTA
constexpr int kBlockN = $(BLOCK_N);  // keys per K/V tile
constexpr int kWarps = $(WARPS);
constexpr int kThreads = kWarps * 32;
constexpr int kMinBlocksPerSM = $(MIN_BLOCKS);  // occupancy the register budget is sized for
constexpr int kWarpRows = kBlockM / kWarps;     // query rows owned by one warp
constexpr int kMTiles = kWarpRows / 16;         // m16 mma tiles per warp
constexpr int kNTiles = kBlockN / 8;            // n8 score tiles per K tile
constexpr int kQKSteps = kHeadDimQKPadded / 16; // k16 steps of S = Q K^T
constexpr int kPVSteps = kBlockN / 16;          // k16 steps of O += P V
constexpr int kOTiles = kHeadDimV / 8;          // n8 output tiles
constexpr int kStages = $(STAGES);              // K and V buffers in shared memory
$(PREFETCH_DECL)

// Shared memory: [Q tile (later O staging) | K stages | V stages]. Row pitches
// are an odd number of 16-byte chunks: the 8 rows one ldmatrix reads then
// fall in 8 different groups of 4 banks (no bank conflicts). Pitch 0 means the
// 128-byte-swizzled layout that wgmma reads (tile_offset).
constexpr int kQKPitch = $(QK_PITCH);
constexpr int kVPitch = $(V_PITCH);
constexpr int kOPitch = $(O_PITCH);
constexpr int kQRegionPitch = $(Q_REGION_PITCH);
constexpr unsigned kQRegionBytes = $(Q_REGION_BYTES);
constexpr unsigned kKStageBytes = $(K_STAGE_BYTES);
constexpr unsigned kVStageBytes = $(V_STAGE_BYTES);
static_assert(kQRegionBytes + kStages * (kKStageBytes + kVStageBytes) == $(SMEM_BYTES),
              "the layout fills exactly the launch's dynamic shared memory");

constexpr long long kQueryHeadsPerKvHead = $(GROUP);  // GQA: kv head = h / this

$(SCORE_SCALE_DECL)// Softmax in base 2: exp(s - max s) = exp2(x * kSoftmaxScaleLog2 - max_x * kSoftmaxScaleLog2),
// where $(SOFTMAX_SCALE_NOTE).
constexpr float kSoftmaxScaleLog2 = $(SOFTMAX_SCALE_LOG2);
// Scores may be huge finite values (additive finfo.min masks): the online
// softmax subtracts the max before scaling (see online_softmax).
constexpr bool kSubtractMaxFirst = $(SUBTRACT_MAX_FIRST);
)cuda");
  if (spec.training)
    text += "constexpr float kLn2 = 0.693147181f;  // log-sum-exp back to natural log\n"
            "constexpr float kSoftmaxScale = " +
            floatLiteral(foldScale ? spec.scale : 1.0) +
            ";  // kSoftmaxScaleLog2 in natural units (log-sum-exp)\n";
  if (needsDiagonal) {
    std::ostringstream os;
    os << "\n// Masks relative to the diagonal key diag = q_idx + diag_shift ("
       << (spec.causal == AttentionCausalMode::BottomRight
               ? "bottom_right: diag_shift = len_kv - len_q"
               : "top_left: diag_shift = 0")
       << ").\n";
    if (upper)
      os << "constexpr int kRightLimit = " << rightLimit(spec)
         << ";  // keys kv_idx <= diag + kRightLimit are visible"
         << (spec.causal != AttentionCausalMode::None ? " (causal)" : "") << "\n";
    if (left)
      os << "constexpr int kWindowLeft = " << clampWindow(*spec.windowLeft)
         << ";  // keys kv_idx >= diag - kWindowLeft are visible\n";
    text += os.str();
  }
  if (dropout) {
    std::ostringstream os;
    os << "\n// Dropout with probability " << spec.dropoutProbability << ".\n"
       << "constexpr unsigned kDropoutThreshold = " << dropout_threshold(spec.dropoutProbability)
       << "u;  // floor(p * 2^32): keep iff Philox word >= this\n"
       << "constexpr float kDropoutRescale = " << floatLiteral(1.0 / (1.0 - spec.dropoutProbability))
       << ";  // 1 / (1 - p), applied with the softmax normalisation\n";
    text += os.str();
  }
  return text;
}

std::string AttentionEmitter::captureSupport() const {
  std::ostringstream os;
  os << R"cuda(
// ---------------------------------------------------------------------------
// Stage: score modifier (tg.attention's score region)
// ---------------------------------------------------------------------------
// Captured tensors broadcast to [B, Hq, Sq, Skv] through their strides (0 along
// broadcast dimensions).
// Table captures (tg.gather) are read at indices the modifier computes, each
// clamped to its dimension.
struct Captures {
)cuda";
  for (const AttentionCapture &c : spec.captures) {
    CaptureInfo info = captureInfo(c.type);
    if (c.tableRank > 0) {
      os << tableCaptureFields(c, info);
      continue;
    }
    os << "  const " << info.pointerType << " *" << c.name << ";  // " << toString(c.type)
       << "\n  long long " << c.name << "_stride_b, " << c.name << "_stride_h, " << c.name
       << "_stride_q, " << c.name << "_stride_kv;\n";
  }
  if (spec.captures.empty())
    os << "  int unused;  // no captured tensors\n";
  os << "};\n";
  for (const AttentionCapture &c : spec.captures) {
    CaptureInfo info = captureInfo(c.type);
    if (c.tableRank > 0) {
      os << tableCaptureReaders(c, info);
      continue;
    }
    os << "\n__device__ __forceinline__ " << info.valueType << " load_capture_" << c.name
       << "(const Captures &captures, long long b, long long h, long long q_idx,\n"
       << "                                                long long kv_idx) {\n"
       << "  const " << info.pointerType << " raw = captures." << c.name << "[b * captures."
       << c.name << "_stride_b + h * captures." << c.name << "_stride_h +\n"
       << "      q_idx * captures." << c.name << "_stride_q + kv_idx * captures." << c.name
       << "_stride_kv];\n"
       << "  return " << info.convert << ";\n}\n";
  }
  if (spec.documentMask)
    os << "\n// The document ids of the document mask (the modifier masks keys of another\n"
       << "// document; these reads are the same as its own).\n"
       << "__device__ __forceinline__ long long document_of_query(const Captures &captures, "
          "long long b,\n"
       << "                                                      long long h, long long q_idx) {\n"
       << "  return " << spec.documentMask->queryId << ";\n}\n"
       << "__device__ __forceinline__ long long document_of_key(const Captures &captures, "
          "long long b,\n"
       << "                                                    long long h, long long kv_idx) {\n"
       << "  return " << spec.documentMask->keyId << ";\n}\n";
  os << R"cuda(
// Rewrites each score s = kScoreScale * (q . k) with the modifier. Rows and keys
// past the end of the tensors are clamped to the last one: their scores are
// never used (rows are not stored, keys are masked) and captures are never read
// out of bounds.
__device__ __forceinline__ void apply_score_modifier(float (&scores)[kMTiles][kNTiles][4],
                                                     const Captures &captures, long long b,
                                                     long long h, int warp_row0, int n0, int lane,
                                                     long long seq_len_q, long long seq_len_kv) {
#pragma unroll
  for (int m = 0; m < kMTiles; ++m) {
#pragma unroll
    for (int half = 0; half < 2; ++half) {
      long long q_idx = warp_row0 + m * 16 + lane / 4 + 8 * half;
      q_idx = q_idx < seq_len_q ? q_idx : seq_len_q - 1;
#pragma unroll
      for (int n = 0; n < kNTiles; ++n) {
#pragma unroll
        for (int j = 0; j < 2; ++j) {
          long long kv_idx = n0 + n * 8 + 2 * (lane % 4) + j;
          kv_idx = kv_idx < seq_len_kv ? kv_idx : seq_len_kv - 1;
          float s = scores[m][n][2 * half + j] * kScoreScale;
)cuda";
  for (const AttentionCapture &c : spec.captures)
    if (c.tableRank == 0)
      os << "          const " << captureInfo(c.type).valueType << " " << c.name
         << " = load_capture_" << c.name << "(captures, b, h, q_idx, kv_idx);\n";
  os << "          {  // --- score modifier ---\n";
  std::istringstream lines(spec.scoreModifier);
  for (std::string line; std::getline(lines, line);)
    os << "            " << line << "\n";
  os << R"cuda(          }  // --- end of score modifier ---
          scores[m][n][2 * half + j] = s;
        }
      }
    }
  }
}
)cuda";
  return os.str();
}

std::string AttentionEmitter::masks() const {
  std::ostringstream os;
  os << R"cuda(
// ---------------------------------------------------------------------------
// Stage: masks (only K/V tiles on a mask boundary; the others skip this)
// ---------------------------------------------------------------------------
// Sets s = -inf where key kv_idx is not visible from query row q_idx: keys past
// the sequence (kv_idx >= len_kv))cuda";
  if (upper)
    os << ", keys after diag + kRightLimit";
  if (left)
    os << ", keys before diag - kWindowLeft";
  os << ".\n";
  os << "__device__ __forceinline__ void apply_masks(float (&s)[kMTiles][kNTiles][4], int "
        "warp_row0, int n0,\n"
     << "                                            int lane, int len_kv"
     << (needsDiagonal ? ", int diag_shift" : "") << ") {\n";
  os << R"cuda(#pragma unroll
  for (int m = 0; m < kMTiles; ++m) {
#pragma unroll
    for (int half = 0; half < 2; ++half) {
)cuda";
  if (needsDiagonal)
    os << "      const int diag = warp_row0 + m * 16 + lane / 4 + 8 * half + diag_shift;\n";
  os << R"cuda(#pragma unroll
      for (int n = 0; n < kNTiles; ++n) {
#pragma unroll
        for (int j = 0; j < 2; ++j) {
          const int kv_idx = n0 + n * 8 + 2 * (lane % 4) + j;
          bool visible = kv_idx < len_kv;
)cuda";
  if (upper)
    os << "          visible = visible && kv_idx <= diag + kRightLimit;\n";
  if (left)
    os << "          visible = visible && kv_idx >= diag - kWindowLeft;\n";
  os << R"cuda(          if (!visible) s[m][n][2 * half + j] = neg_inf();
        }
      }
    }
  }
}
)cuda";
  return os.str();
}

std::string AttentionEmitter::dropoutStage() const {
  return R"cuda(
// ---------------------------------------------------------------------------
// Stage: dropout on the unnormalised probabilities
// ---------------------------------------------------------------------------
// The row sums were taken before this stage (the softmax normalises over all
// keys); the 1 / (1 - p) rescale is applied with the normalisation.
__device__ __forceinline__ void apply_dropout(float (&p)[kMTiles][kNTiles][4], PhiloxKey key,
                                              unsigned long long offset, long long b, long long h,
                                              long long num_heads_q, int warp_row0, int n0, int lane,
                                              long long seq_len_q, long long seq_len_kv) {
#pragma unroll
  for (int m = 0; m < kMTiles; ++m) {
#pragma unroll
    for (int half = 0; half < 2; ++half) {
      const long long q_idx = warp_row0 + m * 16 + lane / 4 + 8 * half;
      // Linear index of (b, h, q_idx, 0) in [B, Hq, Sq, Skv].
      const unsigned long long row_index =
          static_cast<unsigned long long>(((b * num_heads_q + h) * seq_len_q + q_idx) * seq_len_kv);
#pragma unroll
      for (int n = 0; n < kNTiles; ++n) {
        const int kv_idx = n0 + n * 8 + 2 * (lane % 4);
        bool keep0, keep1;
        dropout_keep_pair(row_index + kv_idx, key, offset, kDropoutThreshold, keep0, keep1);
        if (!keep0) p[m][n][2 * half] = 0.0f;
        if (!keep1) p[m][n][2 * half + 1] = 0.0f;
      }
    }
  }
}
)cuda";
}

std::string AttentionEmitter::epilogue() const {
  std::ostringstream os;
  os << R"cuda(
// ---------------------------------------------------------------------------
// Stage: epilogue
// ---------------------------------------------------------------------------
// O / rowsum rounded to the element type, staged through shared memory (each
// warp its own rows) so that global stores are 16 bytes wide. Rows with no
// visible key (rowsum 0) and padding rows (q_idx >= len_q) become zeros with
// log-sum-exp -inf.
__device__ __forceinline__ void store_output(const float (&o_acc)[kMTiles][kOTiles][4],
                                             const float (&row_max)[kMTiles][2],
                                             const float (&row_sum)[kMTiles][2],
                                             unsigned char *smem, elem_t *o_tile,
                                             long long o_stride_s, float *lse_tile, int m0,
                                             int warp, int lane, int len_q, long long seq_len_q) {
  elem_t *o_stage = reinterpret_cast<elem_t *>(smem);
#pragma unroll
  for (int m = 0; m < kMTiles; ++m) {
#pragma unroll
    for (int half = 0; half < 2; ++half) {
      const int row = warp * kWarpRows + m * 16 + lane / 4 + 8 * half;  // within the CTA tile
      const float sum = quad_sum(row_sum[m][half]);
      const bool has_keys = sum > 0.0f && m0 + row < len_q;
)cuda";
  os << "      const float inv_sum = has_keys ? "
     << (dropout ? "kDropoutRescale / sum" : "1.0f / sum") << " : 0.0f;\n";
  if (spec.training)
    os << R"cuda(      if (lse_tile != nullptr && lane % 4 == 0 && m0 + row < seq_len_q) {
        // Natural-log log-sum-exp of the scaled, modified, masked scores. The
        // max is scaled in natural units (not base 2) so that a huge finite
        // max (finfo.min masks) does not overflow.
        lse_tile[row] = has_keys ? row_max[m][half] * kSoftmaxScale + log2f(sum) * kLn2
                                 : neg_inf();
      }
)cuda";
  os << R"cuda(#pragma unroll
      for (int d = 0; d < kOTiles; ++d) {
        const unsigned packed =
            pack_elem_x2(o_acc[m][d][2 * half] * inv_sum, o_acc[m][d][2 * half + 1] * inv_sum);
        *reinterpret_cast<unsigned *>(&o_stage[row * kOPitch + d * 8 + 2 * (lane % 4)]) = packed;
      }
    }
  }
  __syncwarp();
  constexpr int kChunksPerRow = kHeadDimV / 8;  // 16-byte chunks
#pragma unroll
  for (int i = 0; i < (kWarpRows * kChunksPerRow + 31) / 32; ++i) {
    const int chunk = lane + 32 * i;
    const int row = warp * kWarpRows + chunk / kChunksPerRow;
    const int col = (chunk % kChunksPerRow) * 8;
    if (chunk < kWarpRows * kChunksPerRow && m0 + row < seq_len_q) {
      *reinterpret_cast<uint4 *>(o_tile + row * o_stride_s + col) =
          *reinterpret_cast<const uint4 *>(&o_stage[row * kOPitch + col]);
    }
  }
}
)cuda";
  return os.str();
}

std::string AttentionEmitter::entryName() const {
  // FNV-1a over the spec summary keeps names of different variants distinct
  // in logs and profiles.
  std::string summary = headerComment() + spec.scoreModifier;
  uint32_t hash = 2166136261u;
  for (unsigned char c : summary)
    hash = (hash ^ c) * 16777619u;
  char buf[96];
  std::snprintf(buf, sizeof(buf), "tg_attention_fwd_%s_d%d_%08x", toString(spec.elementType),
                spec.headDimQK, hash);
  return buf;
}

std::string AttentionEmitter::kernel() const {
  std::ostringstream os;
  os << R"cuda(
// ---------------------------------------------------------------------------
// The kernel: one CTA per (query tile, query head, batch)
// ---------------------------------------------------------------------------
extern "C" __global__ void __launch_bounds__(kThreads, kMinBlocksPerSM)
)cuda";
  os << entryName() << "(\n";
  os << R"cuda(    const elem_t *__restrict__ q, const elem_t *__restrict__ k, const elem_t *__restrict__ v,
    elem_t *__restrict__ o, float *__restrict__ lse, const int *__restrict__ seq_lens_q,
    const int *__restrict__ seq_lens_kv, const long long *__restrict__ dropout_seed,
    const long long *__restrict__ dropout_offset, long long batch, long long num_heads_q,
    long long seq_len_q, long long seq_len_kv,
    long long q_stride_b, long long q_stride_h, long long q_stride_s,
    long long k_stride_b, long long k_stride_h, long long k_stride_s,
    long long v_stride_b, long long v_stride_h, long long v_stride_s,
    long long o_stride_b, long long o_stride_h, long long o_stride_s)cuda";
  for (const AttentionCapture &c : spec.captures) {
    if (c.tableRank > 0) {
      os << tableCaptureParams(c, captureInfo(c.type));
      continue;
    }
    os << ",\n    const " << captureInfo(c.type).pointerType << " *__restrict__ capture_" << c.name
       << ", long long " << c.name << "_stride_b, long long " << c.name << "_stride_h, long long "
       << c.name << "_stride_q, long long " << c.name << "_stride_kv";
  }
  os << ") {\n";
  if (tile.wgmma)
    os << R"cuda(  extern __shared__ __align__(1024) unsigned char smem_raw[];
  // The swizzled tiles need 1024-byte alignment (the launch reserves the slack).
  unsigned char *smem = smem_raw + ((1024 - (shared_address(smem_raw) & 1023)) & 1023);
)cuda";
  else
    os << "  extern __shared__ __align__(16) unsigned char smem[];\n";
  os << R"cuda(  const int tid = threadIdx.x;
  const int warp = tid / 32;
  const int lane = tid % 32;

  // --- Which tile: query rows [m0, m0 + kBlockM) of head h in batch b ---
)cuda";
  if (upper)
    os << "  // Heaviest tiles (most visible keys) first: they start in the first wave.\n"
       << "  const int m_block = static_cast<int>(gridDim.x - 1 - blockIdx.x);\n";
  else
    os << "  const int m_block = static_cast<int>(blockIdx.x);\n";
  os << R"cuda(  const long long h = blockIdx.y;
  const long long b = blockIdx.z;
  const long long h_kv = h / kQueryHeadsPerKvHead;
  const int m0 = m_block * kBlockM;
  const int warp_row0 = m0 + warp * kWarpRows;  // first query row of this warp

  // --- Actual lengths: rows >= len_q and keys >= len_kv are padding ---
)cuda";
  if (spec.hasSeqLenQ)
    os << "  const int len_q = imax(0, imin(seq_lens_q[b], static_cast<int>(seq_len_q)));\n";
  else
    os << "  const int len_q = static_cast<int>(seq_len_q);\n";
  if (spec.hasSeqLenKv)
    os << "  const int len_kv = imax(0, imin(seq_lens_kv[b], static_cast<int>(seq_len_kv)));\n";
  else
    os << "  const int len_kv = static_cast<int>(seq_len_kv);\n";

  if (modifier) {
    os << "  const Captures captures{";
    if (spec.captures.empty())
      os << "0";
    for (size_t i = 0; i < spec.captures.size(); ++i) {
      const std::string &n = spec.captures[i].name;
      os << (i ? ",\n                          " : "");
      if (spec.captures[i].tableRank > 0) {
        os << tableCaptureInitializer(spec.captures[i]);
        continue;
      }
      os << "capture_" << n << ", " << n << "_stride_b, " << n << "_stride_h, " << n << "_stride_q, " << n << "_stride_kv";
    }
    os << "};\n";
  }
  os << "\n  // --- Visible K/V tiles: whole tiles outside the masks are skipped ---\n";
  if (needsDiagonal) {
    if (spec.causal == AttentionCausalMode::BottomRight)
      os << "  const int diag_shift = len_kv - len_q;  // bottom_right: diag = q_idx + len_kv - "
            "len_q\n";
    else
      os << "  const int diag_shift = 0;  // top_left: diag = q_idx\n";
  }
  os << "  int kv_begin = 0, kv_end = len_kv;\n";
  if (upper)
    os << "  {\n"
       << "    const int last_row = imin(m0 + kBlockM, len_q) - 1;\n"
       << "    kv_end = imin(kv_end, last_row + diag_shift + kRightLimit + 1);\n"
       << "  }\n";
  if (left)
    os << "  kv_begin = imax(0, m0 + diag_shift - kWindowLeft);\n";
  if (spec.documentMask)
    os << R"cuda(  {
    // Document mask: a key is visible only if its document id equals a row's,
    // so only keys whose id lies in [min, max] of this tile's row ids can be;
    // the range shrinks to the first and last of them (packed sequences: the
    // tile's own documents). Keys inside it are still masked by the region.
    constexpr long long largest = 9223372036854775807LL, smallest = -largest - 1;
    // id min, id max, first key, last key: in the Q region, not loaded yet.
    long long *document_bounds = reinterpret_cast<long long *>(smem);
    if (tid == 0) {
      document_bounds[0] = largest; document_bounds[1] = smallest;
      document_bounds[2] = largest; document_bounds[3] = smallest;
    }
    __syncthreads();
    long long id_min = largest, id_max = smallest;
    for (int r = tid; r < kBlockM && m0 + r < len_q; r += kThreads) {
      const long long id = document_of_query(captures, b, h, m0 + r);
      id_min = id < id_min ? id : id_min;
      id_max = id > id_max ? id : id_max;
    }
    atomicMin(&document_bounds[0], id_min);
    atomicMax(&document_bounds[1], id_max);
    __syncthreads();
    id_min = document_bounds[0];
    id_max = document_bounds[1];
    long long first = largest, last = smallest;
    for (int j = kv_begin + tid; j < kv_end; j += kThreads) {
      const long long id = document_of_key(captures, b, h, j);
      if (id >= id_min && id <= id_max) {
        first = j < first ? j : first;
        last = j;
      }
    }
    atomicMin(&document_bounds[2], first);
    atomicMax(&document_bounds[3], last);
    __syncthreads();
    first = document_bounds[2];
    last = document_bounds[3];
    __syncthreads();  // the bounds are read before the Q tile lands there
    if (last < first) {
      kv_end = kv_begin;  // no key of these documents: every score is masked
    } else {
      kv_begin = static_cast<int>(first);
      kv_end = static_cast<int>(last) + 1;
    }
  }
)cuda";
  os << R"cuda(  const int tile_begin = kv_begin / kBlockN;
  int tile_end = kv_end > kv_begin ? (kv_end + kBlockN - 1) / kBlockN : tile_begin;
  if (m0 >= len_q) tile_end = tile_begin;  // only padding rows: no keys needed
)cuda";

  os << R"cuda(
  const elem_t *q_tile = q + b * q_stride_b + h * q_stride_h + m0 * q_stride_s;
  const elem_t *k_head = k + b * k_stride_b + h_kv * k_stride_h;
  const elem_t *v_head = v + b * v_stride_b + h_kv * v_stride_h;
  const unsigned smem_q = shared_address(smem);
  const unsigned smem_k = smem_q + kQRegionBytes;
  const unsigned smem_v = smem_k + kStages * kKStageBytes;
)cuda";
  if (dropout)
    os << R"cuda(  const unsigned long long seed = static_cast<unsigned long long>(*dropout_seed);
  const PhiloxKey philox_key{static_cast<unsigned>(seed), static_cast<unsigned>(seed >> 32)};
  const unsigned long long philox_offset = static_cast<unsigned long long>(*dropout_offset);
)cuda";

  os << R"cuda(
  // --- Accumulators: O, and per row the running max and (per lane) sum ---
  float o_acc[kMTiles][kOTiles][4];
  float row_max[kMTiles][2], row_sum[kMTiles][2];
#pragma unroll
  for (int m = 0; m < kMTiles; ++m) {
#pragma unroll
    for (int d = 0; d < kOTiles; ++d)
#pragma unroll
      for (int e = 0; e < 4; ++e) o_acc[m][d][e] = 0.0f;
    row_max[m][0] = row_max[m][1] = neg_inf();
    row_sum[m][0] = row_sum[m][1] = 0.0f;
  }
)cuda";
  if (tile.qInRegisters)
    os << "  unsigned q_frag[kMTiles][kQKSteps][4];\n";

  os << "\n  if (tile_begin < tile_end) {\n";
  if (layout.headDimQKPadded != spec.headDimQK)
    os << R"cuda(    // Zero the pad columns [kHeadDimQK, kHeadDimQKPadded) of Q and both K stages
    // once: the copies never write them and the k-step reads them.
    constexpr int kPad = kHeadDimQKPadded - kHeadDimQK;
    for (int i = tid; i < kBlockM * kPad; i += kThreads)
      reinterpret_cast<elem_t *>(smem)[(i / kPad) * kQRegionPitch + kHeadDimQK + i % kPad] = 0;
    for (int i = tid; i < kStages * kBlockN * kPad; i += kThreads)
      reinterpret_cast<elem_t *>(smem + kQRegionBytes)[(i / kPad) * kQKPitch + kHeadDimQK + i % kPad] = 0;
)cuda";
  os << R"cuda(    // --- Prologue: Q tile, then the first K/V tile into stage 0 ---
    load_tile_async<kBlockM, kHeadDimQK, kQRegionPitch, true>(smem_q, q_tile, q_stride_s,
                                                               static_cast<int>(seq_len_q) - m0, tid);
    cp_async_commit();
    load_k_tile(smem_k, k_head, k_stride_s, tile_begin * kBlockN, len_kv, tid);
)cuda";
  if (tile.stages > 1)
    os << "    load_v_tile(smem_v, v_head, v_stride_s, tile_begin * kBlockN, len_kv, tid);\n";
  os << "    cp_async_commit();\n";
  if (tile.qInRegisters)
    os << R"cuda(    cp_async_wait<1>();  // Q has landed
    __syncthreads();
#pragma unroll
    for (int m = 0; m < kMTiles; ++m)
#pragma unroll
      for (int ks = 0; ks < kQKSteps; ++ks) load_q_fragment(q_frag[m][ks], smem_q, warp * kWarpRows, m, ks, lane);
)cuda";
  os << "  }\n";

  if (tile.stages > 1)
    os << R"cuda(
  // --- Main loop over the visible K/V tiles (double-buffered) ---
  for (int tile = tile_begin; tile < tile_end; ++tile) {
    const int stage = (tile - tile_begin) % kStages;
    const int n0 = tile * kBlockN;
    // Tile `tile` has landed, and every warp is done with the other stage.
    cp_async_wait<0>();
    __syncthreads();
    // Prefetch the next tile into the other stage; it lands during this tile's math.
    if (tile + 1 < tile_end) {
      const int next = (stage + 1) % kStages;
      load_k_tile(smem_k + next * kKStageBytes, k_head, k_stride_s, n0 + kBlockN, len_kv, tid);
      load_v_tile(smem_v + next * kVStageBytes, v_head, v_stride_s, n0 + kBlockN, len_kv, tid);
    }
    cp_async_commit();
    const unsigned smem_k_tile = smem_k + stage * kKStageBytes;
    const unsigned smem_v_tile = smem_v + stage * kVStageBytes;

    float s[kMTiles][kNTiles][4];
)cuda";
  else
    os << R"cuda(
  // --- Main loop over the visible K/V tiles (one K and one V buffer) ---
  for (int tile = tile_begin; tile < tile_end; ++tile) {
    const int n0 = tile * kBlockN;
    const unsigned smem_k_tile = smem_k, smem_v_tile = smem_v;
    // K tile `tile` has landed, and every warp is done with the previous V.
    cp_async_wait<0>();
    __syncthreads();
    // V streams in while S = Q K^T is computed.
    load_v_tile(smem_v_tile, v_head, v_stride_s, n0, len_kv, tid);
    cp_async_commit();

    float s[kMTiles][kNTiles][4];
)cuda";
  if (tile.wgmma)
    os << "    compute_scores(s, smem_q, warp, smem_k_tile);\n";
  else if (tile.qInRegisters)
    os << "    compute_scores(s, q_frag, smem_k_tile, lane);\n";
  else
    os << "    compute_scores(s, smem_q, warp * kWarpRows, smem_k_tile, lane);\n";
  if (modifier)
    os << "    apply_score_modifier(s, captures, b, h, warp_row0, n0, lane, seq_len_q, seq_len_kv);\n";
  os << "    // Mask-free tiles (the common case) skip the per-element tests.\n";
  os << "    const bool boundary_tile = n0 + kBlockN > len_kv";
  if (upper)
    os << " ||\n        n0 + kBlockN - 1 > m0 + diag_shift + kRightLimit";
  if (left)
    os << " ||\n        n0 < m0 + kBlockM - 1 + diag_shift - kWindowLeft";
  os << ";\n";
  os << "    if (boundary_tile) apply_masks(s, warp_row0, n0, lane, len_kv"
     << (needsDiagonal ? ", diag_shift" : "") << ");\n";
  if (tile.stages == 1)
    os << R"cuda(    // V has landed, and every warp is done with K: the next K streams in
    // during the softmax and P V.
    cp_async_wait<0>();
    __syncthreads();
    if (tile + 1 < tile_end) load_k_tile(smem_k_tile, k_head, k_stride_s, n0 + kBlockN, len_kv, tid);
    cp_async_commit();
)cuda";
  os << "    online_softmax(s, row_max, row_sum, o_acc);\n";
  if (dropout)
    os << "    apply_dropout(s, philox_key, philox_offset, b, h, num_heads_q, warp_row0, n0, lane, seq_len_q, "
          "seq_len_kv);\n";
  os << (tile.wgmma ? "    accumulate_pv(o_acc, s, smem_v_tile);\n"
                    : "    accumulate_pv(o_acc, s, smem_v_tile, lane);\n");
  os << "  }\n";

  os << R"cuda(
  // --- Epilogue (the Q region becomes the O staging buffer) ---
  cp_async_wait<0>();
  __syncthreads();
  elem_t *o_tile = o + b * o_stride_b + h * o_stride_h + m0 * o_stride_s;
)cuda";
  if (spec.training)
    os << "  float *lse_tile = lse + (b * num_heads_q + h) * seq_len_q + m0;\n";
  else
    os << "  float *lse_tile = nullptr;\n";
  os << "  store_output(o_acc, row_max, row_sum, smem, o_tile, o_stride_s, lse_tile, m0, warp, "
        "lane, len_q,\n               seq_len_q);\n";
  os << "}\n";
  std::string text = os.str();
  if (tile.wgmma) {
    // Copies that wgmma reads next: the generic-to-async proxy fence goes
    // between the wait and the barrier.
    const std::string wait = "    cp_async_wait<0>();\n    __syncthreads();\n";
    const std::string fenced = "    cp_async_wait<0>();\n    fence_proxy_async();  // wgmma reads these copies\n"
                               "    __syncthreads();\n";
    for (size_t at = text.find(wait); at != std::string::npos; at = text.find(wait, at + fenced.size()))
      text.replace(at, wait.size(), fenced);
  }
  return text;
}

AttentionKernel AttentionEmitter::emit() {
  std::string src = headerComment();
  src += configuration();
  src += cudaPrelude(spec.elementType);
  if (dropout)
    src += cudaPhiloxSource();
  if (tile.wgmma)
    src += wgmmaHelpers(spec.elementType, tile.blockN, spec.headDimV);
  src += templates::kTileLoads;
  if (!tile.wgmma) {
    src += templates::kQFragments;
    src += tile.qInRegisters ? templates::kScoresQInRegisters : templates::kScoresQInShared;
  }
  if (modifier)
    src += captureSupport();
  src += masks();
  src += templates::kOnlineSoftmax;
  if (dropout)
    src += dropoutStage();
  src += tile.wgmma ? templates::kWgmmaStages : templates::kAccumulatePV;
  src += epilogue();
  src += kernel();

  AttentionKernel k;
  k.source = std::move(src);
  k.entry = entryName();
  k.tile = tile;
  k.threads = unsigned(tile.warps) * 32;
  k.sharedBytes = layout.totalBytes;
  k.numParams = 25;
  for (const AttentionCapture &c : spec.captures)
    k.numParams += c.tableRank > 0 ? tableCaptureParamCount(c) : 5;
  k.requiredTarget = tile.wgmma ? "sm_90a" : "";
  return k;
}

} // namespace

std::optional<AttentionKernel> generateAttentionForward(const AttentionForwardSpec &spec,
                                                        std::string *error) {
  std::string problem = validateAttentionSpec(spec);
  if (!problem.empty()) {
    if (error)
      *error = problem;
    return std::nullopt;
  }
  AttentionTileConfig tile = spec.tileOverride ? *spec.tileOverride : defaultAttentionTile(spec);
  return AttentionEmitter(spec, tile).emit();
}

} // namespace tg::codegen
