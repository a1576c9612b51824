// tgc device library: what the attention forward kernels share: their
// parameters, the configuration's derived tiling and shared-memory layout
// (ForwardTraits), and the per-tile stages around the softmax (masks,
// dropout).
#pragma once
#include "distances.cuh"
#include "masks.cuh"
#include "philox.cuh"

namespace tg::device {

/// The kernel's pointers and sizes (the entry point fills it from its
/// parameters). Strides are in elements; head dims are contiguous.
struct ForwardParams {
  const u16 *q, *k, *v;
  u16 *o;
  float *lse;                                      // [B, Hq, Sq] (kTraining)
  const int *seq_lens_q, *seq_lens_kv;             // [B] (kSeqLenQ, kSeqLenKv)
  const long long *dropout_seed, *dropout_offset;  // scalars (kDropout)
  long long batch, num_heads_q, seq_len_q, seq_len_kv;
  long long q_stride_b, q_stride_h, q_stride_s;
  long long k_stride_b, k_stride_h, k_stride_s;
  long long v_stride_b, v_stride_h, v_stride_s;
  long long o_stride_b, o_stride_h, o_stride_s;
  // Ragged (kRagged): seq_lens_q / seq_lens_kv hold the [B + 1] offsets
  // cu_seqlens, seq_len_q / seq_len_kv the max_seqlen attributes, these the
  // packed tensors' token counts (the offsets are clamped to them), and the
  // stats are [Tq, Hq].
  long long tokens_q, tokens_kv;
  // Paged K/V cache (kPaged): k and v are [num_pages, kPageSize, Hkv, D]
  // (k_stride_b / v_stride_b the page strides), page_table [B, max_pages]
  // (rows page_table_stride apart), seq_len_kv = max_pages * kPageSize.
  const int *page_table;
  long long page_table_stride, num_pages;
  // Decode (kDecode): blockIdx.x is the KV split, blockIdx.y the kv head;
  // each split writes its rows' normalised partial output and log-sum-exp,
  // [splits, B, Hq, Sq, Dv] and [splits, B, Hq, Sq] f32, which
  // attention_decode_combine.cuh merges.
  float *o_partial, *lse_partial;
  // FP8 (Config::kElem e4m3 / e5m2): q, k, v (and an fp8 o) are bytes, seen
  // here as 16-bit words (pointers and strides in words: the entry point
  // halves the byte strides); the six rank-0 scales of tg.attention's
  // fp8_scales; the amax results (null when not returned; set to 0 before
  // the launch, the kernel raises them atomically); V transposed,
  // [B * Hkv][Dv][v_t_pitch words] (attention_fp8_prepare.cuh: prepare_v_fp8).
  const float *descale_q = nullptr, *descale_k = nullptr, *descale_v = nullptr, *descale_s = nullptr,
              *scale_s = nullptr, *scale_o = nullptr;
  float *amax_s = nullptr, *amax_o = nullptr;
  const u16 *v_t = nullptr;
  long long v_t_pitch = 0;
};

/// The score modifier of a kernel without one (Config::kScoreMod false).
struct NoScoreMod {};

/// The configuration with the warp tiling and the shared-memory layout
/// derived from it. The generator computes the same layout
/// (AttentionLayout.h); Config::kSharedBytes is checked against it.
template <class Cfg>
struct ForwardTraits : Cfg {
  // Warp specialisation (attention_fwd_ws.cuh): kWarps compute, and one more
  // warpgroup copies. The producer's registers go to the consumers: with
  // __launch_bounds__(kThreads, kMinBlocksPerSM) every thread starts with
  // kLaunchRegisters (the SM's 65536 shared by the CTAs, rounded down to 8).
  static constexpr int kProducerWarps = Cfg::kWarpSpecialized ? 4 : 0;
  static constexpr int kThreads = (Cfg::kWarps + kProducerWarps) * 32;
  static constexpr int kProducerThreads = kProducerWarps * 32;
  static constexpr int kConsumerGroups = Cfg::kWarps / 4;
  static constexpr int kLaunchRegisters = 65536 / (kThreads * Cfg::kMinBlocksPerSM) / 8 * 8;
  // (the copies need 24: load_swizzled_rows_async; two consumer
  // warpgroups then get 240, three 160)
  static constexpr int kProducerRegisters = 24;
  static constexpr int kConsumerRegistersFit =
      (kLaunchRegisters * kThreads - kProducerRegisters * kProducerThreads) / (Cfg::kWarps * 32) / 8 * 8;
  static constexpr int kConsumerRegisters = kConsumerRegistersFit < 240 ? kConsumerRegistersFit : 240;
  static_assert(!Cfg::kWarpSpecialized ||
                    (kLaunchRegisters >= kProducerRegisters && kConsumerRegisters >= kLaunchRegisters),
                "the producer gives registers, the consumers take them");
  // Decode may split each key tile among kKeyWarps warps (kRowWarps warps
  // per slice); elsewhere every warp sees every key of the tile.
  static constexpr int kRowWarps = Cfg::kWarps / Cfg::kKeyWarps;
  static constexpr int kWarpRows = Cfg::kBlockM / kRowWarps;    // query rows owned by one warp
  static constexpr int kWarpKeys = Cfg::kBlockN / Cfg::kKeyWarps;  // keys of a tile one warp sees
  static constexpr int kMTiles = kWarpRows / 16;                // m16 mma tiles per warp
  static constexpr int kNTiles = kWarpKeys / 8;                 // n8 score tiles per warp and K tile
  static constexpr int kHeadDimQKPadded = round_up(Cfg::kHeadDimQK, 16);  // pad columns hold zeros
  // FP8 (sm_90a, warp-specialised): k32 steps of 32 bytes, as the 16-bit
  // k16 steps; P rounded to fp8 for P V, V read transposed (K-major).
  static constexpr bool kFp8 = is_fp8(Cfg::kElem);
  static constexpr int kElemBytes = elem_bytes(Cfg::kElem);
  static constexpr int kQKSteps = kHeadDimQKPadded * kElemBytes / 32;  // k steps of S = Q K^T
  static constexpr int kPVSteps = kWarpKeys * kElemBytes / 32;         // k steps of O += P V
  static constexpr int kOTiles = Cfg::kHeadDimV / 8;                   // n8 output tiles
  // Row widths of Q, K and V in 16-bit words (the copies move words).
  static constexpr int kQKWords = Cfg::kHeadDimQK * kElemBytes / 2, kVWords = Cfg::kHeadDimV * kElemBytes / 2;
  // The online softmax lets a row's max lag by up to 2^8 (softmax.cuh);
  // fp8 P must stay <= 1 (scale_s maps 1 to the format's range).
  static constexpr bool kTightMax = kFp8;

  // Shared memory: [Q tile (later O staging) | K stages | V stages]. Row
  // pitches are conflict-free (prelude.cuh); pitch 0 means the
  // 128-byte-swizzled layout that wgmma reads (copy.cuh: tile_offset), with
  // every tile 1024-byte aligned (the launch reserves kAlignSlack for that).
  static constexpr int kOPitch = conflict_free_pitch(Cfg::kHeadDimV);
  static constexpr int kQKPitch = Cfg::kWgmma ? 0 : conflict_free_pitch(kHeadDimQKPadded);
  static constexpr int kVPitch = Cfg::kWgmma ? 0 : conflict_free_pitch(Cfg::kHeadDimV);
  static constexpr int kQRegionPitch = kQKPitch > kOPitch || Cfg::kWgmma ? kQKPitch : kOPitch;
  static constexpr int kQBytes = Cfg::kBlockM * kQKWords * 2, kOBytes = Cfg::kBlockM * kOPitch * 2;
  static constexpr unsigned kQRegionBytes =
      Cfg::kWgmma ? round_up(kQBytes > kOBytes ? kQBytes : kOBytes, 1024) : Cfg::kBlockM * kQRegionPitch * 2;
  static constexpr unsigned kKStageBytes = Cfg::kBlockN * (Cfg::kWgmma ? kQKWords : kQKPitch) * 2;
  static constexpr unsigned kVStageBytes = Cfg::kBlockN * (Cfg::kWgmma ? kVWords : kVPitch) * 2;
  static constexpr unsigned kAlignSlack = Cfg::kWgmma ? 1024 : 0;
  static constexpr unsigned kLayoutBytes =
      kQRegionBytes + Cfg::kStages * (kKStageBytes + kVStageBytes) + kAlignSlack;

  static_assert(Cfg::kBlockM % (16 * kRowWarps) == 0 && kWarpKeys % 16 == 0 &&
                    Cfg::kWarps % Cfg::kKeyWarps == 0, "tile sizes");
  static_assert(Cfg::kKeyWarps == 1 || (Cfg::kDecode && !Cfg::kWgmma), "key slices: the decode kernel");
  static_assert(Cfg::kStages >= 1 && Cfg::kStages <= 4, "one to four K/V buffers");
  static_assert(!Cfg::kWgmma || (kWarpRows == 16 && Cfg::kWarps % 4 == 0 && !Cfg::kQInRegisters),
                "wgmma: whole warpgroups of 64 rows, Q read from shared memory");
  static_assert(kLayoutBytes == Cfg::kSharedBytes, "the layout fills exactly the launch's shared memory");
  static_assert(!Cfg::kWarpSpecialized || (Cfg::kWgmma && !Cfg::kDecode && !Cfg::kPaged && !Cfg::kRagged),
                "warp specialisation: the wgmma prefill kernel (not decode, paged or packed)");
  static_assert(!Cfg::kPingPong || Cfg::kWarpSpecialized, "ping-pong: warp-specialised kernels");
  static_assert(!kFp8 || (Cfg::kWarpSpecialized && !Cfg::kScoreMod && !Cfg::kDropout && !Cfg::kDocumentMask &&
                          Cfg::kHeadDimQK % 128 == 0 && Cfg::kHeadDimV % 128 == 0 && Cfg::kBlockN % 128 == 0),
                "fp8: the warp-specialised kernel without score modifier or dropout, 128-byte rows of Q, K "
                "and V^T");
  static_assert(kFp8 || Cfg::kOutElem == Cfg::kElem, "16-bit inputs: the output has their type");

  // The warp-specialised pipeline's mbarriers, 8 bytes each from `base`:
  // Q landed, then per buffer K landed, V landed, K read, V read.
  static constexpr int kBarriers = 1 + 4 * Cfg::kStages;
  static __device__ __forceinline__ unsigned q_full(unsigned base) { return base; }
  static __device__ __forceinline__ unsigned k_full(unsigned base, int stage) { return base + 8 * (1 + stage); }
  static __device__ __forceinline__ unsigned v_full(unsigned base, int stage) {
    return base + 8 * (1 + Cfg::kStages + stage);
  }
  static __device__ __forceinline__ unsigned k_empty(unsigned base, int stage) {
    return base + 8 * (1 + 2 * Cfg::kStages + stage);
  }
  static __device__ __forceinline__ unsigned v_empty(unsigned base, int stage) {
    return base + 8 * (1 + 3 * Cfg::kStages + stage);
  }
};

/// The dynamic shared memory, aligned to 1024 bytes for the swizzled wgmma
/// tiles (the launch reserves the slack), else to 16.
template <bool kWgmma>
__device__ __forceinline__ unsigned char *forward_shared_memory() {
  if constexpr (kWgmma) {
    extern __shared__ __align__(1024) unsigned char smem_raw[];
    return smem_raw + ((1024 - (shared_address(smem_raw) & 1023)) & 1023);
  } else {
    extern __shared__ __align__(16) unsigned char smem[];
    return smem;
  }
}

/// The score modifier on one tile of scores (ScoreMod::apply; `distance`
/// is the tile's distance table where Config::kDistanceTable, else unread).
/// A tile in the rows' one document (`same_document`, kDocumentMask) skips
/// the region's document test.
template <class K, class ScoreMod>
__device__ __forceinline__ void modify_scores(const ScoreMod &score_mod, bool same_document,
                                              float (&s)[K::kMTiles][K::kNTiles][4], long long b, long long h,
                                              int warp_row0, int n0, int lane, long long seq_len_q,
                                              long long seq_len_kv, const DistanceTable &distance) {
  if (K::kDocumentMask && same_document)
    score_mod.template apply<K, K::kDocumentMask>(s, b, h, warp_row0, n0, lane, seq_len_q, seq_len_kv, distance);
  else
    score_mod.template apply<K>(s, b, h, warp_row0, n0, lane, seq_len_q, seq_len_kv, distance);
}

/// Sets s = -inf where key kv_idx is not visible from query row q_idx
/// (masks.cuh: key_visible). Only K/V tiles on a mask boundary run this.
/// (kDecode: row r of the tile is query r % seq_q of a head of the group.)
template <class K, class Mask>
__device__ __forceinline__ void apply_masks(float (&s)[K::kMTiles][K::kNTiles][4], const Mask &mask,
                                            int warp_row0, int n0, int lane, int seq_q = 1) {
#pragma unroll
  for (int m = 0; m < K::kMTiles; ++m) {
#pragma unroll
    for (int half = 0; half < 2; ++half) {
      const int row = warp_row0 + m * 16 + lane / 4 + 8 * half;
      const int q_idx = K::kDecode ? row % seq_q : row;
#pragma unroll
      for (int n = 0; n < K::kNTiles; ++n) {
#pragma unroll
        for (int j = 0; j < 2; ++j) {
          const int kv_idx = n0 + n * 8 + 2 * (lane % 4) + j;
          if (!mask.key_visible(q_idx, kv_idx)) s[m][n][2 * half + j] = neg_inf();
        }
      }
    }
  }
}

/// Dropout on the unnormalised probabilities (philox.cuh: the tg.dropout
/// mapping over [B, Hq, Sq, Skv]). The row sums were taken before this
/// stage (the softmax normalises over all keys); the 1 / (1 - p) rescale is
/// applied with the normalisation (store_output).
template <class K>
__device__ __forceinline__ void apply_dropout(float (&p)[K::kMTiles][K::kNTiles][4], PhiloxKey key,
                                              unsigned long long offset, long long b, long long h,
                                              long long num_heads_q, int warp_row0, int n0, int lane,
                                              long long seq_len_q, long long seq_len_kv) {
#pragma unroll
  for (int m = 0; m < K::kMTiles; ++m) {
#pragma unroll
    for (int half = 0; half < 2; ++half) {
      const long long q_idx = warp_row0 + m * 16 + lane / 4 + 8 * half;
      // Linear index of (b, h, q_idx, 0) in [B, Hq, Sq, Skv].
      const unsigned long long row_index =
          static_cast<unsigned long long>(((b * num_heads_q + h) * seq_len_q + q_idx) * seq_len_kv);
#pragma unroll
      for (int n = 0; n < K::kNTiles; ++n) {
        const int kv_idx = n0 + n * 8 + 2 * (lane % 4);
        bool keep0, keep1;
        dropout_keep_pair(row_index + kv_idx, key, offset, K::kDropoutThreshold, keep0, keep1);
        if (!keep0) p[m][n][2 * half] = 0.0f;
        if (!keep1) p[m][n][2 * half + 1] = 0.0f;
      }
    }
  }
}

} // namespace tg::device
