#ifndef TG_CODEGEN_ATTENTIONBACKWARD_H
#define TG_CODEGEN_ATTENTIONBACKWARD_H

// CUDA C++ generation for the fused attention backward (tg.attention_grad),
// compiled at run time by NVRTC. Plain C++17: no LLVM or MLIR.
//
// Three kernels, launched in this order (docs/kernels.md, "Backward"):
//   preprocess  delta = rowsum(dO * O) per query row; zeroes the f32 dQ
//               accumulator
//   main        one CTA per (kv tile, kv head, batch): recomputes P from the
//               forward's log-sum-exp, keeps dK and dV in registers (summed
//               over the query heads of a GQA group), adds dQ into the
//               accumulator with f32 atomics
//   convert     dQ = scale * accumulator, rounded to the element type
// The device code is the device library (compiler/lib/Codegen/device/:
// attention_bwd*.cuh); the generator writes only a configuration struct, the
// score modifier and its gradient, and the entry points. Level L0
// (mma.sync.m16n8k16, ldmatrix, cp.async): any target from sm_80 on, cubin or
// compute_80 PTX; for sm_90a a main kernel on wgmma where it applies
// (AttentionBackwardTile::wgmma, requiredTarget "sm_90a").
//
// ## Parameters (in this order; every integer is a 64-bit `long long`)
//
// preprocess: o, d_o (const T*, [B, Hq, Sq, Dv] at their strides), delta
//   (float*, [B, Hq, Sq]), dq_accum (float*, [B, Hq, Sq, Dqk]), num_heads_q,
//   seq_len_q, o_stride_b/h/s, do_stride_b/h/s.  (10 parameters)
// main:
//    0 q, 1 k, 2 v, 3 d_o      const T*       at their strides
//    4 lse                     const float*   [B, Hq, Sq] (the forward's stats)
//    5 delta                   const float*   [B, Hq, Sq] (preprocess)
//    6 dq_accum                float*         [B, Hq, Sq, Dqk] (zeroed by preprocess)
//    7 dq_semaphore            int*           [B, Hq, ceil(Sq / blockM)] zeroed
//                                             (deterministic) or null
//    8 dk, 9 dv                T*             [B, Hkv, Skv, D] at their strides
//   10 seq_lens_q, 11 seq_lens_kv   const int*        [B] (padding) or null
//   12 dropout_seed, 13 dropout_offset   const long long*  scalars or null
//   14 batch, 15 num_heads_q, 16 seq_len_q, 17 seq_len_kv
//   18-20 q strides (b, h, s), 21-23 k, 24-26 v, 27-29 d_o, 30-32 dk, 33-35 dv
//   then 5 per capture: const C* capture, stride_b, stride_h, stride_q, stride_kv;
//   a table capture of rank R (tg.gather) instead 1 + 2R: const C* table,
//   its R sizes, its R strides (as the forward, AttentionKernel.h)
//   then 5 per capture gradient: float* accumulator (zeroed before the
//   launch), stride_b, stride_h, stride_q, stride_kv (0 along the capture's
//   broadcast dimensions, so that they sum); a table's gradient instead
//   1 + R: float* accumulator (zeroed) of the table's sizes, its R strides
// convert: dq_accum (const float*), dq (T*), num_heads_q, seq_len_q,
//   dq_stride_b/h/s.  (7 parameters)
// capture gradient conversion (attentionBackwardCaptureGradConvert): src
//   (const float*, dense [d0, d1, d2, d3]), dst (T*), d0..d3, dst strides
//   (4).  (10 parameters)
//
// Pointers must be 16-byte aligned and b/h/s strides multiples of 8 elements.

#include "tg/Codegen/AttentionKernel.h"

#include <array>
#include <optional>
#include <string>
#include <vector>

namespace tg::codegen {

/// The main kernel's tiling: kBlockN keys per CTA, query tiles of kBlockM
/// rows, and how the warps split each of the three products.
struct AttentionBackwardTile {
  int blockM = 64;       // query rows per iteration
  int blockN = 128;      // keys per CTA
  int warps = 8;
  int warpsKeysS = 4;    // S^T, dP^T: warps over keys (the others over queries)
  int warpsKeysKV = 4;   // dK, dV: warps over keys (the others over head dims)
  int warpsRowsQ = 2;    // dQ: warps over query rows (the others over head dims)
  int qStages = 1;       // Q/dO buffers: 2 = the next tile loads during this one
  int minBlocksPerSM = 1;
  /// sm_90a: every product on wgmma (device/attention_bwd_wgmma.cuh); then
  /// blockM 64 (or 128 at head dims 64), blockN 128, 8 warps, 2 stages, head
  /// dims 64 or 128, and the warp splits are unused.
  bool wgmma = false;
};

/// The gradient of one captured tensor (tg.attention_grad's grad_captures):
/// C++ statements that assign `float dcap`, the derivative of the modified
/// score with respect to the captured element times `dz`, from `s`, `dz`,
/// the indices and the captures. The kernel adds it, where P != 0, into an
/// f32 accumulator with atomics.
/// For a table capture `c` the statements add each contribution themselves,
/// with `c_grad_add(value, i0, ..)`: an f32 atomic add at the indices,
/// clamped like `c_at` (a fill-mode gather that read out of range adds
/// nothing: the statements test `c_in_range` first).
struct AttentionCaptureGradient {
  std::string capture; // the capture's name
  std::string statements;
};

struct AttentionBackwardSpec {
  AttentionElementType elementType = AttentionElementType::BF16;
  int headDimQK = 128; // multiple of 8, <= 256
  int headDimV = 128;  // multiple of 8, <= 256
  int numHeadsQ = 1;
  int numHeadsKV = 1;

  AttentionCausalMode causal = AttentionCausalMode::None;
  std::optional<int64_t> windowLeft, windowRight;
  bool hasSeqLenQ = false, hasSeqLenKv = false;
  /// The fields above as the masks' value type, and back.
  ::tgc::masks::AttentionMasks masks() const {
    return {causal, windowLeft, windowRight, hasSeqLenQ, hasSeqLenKv};
  }
  void setMasks(const ::tgc::masks::AttentionMasks &m) {
    causal = m.causal, windowLeft = m.windowLeft, windowRight = m.windowRight;
    hasSeqLenQ = m.paddedQ, hasSeqLenKv = m.paddedKv;
  }
  /// The ragged (packed) layout, as AttentionForwardSpec::ragged: the main
  /// kernel takes the token counts after seq_len_kv, the preprocess the
  /// offsets, the token count, the [Tq, Hq] stats and their [B, Hq, Sq]
  /// copy (which the main kernel then reads as its lse), the convert kernel
  /// the offsets and the token count. Excludes hasSeqLenQ / hasSeqLenKv.
  bool ragged = false;
  double dropoutProbability = 0.0;
  double scale = 1.0;

  /// C++ statements that rewrite `float s` (the scaled score), as in
  /// AttentionForwardSpec; empty means identity.
  std::string scoreModifier;
  /// The modifier only masks (AttentionForwardSpec::scoreModifierMasksOnly):
  /// the probabilities' scale and base change fold into one FMA.
  bool scoreModifierMasksOnly = false;
  /// C++ statements that assign `float ds`, the gradient of the scaled score,
  /// from `s` (the scaled score before the modifier), `dz` (the gradient of
  /// the modified score), the indices and the captures. Empty: ds = dz.
  std::string scoreGradient;
  /// The modifier's term of d = q_idx - kv_idx, as AttentionForwardSpec's:
  /// the sm_90a kernel tabulates it per query tile and warpgroup.
  std::string distanceTerm, scoreModifierTabulated;
  std::vector<AttentionCapture> captures;
  std::vector<AttentionCaptureGradient> captureGradients;
  /// A document mask in the score modifier (AttentionForwardSpec's; here the
  /// id expressions read `captures` as a member of the score modifier):
  /// each CTA narrows its query rows to those whose id lies within its keys'
  /// ids, so the query tiles of other documents are skipped.
  std::optional<AttentionForwardSpec::DocumentMask> documentMask;
  /// A key bound in the score modifier (AttentionForwardSpec's): each CTA
  /// starts its query rows at the first row that may see its keys.
  std::optional<AttentionForwardSpec::KeyBound> keyBound;

  /// dQ's f32 additions in a fixed order (the kv tiles of a query tile one
  /// after another, through a semaphore per query tile), so that results
  /// are reproducible run to run; capture gradients summed across CTAs
  /// (broadcast over batch or heads) and table gradients are refused by the
  /// plan lowering.
  bool deterministic = false;

  /// The target: its arch selects the tile (shared memory); sm_90a (the
  /// arch-specific target) selects the wgmma kernel where it applies
  /// (attentionBackwardWgmmaProblem).
  tgc::CompileTarget target = tgc::CompileTarget::cubin(tgc::kMinTargetArch);
  std::optional<AttentionBackwardTile> tileOverride;

  /// The dQ accumulator's layout (device/dq_accumulator.cuh): rows whose
  /// 32-byte chunks are permuted, which the wgmma kernel's bulk reductions
  /// need (head dims multiple of 64), or plain rows. Every kernel of one
  /// plan (the main variants, preprocess, convert) must agree, so the plan
  /// sets it for all of them (backwardSwizzlesDQAccum); unset, it follows
  /// the variant's own tile (swizzled for the wgmma kernel).
  std::optional<bool> dqAccumSwizzled;
};

/// Whether a plan for `spec` (its target the plan's) swizzles the dQ
/// accumulator: where its sm_90a variant is the wgmma kernel.
bool backwardSwizzlesDQAccum(const AttentionBackwardSpec &spec);

/// One kernel of the backward and its launch configuration.
struct AttentionBackwardLaunch {
  std::string source; // complete translation unit, no #include needed
  std::string entry;  // extern "C" __global__ name
  unsigned threads = 0;
  unsigned sharedBytes = 0;
  unsigned numParams = 0;
  /// The entry starts with tgc::kEarlyLaunchWait (KernelStep::earlyLaunch).
  bool earlyLaunch = true;
  /// Grid for batch B, Hq query heads / Hkv kv heads, Sq query and Skv key rows.
  std::array<unsigned, 3> gridFor(int64_t batch, int64_t numHeadsQ, int64_t numHeadsKV,
                                  int64_t seqLenQ, int64_t seqLenKV) const;
  /// x = ceil(rows / rowsPerBlockX), y = heads (query or kv), z = batch.
  int rowsPerBlockX = 1;
  bool overKvHeads = false;
};

struct AttentionBackwardKernels {
  AttentionBackwardLaunch preprocess, main, convert;
  AttentionBackwardTile tile;
  /// "sm_90a" when the main kernel uses arch-specific instructions (wgmma):
  /// it runs only there, with the portable kernels as the fallback.
  std::string requiredTarget;
};

/// Empty if the spec is supported, else what is wrong.
std::string validateAttentionBackwardSpec(const AttentionBackwardSpec &spec);

/// Empty if `tile` can run `spec` (warps tile every product exactly, the
/// shared memory fits `target`), else why not.
std::string validateAttentionBackwardTile(const AttentionBackwardSpec &spec,
                                          const AttentionBackwardTile &tile);

/// Empty if the sm_90a wgmma kernel can run `spec` (target sm_90a, head
/// dims 64 or 128), else why not.
std::string attentionBackwardWgmmaProblem(const AttentionBackwardSpec &spec);

/// The tile used without an override: the first of the table's candidates
/// that fits the target's shared memory.
AttentionBackwardTile defaultAttentionBackwardTile(const AttentionBackwardSpec &spec);

/// Whether the kernel of `tile` tabulates the score region's distance term
/// (the wgmma kernel with AttentionBackwardSpec::distanceTerm): two tables
/// of blockM + 64 floats in its shared memory.
bool backwardTabulatesDistances(const AttentionBackwardSpec &spec, const AttentionBackwardTile &tile);

/// Dynamic shared memory of the main kernel.
unsigned attentionBackwardSharedBytes(const AttentionBackwardSpec &spec,
                                      const AttentionBackwardTile &tile);

std::optional<AttentionBackwardKernels>
generateAttentionBackward(const AttentionBackwardSpec &spec, std::string *error = nullptr);

/// The kernel that rounds a capture gradient's f32 accumulator (dense, 4-d)
/// into its element type (bf16 or f16) at the result's strides. Launch:
/// grid (ceil(n / 1024), 1, 1) for n elements, 256 threads.
AttentionBackwardLaunch attentionBackwardCaptureGradConvert(AttentionElementType type);

} // namespace tg::codegen

#endif // TG_CODEGEN_ATTENTIONBACKWARD_H
