// tgc device library: the attention forward's matrix stages with mma.sync
// (sm_80+, also as compute_80 PTX): S = Q K^T and O += P V for one K/V tile
// of a warp's kMTiles x 16 query rows.
//
// Both run as software pipelines over (k-step, pair of n8 tiles): the B
// fragments of step i + kFragmentPrefetch are loaded (ldmatrix) before the
// mma of step i, hiding the shared-memory latency. K rows are the
// column-major B operand of S as stored; V rows (keys x dims) are
// transposed on load (mma.cuh, Stored::Rows and Stored::Cols).
#pragma once
#include "mma.cuh"

namespace tg::device {

/// The A fragment of Q for m16 tile m_tile and k-step k_step of a warp whose
/// rows start at warp_row0 of the shared Q tile.
template <class K>
__device__ __forceinline__ void load_q_fragment(unsigned (&a)[4], unsigned smem_q, int warp_row0,
                                                int m_tile, int k_step, int lane) {
  load_a<Stored::Rows, K::kQRegionPitch>(a, smem_q, warp_row0 + m_tile * 16, k_step * 16, lane);
}

/// K fragments of keys 16 key_pair .. +15 (two n8 tiles) at k-step k_step.
template <class K>
__device__ __forceinline__ void load_k_fragment(unsigned (&b)[4], unsigned smem_k_stage, int k_step,
                                                int key_pair, int lane) {
  load_b_pair<Stored::Rows, K::kQKPitch>(b, smem_k_stage, k_step * 16, key_pair * 16, lane);
}

/// S = Q K^T (raw dot products, f32) with Q fragments held in registers:
/// s[m][n] is the 16x8 tile of query rows warp_row0 + 16 m and keys n0 + 8 n.
template <class K>
__device__ __forceinline__ void compute_scores(float (&s)[K::kMTiles][K::kNTiles][4],
                                               const unsigned (&q_frag)[K::kMTiles][K::kQKSteps][4],
                                               unsigned smem_k_stage, int lane) {
  constexpr int kPairs = K::kNTiles / 2;
  constexpr int kSteps = K::kQKSteps * kPairs;
  constexpr int kPrefetch = K::kFragmentPrefetch;
  zero_accumulators(s);
  constexpr int kRing = kPrefetch + 1;  // K fragments in flight + the one in use
  unsigned k_frag[kRing][4];
#pragma unroll
  for (int step = 0; step < kPrefetch && step < kSteps; ++step)
    load_k_fragment<K>(k_frag[step % kRing], smem_k_stage, step / kPairs, step % kPairs, lane);
#pragma unroll
  for (int ks = 0; ks < K::kQKSteps; ++ks) {
#pragma unroll
    for (int np = 0; np < kPairs; ++np) {
      const int step = ks * kPairs + np;
      const int ahead = step + kPrefetch;
      if (ahead < kSteps)
        load_k_fragment<K>(k_frag[ahead % kRing], smem_k_stage, ahead / kPairs, ahead % kPairs, lane);
#pragma unroll
      for (int m = 0; m < K::kMTiles; ++m) {
        mma_16x8x16<K::kElem>(s[m][2 * np], q_frag[m][ks], k_frag[step % kRing][0], k_frag[step % kRing][1]);
        mma_16x8x16<K::kElem>(s[m][2 * np + 1], q_frag[m][ks], k_frag[step % kRing][2], k_frag[step % kRing][3]);
      }
    }
  }
}

/// S = Q K^T with Q fragments re-read from shared memory for each k-step
/// (for tiles whose O and S accumulators leave no registers to keep them):
/// the Q fragments of a k-step load with the K fragment of its first step.
template <class K>
__device__ __forceinline__ void compute_scores(float (&s)[K::kMTiles][K::kNTiles][4], unsigned smem_q,
                                               int warp_row0, unsigned smem_k_stage, int lane) {
  constexpr int kPairs = K::kNTiles / 2;
  constexpr int kSteps = K::kQKSteps * kPairs;
  constexpr int kPrefetch = K::kFragmentPrefetch;
  zero_accumulators(s);
  static_assert(kPrefetch <= kPairs, "Q ring holds two k-steps");
  constexpr int kRing = kPrefetch + 1;
  unsigned q_frag[2][K::kMTiles][4];
  unsigned k_frag[kRing][4];
  // The fragments of one step: its K fragment, and the Q fragments of its
  // k-step when the step starts one.
  auto load_step = [&](int step) {
    if (step % kPairs == 0) {
#pragma unroll
      for (int m = 0; m < K::kMTiles; ++m)
        load_q_fragment<K>(q_frag[(step / kPairs) % 2][m], smem_q, warp_row0, m, step / kPairs, lane);
    }
    load_k_fragment<K>(k_frag[step % kRing], smem_k_stage, step / kPairs, step % kPairs, lane);
  };
#pragma unroll
  for (int step = 0; step < kPrefetch && step < kSteps; ++step) load_step(step);
#pragma unroll
  for (int ks = 0; ks < K::kQKSteps; ++ks) {
#pragma unroll
    for (int np = 0; np < kPairs; ++np) {
      const int step = ks * kPairs + np;
      if (step + kPrefetch < kSteps) load_step(step + kPrefetch);
#pragma unroll
      for (int m = 0; m < K::kMTiles; ++m) {
        mma_16x8x16<K::kElem>(s[m][2 * np], q_frag[ks % 2][m], k_frag[step % kRing][0], k_frag[step % kRing][1]);
        mma_16x8x16<K::kElem>(s[m][2 * np + 1], q_frag[ks % 2][m], k_frag[step % kRing][2], k_frag[step % kRing][3]);
      }
    }
  }
}

/// The A fragment of P for k-step kk (keys 16 kk .. +15): the f32
/// accumulator layout of two adjacent 16x8 S tiles equals the A fragment
/// layout of one 16x16 tile, so P goes from registers straight into the mma
/// after rounding to the element type.
template <class K>
__device__ __forceinline__ void pack_p_fragment(unsigned (&a)[K::kMTiles][4],
                                                const float (&p)[K::kMTiles][K::kNTiles][4], int kk) {
#pragma unroll
  for (int m = 0; m < K::kMTiles; ++m) {
    a[m][0] = pack2<K::kElem>(p[m][2 * kk][0], p[m][2 * kk][1]);
    a[m][1] = pack2<K::kElem>(p[m][2 * kk][2], p[m][2 * kk][3]);
    a[m][2] = pack2<K::kElem>(p[m][2 * kk + 1][0], p[m][2 * kk + 1][1]);
    a[m][3] = pack2<K::kElem>(p[m][2 * kk + 1][2], p[m][2 * kk + 1][3]);
  }
}

/// O += P V for one V tile.
template <class K>
__device__ __forceinline__ void accumulate_pv(float (&o_acc)[K::kMTiles][K::kOTiles][4],
                                              const float (&p)[K::kMTiles][K::kNTiles][4],
                                              unsigned smem_v_stage, int lane) {
  constexpr int kPairs = K::kOTiles / 2;  // output tiles loaded two at a time
  constexpr int kSteps = K::kPVSteps * kPairs;
  constexpr int kPrefetch = K::kFragmentPrefetch;
  constexpr int kRing = kPrefetch + 1;  // V fragments in flight + the one in use
  unsigned p_frag[K::kMTiles][4];
  unsigned v_frag[kRing][4];
#pragma unroll
  for (int step = 0; step < kPrefetch && step < kSteps; ++step)
    load_b_pair<Stored::Cols, K::kVPitch>(v_frag[step % kRing], smem_v_stage, (step / kPairs) * 16,
                                          (step % kPairs) * 16, lane);
  // Nested loops (not one flattened loop) so that both unroll fully and every
  // register-array index is a compile-time constant.
#pragma unroll
  for (int kk = 0; kk < K::kPVSteps; ++kk) {
    pack_p_fragment<K>(p_frag, p, kk);
#pragma unroll
    for (int dp = 0; dp < kPairs; ++dp) {
      const int step = kk * kPairs + dp;
      const int ahead = step + kPrefetch;
      if (ahead < kSteps)
        load_b_pair<Stored::Cols, K::kVPitch>(v_frag[ahead % kRing], smem_v_stage, (ahead / kPairs) * 16,
                                              (ahead % kPairs) * 16, lane);
#pragma unroll
      for (int m = 0; m < K::kMTiles; ++m) {
        mma_16x8x16<K::kElem>(o_acc[m][2 * dp], p_frag[m], v_frag[step % kRing][0], v_frag[step % kRing][1]);
        mma_16x8x16<K::kElem>(o_acc[m][2 * dp + 1], p_frag[m], v_frag[step % kRing][2], v_frag[step % kRing][3]);
      }
    }
  }
  if constexpr (K::kOTiles % 2 == 1) {  // head dim an odd multiple of 8: the last 8 columns
#pragma unroll
    for (int kk = 0; kk < K::kPVSteps; ++kk) {
      pack_p_fragment<K>(p_frag, p, kk);
      unsigned b[2];
      load_b_single<Stored::Cols, K::kVPitch>(b, smem_v_stage, kk * 16, (K::kOTiles - 1) * 8, lane);
#pragma unroll
      for (int m = 0; m < K::kMTiles; ++m) mma_16x8x16<K::kElem>(o_acc[m][K::kOTiles - 1], p_frag[m], b[0], b[1]);
    }
  }
}

} // namespace tg::device
