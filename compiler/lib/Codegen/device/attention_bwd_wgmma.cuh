// tgc device library: the fused attention backward main kernel for sm_90a
// (Config::kWgmma): FlashAttention-2's algorithm with every product on
// warpgroup tensor cores (wgmma.cuh).
//
// One CTA of two warpgroups owns 128 keys of one (batch, kv head); warpgroup
// g owns keys [64 g, 64 g + 64), its dK and dV stay in registers. Per query
// tile of 64 rows (Q and dO double-buffered, copied with cp.async by every
// thread while the previous tile computes):
//
//   A  S^T = K Q^T, dP^T = V dO^T         ss wgmma, K-major both (64 keys x 64 queries)
//      P, dS element by element (attention_bwd_common.cuh)
//   B  dV += P^T dO, dK += dS^T Q          rs wgmma: P^T and dS^T stay in registers as
//                                          the A operand, dO and Q MN-major
//      dS^T to shared memory ([key][query], 128-byte swizzle)
//   C  dQ = dS K                            ss wgmma, both MN-major (dS^T read
//                                          transposed); f32 vector reductions into
//                                          the accumulator
// At head dim 128 warpgroup g computes dQ's columns [64 g, 64 g + 64) over
// all 128 keys; at head dim 64 it computes all columns over its own keys
// (two adds per element). The epilogue writes dK * scale and dV from
// registers. The preprocess and convert kernels are the mma.sync kernel's.
#pragma once
#include "attention_bwd_common.cuh"
#include "copy.cuh"
#include "mma.cuh"
#include "wgmma.cuh"

namespace tg::device {

/// Shared memory (byte offsets from a 1024-byte aligned base; K, V, Q and
/// dO in the 128-byte swizzled layout of copy.cuh's tile_offset with pitch
/// 0, dS^T likewise with 64 columns) and the dQ split.
template <class Cfg>
struct BackwardWgmmaLayout {
  static constexpr int kThreads = 256;
  static constexpr int kGroupKeys = 64;  // keys per warpgroup
  static_assert(Cfg::kWarps == 8 && Cfg::kBlockN == 128 && Cfg::kBlockM == 64 && Cfg::kQStages == 2,
                "two warpgroups of 64 keys, query tiles of 64 rows, two Q/dO buffers");
  static_assert((Cfg::kHeadDimQK == 64 || Cfg::kHeadDimQK == 128) &&
                    (Cfg::kHeadDimV == 64 || Cfg::kHeadDimV == 128),
                "head dims 64 or 128");
  static constexpr unsigned kQStageBytes = Cfg::kBlockM * Cfg::kHeadDimQK * 2;
  static constexpr unsigned kDOStageBytes = Cfg::kBlockM * Cfg::kHeadDimV * 2;
  static constexpr unsigned kK = 0;
  static constexpr unsigned kV = kK + Cfg::kBlockN * Cfg::kHeadDimQK * 2;
  static constexpr unsigned kQ = kV + Cfg::kBlockN * Cfg::kHeadDimV * 2;
  static constexpr unsigned kDO = kQ + 2 * kQStageBytes;
  static constexpr unsigned kDS = kDO + 2 * kDOStageBytes;
  static constexpr unsigned kLse = kDS + Cfg::kBlockN * Cfg::kBlockM * 2;
  static constexpr unsigned kDelta = kLse + 2 * Cfg::kBlockM * 4;
  static constexpr unsigned kDrop = kDelta + 2 * Cfg::kBlockM * 4;
  static constexpr unsigned kBytes = kDrop + (Cfg::kDropout ? Cfg::kBlockM * kKeepWords<Cfg> * 4 : 0);
  // The launch adds 1024 bytes: the base is aligned up to 1024 in the kernel.
  static constexpr unsigned kLaunchBytes = kBytes + 1024;
  // dQ: two 64-column halves at head dim 128, else each warpgroup's keys.
  static constexpr bool kDQSplitsColumns = Cfg::kHeadDimQK == 128;
  static constexpr int kDQKeySteps = (kDQSplitsColumns ? Cfg::kBlockN : kGroupKeys) / 16;
};

/// Adds two consecutive floats into global memory (one vector reduction).
__device__ __forceinline__ void reduce_add_pair(float *address, float a, float b) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
  asm volatile("red.global.add.v2.f32 [%0], {%1, %2};\n" ::"l"(address), "f"(a), "f"(b) : "memory");
#else
  atomicAdd(address, a);
  atomicAdd(address + 1, b);
#endif
}

/// Packs accumulator tiles 2 kk, 2 kk + 1 (64 rows x 16 columns) as the
/// register A operand of a k16 step (the mma.sync A fragment).
template <Elem E, int kTiles>
__device__ __forceinline__ void pack_a_operand(unsigned (&frag)[kTiles / 2][4], const float (&acc)[kTiles][4]) {
#pragma unroll
  for (int kk = 0; kk < kTiles / 2; ++kk) {
    frag[kk][0] = pack2<E>(acc[2 * kk][0], acc[2 * kk][1]);
    frag[kk][1] = pack2<E>(acc[2 * kk][2], acc[2 * kk][3]);
    frag[kk][2] = pack2<E>(acc[2 * kk + 1][0], acc[2 * kk + 1][1]);
    frag[kk][3] = pack2<E>(acc[2 * kk + 1][2], acc[2 * kk + 1][3]);
  }
}

template <int kTiles>
__device__ __forceinline__ void fence_accumulators(float (&acc)[kTiles][4]) {
#pragma unroll
  for (int i = 0; i < kTiles; ++i) fence_operand(acc[i]);
}

template <class Cfg, class ScoreMod>
__device__ __forceinline__ void attention_backward_wgmma(const BackwardParams &p, const ScoreMod &score_mod) {
  using L = BackwardWgmmaLayout<Cfg>;
  constexpr Elem E = Cfg::kElem;
  constexpr int kM = Cfg::kBlockM, kN = Cfg::kBlockN;
  constexpr int kQTiles = kM / 8;  // n8 accumulator tiles of queries
  static_assert(kHasWgmma, "this kernel uses wgmma: compile it for sm_90a");
  static_assert(L::kLaunchBytes == Cfg::kSharedBytes, "the layout fills exactly the launch's shared memory");
  extern __shared__ __align__(1024) unsigned char smem_raw[];
  unsigned char *base = smem_raw + ((1024 - (shared_address(smem_raw) & 1023)) & 1023);
  const unsigned smem = shared_address(base);
  const int tid = threadIdx.x, warp = tid / 32, lane = tid % 32;
  const int group = warp / 4;
  const int warp_key0 = group * L::kGroupKeys + (warp % 4) * 16;  // this warp's accumulator rows

  // --- Which keys and which query tiles (dS^T is free until phase B: the
  // document search's scratch) ---
  const BackwardWork<Cfg> work =
      backward_work<Cfg, L::kThreads>(p, score_mod, reinterpret_cast<long long *>(base + L::kDS), tid);
  if (work.empty) return;
  const int n0 = work.n0;
  const long long h_kv = work.h_kv, b = work.b;
  const auto &mask = work.mask;
  unsigned *keep_bits = reinterpret_cast<unsigned *>(base + L::kDrop);
  const DropoutStream dropout = dropout_stream<Cfg>(p);

  auto load_query_tile = [&](QueryTile t, int stage) {
    const int valid = work.q_rows - t.m0;
    const long long row = work.q_start + t.m0;
    load_swizzled_rows_async<kM, Cfg::kHeadDimQK, L::kThreads>(
        smem + L::kQ + stage * L::kQStageBytes, p.q + b * p.q_stride_b + t.h * p.q_stride_h + row * p.q_stride_s,
        p.q_stride_s, valid, tid);
    load_swizzled_rows_async<kM, Cfg::kHeadDimV, L::kThreads>(
        smem + L::kDO + stage * L::kDOStageBytes,
        p.d_o + b * p.do_stride_b + t.h * p.do_stride_h + row * p.do_stride_s, p.do_stride_s, valid, tid);
    const long long row0 = (b * p.num_heads_q + t.h) * p.seq_len_q + t.m0;
    load_floats_async<kM, L::kThreads>(smem + L::kLse + stage * kM * 4, p.lse + row0, valid, tid);
    load_floats_async<kM, L::kThreads>(smem + L::kDelta + stage * kM * 4, p.delta + row0, valid, tid);
  };

  // --- Prologue: K and V, the first query tile ---
  load_swizzled_rows_async<kN, Cfg::kHeadDimQK, L::kThreads>(
      smem + L::kK, p.k + b * p.k_stride_b + h_kv * p.k_stride_h + (work.kv_start + n0) * p.k_stride_s,
      p.k_stride_s, work.kv_rows - n0, tid);
  load_swizzled_rows_async<kN, Cfg::kHeadDimV, L::kThreads>(
      smem + L::kV, p.v + b * p.v_stride_b + h_kv * p.v_stride_h + (work.kv_start + n0) * p.v_stride_s,
      p.v_stride_s, work.kv_rows - n0, tid);
  if (work.iterations > 0) {
    load_query_tile(work.tile_of(0), 0);
    if constexpr (Cfg::kDropout)
      fill_keep_bits<Cfg, L::kThreads>(keep_bits, p, dropout, b, work.tile_of(0), n0, tid);
  }
  cp_async_commit();

  float dk_acc[Cfg::kHeadDimQK / 8][4], dv_acc[Cfg::kHeadDimV / 8][4];
#pragma unroll
  for (int i = 0; i < Cfg::kHeadDimQK / 8; ++i)
#pragma unroll
    for (int e = 0; e < 4; ++e) dk_acc[i][e] = 0.0f;
#pragma unroll
  for (int i = 0; i < Cfg::kHeadDimV / 8; ++i)
#pragma unroll
    for (int e = 0; e < 4; ++e) dv_acc[i][e] = 0.0f;

  for (int it = 0; it < work.iterations; ++it) {
    const QueryTile t = work.tile_of(it);
    const int stage = it % 2;
    unsigned q_tile = smem + L::kQ + stage * L::kQStageBytes;
    unsigned do_tile = smem + L::kDO + stage * L::kDOStageBytes;
    const float *lse_tile = reinterpret_cast<const float *>(base + L::kLse) + stage * kM;
    const float *delta_tile = reinterpret_cast<const float *>(base + L::kDelta) + stage * kM;
    // This tile has landed (and, ordered by the proxy fence, is visible to
    // wgmma); every warpgroup is done with the previous one, whose buffers
    // the next tile reuses.
    cp_async_wait<0>();
    fence_proxy_async();
    __syncthreads();
    if (it + 1 < work.iterations) load_query_tile(work.tile_of(it + 1), 1 - stage);
    cp_async_commit();

    // --- Phase A: S^T and dP^T for this warpgroup's 64 keys x 64 queries ---
    float s[kQTiles][4], dp[kQTiles][4];
    {
      unsigned k_rows = smem + L::kK + group * L::kGroupKeys * 128;
      unsigned v_rows = smem + L::kV + group * L::kGroupKeys * 128;
      opaque(k_rows);
      opaque(v_rows);
      opaque(q_tile);
      opaque(do_tile);
      fence_accumulators(s);
      fence_accumulators(dp);
      wgmma_fence();
#pragma unroll
      for (int ks = 0; ks < Cfg::kHeadDimQK / 16; ++ks)
        WgmmaM64<kM>::template ss<E>(
            s, k_major_descriptor(k_rows + (ks / 4) * (kN * 128) + (ks % 4) * 32),
            k_major_descriptor(q_tile + (ks / 4) * (kM * 128) + (ks % 4) * 32), ks > 0);
#pragma unroll
      for (int ks = 0; ks < Cfg::kHeadDimV / 16; ++ks)
        WgmmaM64<kM>::template ss<E>(
            dp, k_major_descriptor(v_rows + (ks / 4) * (kN * 128) + (ks % 4) * 32),
            k_major_descriptor(do_tile + (ks / 4) * (kM * 128) + (ks % 4) * 32), ks > 0);
      wgmma_commit();
      wgmma_wait<0>();
      fence_accumulators(s);
      fence_accumulators(dp);
    }

    // --- Probabilities and score gradients, element by element ---
    const int group_n0 = n0 + group * L::kGroupKeys;
    const bool all_visible = mask.all_visible(t.m0, t.m0 + kM, group_n0, group_n0 + L::kGroupKeys);
#pragma unroll
    for (int nt = 0; nt < kQTiles; ++nt) {
#pragma unroll
      for (int j = 0; j < 2; ++j) {
        const int q_local = accumulator_col(nt, j, lane);
        const float lse = lse_for_probabilities(lse_tile[q_local]);
        const float row_delta = delta_tile[q_local];
#pragma unroll
        for (int half = 0; half < 2; ++half) {
          const int e = 2 * half + j;
          const int key_local = warp_key0 + accumulator_row(0, e, lane);
          score_gradient_element<Cfg>(s[nt][e], dp[nt][e], score_mod, mask, all_visible, b, t.h, t.m0 + q_local,
                                      n0 + key_local, work.seq_q, work.seq_kv, lse, row_delta, keep_bits, q_local,
                                      key_local);
        }
      }
    }

    // --- Phase B: dV += P^T dO, dK += dS^T Q (registers as the A operand);
    // dS^T to shared memory for phase C ---
    unsigned p_frag[kM / 16][4], ds_frag[kM / 16][4];
    pack_a_operand<E>(p_frag, s);
    pack_a_operand<E>(ds_frag, dp);
#pragma unroll
    for (int kk = 0; kk < kM / 16; ++kk)
#pragma unroll
      for (int r = 0; r < 4; ++r) {
        const int key = warp_key0 + lane / 4 + 8 * (r % 2);
        const int query = 16 * kk + 2 * (lane % 4) + 8 * (r / 2);
        *reinterpret_cast<unsigned *>(base + L::kDS + tile_offset<kN, 0>(key, query)) = ds_frag[kk][r];
      }
    fence_accumulators(dv_acc);
    fence_accumulators(dk_acc);
    wgmma_fence();
#pragma unroll
    for (int kk = 0; kk < kM / 16; ++kk)
      WgmmaM64<Cfg::kHeadDimV>::template rs<E>(dv_acc, p_frag[kk], mn_major_descriptor<kM>(do_tile + kk * 16 * 128));
#pragma unroll
    for (int kk = 0; kk < kM / 16; ++kk)
      WgmmaM64<Cfg::kHeadDimQK>::template rs<E>(dk_acc, ds_frag[kk], mn_major_descriptor<kM>(q_tile + kk * 16 * 128));
    wgmma_commit();
    fence_proxy_async();  // dS^T (generic stores) before phase C's wgmma reads
    __syncthreads();      // both warpgroups' dS^T; every keep bit of this tile read
    if constexpr (Cfg::kDropout)
      if (it + 1 < work.iterations)
        fill_keep_bits<Cfg, L::kThreads>(keep_bits, p, dropout, b, work.tile_of(it + 1), n0, tid);

    // --- Phase C: dQ = dS K for 64 queries x 64 head dims ---
    float dq[8][4];
    {
      constexpr int kStepBytes = 16 * 128;  // 16 keys
      unsigned ds_rows = smem + L::kDS, k_rows = smem + L::kK;
      if constexpr (L::kDQSplitsColumns) {
        k_rows += group * (kN * 128);  // this warpgroup's 64-column block of K
      } else {
        ds_rows += group * L::kGroupKeys * 128;  // this warpgroup's keys
        k_rows += group * L::kGroupKeys * 128;
      }
      opaque(ds_rows);
      opaque(k_rows);
      fence_accumulators(dq);
      wgmma_fence();
#pragma unroll
      for (int kk = 0; kk < L::kDQKeySteps; ++kk)
        WgmmaM64<64>::template ss<E, 1, 1>(dq, mn_major_descriptor<kN>(ds_rows + kk * kStepBytes),
                                           mn_major_descriptor<kN>(k_rows + kk * kStepBytes), kk > 0);
      wgmma_commit();
      wgmma_wait<0>();  // (phase B's group too)
      fence_accumulators(dq);
      fence_accumulators(dv_acc);
      fence_accumulators(dk_acc);
    }
    int *semaphore = nullptr;
    if constexpr (Cfg::kDeterministic) {
      static_assert(!Cfg::kDeterministic || L::kDQSplitsColumns,
                    "deterministic dQ: one add per element and CTA (head dim 128)");
      semaphore = dq_turn_wait<Cfg>(p, mask, b, t, tid);
    }
    float *dq_rows = p.dq_accum + ((b * p.num_heads_q + t.h) * p.seq_len_q + t.m0) * Cfg::kHeadDimQK;
    const int col0 = L::kDQSplitsColumns ? group * 64 : 0;
#pragma unroll
    for (int nt = 0; nt < 8; ++nt)
#pragma unroll
      for (int half = 0; half < 2; ++half) {
        const int row = (warp % 4) * 16 + lane / 4 + 8 * half;
        const int col = col0 + accumulator_col(nt, 0, lane);
        if (t.m0 + row < work.len_q)
          reduce_add_pair(dq_rows + row * Cfg::kHeadDimQK + col, dq[nt][2 * half], dq[nt][2 * half + 1]);
      }
    if constexpr (Cfg::kDeterministic) dq_turn_done(semaphore, tid);
  }
  cp_async_wait<0>();

  // --- Epilogue: dK * scale and dV, from registers ---
  const int rows = imin(kN, work.kv_rows - n0);
  u16 *dk_rows = p.dk + b * p.dk_stride_b + h_kv * p.dk_stride_h + (work.kv_start + n0) * p.dk_stride_s;
  u16 *dv_rows = p.dv + b * p.dv_stride_b + h_kv * p.dv_stride_h + (work.kv_start + n0) * p.dv_stride_s;
#pragma unroll
  for (int half = 0; half < 2; ++half) {
    const int key = warp_key0 + lane / 4 + 8 * half;
    if (key >= rows) continue;
#pragma unroll
    for (int nt = 0; nt < Cfg::kHeadDimQK / 8; ++nt)
      *reinterpret_cast<unsigned *>(dk_rows + key * p.dk_stride_s + accumulator_col(nt, 0, lane)) =
          pack2<E>(dk_acc[nt][2 * half] * Cfg::kScale, dk_acc[nt][2 * half + 1] * Cfg::kScale);
#pragma unroll
    for (int nt = 0; nt < Cfg::kHeadDimV / 8; ++nt)
      *reinterpret_cast<unsigned *>(dv_rows + key * p.dv_stride_s + accumulator_col(nt, 0, lane)) =
          pack2<E>(dv_acc[nt][2 * half], dv_acc[nt][2 * half + 1]);
  }
}

} // namespace tg::device
