// tgc device library: the fused attention forward kernel (FlashAttention-2's
// algorithm; mma.sync on sm_80+ and as compute_80 PTX, or wgmma on sm_90a).
//
// One CTA owns kBlockM query rows of one (batch, query head). Stages:
//   load Q -> for each visible K/V tile (the next one in flight, cp.async):
//   S = Q K^T -> score modifier (kScoreMod) -> masks (boundary tiles only)
//   -> online softmax (softmax.cuh) -> dropout (kDropout) -> O += P V
//   -> epilogue: O / rowsum, log-sum-exp (kTraining).
// The matrix stages are attention_fwd_mma.cuh (mma.sync) or
// attention_fwd_wgmma.cuh (kWgmma); which K/V tiles are visible, and which
// need the per-element mask, is masks.cuh's rule.
//
// A kernel instantiates attention_forward<Config>(params, score_mod) with a
// configuration struct (the generator writes it, AttentionKernel.cpp; every
// member is used in ForwardTraits and attention_forward below) and a score
// modifier (NoScoreMod without one) with
//   template <class K>  // ForwardTraits<Config>
//   void apply(float (&s)[K::kMTiles][K::kNTiles][4], long long b, long long h, int warp_row0,
//              int n0, int lane, long long seq_len_q, long long seq_len_kv) const;
// which rewrites a tile of scaled scores (mma.cuh's accumulator layout) in
// place (the generator writes the loop around the modifier's statements, so
// that they are optimised with it),
// and, with Config::kDocumentMask,
//   long long document_of_query(long long b, long long h, long long q_idx) const;
//   long long document_of_key(long long b, long long h, long long kv_idx) const;
#pragma once
#include "attention_fwd_common.cuh"
#include "attention_fwd_epilogue.cuh"
#include "attention_fwd_fp8.cuh"
#include "attention_fwd_mma.cuh"
#include "attention_fwd_wgmma.cuh"
#include "attention_fwd_ws.cuh"
#include "copy.cuh"
#include "documents.cuh"
#include "key_bounds.cuh"
#include "ragged.cuh"
#include "softmax.cuh"

namespace tg::device {

/// Waits for the copies of this thread but the newest kPending groups, then
/// for all threads: the tiles have landed and every warp is done with the buffers the next copies
/// overwrite. With kAsyncProxy (wgmma reads the tiles next) the
/// generic-to-async proxy fence goes between the wait and the barrier.
template <bool kAsyncProxy, int kPending = 0>
__device__ __forceinline__ void copies_landed() {
  cp_async_wait<kPending>();
  if constexpr (kAsyncProxy) fence_proxy_async();  // wgmma reads these copies
  __syncthreads();
}

/// Copies the K (or V) rows of keys [n0, n0 + kBlockN) of one kv head
/// into a shared stage: through the page table (kPaged: pages
/// page_stride apart) or from the sequence at `head`. Decode reads each
/// byte once, so its copies ask L2 to prefetch the rest of the line.
template <class K, int kCols, int kPitch>
__device__ __forceinline__ void load_kv_tile(unsigned stage, const u16 *head, const int *page_row,
                                             long long num_pages, long long page_stride, long long row_stride,
                                             int n0, int len_kv, int tid) {
  if constexpr (K::kPaged)
    load_paged_rows_async<K::kBlockN, kCols, kPitch, K::kThreads, K::kPageSize, K::kDecode>(
        stage, head, page_row, num_pages, page_stride, row_stride, n0, len_kv, tid);
  else
    load_sequence_rows_async<K::kBlockN, kCols, kPitch, K::kThreads, K::kDecode>(stage, head, row_stride, n0,
                                                                               len_kv, tid);
}

/// Merges the online-softmax states (O, row max, per-lane row sums) of the
/// kKeyWarps warps that saw disjoint key slices of the same rows into the
/// first slice's warp: each state is rescaled from its own max to the
/// largest, O and the sums added. `buffer` holds (kKeyWarps - 1) *
/// kRowWarps states of 32 lanes; a slice without visible keys (max -inf)
/// weighs 0. Ends with a barrier; then only key_slice 0 holds the result.
template <class K>
__device__ __forceinline__ void merge_key_slices(float (&o_acc)[K::kMTiles][K::kOTiles][4],
                                                 float (&row_max)[K::kMTiles][2], float (&row_sum)[K::kMTiles][2],
                                                 float *buffer, int row_warp, int key_slice, int lane) {
  constexpr int kState = K::kMTiles * (4 + 4 * K::kOTiles);  // floats per lane
  static_assert((K::kKeyWarps - 1) * K::kRowWarps * 32 * kState * 4 <=
                    K::kStages * (K::kKStageBytes + K::kVStageBytes),
                "the key slices' states fit in the K/V buffers");
  if (key_slice != 0) {
    float *out = buffer + ((key_slice - 1) * K::kRowWarps + row_warp) * 32 * kState + lane;
    int i = 0;
#pragma unroll
    for (int m = 0; m < K::kMTiles; ++m) {
#pragma unroll
      for (int half = 0; half < 2; ++half) {
        out[32 * i++] = row_max[m][half];
        out[32 * i++] = row_sum[m][half];
      }
#pragma unroll
      for (int d = 0; d < K::kOTiles; ++d)
#pragma unroll
        for (int e = 0; e < 4; ++e) out[32 * i++] = o_acc[m][d][e];
    }
  }
  __syncthreads();
  if (key_slice != 0) return;
#pragma unroll 1
  for (int slice = 1; slice < K::kKeyWarps; ++slice) {
    const float *in = buffer + ((slice - 1) * K::kRowWarps + row_warp) * 32 * kState + lane;
#pragma unroll
    for (int m = 0; m < K::kMTiles; ++m) {
      const int base = m * (4 + 4 * K::kOTiles);
      float mine[2], theirs[2];
#pragma unroll
      for (int half = 0; half < 2; ++half) {
        const float other_max = in[32 * (base + 2 * half)];
        const float other_sum = in[32 * (base + 2 * half + 1)];
        const float top = fmaxf(row_max[m][half], other_max);
        // exp2 of a max -inf (no keys: O and the sum are 0) would be NaN or inf
        mine[half] = row_max[m][half] == neg_inf() ? 0.0f
                                                   : fast_exp2((row_max[m][half] - top) * K::kSoftmaxScaleLog2);
        theirs[half] = other_max == neg_inf() ? 0.0f : fast_exp2((other_max - top) * K::kSoftmaxScaleLog2);
        row_max[m][half] = top;
        row_sum[m][half] = row_sum[m][half] * mine[half] + other_sum * theirs[half];
      }
#pragma unroll
      for (int d = 0; d < K::kOTiles; ++d)
#pragma unroll
        for (int e = 0; e < 4; ++e)
          o_acc[m][d][e] = o_acc[m][d][e] * mine[e / 2] + in[32 * (base + 4 + 4 * d + e)] * theirs[e / 2];
    }
  }
}

/// The kernel body: one CTA per (query tile blockIdx.x, query head
/// blockIdx.y, batch blockIdx.z).
template <class Cfg, class ScoreMod>
__device__ __forceinline__ void attention_forward(const ForwardParams &p, const ScoreMod &score_mod) {
  using K = ForwardTraits<Cfg>;
  static_assert(!K::kWgmma || kHasWgmma, "this kernel uses wgmma: compile it for sm_90a");
  unsigned char *smem = forward_shared_memory<K::kWgmma>();
  const int tid = threadIdx.x;
  const int warp = tid / 32;
  const int lane = tid % 32;

  // --- Which tile: query rows [m0, m0 + kBlockM) of head h in batch b ---
  // With an upper mask bound (or a key bound that grows with the rows), the
  // heaviest tiles (most visible keys) go first: they start in the first wave.
  // Decode: one CTA per (KV split, kv head, batch) holds every query row of
  // the GQA group, row r = query r % Sq of head h_kv * group + r / Sq.
  static_assert(!K::kDecode || (!K::kDropout && !K::kTraining && !K::kDocumentMask && !K::kKeyLimit &&
                                !K::kKeyBoundRows && !K::kRagged && !K::kWgmma && !K::kSeqLenQ),
                "decode: no dropout, stats, documents, key bounds, packing, wgmma or q padding");
  const int m_block = K::kUpper || K::kKeyBoundRows ? static_cast<int>(gridDim.x - 1 - blockIdx.x)
                                                    : static_cast<int>(blockIdx.x);
  // (decode: h is the group's first query head)
  const long long h = K::kDecode ? blockIdx.y * K::kQueryHeadsPerKvHead : blockIdx.y;
  const long long b = blockIdx.z;
  const long long h_kv = h / K::kQueryHeadsPerKvHead;  // GQA
  const int m0 = K::kDecode ? 0 : m_block * K::kBlockM;
  // (key slices: this warp's row block, and its keys of each tile)
  const int row_warp = K::kKeyWarps == 1 ? warp : warp % K::kRowWarps;
  const int key_slice = K::kKeyWarps == 1 ? 0 : warp / K::kRowWarps;
  const int warp_row0 = m0 + row_warp * K::kWarpRows;  // first query row of this warp

  // --- Actual lengths: rows >= len_q and keys >= len_kv are padding ---
  // (packed sequences: the sequence's tokens from q_start / kv_start)
  int len_q = K::kSeqLenQ ? imax(0, imin(p.seq_lens_q[b], static_cast<int>(p.seq_len_q)))
                          : static_cast<int>(p.seq_len_q);
  int len_kv = K::kSeqLenKv ? imax(0, imin(p.seq_lens_kv[b], static_cast<int>(p.seq_len_kv)))
                            : static_cast<int>(p.seq_len_kv);
  long long q_start = 0, kv_start = 0;
  if constexpr (K::kRagged) {
    ragged_sequence(p.seq_lens_q, b, p.tokens_q, p.seq_len_q, &q_start, &len_q);
    ragged_sequence(p.seq_lens_kv, b, p.tokens_kv, p.seq_len_kv, &kv_start, &len_kv);
    if (m0 >= len_q) return;  // past this sequence's rows: the next one's tokens
  }

  // --- Visible K/V tiles: whole tiles outside the masks are skipped ---
  const MaskRule<K::kUpper, K::kRightLimit, K::kLeft, K::kWindowLeft> mask{
      len_q, len_kv, K::kBottomRight ? len_kv - len_q : 0};
  int kv_begin, kv_end;
  // (decode: the rows are every query of the sequence)
  mask.keys_seen(K::kDecode ? 0 : m0, K::kDecode ? len_q : m0 + K::kBlockM, &kv_begin, &kv_end);
  DocumentSpan documents{kv_begin, kv_end, 0, 0};
  if constexpr (K::kDocumentMask) {  // the Q region is free until the Q tile is loaded
    documents = narrow_to_documents<K::kThreads>(
        m0, imin(m0 + K::kBlockM, len_q), kv_begin, kv_end, reinterpret_cast<long long *>(smem),
        [&](int q) { return score_mod.document_of_query(b, h, q); },
        [&](int kv) { return score_mod.document_of_key(b, h, kv); }, tid);
    kv_begin = documents.begin;
    kv_end = documents.end;
  }
  if constexpr (K::kKeyLimit || K::kKeyBoundRows) {  // keys past the last row's bound are masked
    kv_end = imin(kv_end, key_bound_end<K>(score_mod, b, h, imin(m0 + K::kBlockM, len_q), len_kv));
  }
  int tile_begin = kv_begin / K::kBlockN;
  int tile_end = kv_end > kv_begin ? (kv_end + K::kBlockN - 1) / K::kBlockN : tile_begin;
  if constexpr (K::kDecode) {
    // Split blockIdx.x of gridDim.x takes its share of the visible tiles.
    const int per_split = (tile_end - tile_begin + gridDim.x - 1) / gridDim.x;
    tile_begin = imin(tile_end, tile_begin + static_cast<int>(blockIdx.x) * per_split);
    tile_end = imin(tile_end, tile_begin + per_split);
  }

  // (ragged: the b strides are 0 and the sequences start at q_start, kv_start)
  const u16 *q_tile = p.q + b * p.q_stride_b + h * p.q_stride_h + (q_start + m0) * p.q_stride_s;
  const u16 *k_head = p.k + (K::kPaged ? 0 : b * p.k_stride_b) + h_kv * p.k_stride_h + kv_start * p.k_stride_s;
  const u16 *v_head = p.v + (K::kPaged ? 0 : b * p.v_stride_b) + h_kv * p.v_stride_h + kv_start * p.v_stride_s;
  const int *page_row = K::kPaged ? p.page_table + b * p.page_table_stride : nullptr;
  if constexpr (K::kPaged && K::kDecode) {
    // A split's page indices, read once into shared memory: otherwise every
    // key tile's copies wait on their global page-table reads (the decode
    // loop has too little work per tile to hide them). Too many pages for
    // the cache: read from global memory as elsewhere.
    constexpr int kPageCache = K::kPageCacheEntries;
    static_assert(kPageCache > 0, "the paged decode kernel caches its page indices");
    __shared__ int page_cache[kPageCache];
    const int first = tile_begin * K::kBlockN / K::kPageSize;
    const int count = (imin(tile_end * K::kBlockN, len_kv) + K::kPageSize - 1) / K::kPageSize - first;
    if (count > 0 && count <= kPageCache) {
      for (int i = tid; i < count; i += K::kThreads) page_cache[i] = page_row[first + i];
      __syncthreads();
      page_row = page_cache - first;
    }
  }
  const unsigned smem_q = shared_address(smem);
  const unsigned smem_k = smem_q + K::kQRegionBytes;
  const unsigned smem_v = smem_k + K::kStages * K::kKStageBytes;
  auto load_k = [&](unsigned stage, int n0) {
    load_kv_tile<K, K::kHeadDimQK, K::kQKPitch>(stage, k_head, page_row, p.num_pages, p.k_stride_b,
                                                p.k_stride_s, n0, len_kv, tid);
  };
  auto load_v = [&](unsigned stage, int n0) {
    load_kv_tile<K, K::kHeadDimV, K::kVPitch>(stage, v_head, page_row, p.num_pages, p.v_stride_b,
                                              p.v_stride_s, n0, len_kv, tid);
  };
  PhiloxKey philox_key{0, 0};
  unsigned long long philox_offset = 0;
  if constexpr (K::kDropout) {
    const unsigned long long seed = static_cast<unsigned long long>(*p.dropout_seed);
    philox_key = PhiloxKey{static_cast<unsigned>(seed), static_cast<unsigned>(seed >> 32)};
    philox_offset = static_cast<unsigned long long>(*p.dropout_offset);
  }

  // --- Accumulators: O, and per row the running max and (per lane) sum ---
  float o_acc[K::kMTiles][K::kOTiles][4];
  float row_max[K::kMTiles][2], row_sum[K::kMTiles][2];
#pragma unroll
  for (int m = 0; m < K::kMTiles; ++m) {
#pragma unroll
    for (int d = 0; d < K::kOTiles; ++d)
#pragma unroll
      for (int e = 0; e < 4; ++e) o_acc[m][d][e] = 0.0f;
    row_max[m][0] = row_max[m][1] = neg_inf();
    row_sum[m][0] = row_sum[m][1] = 0.0f;
  }

  if constexpr (K::kWarpSpecialized) {
    // --- Warp-specialised (attention_fwd_ws.cuh): the last warpgroup copies ---
    __shared__ __align__(8) unsigned long long barrier_words[K::kBarriers];
    const unsigned barriers = shared_address(barrier_words);
    if (tid == 0) {
      mbarrier_init(K::q_full(barriers), K::kProducerThreads);
      for (int stage = 0; stage < K::kStages; ++stage) {
        mbarrier_init(K::k_full(barriers, stage), K::kProducerThreads);
        mbarrier_init(K::v_full(barriers, stage), K::kProducerThreads);
        mbarrier_init(K::k_empty(barriers, stage), K::kWarps);  // lane 0 of each consumer warp
        mbarrier_init(K::v_empty(barriers, stage), K::kWarps);
      }
      fence_mbarrier_init();
    }
    __syncthreads();
    // (fp8: V^T of kv head h_kv, and the runtime scales of S and P)
    const u16 *v_t_head =
        K::kFp8 ? p.v_t + (b * (p.num_heads_q / K::kQueryHeadsPerKvHead) + h_kv) * K::kHeadDimV * p.v_t_pitch
                : nullptr;
    const ForwardTileRange range{b,        h,         m0,     len_q,  len_kv, tile_begin,
                                 tile_end, documents, q_tile, k_head, v_head, v_t_head};
    if (warp >= K::kWarps) {
      warpgroup_release_registers<K::kProducerRegisters>();
      if (tile_begin < tile_end)
        produce_tiles<K>(p, range, smem_q, smem_k, smem_v, barriers, tid - K::kWarps * 32);
      return;
    }
    warpgroup_claim_registers<K::kConsumerRegisters>();
    if (tile_begin < tile_end)
      consume_tiles<K>(p, range, score_mod, mask, o_acc, row_max, row_sum, smem_q, smem_k, smem_v, barriers,
                       philox_key, philox_offset, warp, lane, K::kSoftmaxScaleLog2 * fp8_score_descale<K>(p),
                       fp8_p_scale<K>(p));
    // Every consumer is done with Q before the epilogue stages O over it.
    named_barrier_sync(kTurnBarrier + K::kConsumerGroups, K::kWarps * 32);
  } else {
    unsigned q_frag[K::kQInRegisters ? K::kMTiles : 1][K::kQKSteps][4];

    if (tile_begin < tile_end) {
      // Zero the pad columns [kHeadDimQK, kHeadDimQKPadded) of Q and both K
      // stages once: the copies never write them and the k-step reads them.
      if constexpr (K::kHeadDimQKPadded != K::kHeadDimQK) {
        zero_columns<K::kBlockM, K::kQRegionPitch, K::kHeadDimQK, K::kHeadDimQKPadded, K::kThreads>(
            reinterpret_cast<u16 *>(smem), tid);
        zero_columns<K::kStages * K::kBlockN, K::kQKPitch, K::kHeadDimQK, K::kHeadDimQKPadded, K::kThreads>(
            reinterpret_cast<u16 *>(smem + K::kQRegionBytes), tid);
      }
      // --- Prologue: Q tile, then the first K/V tile into stage 0 ---
      if constexpr (K::kDecode) {
        const int seq_q = static_cast<int>(p.seq_len_q);
        load_rows_gather_async<K::kBlockM, K::kHeadDimQK, K::kQRegionPitch, K::kThreads>(
            smem_q,
            [&](int r) { return q_tile + (r / seq_q) * p.q_stride_h + (r % seq_q) * p.q_stride_s; },
            static_cast<int>(K::kQueryHeadsPerKvHead) * seq_q, tid);
      } else {
        load_rows_async<K::kBlockM, K::kHeadDimQK, K::kQRegionPitch, K::kThreads, true>(
            smem_q, q_tile, p.q_stride_s, (K::kRagged ? len_q : static_cast<int>(p.seq_len_q)) - m0, tid);
      }
      cp_async_commit();
      load_k(smem_k, tile_begin * K::kBlockN);
      if constexpr (K::kStages > 1) load_v(smem_v, tile_begin * K::kBlockN);
      cp_async_commit();
      // More buffers: the next tiles too, one commit group each (empty past
      // the last tile, so that the loop's wait counts stay exact).
#pragma unroll
      for (int i = 1; i + 1 < K::kStages; ++i) {
        if (tile_begin + i < tile_end) {
          load_k(smem_k + i * K::kKStageBytes, (tile_begin + i) * K::kBlockN);
          load_v(smem_v + i * K::kVStageBytes, (tile_begin + i) * K::kBlockN);
        }
        cp_async_commit();
      }
      if constexpr (K::kQInRegisters) {
        cp_async_wait<K::kStages == 1 ? 1 : K::kStages - 1>();  // Q has landed
        __syncthreads();
#pragma unroll
        for (int m = 0; m < K::kMTiles; ++m)
#pragma unroll
          for (int ks = 0; ks < K::kQKSteps; ++ks)
            load_q_fragment<K>(q_frag[m][ks], smem_q, row_warp * K::kWarpRows, m, ks, lane);
      }
    }

    // --- Main loop over the visible K/V tiles ---
    for (int tile = tile_begin; tile < tile_end; ++tile) {
      const int n0 = tile * K::kBlockN;
      unsigned smem_k_tile = smem_k, smem_v_tile = smem_v;
      if constexpr (K::kStages > 1) {
        // A ring of kStages buffers: tile `tile` has landed (the kStages - 2
        // newer tiles may still be in flight), and every warp is done with the
        // buffer the previous tile used; tile + kStages - 1 is prefetched into
        // it and lands during the math of the tiles before it.
        const int stage = (tile - tile_begin) % K::kStages;
        copies_landed<K::kWgmma, K::kStages - 2>();
        if (tile + K::kStages - 1 < tile_end) {
          const int next = (stage + K::kStages - 1) % K::kStages;
          load_k(smem_k + next * K::kKStageBytes, n0 + (K::kStages - 1) * K::kBlockN);
          load_v(smem_v + next * K::kVStageBytes, n0 + (K::kStages - 1) * K::kBlockN);
        }
        cp_async_commit();
        smem_k_tile = smem_k + stage * K::kKStageBytes;
        smem_v_tile = smem_v + stage * K::kVStageBytes;
      } else {
        // One K and one V buffer: K tile `tile` has landed, and every warp is
        // done with the previous V, which streams in while S is computed.
        copies_landed<K::kWgmma>();
        load_v(smem_v_tile, n0);
        cp_async_commit();
      }

      // This warp's keys of the tile: [warp_n0, warp_n0 + kWarpKeys).
      const int warp_n0 = n0 + key_slice * K::kWarpKeys;
      const unsigned warp_k_tile = smem_k_tile + key_slice * K::kWarpKeys * K::kQKPitch * 2;
      const unsigned warp_v_tile = smem_v_tile + key_slice * K::kWarpKeys * K::kVPitch * 2;
      float s[K::kMTiles][K::kNTiles][4];
      if constexpr (K::kWgmma)
        compute_scores_wgmma<K>(s, smem_q, warp, smem_k_tile);
      else if constexpr (K::kQInRegisters)
        compute_scores<K>(s, q_frag, warp_k_tile, lane);
      else
        compute_scores<K>(s, smem_q, row_warp * K::kWarpRows, warp_k_tile, lane);
      if constexpr (K::kScoreMod)
        modify_scores<K>(score_mod, documents.same_document(n0, K::kBlockN), s, b, h, warp_row0, warp_n0, lane,
                         p.seq_len_q, p.seq_len_kv, DistanceTable{nullptr, 0});
      // Mask-free tiles (the common case) skip the per-element tests.
      if (!mask.all_visible(K::kDecode ? 0 : m0, K::kDecode ? len_q : imin(m0 + K::kBlockM, len_q), n0,
                            n0 + K::kBlockN))
        apply_masks<K>(s, mask, warp_row0, warp_n0, lane, static_cast<int>(p.seq_len_q));
      if constexpr (K::kStages == 1) {
        // V has landed, and every warp is done with K: the next K streams in
        // during the softmax and P V.
        copies_landed<K::kWgmma>();
        if (tile + 1 < tile_end) load_k(smem_k_tile, n0 + K::kBlockN);
        cp_async_commit();
      }
      online_softmax<K::kMTiles, K::kNTiles, K::kOTiles, K::kSubtractMaxFirst>(s, row_max, row_sum, o_acc,
                                                                              K::kSoftmaxScaleLog2);
      if constexpr (K::kDropout)
        apply_dropout<K>(s, philox_key, philox_offset, b, h, p.num_heads_q, warp_row0, warp_n0, lane, p.seq_len_q,
                         p.seq_len_kv);
      if constexpr (K::kWgmma)
        accumulate_pv_wgmma<K>(o_acc, s, smem_v_tile);
      else
        accumulate_pv<K>(o_acc, s, warp_v_tile, lane);
    }
    copies_landed<false>();  // every warp is done with Q
  }  // (the kernel without warp specialisation)

  // --- Epilogue (the Q region becomes the O staging buffer) ---
  if constexpr (K::kDecode) {
    if constexpr (K::kKeyWarps > 1) {
      // The key slices' softmax states meet in the (now free) K/V buffers;
      // the first slice's warps merge them and store.
      merge_key_slices<K>(o_acc, row_max, row_sum, reinterpret_cast<float *>(smem + K::kQRegionBytes),
                          row_warp, key_slice, lane);
      if (key_slice != 0) return;
    }
    store_partial_output<K>(o_acc, row_max, row_sum, p, b, h, row_warp, lane);
    return;
  }
  u16 *o_tile = p.o + b * p.o_stride_b + h * p.o_stride_h + (q_start + m0) * p.o_stride_s;
  float *lse_tile = nullptr;
  if constexpr (K::kTraining)
    lse_tile = K::kRagged ? p.lse + (q_start + m0) * p.num_heads_q + h  // [Tq, Hq]
                          : p.lse + (b * p.num_heads_q + h) * p.seq_len_q + m0;
  store_output<K>(o_acc, row_max, row_sum, smem, o_tile, p.o_stride_s, lse_tile,
                  K::kRagged ? p.num_heads_q : 1, m0, warp, lane, len_q,
                  K::kRagged ? static_cast<long long>(len_q) : p.seq_len_q, fp8_epilogue<K>(p));
}

} // namespace tg::device
