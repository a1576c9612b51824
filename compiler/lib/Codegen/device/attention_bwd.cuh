// tgc device library: the fused attention backward main kernel
// (FlashAttention-2's algorithm, mma.sync; sm_80+, also as compute_80 PTX).
//
// One CTA owns kBlockN keys of one (batch, kv head): K and V stay in shared
// memory, dK and dV in registers. It loops over the query heads of its GQA
// group and, for each, over the query tiles that can see its keys (the mask
// rule's rows_seeing). Per query tile of kBlockM rows:
//
//   A  S^T = K Q^T, dP^T = V dO^T                     (warps: keys x queries)
//      P = exp2((z - lse) log2 e), z = score_mod(scale * S) masked
//      Pd = P * Z, dZ = P * (dP * Z - delta), dS = score_grad(dZ)
//      (Z: the dropout keep bit times 1/(1-p)) -> Pd^T, dS^T to shared memory
//   B  dV += Pd^T dO, dK += dS^T Q                    (warps: keys x head dims)
//   C  dQ += dS K (f32 atomics into the accumulator)   (warps: queries x head dims);
//      with kDeterministic, the kv tiles add into one query tile in order
//      (a semaphore per query tile), so dQ's sums are reproducible
//
// The epilogue writes dK * scale and dV. delta = rowsum(dO * O) and the
// zeroed dQ accumulator come from attention_bwd_preprocess.cuh; the dQ
// accumulator becomes dQ in attention_bwd_convert.cuh.
//
// A kernel instantiates attention_backward<Config>(params, score_mod) with
// a configuration struct (the generator writes it; every member is listed in
// BackwardLayout and attention_backward below) and a score modifier with
//   float apply(float s, long long b, long long h, long long q_idx, long long kv_idx) const;
//   float gradient(float s, long long b, long long h, long long q_idx, long long kv_idx, float dz) const;
//   void add_capture_gradients(float s, long long b, long long h, long long q_idx,
//                              long long kv_idx, float dz) const;
//   long long document_of_query(long long b, long long h, long long q_idx) const;
//   long long document_of_key(long long b, long long h, long long kv_idx) const;
//   long long key_limit(long long b, long long h) const;
// used when Config::kScoreMod / kScoreGrad / kCaptureGrads / kDocumentMask /
// kKeyLimit are set (the third adds each captured tensor's gradient into its
// f32 accumulator; the two ids are a document mask's, key_limit a key
// bound's, device/key_bounds.cuh).
#pragma once
#include "attention_bwd_common.cuh"
#include "copy.cuh"
#include "mma.cuh"

namespace tg::device {

/// Shared-memory layout (byte offsets) and warp tiling derived from a
/// configuration. The generator computes the same layout
/// (AttentionBackward.cpp); Config::kSharedBytes is checked against it.
template <class Cfg>
struct BackwardLayout {
  static constexpr int kThreads = Cfg::kWarps * 32;
  static constexpr int kDimQK = round_up(Cfg::kHeadDimQK, 16);  // padded to the mma k-step
  static constexpr int kDimV = round_up(Cfg::kHeadDimV, 16);
  static constexpr int kQKPitch = conflict_free_pitch(kDimQK);  // Q, K (and dK staging) rows
  static constexpr int kVPitch = conflict_free_pitch(kDimV);    // dO, V (and dV staging) rows
  static constexpr int kSPitch = conflict_free_pitch(Cfg::kBlockM);  // P^T, dS^T rows (one per key)
  static constexpr int kKeyWords = kKeepWords<Cfg>;  // dropout bitmap words per query row

  static constexpr unsigned kK = 0;
  static constexpr unsigned kV = kK + Cfg::kBlockN * kQKPitch * 2;
  static constexpr unsigned kQStageBytes = Cfg::kBlockM * kQKPitch * 2;
  static constexpr unsigned kQ = kV + Cfg::kBlockN * kVPitch * 2;
  static constexpr unsigned kDOStageBytes = Cfg::kBlockM * kVPitch * 2;
  static constexpr unsigned kDO = kQ + Cfg::kQStages * kQStageBytes;
  static constexpr unsigned kP = kDO + Cfg::kQStages * kDOStageBytes;
  static constexpr unsigned kDS = kP + Cfg::kBlockN * kSPitch * 2;
  static constexpr unsigned kLse = kDS + Cfg::kBlockN * kSPitch * 2;
  static constexpr unsigned kDelta = kLse + Cfg::kQStages * Cfg::kBlockM * 4;
  static constexpr unsigned kDrop = kDelta + Cfg::kQStages * Cfg::kBlockM * 4;
  static constexpr unsigned kBytes = kDrop + (Cfg::kDropout ? Cfg::kBlockM * kKeyWords * 4 : 0);

  // Phase A (S^T, dP^T): kWarpsKeysS warps over keys, the others over queries.
  static constexpr int kAWarpsQ = Cfg::kWarps / Cfg::kWarpsKeysS;
  static constexpr int kAKeys = Cfg::kBlockN / Cfg::kWarpsKeysS;
  static constexpr int kAQueries = Cfg::kBlockM / kAWarpsQ;
  static constexpr int kAMTiles = kAKeys / 16, kANTiles = kAQueries / 8;
  // Phase B (dK, dV): kWarpsKeysKV warps over keys, the others over head dims.
  static constexpr int kBWarpsD = Cfg::kWarps / Cfg::kWarpsKeysKV;
  static constexpr int kBKeys = Cfg::kBlockN / Cfg::kWarpsKeysKV;
  static constexpr int kBMTiles = kBKeys / 16;
  static constexpr int kBDimsQK = kDimQK / kBWarpsD, kBDimsV = kDimV / kBWarpsD;
  static constexpr int kBNTilesQK = kBDimsQK / 8, kBNTilesV = kBDimsV / 8;
  // Phase C (dQ): kWarpsRowsQ warps over query rows, the others over head dims.
  static constexpr int kCWarpsD = Cfg::kWarps / Cfg::kWarpsRowsQ;
  static constexpr int kCRows = Cfg::kBlockM / Cfg::kWarpsRowsQ;
  static constexpr int kCMTiles = kCRows / 16;
  static constexpr int kCDims = kDimQK / kCWarpsD;
  static constexpr int kCNTiles = kCDims / 8;

  static_assert(Cfg::kBlockN % 32 == 0 && Cfg::kBlockM % 16 == 0, "tile sizes");
  static_assert(Cfg::kQStages == 1 || Cfg::kQStages == 2, "one or two Q/dO buffers");
  static_assert(Cfg::kWarps % Cfg::kWarpsKeysS == 0 && kAKeys % 16 == 0 && kAQueries % 8 == 0 &&
                    kAKeys * Cfg::kWarpsKeysS == Cfg::kBlockN && kAQueries * kAWarpsQ == Cfg::kBlockM,
                "phase A warps tile S^T exactly");
  static_assert(Cfg::kWarps % Cfg::kWarpsKeysKV == 0 && kBKeys % 16 == 0 && kBDimsQK % 8 == 0 &&
                    kBDimsV % 8 == 0 && kBDimsQK * kBWarpsD == kDimQK && kBDimsV * kBWarpsD == kDimV,
                "phase B warps tile dK and dV exactly");
  static_assert(Cfg::kWarps % Cfg::kWarpsRowsQ == 0 && kCRows % 16 == 0 && kCDims % 8 == 0 &&
                    kCRows * Cfg::kWarpsRowsQ == Cfg::kBlockM && kCDims * kCWarpsD == kDimQK,
                "phase C warps tile dQ exactly");
  static_assert(kThreads >= Cfg::kBlockM, "one thread per query row loads lse and delta");

  // Register budget: dK and dV stay live throughout; phase A (S^T and dP^T)
  // and phase C (dQ) run in passes over chunks of their n8 tiles so that
  // their accumulators fit next to them (K/V or dS fragments are then read
  // once per pass). Chunks are the largest divisors within the budget.
  static constexpr int kPersistentRegisters = kBMTiles * (kBNTilesQK + kBNTilesV) * 4;
  static constexpr int kTransientRegisters = 176 - kPersistentRegisters;
  __host__ __device__ static constexpr int largest_chunk(int tiles, int registers_per_tile) {
    int best = 1;
    for (int t = 1; t <= tiles; ++t)
      if (tiles % t == 0 && t * registers_per_tile <= kTransientRegisters) best = t;
    return best;
  }
  static constexpr int kAChunk = largest_chunk(kANTiles, 2 * kAMTiles * 4);  // S^T and dP^T
  static constexpr int kCChunk = largest_chunk(kCNTiles, kCMTiles * 4);      // dQ
};

/// Issues the copies of one query tile's Q, dO, lse and delta into `stage`.
/// Rows >= `rows` (the tensor's end, or the packed sequence's, which starts
/// at token q_start) are zero-filled.
template <class Cfg>
__device__ __forceinline__ void load_query_tile(const BackwardParams &p, unsigned smem, long long b,
                                                QueryTile t, int stage, int tid, long long q_start,
                                                int rows) {
  using L = BackwardLayout<Cfg>;
  const int valid_rows = rows - t.m0;
  load_rows_async<Cfg::kBlockM, Cfg::kHeadDimQK, L::kQKPitch, L::kThreads>(
      smem + L::kQ + stage * L::kQStageBytes,
      p.q + b * p.q_stride_b + t.h * p.q_stride_h + (q_start + t.m0) * p.q_stride_s, p.q_stride_s,
      valid_rows, tid);
  load_rows_async<Cfg::kBlockM, Cfg::kHeadDimV, L::kVPitch, L::kThreads>(
      smem + L::kDO + stage * L::kDOStageBytes,
      p.d_o + b * p.do_stride_b + t.h * p.do_stride_h + (q_start + t.m0) * p.do_stride_s, p.do_stride_s,
      valid_rows, tid);
  const long long row0 = (b * p.num_heads_q + t.h) * p.seq_len_q + t.m0;
  load_floats_async<Cfg::kBlockM, L::kThreads>(smem + L::kLse + stage * Cfg::kBlockM * 4, p.lse + row0,
                                               valid_rows, tid);
  load_floats_async<Cfg::kBlockM, L::kThreads>(smem + L::kDelta + stage * Cfg::kBlockM * 4,
                                               p.delta + row0, valid_rows, tid);
}

template <class Cfg, class ScoreMod>
__device__ __forceinline__ void attention_backward(const BackwardParams &p, const ScoreMod &score_mod) {
  using L = BackwardLayout<Cfg>;
  constexpr Elem E = Cfg::kElem;
  static_assert(L::kBytes == Cfg::kSharedBytes, "the layout fills exactly the launch's shared memory");
  extern __shared__ __align__(16) unsigned char smem_raw[];
  const unsigned smem = shared_address(smem_raw);
  const int tid = threadIdx.x, warp = tid / 32, lane = tid % 32;

  // --- Which keys and which query tiles (the P^T region is free until
  // phase A: the document search's scratch) ---
  static_assert(L::kP % 8 == 0, "the document scratch is 8-byte aligned");
  const BackwardWork<Cfg> work =
      backward_work<Cfg, L::kThreads>(p, score_mod, reinterpret_cast<long long *>(smem_raw + L::kP), tid);
  if (work.empty) return;
  const int n0 = work.n0;
  const long long h_kv = work.h_kv, b = work.b;
  const int seq_q = work.seq_q, seq_kv = work.seq_kv, len_q = work.len_q;
  const long long q_start = work.q_start, kv_start = work.kv_start;
  const int q_rows = work.q_rows, kv_rows = work.kv_rows, kv_out_rows = work.kv_out_rows;
  const auto &mask = work.mask;
  const int iterations = work.iterations;
  auto tile_of = [&](int it) { return work.tile_of(it); };

  u16 *k_tile = reinterpret_cast<u16 *>(smem_raw + L::kK);
  u16 *v_tile = reinterpret_cast<u16 *>(smem_raw + L::kV);
  u16 *p_tile = reinterpret_cast<u16 *>(smem_raw + L::kP);   // Pd^T [key][query]
  u16 *ds_tile = reinterpret_cast<u16 *>(smem_raw + L::kDS);  // dS^T [key][query]
  unsigned *keep_bits = reinterpret_cast<unsigned *>(smem_raw + L::kDrop);
  const DropoutStream dropout = dropout_stream<Cfg>(p);

  // --- Prologue: pad columns, K and V, the first query tile ---
  // The mma k-steps read the pad columns [head dim, padded head dim); no copy
  // writes them.
  zero_columns<Cfg::kBlockN, L::kQKPitch, Cfg::kHeadDimQK, L::kDimQK, L::kThreads>(k_tile, tid);
  zero_columns<Cfg::kBlockN, L::kVPitch, Cfg::kHeadDimV, L::kDimV, L::kThreads>(v_tile, tid);
  zero_columns<Cfg::kQStages * Cfg::kBlockM, L::kQKPitch, Cfg::kHeadDimQK, L::kDimQK, L::kThreads>(
      reinterpret_cast<u16 *>(smem_raw + L::kQ), tid);
  zero_columns<Cfg::kQStages * Cfg::kBlockM, L::kVPitch, Cfg::kHeadDimV, L::kDimV, L::kThreads>(
      reinterpret_cast<u16 *>(smem_raw + L::kDO), tid);
  load_rows_async<Cfg::kBlockN, Cfg::kHeadDimQK, L::kQKPitch, L::kThreads>(
      smem + L::kK, p.k + b * p.k_stride_b + h_kv * p.k_stride_h + (kv_start + n0) * p.k_stride_s,
      p.k_stride_s, kv_rows - n0, tid);
  load_rows_async<Cfg::kBlockN, Cfg::kHeadDimV, L::kVPitch, L::kThreads>(
      smem + L::kV, p.v + b * p.v_stride_b + h_kv * p.v_stride_h + (kv_start + n0) * p.v_stride_s,
      p.v_stride_s, kv_rows - n0, tid);
  if (iterations > 0) {
    load_query_tile<Cfg>(p, smem, b, tile_of(0), 0, tid, q_start, q_rows);
    if constexpr (Cfg::kDropout)
      fill_keep_bits<Cfg, L::kThreads>(keep_bits, p, dropout, b, tile_of(0), n0, tid);
  }
  cp_async_commit();

  // --- Accumulators: dK and dV of this warp's keys x head dims ---
  float dk_acc[L::kBMTiles][L::kBNTilesQK][4], dv_acc[L::kBMTiles][L::kBNTilesV][4];
  zero_accumulators(dk_acc);
  zero_accumulators(dv_acc);
  const int a_key0 = (warp / L::kAWarpsQ) * L::kAKeys, a_q0 = (warp % L::kAWarpsQ) * L::kAQueries;
  const int b_key0 = (warp / L::kBWarpsD) * L::kBKeys;
  const int b_dqk0 = (warp % L::kBWarpsD) * L::kBDimsQK, b_dv0 = (warp % L::kBWarpsD) * L::kBDimsV;
  const int c_q0 = (warp / L::kCWarpsD) * L::kCRows, c_d0 = (warp % L::kCWarpsD) * L::kCDims;

  for (int it = 0; it < iterations; ++it) {
    const QueryTile t = tile_of(it);
    const int stage = Cfg::kQStages == 2 ? it % 2 : 0;
    const unsigned q_tile = smem + L::kQ + stage * L::kQStageBytes;
    const unsigned do_tile = smem + L::kDO + stage * L::kDOStageBytes;
    const float *lse_tile = reinterpret_cast<const float *>(smem_raw + L::kLse) + stage * Cfg::kBlockM;
    const float *delta_tile = reinterpret_cast<const float *>(smem_raw + L::kDelta) + stage * Cfg::kBlockM;
    // This tile has landed, and every warp is done with the previous one
    // (its P^T, dS^T and, with two stages, the other Q/dO buffer).
    cp_async_wait<0>();
    __syncthreads();
    if constexpr (Cfg::kQStages == 2) {
      // The next tile streams in during this one.
      if (it + 1 < iterations)
        load_query_tile<Cfg>(p, smem, b, tile_of(it + 1), 1 - stage, tid, q_start, q_rows);
      cp_async_commit();
    }

    // --- Phase A: S^T = K Q^T and dP^T = V dO^T for this warp's keys x queries,
    // in passes of kAChunk n8 tiles of queries ---
    const bool all_visible = mask.all_visible(t.m0, t.m0 + Cfg::kBlockM, n0, n0 + Cfg::kBlockN);
    const bool same_document = work.documents.same_document(t.m0, Cfg::kBlockM);
#pragma unroll 1
    for (int chunk = 0; chunk < L::kANTiles; chunk += L::kAChunk) {
      const int chunk_q0 = a_q0 + 8 * chunk;  // first query (in the tile) of this pass
      float dp[L::kAMTiles][L::kAChunk][4], s[L::kAMTiles][L::kAChunk][4];
      zero_accumulators(dp);
      warp_gemm<E, L::kAMTiles, L::kAChunk, L::kDimV / 16, Stored::Rows, L::kVPitch, Stored::Rows,
                L::kVPitch>(dp, smem + L::kV, a_key0, 0, do_tile, 0, chunk_q0, lane);
      zero_accumulators(s);
      warp_gemm<E, L::kAMTiles, L::kAChunk, L::kDimQK / 16, Stored::Rows, L::kQKPitch, Stored::Rows,
                L::kQKPitch>(s, smem + L::kK, a_key0, 0, q_tile, 0, chunk_q0, lane);

      // --- Probabilities and score gradients, element by element ---
#pragma unroll
      for (int nt = 0; nt < L::kAChunk; ++nt) {
#pragma unroll
        for (int j = 0; j < 2; ++j) {
          const int q_local = chunk_q0 + accumulator_col(nt, j, lane);
          const int q_idx = t.m0 + q_local;
          const float lse = lse_for_probabilities(lse_tile[q_local]);
          const float row_delta = delta_tile[q_local];
#pragma unroll
          for (int mt = 0; mt < L::kAMTiles; ++mt) {
#pragma unroll
            for (int half = 0; half < 2; ++half) {
              const int e = 2 * half + j;
              const int key_local = a_key0 + accumulator_row(mt, e, lane);
              score_gradient_element<Cfg>(s[mt][nt][e], dp[mt][nt][e], score_mod, mask, all_visible,
                                          same_document, DistanceTable{nullptr, 0}, b, t.h, q_idx,
                                          n0 + key_local, seq_q, seq_kv, lse, row_delta, keep_bits, q_local,
                                          key_local);
            }
          }
        }
      }
      store_accumulators<E, L::kSPitch>(s, p_tile, a_key0, chunk_q0, 1.0f, lane);
      store_accumulators<E, L::kSPitch>(dp, ds_tile, a_key0, chunk_q0, 1.0f, lane);
    }
    __syncthreads();  // P^T and dS^T complete

    // --- Phase B: dV += Pd^T dO and dK += dS^T Q for this warp's keys x head dims ---
    warp_gemm<E, L::kBMTiles, L::kBNTilesV, Cfg::kBlockM / 16, Stored::Rows, L::kSPitch, Stored::Cols,
              L::kVPitch>(dv_acc, smem + L::kP, b_key0, 0, do_tile, 0, b_dv0, lane);
    warp_gemm<E, L::kBMTiles, L::kBNTilesQK, Cfg::kBlockM / 16, Stored::Rows, L::kSPitch, Stored::Cols,
              L::kQKPitch>(dk_acc, smem + L::kDS, b_key0, 0, q_tile, 0, b_dqk0, lane);
    if constexpr (Cfg::kQStages == 1) {
      // Every warp is done with Q and dO: the next tile streams in during phase C.
      __syncthreads();
      if (it + 1 < iterations) load_query_tile<Cfg>(p, smem, b, tile_of(it + 1), 0, tid, q_start, q_rows);
      cp_async_commit();
    }
    if constexpr (Cfg::kDropout) {
      // The keep bits are read in phase A only (done by every warp: barrier above).
      if (it + 1 < iterations)
        fill_keep_bits<Cfg, L::kThreads>(keep_bits, p, dropout, b, tile_of(it + 1), n0, tid);
    }

    // --- Phase C: dQ += dS K for this warp's query rows x head dims, in passes
    // of kCChunk n8 tiles of head dims ---
    float *dq_rows = p.dq_accum + ((b * p.num_heads_q + t.h) * p.seq_len_q + t.m0) * Cfg::kHeadDimQK;
    // (every row of this thread's fragments is c_q0 + lane / 4 modulo 8, t.m0 % 16 == 0)
    const int swizzle = dq_accum_swizzle<Cfg::kDQAccumSwizzled>(c_q0 + lane / 4);
    int *semaphore = nullptr;
    if constexpr (Cfg::kDeterministic) semaphore = dq_turn_wait<Cfg>(p, mask, b, t, tid);
#pragma unroll 1
    for (int chunk = 0; chunk < L::kCNTiles; chunk += L::kCChunk) {
      const int chunk_d0 = c_d0 + 8 * chunk;
      float dq[L::kCMTiles][L::kCChunk][4];
      zero_accumulators(dq);
      warp_gemm<E, L::kCMTiles, L::kCChunk, Cfg::kBlockN / 16, Stored::Cols, L::kSPitch, Stored::Cols,
                L::kQKPitch>(dq, smem + L::kDS, c_q0, 0, smem + L::kK, 0, chunk_d0, lane);
      // (made opaque here: the swizzled addresses, hoisted out of the loop,
      // would take registers and spill)
      int chunk_swizzle = swizzle;
      if constexpr (Cfg::kDQAccumSwizzled) opaque(chunk_swizzle);
#pragma unroll
      for (int mt = 0; mt < L::kCMTiles; ++mt)
#pragma unroll
        for (int nt = 0; nt < L::kCChunk; ++nt)
#pragma unroll
          for (int e = 0; e < 4; ++e) {
            const int row = c_q0 + accumulator_row(mt, e, lane);
            const int col = chunk_d0 + accumulator_col(nt, e, lane);
            if (t.m0 + row < len_q && col < Cfg::kHeadDimQK)
              atomicAdd(dq_rows + row * Cfg::kHeadDimQK + (col ^ chunk_swizzle), dq[mt][nt][e]);
          }
    }
    if constexpr (Cfg::kDeterministic) dq_turn_done(semaphore, tid);
  }

  // --- Epilogue: dK * scale and dV, staged through the K and V tiles ---
  cp_async_wait<0>();
  __syncthreads();  // every warp is done with K and V
  store_accumulators<E, L::kQKPitch>(dk_acc, k_tile, b_key0, b_dqk0, Cfg::kScale, lane);
  store_accumulators<E, L::kVPitch>(dv_acc, v_tile, b_key0, b_dv0, 1.0f, lane);
  __syncthreads();
  const int rows = imin(Cfg::kBlockN, kv_out_rows - n0);
  u16 *dk_rows = p.dk + b * p.dk_stride_b + h_kv * p.dk_stride_h + (kv_start + n0) * p.dk_stride_s;
  u16 *dv_rows = p.dv + b * p.dv_stride_b + h_kv * p.dv_stride_h + (kv_start + n0) * p.dv_stride_s;
  constexpr int kChunksQK = Cfg::kHeadDimQK / 8, kChunksV = Cfg::kHeadDimV / 8;  // 16-byte chunks
  for (int i = tid; i < rows * kChunksQK; i += L::kThreads) {
    const int row = i / kChunksQK, col = (i % kChunksQK) * 8;
    *reinterpret_cast<uint4 *>(dk_rows + row * p.dk_stride_s + col) =
        *reinterpret_cast<const uint4 *>(k_tile + row * L::kQKPitch + col);
  }
  for (int i = tid; i < rows * kChunksV; i += L::kThreads) {
    const int row = i / kChunksV, col = (i % kChunksV) * 8;
    *reinterpret_cast<uint4 *>(dv_rows + row * p.dv_stride_s + col) =
        *reinterpret_cast<const uint4 *>(v_tile + row * L::kVPitch + col);
  }
}

} // namespace tg::device
