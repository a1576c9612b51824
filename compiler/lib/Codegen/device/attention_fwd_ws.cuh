// tgc device library: the warp-specialised sm_90a attention forward
// (Config::kWarpSpecialized; FlashAttention-3's schedule without TMA).
//
// Roles: warpgroups 0 .. kConsumerGroups - 1 compute (64 query rows each,
// as in the wgmma kernel); the last warpgroup only copies. The producer
// gives back registers (setmaxnreg) that the consumers claim, copies Q
// once and the K and V tiles into a ring of kStages buffers with cp.async,
// and signals each buffer on an mbarrier when its copies land; consumers
// free a buffer on a second mbarrier when their wgmma has read it.
//
// Each consumer overlaps its softmax with its tensor-core work: in
// iteration i it issues S(i) = Q K(i)^T and O += P(i-1) V(i-1) together,
// then computes the softmax of S(i) while P V runs (O is rescaled before
// the next P V, online_softmax_step). With kPingPong the two consumer
// warpgroups take turns to issue their wgmma (named barriers), so one's
// softmax runs under the other's matrix work.
#pragma once
#include "attention_fwd_common.cuh"
#include "attention_fwd_wgmma.cuh"
#include "copy.cuh"
#include "distances.cuh"
#include "documents.cuh"
#include "masks.cuh"
#include "softmax.cuh"

namespace tg::device {

/// What the setup of attention_forward hands to the warp-specialised roles.
struct ForwardTileRange {
  long long b, h;
  int m0, len_q, len_kv, tile_begin, tile_end;
  DocumentSpan documents;  // (kDocumentMask) tiles in the rows' one document
  const u16 *q_tile, *k_head, *v_head;
  const u16 *v_t_head;  // (fp8) this kv head's V^T, rows ForwardParams::v_t_pitch words apart
};

/// Named barriers (0 is __syncthreads'): one per consumer warpgroup's turn,
/// then the consumers' barrier before the epilogue, then one per consumer
/// warpgroup for its distance tables (kDistanceTable).
constexpr unsigned kTurnBarrier = 1;

/// The producer warpgroup: Q, then every visible K and V tile.
template <class K>
__device__ __forceinline__ void produce_tiles(const ForwardParams &p, const ForwardTileRange &t, unsigned smem_q,
                                              unsigned smem_k, unsigned smem_v, unsigned barriers, int ptid) {
  constexpr int kThreads = K::kProducerThreads;
  load_swizzled_rows_async<K::kBlockM, K::kQKWords, kThreads>(smem_q, t.q_tile, p.q_stride_s,
                                                               static_cast<int>(p.seq_len_q) - t.m0, ptid);
  cp_async_mbarrier_arrive(K::q_full(barriers));
  for (int i = 0; i < t.tile_end - t.tile_begin; ++i) {
    const int stage = i % K::kStages;
    const unsigned phase = (i / K::kStages) & 1;
    const int n0 = (t.tile_begin + i) * K::kBlockN;
    mbarrier_wait(K::k_empty(barriers, stage), phase ^ 1);
    load_swizzled_rows_async<K::kBlockN, K::kQKWords, kThreads>(
        smem_k + stage * K::kKStageBytes, t.k_head + n0 * p.k_stride_s, p.k_stride_s, t.len_kv - n0, ptid);
    cp_async_mbarrier_arrive(K::k_full(barriers, stage));
    mbarrier_wait(K::v_empty(barriers, stage), phase ^ 1);
    if constexpr (K::kFp8)  // V^T: kHeadDimV rows of the tile's keys (zeros past the last key)
      load_swizzled_rows_async<K::kHeadDimV, K::kBlockN / 2, kThreads>(
          smem_v + stage * K::kVStageBytes, t.v_t_head + n0 / 2, p.v_t_pitch, K::kHeadDimV, ptid);
    else
      load_swizzled_rows_async<K::kBlockN, K::kHeadDimV, kThreads>(
          smem_v + stage * K::kVStageBytes, t.v_head + n0 * p.v_stride_s, p.v_stride_s, t.len_kv - n0, ptid);
    cp_async_mbarrier_arrive(K::v_full(barriers, stage));
  }
  cp_async_commit();
  cp_async_wait<0>();  // no copy outlives its thread
}

/// Waits for a buffer's copies; the proxy fence orders them (generic
/// proxy) before this thread's wgmma reads (async proxy).
__device__ __forceinline__ void wait_for_tile(unsigned barrier, unsigned phase) {
  mbarrier_wait(barrier, phase);
  fence_proxy_async();
}

/// One consumer warpgroup's loop over the visible tiles. Returns with O, the
/// row max and the row sums as the online softmax leaves them.
/// `scale_log2` is K::kSoftmaxScaleLog2 (times the fp8 descales of q and k);
/// `p_scale` multiplies fp8 P before its rounding (scale_s).
template <class K, class ScoreMod, class Mask>
__device__ __forceinline__ void consume_tiles(const ForwardParams &p, const ForwardTileRange &t,
                                              const ScoreMod &score_mod, const Mask &mask,
                                              float (&o_acc)[K::kMTiles][K::kOTiles][4],
                                              float (&row_max)[K::kMTiles][2], float (&row_sum)[K::kMTiles][2],
                                              unsigned smem_q, unsigned smem_k, unsigned smem_v, unsigned barriers,
                                              PhiloxKey philox_key, unsigned long long philox_offset, int warp,
                                              int lane, float scale_log2, float p_scale) {
  const int group = warp / 4;
  const int warp_row0 = t.m0 + warp * K::kWarpRows;
  const int tiles = t.tile_end - t.tile_begin;
  // Turns: group g waits on barrier kTurnBarrier + g, then passes the turn on.
  auto turn_begin = [&] {
    if constexpr (K::kPingPong) named_barrier_sync(kTurnBarrier + group, 2 * 128);
  };
  auto turn_end = [&](bool last) {
    // (group 1 started the cycle with an extra pass: it skips its last)
    if constexpr (K::kPingPong)
      if (group == 0 || !last) named_barrier_arrive(kTurnBarrier + (1 - group), 2 * 128);
  };
  auto free_buffer = [&](unsigned barrier) {
    if (lane == 0) mbarrier_arrive(barrier);
  };
  // The distance table of tile i (kDistanceTable) for this warpgroup's
  // rows, stored while S(i) runs: one entry per distance of the rows and
  // keys (clamped to the tensors, as the modifier clamps them), in the
  // buffer of i's parity; tile i + 1's terms are fetched then, an
  // iteration ahead of their store. Its barrier also tells every thread
  // that the group is done with tile i - 2's table in that buffer.
  constexpr int kGroupRows = 4 * K::kWarpRows;
  constexpr int kDistances = K::kDistanceTable ? kGroupRows + K::kBlockN : 1;
  __shared__ float distance_values[K::kConsumerGroups][2][kDistances];
  DistancePrefetch<128, kDistances> next_distances;
  auto fetch_distances = [&](int i) {
    if constexpr (K::kDistanceTable)
      next_distances.fetch(score_mod, t.b, t.h, t.m0 + group * kGroupRows, kGroupRows,
                           (t.tile_begin + i) * K::kBlockN, K::kBlockN, static_cast<int>(p.seq_len_q) - 1,
                           static_cast<int>(p.seq_len_kv) - 1, threadIdx.x % 128);
  };
  fetch_distances(0);
  auto tabulate_distances_of = [&](int i) {
    DistanceTable table{nullptr, 0};
    if constexpr (K::kDistanceTable) {
      table = next_distances.store(distance_values[group][i % 2], threadIdx.x % 128);
      if (i + 1 < tiles) fetch_distances(i + 1);
      named_barrier_sync(kTurnBarrier + K::kConsumerGroups + 1 + group, 128);
    }
    return table;
  };
  // The score modifier, the masks, the softmax and dropout of the tile of
  // keys from n0; *rescale and correction say how O must be scaled.
  float correction[K::kMTiles][2];
  auto probabilities = [&](float (&s)[K::kMTiles][K::kNTiles][4], int n0, const DistanceTable &distance) {
    if constexpr (K::kScoreMod)
      modify_scores<K>(score_mod, t.documents.same_document(n0, K::kBlockN), s, t.b, t.h, warp_row0, n0, lane,
                       p.seq_len_q, p.seq_len_kv, distance);
    if (!mask.all_visible(t.m0, imin(t.m0 + K::kBlockM, t.len_q), n0, n0 + K::kBlockN))
      apply_masks<K>(s, mask, warp_row0, n0, lane);
    const bool rescale = online_softmax_deferred<K::kMTiles, K::kNTiles, K::kSubtractMaxFirst, K::kTightMax>(
        s, row_max, row_sum, correction, scale_log2);
    if constexpr (K::kDropout)
      apply_dropout<K>(s, philox_key, philox_offset, t.b, t.h, p.num_heads_q, warp_row0, n0, lane, p.seq_len_q,
                       p.seq_len_kv);
    return rescale;
  };

  static_assert(!K::kPingPong || K::kConsumerGroups == 2, "ping-pong: two consumer warpgroups");
  if (K::kPingPong && group == 1) named_barrier_arrive(kTurnBarrier, 2 * 128);  // group 0 goes first
  mbarrier_wait(K::q_full(barriers), 0);

  float s[K::kMTiles][K::kNTiles][4];
  unsigned p_frag[K::kPVSteps][4];
  wait_for_tile(K::k_full(barriers, 0), 0);
  turn_begin();
  issue_scores_wgmma<K>(s, smem_q, warp, smem_k);
  turn_end(tiles == 1);
  DistanceTable distance = tabulate_distances_of(0);
  wgmma_wait<0>();
#pragma unroll
  for (int n = 0; n < K::kNTiles; ++n) fence_operand(s[0][n]);
  free_buffer(K::k_empty(barriers, 0));
  bool rescale = probabilities(s, t.tile_begin * K::kBlockN, distance);
  pack_probabilities<K>(p_frag, s, p_scale);

  for (int i = 1; i < tiles; ++i) {
    const int stage = i % K::kStages, previous = (i - 1) % K::kStages;
    const unsigned phase = (i / K::kStages) & 1, previous_phase = ((i - 1) / K::kStages) & 1;
    wait_for_tile(K::k_full(barriers, stage), phase);
    turn_begin();
    issue_scores_wgmma<K>(s, smem_q, warp, smem_k + stage * K::kKStageBytes);
    if (rescale) rescale_output(o_acc, correction);  // before P(i-1) V(i-1) joins O
    wait_for_tile(K::v_full(barriers, previous), previous_phase);
    issue_pv_wgmma<K>(o_acc, p_frag, smem_v + previous * K::kVStageBytes);
    turn_end(i == tiles - 1);
    distance = tabulate_distances_of(i);
    wgmma_wait<1>();  // S(i) is ready; P V still runs
#pragma unroll
    for (int n = 0; n < K::kNTiles; ++n) fence_operand(s[0][n]);
    free_buffer(K::k_empty(barriers, stage));
    rescale = probabilities(s, (t.tile_begin + i) * K::kBlockN, distance);
    wgmma_wait<0>();
#pragma unroll
    for (int d = 0; d < K::kOTiles; ++d) fence_operand(o_acc[0][d]);
#pragma unroll
    for (int kk = 0; kk < K::kPVSteps; ++kk) fence_operand(p_frag[kk]);
    free_buffer(K::v_empty(barriers, previous));
    pack_probabilities<K>(p_frag, s, p_scale);
  }

  const int last = (tiles - 1) % K::kStages;
  if (rescale) rescale_output(o_acc, correction);
  wait_for_tile(K::v_full(barriers, last), ((tiles - 1) / K::kStages) & 1);
  issue_pv_wgmma<K>(o_acc, p_frag, smem_v + last * K::kVStageBytes);
  wgmma_wait<0>();
#pragma unroll
  for (int d = 0; d < K::kOTiles; ++d) fence_operand(o_acc[0][d]);
#pragma unroll
  for (int kk = 0; kk < K::kPVSteps; ++kk) fence_operand(p_frag[kk]);
}

} // namespace tg::device
