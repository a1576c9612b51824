// tgc device library: the fused attention backward main kernel for sm_90a
// (Config::kWgmma): FlashAttention-2's algorithm with every product on
// warpgroup tensor cores (wgmma.cuh).
//
// One CTA of two warpgroups owns 128 keys of one (batch, kv head); warpgroup
// g owns keys [64 g, 64 g + 64), its dK and dV stay in registers. Per query
// tile of kBlockM rows (64, or 128 at head dim 64; Q, dO, lse and delta
// double-buffered, copied with cp.async by every thread while the previous
// tile computes):
//
//   A  S^T = K Q^T, dP^T = V dO^T   ss wgmma, both K-major (64 keys x kBlockM queries per
//                                    warpgroup), two groups: P from S^T while dP^T runs
//                                    (unless the region has a gradient of its own)
//      P, dS element by element (attention_bwd_common.cuh); where registers allow, and
//      without dropout or region gradients, dV's products are issued before dP^T is waited for
//   B  dV += P^T dO                  rs wgmma: P^T stays in registers as the A operand, dO
//                                    MN-major
//      dS^T to shared memory ([key][query], 128-byte swizzle)
//   C  dQ = dS K                     ss wgmma, both MN-major (dS^T read transposed), a 64 x 64
//                                    block per warpgroup (BackwardWgmmaLayout::kDQSplit), staged
//                                    in shared memory (two stages) in the accumulator's layout
//                                    (dq_accumulator.cuh) and added into it by one bulk
//                                    reduction of whole rows per tile (per warpgroup at head
//                                    dim 64)
//      dK += dS^T Q                  rs wgmma: dS^T in registers as the A operand, Q MN-major;
//                                    issued after dQ, it runs while dQ is staged
// The epilogue writes dK * scale and dV from registers. The preprocess and
// convert kernels are the mma.sync kernel's.
#pragma once
#include "attention_bwd_common.cuh"
#include "copy.cuh"
#include "dq_accumulator.cuh"
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
  static_assert(Cfg::kWarps == 8 && Cfg::kBlockN == 128 && (Cfg::kBlockM == 64 || Cfg::kBlockM == 128) &&
                    Cfg::kQStages == 2,
                "two warpgroups of 64 keys, query tiles of 64 or 128 rows, two Q/dO buffers");
  static_assert((Cfg::kHeadDimQK == 64 || Cfg::kHeadDimQK == 128) &&
                    (Cfg::kHeadDimV == 64 || Cfg::kHeadDimV == 128) &&
                    (Cfg::kBlockM == 64 || Cfg::kHeadDimQK + Cfg::kHeadDimV == 128),
                "head dims 64 or 128; query tiles of 128 rows at head dim 64");
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
  // dQ: each warpgroup computes a 64 x 64 block: at head dim 128 the
  // columns [64 g, 64 g + 64) of all rows over all keys; with 128-row tiles
  // the rows [64 g, 64 g + 64) over all keys; else every column of the 64
  // rows over its own keys (two adds per element).
  enum class DQSplit { Columns, Rows, Keys };
  static constexpr DQSplit kDQSplit = Cfg::kHeadDimQK == 128 ? DQSplit::Columns
                                      : Cfg::kBlockM == 128  ? DQSplit::Rows
                                                             : DQSplit::Keys;
  static constexpr int kDQKeySteps = (kDQSplit == DQSplit::Keys ? kGroupKeys : Cfg::kBlockN) / 16;
  // Its stages for the bulk reductions (two, so that a tile's stores never
  // wait for the previous tile's reduction to read its stage): 64 rows of
  // the accumulator's layout (dq_accumulator.cuh; at head dim 128 both
  // warpgroups' halves of the same rows, one reduction for the CTA), else
  // 64 rows of 64 columns per warpgroup (one reduction each).
  static constexpr unsigned kDQ = kDrop + (Cfg::kDropout ? Cfg::kBlockM * kKeepWords<Cfg> * 4 : 0);
  static constexpr int kDQPitch = Cfg::kHeadDimQK;  // floats
  static constexpr unsigned kDQGroupOffset = kDQSplit == DQSplit::Columns ? 64 * 4 : 64 * 64 * 4;
  static constexpr unsigned kDQStageBytes = 2 * 64 * 64 * 4;
  // The warpgroups' distance tables (kDistanceTable): a query tile's rows
  // and the group's keys.
  static constexpr unsigned kDistances = kDQ + 2 * kDQStageBytes;
  static constexpr int kDistanceEntries = Cfg::kBlockM + kGroupKeys;
  static constexpr unsigned kBytes = kDistances + (Cfg::kDistanceTable ? 2 * kDistanceEntries * 4 : 0);
  // The launch adds 1024 bytes: the base is aligned up to 1024 in the kernel.
  static constexpr unsigned kLaunchBytes = kBytes + 1024;
  // Registers: dV's products are issued before dP^T is waited for where P's
  // fragments fit next to dK, dV, S^T and dP^T (see the kernel).
  static constexpr bool kRoomForEarlyDV = (Cfg::kHeadDimQK + Cfg::kHeadDimV) / 2 + Cfg::kBlockM * 5 / 4 <= 160;
};

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

/// f(nt, e, q_local, key_local, lse, row_delta) for each element of a
/// warp's 16 keys x kQTiles * 8 queries accumulator tile (keys from key0),
/// with its query row's statistics (lse as lse_for_probabilities gives it).
template <int kQTiles, class F>
__device__ __forceinline__ void for_each_score(int lane, int key0, const float *lse_tile, const float *delta_tile,
                                               F &&f) {
#pragma unroll
  for (int nt = 0; nt < kQTiles; ++nt) {
#pragma unroll
    for (int j = 0; j < 2; ++j) {
      const int q_local = accumulator_col(nt, j, lane);
      const float lse = lse_for_probabilities(lse_tile[q_local]);
      const float row_delta = delta_tile[q_local];
#pragma unroll
      for (int half = 0; half < 2; ++half)
        f(nt, 2 * half + j, q_local, key0 + accumulator_row(0, 2 * half + j, lane), lse, row_delta);
    }
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
  static_assert(Cfg::kDQAccumSwizzled, "whole rows per bulk reduction: the swizzled dQ accumulator");
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

  // This warpgroup's distance terms (kDistanceTable) of the next query
  // tile, fetched an iteration ahead (a table lookup's global reads land
  // while the current tile computes).
  DistancePrefetch<128, L::kDistanceEntries> next_distances;
  auto fetch_distances = [&](const QueryTile &t) {
    if constexpr (Cfg::kDistanceTable)
      next_distances.fetch(score_mod, b, t.h, t.m0, kM, n0 + group * L::kGroupKeys, L::kGroupKeys,
                           work.seq_q - 1, work.seq_kv - 1, tid % 128);
  };
  if (work.iterations > 0) fetch_distances(work.tile_of(0));

  for (int it = 0; it < work.iterations; ++it) {
    const QueryTile t = work.tile_of(it);
    const int stage = it % 2;
    unsigned q_tile = smem + L::kQ + stage * L::kQStageBytes;
    unsigned do_tile = smem + L::kDO + stage * L::kDOStageBytes;
    const float *lse_tile = reinterpret_cast<const float *>(base + L::kLse) + stage * kM;
    const float *delta_tile = reinterpret_cast<const float *>(base + L::kDelta) + stage * kM;
    // This tile has landed (and, ordered by the proxy fence, is visible to
    // wgmma); every warpgroup is done with the previous one, whose buffers
    // the next tile reuses. (The reduction of the tile before that has
    // read its dQ stage, which this tile's stores reuse.)
    if (tid % 128 == 0) bulk_wait_read<1>();
    cp_async_wait<0>();
    fence_proxy_async();
    __syncthreads();
    if (it + 1 < work.iterations) load_query_tile(work.tile_of(it + 1), 1 - stage);
    cp_async_commit();

    // --- Phase A: S^T and dP^T for this warpgroup's 64 keys x 64 queries
    // (two groups: S^T's elements are computed while dP^T runs) ---
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
      wgmma_k_major_product<kM, E, Cfg::kHeadDimQK / 16, kN, kM>(s, k_rows, q_tile);
      wgmma_commit();
      wgmma_k_major_product<kM, E, Cfg::kHeadDimV / 16, kN, kM>(dp, v_rows, do_tile);
      wgmma_commit();
    }

    // --- Probabilities and score gradients, element by element ---
    const int group_n0 = n0 + group * L::kGroupKeys;
    const bool all_visible = mask.all_visible(t.m0, t.m0 + kM, group_n0, group_n0 + L::kGroupKeys);
    const bool same_document = work.documents.same_document(t.m0, kM);
    // This warpgroup's distance terms (kDistanceTable) into shared memory
    // while S^T and dP^T run, and the next tile's fetched; the next
    // iteration's __syncthreads frees the buffer.
    DistanceTable distance{nullptr, 0};
    if constexpr (Cfg::kDistanceTable) {
      distance = next_distances.store(reinterpret_cast<float *>(base + L::kDistances) + group * L::kDistanceEntries,
                                      tid % 128);
      if (it + 1 < work.iterations) fetch_distances(work.tile_of(it + 1));
      named_barrier_sync(3 + group, 128);
    }
    unsigned p_frag[kM / 16][4], ds_frag[kM / 16][4];
    // Without a gradient of the region's own, P needs S^T only; without
    // dropout P Z = P, and dV += P^T dO is issued before dP^T is waited for.
    constexpr bool kSplit = !Cfg::kScoreGrad && !Cfg::kCaptureGrads;
    constexpr bool kEarlyDV = kSplit && !Cfg::kDropout && L::kRoomForEarlyDV;
    auto issue_dv = [&] {
      const unsigned long long desc_do = mn_major_descriptor<kM>(do_tile);
#pragma unroll
      for (int kk = 0; kk < kM / 16; ++kk)
        WgmmaM64<Cfg::kHeadDimV>::template rs<E>(dv_acc, p_frag[kk], descriptor_plus(desc_do, kk * 16 * 128));
    };
    if constexpr (kSplit) {
      wgmma_wait<1>();
      fence_accumulators(s);
      for_each_score<kQTiles>(lane, warp_key0, lse_tile, delta_tile, [&](int nt, int e, int q_local, int key_local, float lse, float) {
        s[nt][e] = probability_element<Cfg>(s[nt][e], score_mod, mask, all_visible, same_document, distance, b,
                                            t.h, t.m0 + q_local, n0 + key_local, work.seq_q, work.seq_kv, lse);
      });
      if constexpr (kEarlyDV) {
        pack_a_operand<E>(p_frag, s);
        fence_accumulators(dv_acc);
        wgmma_fence();
        issue_dv();
        wgmma_commit();
        wgmma_wait<1>();  // dP^T (dV may still run)
      } else {
        wgmma_wait<0>();
      }
      fence_accumulators(dp);
      for_each_score<kQTiles>(lane, warp_key0, lse_tile, delta_tile, [&](int nt, int e, int q_local, int key_local, float, float row_delta) {
        const float keep = keep_factor<Cfg>(keep_bits, q_local, key_local);
        dp[nt][e] = identity_score_gradient(s[nt][e], dp[nt][e], keep, row_delta);
        if constexpr (!kEarlyDV) s[nt][e] *= keep;
      });
    } else {
      wgmma_wait<0>();
      fence_accumulators(s);
      fence_accumulators(dp);
      for_each_score<kQTiles>(lane, warp_key0, lse_tile, delta_tile, [&](int nt, int e, int q_local, int key_local, float lse, float row_delta) {
        score_gradient_element<Cfg>(s[nt][e], dp[nt][e], score_mod, mask, all_visible, same_document, distance,
                                    b, t.h, t.m0 + q_local, n0 + key_local, work.seq_q, work.seq_kv, lse,
                                    row_delta, keep_bits, q_local, key_local);
      });
    }

    // --- Phase B: dV += P^T dO (P^T in registers as the A operand); dS^T
    // to shared memory for phase C ---
    if constexpr (!kEarlyDV) pack_a_operand<E>(p_frag, s);
    pack_a_operand<E>(ds_frag, dp);
#pragma unroll
    for (int kk = 0; kk < kM / 16; ++kk)
#pragma unroll
      for (int r = 0; r < 4; ++r) {
        const int key = warp_key0 + lane / 4 + 8 * (r % 2);
        const int query = 16 * kk + 2 * (lane % 4) + 8 * (r / 2);
        *reinterpret_cast<unsigned *>(base + L::kDS + tile_offset<kN, 0>(key, query)) = ds_frag[kk][r];
      }
    if constexpr (!kEarlyDV) {
      fence_accumulators(dv_acc);
      wgmma_fence();
      issue_dv();
      wgmma_commit();
    }
    fence_proxy_async();  // dS^T (generic stores) before phase C's wgmma reads
    __syncthreads();      // both warpgroups' dS^T; every keep bit of this tile read
    if constexpr (Cfg::kDropout)
      if (it + 1 < work.iterations)
        fill_keep_bits<Cfg, L::kThreads>(keep_bits, p, dropout, b, work.tile_of(it + 1), n0, tid);

    // --- Phase C: dQ = dS K for 64 queries x 64 head dims, then dK +=
    // dS^T Q (dS^T in registers as the A operand): dK runs while dQ goes
    // out, and on into the next tile's S^T ---
    float dq[8][4];
    {
      constexpr int kStepBytes = 16 * 128;  // 16 keys
      unsigned ds_rows = smem + L::kDS, k_rows = smem + L::kK;
      if constexpr (L::kDQSplit == L::DQSplit::Columns) {
        k_rows += group * (kN * 128);  // this warpgroup's 64-column block of K
      } else if constexpr (L::kDQSplit == L::DQSplit::Rows) {
        ds_rows += group * (kN * 128);  // this warpgroup's 64-query block of dS^T
      } else {
        ds_rows += group * L::kGroupKeys * 128;  // this warpgroup's keys
        k_rows += group * L::kGroupKeys * 128;
      }
      opaque(ds_rows);
      opaque(k_rows);
      fence_accumulators(dq);
      fence_accumulators(dk_acc);
      wgmma_fence();
      const unsigned long long desc_ds = mn_major_descriptor<kN>(ds_rows), desc_k = mn_major_descriptor<kN>(k_rows);
#pragma unroll
      for (int kk = 0; kk < L::kDQKeySteps; ++kk)
        WgmmaM64<64>::template ss<E, 1, 1>(dq, descriptor_plus(desc_ds, kk * kStepBytes),
                                           descriptor_plus(desc_k, kk * kStepBytes), kk > 0);
      wgmma_commit();
      const unsigned long long desc_q = mn_major_descriptor<kM>(q_tile);
#pragma unroll
      for (int kk = 0; kk < kM / 16; ++kk)
        WgmmaM64<Cfg::kHeadDimQK>::template rs<E>(dk_acc, ds_frag[kk], descriptor_plus(desc_q, kk * 16 * 128));
      wgmma_commit();
      wgmma_wait<1>();  // dV and dQ (dK may still run)
      fence_accumulators(dq);
      fence_accumulators(dv_acc);
    }
    int *semaphore = nullptr;
    if constexpr (Cfg::kDeterministic) {
      static_assert(!Cfg::kDeterministic || L::kDQSplit != L::DQSplit::Keys,
                    "deterministic dQ: one add per element and CTA");
      semaphore = dq_turn_wait<Cfg>(p, mask, b, t, tid);
    }
    // dQ through this tile's stage, then one bulk reduction of its valid
    // rows: by thread 0 for both warpgroups' column halves (head dim 128),
    // else by each warpgroup's first thread for its 64 rows or keys.
    {
      const unsigned stage_bytes = L::kDQ + stage * L::kDQStageBytes + group * L::kDQGroupOffset;
      float *dq_stage = reinterpret_cast<float *>(base + stage_bytes);
#pragma unroll
      for (int nt = 0; nt < 8; ++nt)
#pragma unroll
        for (int half = 0; half < 2; ++half) {
          const int row = (warp % 4) * 16 + lane / 4 + 8 * half;  // of the warpgroup's 64 (t.m0 % 64 == 0)
          *reinterpret_cast<float2 *>(dq_stage + row * L::kDQPitch +
                                      dq_accum_column<Cfg::kDQAccumSwizzled>(row, accumulator_col(nt, 0, lane))) =
              make_float2(dq[nt][2 * half], dq[nt][2 * half + 1]);
        }
      fence_proxy_async();  // the stores before the bulk copy unit reads them
      constexpr bool kShared = L::kDQSplit == L::DQSplit::Columns;
      if constexpr (kShared)
        named_barrier_sync(1, 256);
      else
        named_barrier_sync(1 + group, 128);
      if (kShared ? tid == 0 : tid % 128 == 0) {
        const int row0 = L::kDQSplit == L::DQSplit::Rows ? 64 * group : 0;  // in the tile
        const int rows = imin(64, work.len_q - t.m0 - row0);
        if (rows > 0) {
          float *dq_rows = p.dq_accum + ((b * p.num_heads_q + t.h) * p.seq_len_q + t.m0 + row0) * Cfg::kHeadDimQK;
          bulk_reduce_add_f32(dq_rows, smem + L::kDQ + stage * L::kDQStageBytes +
                                           (kShared ? 0u : group * L::kDQGroupOffset),
                              static_cast<unsigned>(rows) * Cfg::kHeadDimQK * 4);
        }
        bulk_commit();
        if constexpr (Cfg::kDeterministic) bulk_wait<0>();  // added before the turn passes on
      }
    }
    if constexpr (Cfg::kDeterministic) dq_turn_done(semaphore, tid);
    wgmma_wait<0>();  // dK: the next tile's copies reuse its Q buffer
  }
  fence_accumulators(dk_acc);
  if (tid % 128 == 0) bulk_wait_read<0>();  // shared memory outlives the reads
  cp_async_wait<0>();

  // --- Epilogue: dK * scale and dV, from registers ---
  const int rows = imin(kN, work.kv_out_rows - n0);
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
