#ifndef TG_CODEGEN_ATTENTIONKERNEL_H
#define TG_CODEGEN_ATTENTIONKERNEL_H

// CUDA C++ generation for the fused attention forward kernel (tg.attention),
// compiled at run time by NVRTC. Plain C++17: no LLVM or MLIR, so the runtime
// and the tools can both use it.
//
// Each CTA owns a tile of query rows, streams K/V tiles through shared memory
// with cp.async and keeps an online softmax in exp2 with the scale folded in
// (docs/kernels.md). S = Q Kᵀ and O += P V use mma.sync.m16n8k16 fed by
// ldmatrix (level L0: any arch from sm_80 on, cubin or PTX) or, for
// target sm_90a and head dims that are multiples of 64, wgmma reading
// 128-byte-swizzled shared memory (level L1: sm_90a only; see
// AttentionKernel::requiredTarget).
//
// ## Kernel parameters (in this order; the runtime binds arguments by it)
//
// Every integer scalar is a 64-bit `long long` (KernelArg::Int64); pointers
// not used by a spec (e.g. `lse` without training) may be null.
//
//   #  name             type                 meaning
//   0  q                const T*             [B, Hq,  Sq,  Dqk] at q strides
//   1  k                const T*             [B, Hkv, Skv, Dqk] at k strides
//   2  v                const T*             [B, Hkv, Skv, Dv]  at v strides
//   3  o                T*                   [B, Hq,  Sq,  Dv]  at o strides
//   4  lse              float*               [B, Hq, Sq] contiguous (training)
//   5  seq_lens_q       const int*           [B] (hasSeqLenQ)
//   6  seq_lens_kv      const int*           [B] (hasSeqLenKv)
//   7  dropout_seed     const long long*     scalar on the device (dropout)
//   8  dropout_offset   const long long*     scalar on the device (dropout)
//   9  batch            long long            B
//  10  num_heads_q      long long            Hq (must equal spec.numHeadsQ)
//  11  seq_len_q        long long            Sq (rows of q and o)
//  12  seq_len_kv       long long            Skv (rows of k and v)
//  13  q_stride_b, 14 q_stride_h, 15 q_stride_s        long long (elements)
//  16  k_stride_b, 17 k_stride_h, 18 k_stride_s        long long
//  19  v_stride_b, 20 v_stride_h, 21 v_stride_s        long long
//  22  o_stride_b, 23 o_stride_h, 24 o_stride_s        long long
//  then, for each capture i in spec order:
//    an element capture (tableRank 0; 5 parameters):
//      const C* capture, long long stride_b, stride_h, stride_q, stride_kv
//      (rank-4 strides in elements, 0 along broadcast dimensions)
//    a table capture of rank r (1 + 2r parameters):
//      const C* capture, long long size_0 .. size_{r-1},
//      long long stride_0 .. stride_{r-1}   (elements)
//
// T is the 16-bit element type (bf16 or f16, passed as raw 16-bit words).
// The head-dim stride is 1 for q, k, v and o. Pointers must be 16-byte
// aligned and the b/h/s strides multiples of 8 elements (16-byte rows).
//
// FP8 (elementType e4m3 or e5m2; sm_90a): q, k and v are bytes, o is bytes
// or 16-bit words (outputType), their b/h/s strides multiples of 16
// elements, and ten parameters follow o_stride_s (no captures):
//   descale_q, descale_k, descale_v, descale_s, scale_s, scale_o
//                                         const float*  rank-0 scales
//   amax_s, amax_o                        float*        rank-0, may be null;
//                                                       set to 0 before the launch
//   v_t                                   const unsigned char*  V transposed
//   v_t_pitch                             long long     its row pitch in bytes
// v_t ([B * Hkv][Dv][v_t_pitch]) is written first by the prepare kernel
// (AttentionKernel::prepareSource; v_t_pitch = fp8TransposedPitch(Skv)).
//
// Launch: grid = AttentionKernel::grid(B, Hq, Sq), block = (threads, 1, 1),
// dynamic shared memory = sharedBytes (over 48 KB: the launcher must raise
// CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES first).

#include "tg/Masks/AttentionMasks.h"
#include "tgc/Target.h"

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace tg::codegen {

enum class AttentionElementType { BF16, F16, E4M3, E5M2 };

constexpr bool isFp8(AttentionElementType t) {
  return t == AttentionElementType::E4M3 || t == AttentionElementType::E5M2;
}

/// Threads of the split-KV decode's combine kernel: four groups of 128,
/// each taking every fourth split of its rows
/// (device/attention_decode_combine.cuh).
constexpr unsigned kDecodeCombineThreads = 512;

/// The head dims the generated forward and backward kernels take (the one
/// rule: their validation and the NVRTC backend's support check use it):
/// multiples of 8, i.e. 16-byte rows for cp.async and ldmatrix, up to 256,
/// what the tiles' shared memory holds.
constexpr bool headDimFits(long long d) { return d > 0 && d % 8 == 0 && d <= 256; }

/// How the causal mask is aligned; matches tg's #tg<causal ...> (the
/// masks' value type, tg/Masks/AttentionMasks.h).
using AttentionCausalMode = ::tgc::masks::Causal;

/// Element type of a captured tensor read by the score modifier.
enum class CaptureType { F32, F16, BF16, I32, I64, I8, Bool };

/// One captured tensor. An element capture (tableRank 0): the score modifier
/// sees its element at the score's position as a local constant named
/// `name` (float for float types, long long for integers, bool for Bool).
/// A table capture (tableRank r >= 1, tg.gather): the modifier reads it with
/// `name_at(captures, i0, ..., i{r-1})`, which clamps each index to
/// [0, size - 1] (so no read is ever out of bounds), and tests indices with
/// `name_in_range(captures, i0, ..., i{r-1})` (for tg.gather's fill mode).
struct AttentionCapture {
  std::string name;
  CaptureType type = CaptureType::F32;
  int tableRank = 0; // 0 to kMaxTableRank
  /// Element captures: the dims of [B, Hq, Sq, Skv] the capture has size 1
  /// in (the plan passes stride 0 there). The kernel leaves their indices
  /// out of the address, so a per-head or per-row capture is read once per
  /// tile, not per score.
  std::array<bool, 4> broadcast{};
};

/// The element offset of an element capture at (b, h, q_idx, kv_idx):
/// `prefix` + "stride_b" etc. name the strides; broadcast dims are left out.
std::string captureOffset(const AttentionCapture &capture, const std::string &prefix);

/// The largest rank of a table capture.
constexpr int kMaxTableRank = 8;

/// Tile shape of one CTA. Chosen from a table keyed by head dim and arch
/// unless the spec overrides it (benchmarks and autotuning).
struct AttentionTileConfig {
  int blockM = 128;         // query rows per CTA
  int blockN = 64;          // keys per K/V tile
  int warps = 4;            // each warp owns blockM / warps query rows
  bool qInRegisters = true; // Q fragments loaded once vs. per K/V tile
  int minBlocksPerSM = 1;   // __launch_bounds__ occupancy hint
  /// K/V shared-memory buffers: 2 = double-buffered (tile j + 1 loads during
  /// all of tile j), 1 = one K and one V buffer with split loads (V(j) during
  /// S = Q K(j)ᵀ, K(j + 1) during softmax and P V(j)) for half the memory.
  int stages = 2;
  /// ldmatrix fragments loaded this many mma steps ahead (1..4).
  int prefetch = 1;
  /// sm_90a only: S = Q Kᵀ and O += P V with wgmma, operands read from
  /// 128-byte-swizzled shared memory (head dims multiples of 64, 16 rows per
  /// warp, warps a multiple of 4). The source then compiles for sm_90a only.
  bool wgmma = false;
  /// wgmma only: one more warpgroup copies Q, K and V into a ring of
  /// `stages` buffers (mbarriers) while the `warps` compute, each overlapping
  /// its softmax with its own matrix work (device/attention_fwd_ws.cuh).
  /// Not for decode, paged or packed kernels.
  bool warpSpecialized = false;
  /// warpSpecialized with 8 warps: the two compute warpgroups take turns to
  /// issue their matrix work, so one's softmax runs under the other's.
  bool pingPong = false;
  /// Decode only: the warps split each key tile into keyWarps slices of
  /// blockN / keyWarps keys (warp w takes row block w % (warps / keyWarps)
  /// and slice w / (warps / keyWarps)), merging their partial softmax
  /// results through shared memory at the end; 1 = every warp sees all keys.
  int keyWarps = 1;
};

struct AttentionForwardSpec {
  AttentionElementType elementType = AttentionElementType::BF16;
  /// The output's type: the element type (empty), or for fp8 inputs (FP8
  /// attention, tg.attention's fp8_scales) an fp8, bf16 or f16 output.
  std::optional<AttentionElementType> outputType;
  AttentionElementType outputElementType() const { return outputType.value_or(elementType); }
  int headDimQK = 128; // multiple of 8, <= 256
  int headDimV = 128;  // multiple of 8, <= 256
  int numHeadsQ = 1;
  int numHeadsKV = 1; // divides numHeadsQ (GQA / MQA)

  AttentionCausalMode causal = AttentionCausalMode::None;
  std::optional<int64_t> windowLeft, windowRight;
  /// Padding masks from per-batch int32 lengths (parameters 5 and 6).
  bool hasSeqLenQ = false, hasSeqLenKv = false;
  /// The fields above as the masks' value type, and back.
  ::tgc::masks::AttentionMasks masks() const {
    return {causal, windowLeft, windowRight, hasSeqLenQ, hasSeqLenKv};
  }
  void setMasks(const ::tgc::masks::AttentionMasks &m) {
    causal = m.causal, windowLeft = m.windowLeft, windowRight = m.windowRight;
    hasSeqLenQ = m.paddedQ, hasSeqLenKv = m.paddedKv;
  }

  /// The ragged (packed) layout: parameters 5 and 6 are the [B + 1] i32
  /// offsets cu_seqlens_q / cu_seqlens_kv, seq_len_q / seq_len_kv the
  /// maximum lengths, the b strides 0, and two more parameters after
  /// seq_len_kv give the packed token counts; the stats are [Tq, Hq].
  /// Excludes hasSeqLenQ / hasSeqLenKv.
  bool ragged = false;
  /// A paged K/V cache: k and v are [num_pages, pageSize, Hkv, D] (their b
  /// strides are the page strides), three more parameters after the token
  /// counts give the [B, max_pages] i32 page table, its row stride and the
  /// page count; seq_len_kv is max_pages * pageSize. Needs hasSeqLenKv;
  /// excludes ragged.
  bool paged = false;
  int pageSize = 0;
  /// Decode: one CTA per (KV split, kv head, batch) holds the decodeRows =
  /// group * Sq query rows of a GQA group (at most 64), splits the visible
  /// key tiles among gridDim.x CTAs, and writes f32 partial outputs and
  /// log-sum-exps (two more parameters after the paged ones) that the
  /// combine kernel (AttentionKernel::combine) merges. No score modifier,
  /// dropout, training, document mask, ragged layout or seq_len_q.
  bool decode = false;
  int decodeRows = 0;

  /// Dropout probability in [0, 1); 0 disables dropout.
  double dropoutProbability = 0.0;
  /// Also write the natural-log log-sum-exp of each row (parameter 4).
  bool training = false;
  /// s = scale * (q . k) before the score modifier.
  double scale = 1.0;

  /// C++ statements that rewrite `float s` given `long long b, h, q_idx,
  /// kv_idx` and the captures' element values; empty means identity. A
  /// masked score is -INFINITY. Example: `s = 30.0f * tanhf(s / 30.0f);`
  std::string scoreModifier;
  /// The modifier only masks: it keeps s or sets -INFINITY, by tests that do
  /// not read s. With a positive scale the kernel then applies it to the raw
  /// dot product and keeps the scale folded into the softmax's exponent.
  bool scoreModifierMasksOnly = false;
  std::vector<AttentionCapture> captures;

  /// A term of the modifier that depends on the indices only through d =
  /// q_idx - kv_idx (and on b, h and the tables): `distanceTerm` assigns
  /// `float value` from `long long b, h, d`, and `scoreModifierTabulated`
  /// is the modifier reading the term as `distance.at(q_idx, kv_idx)`. The
  /// warp-specialised kernel tabulates it per tile and warpgroup in shared
  /// memory (ForwardConfig::kDistanceTable); other kernels run
  /// scoreModifier. Both empty: no such term.
  std::string distanceTerm, scoreModifierTabulated;

  /// A document mask in the score modifier: it masks (q_idx, kv_idx) whenever
  /// `queryId != keyId`, expressions of `captures, b, h` and `q_idx` /
  /// `kv_idx` (C++, long long). Each CTA then narrows its K/V range to the
  /// keys whose id lies within its rows' ids (whole tiles of other documents
  /// are skipped; the modifier still masks inside the range).
  struct DocumentMask {
    std::string queryId, keyId;
  };
  std::optional<DocumentMask> documentMask;

  /// A key bound in the score modifier (prefix-LM: `kv_idx < prefix[b] or
  /// kv_idx <= q_idx`): the modifier masks every key of row q_idx at or past
  /// max(limit, q_idx + rowOffset), `limit` a C++ expression of `captures,
  /// b, h` (long long; empty: no such term), no rowOffset: no row term. Each
  /// CTA then ends its K/V range at its last row's bound (the modifier still
  /// masks inside the range); decode kernels ignore it.
  struct KeyBound {
    std::string limit;
    std::optional<int> rowOffset;
  };
  std::optional<KeyBound> keyBound;

  /// The target, as tg-compile --arch parsed it (tgc::parseTarget): its
  /// arch (80, 86, 89, 90, ...) selects the tile table. With the
  /// arch-specific sm_90a and head dims that are multiples of 64, the
  /// kernel is the wgmma one, which compiles for exactly sm_90a (see
  /// AttentionKernel::requiredTarget); otherwise it is the portable
  /// mma.sync kernel (any arch from sm_80, cubin or PTX). A plan offers
  /// both: the sm_90a variant for compute capability 9.0, the portable one
  /// otherwise and for the PTX path.
  tgc::CompileTarget target = tgc::CompileTarget::cubin(tgc::kMinTargetArch);
  std::optional<AttentionTileConfig> tileOverride;
};

/// The generated kernel and how to launch it.
struct AttentionKernel {
  std::string source; // complete translation unit, no #include needed
  std::string entry;  // extern "C" __global__ name
  AttentionTileConfig tile;
  unsigned threads = 0;     // block = (threads, 1, 1)
  unsigned sharedBytes = 0; // dynamic shared memory per CTA
  unsigned numParams = 0;   // 25 + 5 per element capture, 1 + 2r per table
  /// "sm_90a" when the kernel uses wgmma (compile it for exactly that
  /// target); empty when any target from sm_80 / compute_80 on will do.
  std::string requiredTarget;
  /// Every entry of this kernel (main, prepare, combine) starts with
  /// tgc::kEarlyLaunchWait (KernelStep::earlyLaunch).
  bool earlyLaunch = true;

  /// Grid for a batch of B sequences with Hq query heads and Sq query rows:
  /// x = query tiles, y = heads, z = batch.
  std::array<unsigned, 3> grid(int64_t batch, int64_t numHeadsQ,
                               int64_t seqLenQ) const;

  /// Decode only: the combine kernel, launched after this one with grid
  /// (ceil(B * Hq * Sq / combineRowsPerBlock)) and kDecodeCombineThreads
  /// threads; parameters
  /// o_partial, lse_partial, o, splits, batch, num_heads_q, seq_q and o's
  /// b, h, s strides.
  std::string combineSource, combineEntry;
  unsigned combineRowsPerBlock = 0;

  /// FP8 only: the kernel that writes V^T (device/attention_fwd_fp8.cuh:
  /// prepare_v_fp8), launched before this one with grid (v_t_pitch /
  /// prepareKeysPerBlock, Hkv, B) and prepareThreads threads; parameters
  /// v, v's b, h, s strides (bytes), seq_lens_kv (may be null), seq_len_kv,
  /// v_t, v_t_pitch.
  std::string prepareSource, prepareEntry;
  unsigned prepareThreads = 0, prepareKeysPerBlock = 0;
  /// FP8 only: v_t's row pitch in bytes for Skv keys (whole key tiles).
  int64_t fp8TransposedPitch(int64_t seqLenKv) const {
    return (seqLenKv + tile.blockN - 1) / tile.blockN * tile.blockN;
  }
};

/// CTAs of the decode kernel of `spec` (AttentionForwardSpec::decode) that
/// one SM of its target holds at once: its shared memory (the tile's
/// buffers and the paged kernel's page-index cache) over the SM's.
int decodeCtasPerSM(const AttentionForwardSpec &spec);

/// Splits of a decode kernel's key tiles for `ctas` = B * Hkv CTAs per
/// split and `keyTiles` visible key tiles: as many as fill one wave of
/// ctasPerSM CTAs on each of numSMs SMs, at least two tiles each.
int64_t decodeSplits(int64_t ctas, int64_t keyTiles, int ctasPerSM, int64_t numSMs = 132);

/// Whether the decode kernel runs a problem of `spec` (decode not yet set)
/// with Sq query rows and Skv keys: few rows per kv head (Sq <= 16, group x
/// Sq <= 64), enough keys to split (Skv >= 256), and none of the options
/// the decode kernel lacks (dropout, training, document mask, ragged
/// layout, seq_len_q). The one home of that rule:
/// validateAttentionSpec checks a decode spec against it.
bool decodeKernelApplies(const AttentionForwardSpec &spec, int64_t seqQ, int64_t seqKv);

/// Returns an empty string if the spec is supported, else what is wrong.
std::string validateAttentionSpec(const AttentionForwardSpec &spec);

/// The tile shape the generator uses for a spec without an override.
AttentionTileConfig defaultAttentionTile(const AttentionForwardSpec &spec);

/// A tile written as `MxN:W[:smem|regs][:sK][:pK][:wg][:ws][:pp][:B]`
/// (blockM x blockN, W warps; Q in shared memory or registers; K stages;
/// prefetch K; wgmma; warp-specialised; ping-pong; B min blocks per SM), as
/// tg-gen-attention --tile and tg-compile --attention-tile take it. On a
/// malformed text returns std::nullopt and sets `error`. Whether the tile
/// suits a spec is validateAttentionSpec's to say.
std::optional<AttentionTileConfig> parseAttentionTile(const std::string &text,
                                                      std::string *error = nullptr);

/// Generates the kernel. On an unsupported spec returns std::nullopt and sets
/// `error` (if given) to validateAttentionSpec's message.
std::optional<AttentionKernel>
generateAttentionForward(const AttentionForwardSpec &spec,
                         std::string *error = nullptr);

const char *toString(AttentionElementType type);
const char *toString(AttentionCausalMode mode);
const char *toString(CaptureType type);

} // namespace tg::codegen

#endif // TG_CODEGEN_ATTENTIONKERNEL_H
