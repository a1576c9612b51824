// tgc device library: the attention forward's matrix stages with wgmma
// (sm_90a). Each warpgroup (4 warps) owns 64 query rows; wgmma reads Q and
// K from shared memory through descriptors (both K-major, 128-byte swizzle,
// copy.cuh: tile_offset with pitch 0), so a K tile is read once per
// warpgroup instead of once per warp. The f32 accumulators have the
// mma.sync layout per 16-row warp slice, so the softmax and the other
// stages are shared with the mma.sync kernels (kMTiles = 1).
#pragma once
#include "wgmma.cuh"

namespace tg::device {

/// Issues S = Q K^T for one K tile (one commit group; wgmma_wait before
/// reading s).
template <class K>
__device__ __forceinline__ void issue_scores_wgmma(float (&s)[K::kMTiles][K::kNTiles][4], unsigned smem_q,
                                                   int warp, unsigned smem_k_stage) {
  unsigned q_rows = smem_q + (warp / 4) * 64 * 128;  // this warpgroup's 64 rows
  // (opaque: the per-step descriptors are computed as they issue, not
  // hoisted out of the caller's loop and held in registers)
  opaque(q_rows);
  opaque(smem_k_stage);
#pragma unroll
  for (int n = 0; n < K::kNTiles; ++n) fence_operand(s[0][n]);
  wgmma_fence();
  wgmma_k_major_product<K::kBlockN, K::kElem, K::kQKSteps, K::kBlockM, K::kBlockN>(s[0], q_rows, smem_k_stage);
  wgmma_commit();
}

/// S = Q K^T for one K tile.
template <class K>
__device__ __forceinline__ void compute_scores_wgmma(float (&s)[K::kMTiles][K::kNTiles][4],
                                                     unsigned smem_q, int warp, unsigned smem_k_stage) {
  issue_scores_wgmma<K>(s, smem_q, warp, smem_k_stage);
  wgmma_wait<0>();
#pragma unroll
  for (int n = 0; n < K::kNTiles; ++n) fence_operand(s[0][n]);
}

/// P (rounded to the element type) as the register A operand of P V: its
/// layout is the accumulator layout of S.
///
/// FP8: P * p_scale (tg's scale_s) rounded to fp8, four elements per
/// register. A register of the A operand holds four consecutive k of one
/// row, where this thread's accumulators hold two pairs 8 keys apart (keys
/// 2t, 2t + 1, 2t + 8, 2t + 9 of each 16, t = lane % 4). So k slot
/// 4t + i of each 16 is key fp8_key_of_slot(4t + i), and V^T is stored
/// with its keys in slot order (prepare_v_fp8): the product sums over the
/// same keys.
template <class K>
__device__ __forceinline__ void pack_probabilities(unsigned (&p_frag)[K::kPVSteps][4],
                                                   const float (&p)[K::kMTiles][K::kNTiles][4],
                                                   float p_scale = 1.0f) {
  if constexpr (K::kFp8) {
#pragma unroll
    for (int kk = 0; kk < K::kPVSteps; ++kk) {
#pragma unroll
      for (int r = 0; r < 4; ++r) {
        // registers 0, 1: keys 0-15 of the step (n8 tiles 4 kk, 4 kk + 1),
        // rows g and g + 8; registers 2, 3: keys 16-31
        const int n = 4 * kk + 2 * (r / 2), half = r % 2;
        p_frag[kk][r] = pack4_fp8<K::kElem>(p[0][n][2 * half] * p_scale, p[0][n][2 * half + 1] * p_scale,
                                            p[0][n + 1][2 * half] * p_scale, p[0][n + 1][2 * half + 1] * p_scale);
      }
    }
  } else {
#pragma unroll
    for (int kk = 0; kk < K::kPVSteps; ++kk) {
      p_frag[kk][0] = pack2<K::kElem>(p[0][2 * kk][0], p[0][2 * kk][1]);
      p_frag[kk][1] = pack2<K::kElem>(p[0][2 * kk][2], p[0][2 * kk][3]);
      p_frag[kk][2] = pack2<K::kElem>(p[0][2 * kk + 1][0], p[0][2 * kk + 1][1]);
      p_frag[kk][3] = pack2<K::kElem>(p[0][2 * kk + 1][2], p[0][2 * kk + 1][3]);
    }
  }
}

/// Issues O += P V for one V tile (one commit group). V [keys x dims] is
/// the MN-major B operand (dims contiguous, 128-byte swizzle): 64-dim blocks
/// kBlockN * 128 bytes apart, 8-key groups 1024 bytes apart. p_frag is read
/// until the group completes.
template <class K>
__device__ __forceinline__ void issue_pv_wgmma(float (&o_acc)[K::kMTiles][K::kOTiles][4],
                                               const unsigned (&p_frag)[K::kPVSteps][4], unsigned smem_v_stage) {
  opaque(smem_v_stage);
#pragma unroll
  for (int d = 0; d < K::kOTiles; ++d) fence_operand(o_acc[0][d]);
  wgmma_fence();
  // (fp8: V^T [dims x keys] is the K-major B operand, 32 keys a step;
  // 128-key blocks kHeadDimV * 128 bytes apart)
#pragma unroll
  for (int kk = 0; kk < K::kPVSteps; ++kk)
    WgmmaM64<K::kHeadDimV>::template rs<K::kElem>(
        o_acc[0], p_frag[kk],
        K::kFp8 ? k_major_descriptor(smem_v_stage + (kk / 4) * (K::kHeadDimV * 128) + (kk % 4) * 32)
                : mn_major_descriptor<K::kBlockN>(smem_v_stage + kk * 16 * 128));
  wgmma_commit();
}

/// O += P V for one V tile.
template <class K>
__device__ __forceinline__ void accumulate_pv_wgmma(float (&o_acc)[K::kMTiles][K::kOTiles][4],
                                                    const float (&p)[K::kMTiles][K::kNTiles][4],
                                                    unsigned smem_v_stage) {
  unsigned p_frag[K::kPVSteps][4];
  pack_probabilities<K>(p_frag, p);
  issue_pv_wgmma<K>(o_acc, p_frag, smem_v_stage);
  wgmma_wait<0>();
#pragma unroll
  for (int d = 0; d < K::kOTiles; ++d) fence_operand(o_acc[0][d]);
}

} // namespace tg::device
