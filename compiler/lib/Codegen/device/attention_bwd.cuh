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
// used when Config::kScoreMod / kScoreGrad / kCaptureGrads / kDocumentMask
// are set (the third adds each captured tensor's gradient into its f32
// accumulator; the last two are a document mask's ids).
#pragma once
#include "copy.cuh"
#include "documents.cuh"
#include "masks.cuh"
#include "mma.cuh"
#include "philox.cuh"
#include "ragged.cuh"

namespace tg::device {

/// The main kernel's pointers and sizes (the entry point fills it from its
/// parameters). Strides are in elements; head dims are contiguous.
struct BackwardParams {
  const u16 *q, *k, *v, *d_o;
  const float *lse;    // [B, Hq, Sq] natural-log log-sum-exp of the forward
  const float *delta;  // [B, Hq, Sq] rowsum(dO * O)
  float *dq_accum;     // [B, Hq, Sq, Dqk] f32, zeroed
  int *dq_semaphore;   // [B, Hq, ceil(Sq / kBlockM)] int, zeroed (kDeterministic)
  u16 *dk, *dv;
  const int *seq_lens_q, *seq_lens_kv;            // [B] (padding)
  const long long *dropout_seed, *dropout_offset;  // scalars (dropout)
  long long batch, num_heads_q, seq_len_q, seq_len_kv;
  long long q_stride_b, q_stride_h, q_stride_s;
  long long k_stride_b, k_stride_h, k_stride_s;
  long long v_stride_b, v_stride_h, v_stride_s;
  long long do_stride_b, do_stride_h, do_stride_s;
  long long dk_stride_b, dk_stride_h, dk_stride_s;
  long long dv_stride_b, dv_stride_h, dv_stride_s;
  // Ragged (kRagged): seq_lens_q / seq_lens_kv hold the [B + 1] offsets
  // cu_seqlens and seq_len_q / seq_len_kv the max_seqlen attributes; these
  // are the packed tensors' token counts. lse is then the preprocess's
  // [B, Hq, max_seqlen_q] copy of the [Tq, Hq] stats.
  long long tokens_q, tokens_kv;
};

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
  static constexpr int kKeyWords = Cfg::kBlockN / 32;  // dropout bitmap words per query row

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

/// The tile of one iteration: query head h, rows [m0, m0 + kBlockM).
struct QueryTile {
  long long h;
  int m0;
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

/// Dropout keep bits of a query tile x this CTA's keys: bit t of word
/// [r * kKeyWords + j] keeps (query m0 + r, key n0 + 32 j + t), for the
/// element's linear index in [B, Hq, Sq, Skv] (the forward's mapping).
template <class Cfg>
__device__ __forceinline__ void fill_keep_bits(unsigned *bits, const BackwardParams &p, PhiloxKey key,
                                               unsigned long long offset, long long b, QueryTile t,
                                               int n0, int tid) {
  using L = BackwardLayout<Cfg>;
  const unsigned long long row0 = static_cast<unsigned long long>(
      ((b * p.num_heads_q + t.h) * p.seq_len_q + t.m0) * p.seq_len_kv + n0);
  for (int w = tid; w < Cfg::kBlockM * L::kKeyWords; w += L::kThreads) {
    const int r = w / L::kKeyWords, j = w % L::kKeyWords;
    bits[w] = dropout_keep_bits32(row0 + static_cast<unsigned long long>(r) * p.seq_len_kv + 32 * j, key,
                                  offset, Cfg::kDropoutThreshold);
  }
}

template <class Cfg, class ScoreMod>
__device__ __forceinline__ void attention_backward(const BackwardParams &p, const ScoreMod &score_mod) {
  using L = BackwardLayout<Cfg>;
  constexpr Elem E = Cfg::kElem;
  constexpr float kLog2e = 1.4426950408889634f;
  static_assert(L::kBytes == Cfg::kSharedBytes, "the layout fills exactly the launch's shared memory");
  extern __shared__ __align__(16) unsigned char smem_raw[];
  const unsigned smem = shared_address(smem_raw);
  const int tid = threadIdx.x, warp = tid / 32, lane = tid % 32;

  // --- Which keys: [n0, n0 + kBlockN) of kv head h_kv in batch b ---
  const int n0 = static_cast<int>(blockIdx.x) * Cfg::kBlockN;
  const long long h_kv = blockIdx.y, b = blockIdx.z;
  const int seq_q = static_cast<int>(p.seq_len_q), seq_kv = static_cast<int>(p.seq_len_kv);
  int len_q = Cfg::kSeqLenQ ? imax(0, imin(p.seq_lens_q[b], seq_q)) : seq_q;
  int len_kv = Cfg::kSeqLenKv ? imax(0, imin(p.seq_lens_kv[b], seq_kv)) : seq_kv;
  // Packed sequences: the tokens from q_start / kv_start; rows past a
  // sequence belong to the next one (never loaded or written here).
  long long q_start = 0, kv_start = 0;
  if constexpr (Cfg::kRagged) {
    ragged_sequence(p.seq_lens_q, b, p.tokens_q, p.seq_len_q, &q_start, &len_q);
    ragged_sequence(p.seq_lens_kv, b, p.tokens_kv, p.seq_len_kv, &kv_start, &len_kv);
    if (n0 >= len_kv) return;
  }
  const int q_rows = Cfg::kRagged ? len_q : seq_q, kv_rows = Cfg::kRagged ? len_kv : seq_kv;
  const MaskRule<Cfg::kUpper, Cfg::kRightLimit, Cfg::kLeft, Cfg::kWindowLeft> mask{
      len_q, len_kv, Cfg::kBottomRight ? len_kv - len_q : 0};

  // --- Which query tiles: those with a row that sees one of these keys, for
  // each query head of the group ---
  int row_begin, row_end;
  mask.rows_seeing(n0, n0 + Cfg::kBlockN, &row_begin, &row_end);
  if constexpr (Cfg::kDocumentMask) {
    // Only rows of these keys' documents see them: the union over the
    // group's query heads of the rows whose id lies within the keys' ids.
    // The P^T region is free until phase A.
    static_assert(L::kP % 8 == 0, "the document scratch is 8-byte aligned");
    long long *scratch = reinterpret_cast<long long *>(smem_raw + L::kP);
    int begin = row_end, end = row_begin;
    for (long long g = 0; g < Cfg::kGroup; ++g) {
      const long long h = h_kv * Cfg::kGroup + g;
      int head_begin = row_begin, head_end = row_end;
      narrow_to_documents<L::kThreads>(
          n0, imin(n0 + Cfg::kBlockN, len_kv), &head_begin, &head_end, scratch,
          [&](int kv) { return score_mod.document_of_key(b, h, kv); },
          [&](int q) { return score_mod.document_of_query(b, h, q); }, tid);
      if (head_begin < head_end) {
        begin = imin(begin, head_begin);
        end = imax(end, head_end);
      }
    }
    row_begin = begin < end ? begin : 0;
    row_end = begin < end ? end : 0;
  }
  const int tile_begin = row_begin / Cfg::kBlockM;
  const int tiles_per_head = row_end > row_begin ? (row_end + Cfg::kBlockM - 1) / Cfg::kBlockM - tile_begin : 0;
  const int iterations = tiles_per_head * Cfg::kGroup;
  auto tile_of = [&](int it) {
    return QueryTile{h_kv * Cfg::kGroup + it / tiles_per_head, (tile_begin + it % tiles_per_head) * Cfg::kBlockM};
  };

  u16 *k_tile = reinterpret_cast<u16 *>(smem_raw + L::kK);
  u16 *v_tile = reinterpret_cast<u16 *>(smem_raw + L::kV);
  u16 *p_tile = reinterpret_cast<u16 *>(smem_raw + L::kP);   // Pd^T [key][query]
  u16 *ds_tile = reinterpret_cast<u16 *>(smem_raw + L::kDS);  // dS^T [key][query]
  unsigned *keep_bits = reinterpret_cast<unsigned *>(smem_raw + L::kDrop);
  PhiloxKey philox_key{0, 0};
  unsigned long long philox_offset = 0;
  if constexpr (Cfg::kDropout) {
    const unsigned long long seed = static_cast<unsigned long long>(*p.dropout_seed);
    philox_key = PhiloxKey{static_cast<unsigned>(seed), static_cast<unsigned>(seed >> 32)};
    philox_offset = static_cast<unsigned long long>(*p.dropout_offset);
  }

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
      fill_keep_bits<Cfg>(keep_bits, p, philox_key, philox_offset, b, tile_of(0), n0, tid);
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
          // A row without any visible key has lse = -inf: P = 0 there, and
          // exp2(z - (+inf)) is 0 for every z (finite or -inf), never NaN.
          float lse = lse_tile[q_local];
          lse = lse == neg_inf() ? pos_inf() : lse;
          const float row_delta = delta_tile[q_local];
#pragma unroll
          for (int mt = 0; mt < L::kAMTiles; ++mt) {
#pragma unroll
            for (int half = 0; half < 2; ++half) {
              const int e = 2 * half + j;
              const int key_local = a_key0 + accumulator_row(mt, e, lane);
              const int kv_idx = n0 + key_local;
              const float x = s[mt][nt][e] * Cfg::kScale;  // scale * (q . k), f32
              float z = x;
              long long q_clamped = 0, kv_clamped = 0;
              if constexpr (Cfg::kScoreMod || Cfg::kScoreGrad || Cfg::kCaptureGrads) {
                // Rows and keys past the tensors read the last ones' captures;
                // they are masked below.
                q_clamped = q_idx < seq_q ? q_idx : seq_q - 1;
                kv_clamped = kv_idx < seq_kv ? kv_idx : seq_kv - 1;
              }
              if constexpr (Cfg::kScoreMod) z = score_mod.apply(x, b, t.h, q_clamped, kv_clamped);
              if (!all_visible && !mask.visible(q_idx, kv_idx)) z = neg_inf();
              // (z - lse) before the base change: a finite z near -3.4e38
              // (finfo.min masks) never overflows to -inf - -inf = NaN.
              const float prob = fast_exp2((z - lse) * kLog2e);
              float keep = 1.0f;  // Z: 0 or 1 / (1 - p) with dropout
              if constexpr (Cfg::kDropout) {
                const unsigned word = keep_bits[q_local * L::kKeyWords + key_local / 32];
                keep = (word >> (key_local % 32)) & 1u ? Cfg::kDropoutRescale : 0.0f;
              }
              const float dz = prob * (dp[mt][nt][e] * keep - row_delta);
              float ds = dz;
              if constexpr (Cfg::kScoreGrad) ds = score_mod.gradient(x, b, t.h, q_clamped, kv_clamped, dz);
              // Captured tensors' gradients (dbias): P != 0 only where the
              // element is visible, so rows and keys are in range.
              if constexpr (Cfg::kCaptureGrads)
                if (prob != 0.0f) score_mod.add_capture_gradients(x, b, t.h, q_clamped, kv_clamped, dz);
              // Where P = 0 (masked, fully masked rows) no gradient flows, even
              // where the region's derivative is not finite.
              s[mt][nt][e] = prob * keep;
              dp[mt][nt][e] = prob == 0.0f ? 0.0f : ds;
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
        fill_keep_bits<Cfg>(keep_bits, p, philox_key, philox_offset, b, tile_of(it + 1), n0, tid);
    }

    // --- Phase C: dQ += dS K for this warp's query rows x head dims, in passes
    // of kCChunk n8 tiles of head dims ---
    float *dq_rows = p.dq_accum + ((b * p.num_heads_q + t.h) * p.seq_len_q + t.m0) * Cfg::kHeadDimQK;
    int *semaphore = nullptr;
    if constexpr (Cfg::kDeterministic) {
      // The kv tiles that see this query tile are consecutive: wait until
      // those before this one have added their dQ.
      int key_begin, key_end;
      mask.keys_seen(t.m0, t.m0 + Cfg::kBlockM, &key_begin, &key_end);
      const int before = static_cast<int>(blockIdx.x) - key_begin / Cfg::kBlockN;
      const long long q_tiles = (p.seq_len_q + Cfg::kBlockM - 1) / Cfg::kBlockM;
      semaphore = p.dq_semaphore + (b * p.num_heads_q + t.h) * q_tiles + t.m0 / Cfg::kBlockM;
      if (tid == 0)
        while (ld_acquire_gpu(semaphore) != before) {
        }
      __syncthreads();
    }
#pragma unroll 1
    for (int chunk = 0; chunk < L::kCNTiles; chunk += L::kCChunk) {
      const int chunk_d0 = c_d0 + 8 * chunk;
      float dq[L::kCMTiles][L::kCChunk][4];
      zero_accumulators(dq);
      warp_gemm<E, L::kCMTiles, L::kCChunk, Cfg::kBlockN / 16, Stored::Cols, L::kSPitch, Stored::Cols,
                L::kQKPitch>(dq, smem + L::kDS, c_q0, 0, smem + L::kK, 0, chunk_d0, lane);
#pragma unroll
      for (int mt = 0; mt < L::kCMTiles; ++mt)
#pragma unroll
        for (int nt = 0; nt < L::kCChunk; ++nt)
#pragma unroll
          for (int e = 0; e < 4; ++e) {
            const int row = c_q0 + accumulator_row(mt, e, lane);
            const int col = chunk_d0 + accumulator_col(nt, e, lane);
            if (t.m0 + row < len_q && col < Cfg::kHeadDimQK)
              atomicAdd(dq_rows + row * Cfg::kHeadDimQK + col, dq[mt][nt][e]);
          }
    }
    if constexpr (Cfg::kDeterministic) {
      // Every thread's adds are visible before the next kv tile's begin.
      __threadfence();
      __syncthreads();
      if (tid == 0) red_release_gpu_add(semaphore, 1);
    }
  }

  // --- Epilogue: dK * scale and dV, staged through the K and V tiles ---
  cp_async_wait<0>();
  __syncthreads();  // every warp is done with K and V
  store_accumulators<E, L::kQKPitch>(dk_acc, k_tile, b_key0, b_dqk0, Cfg::kScale, lane);
  store_accumulators<E, L::kVPitch>(dv_acc, v_tile, b_key0, b_dv0, 1.0f, lane);
  __syncthreads();
  const int rows = imin(Cfg::kBlockN, kv_rows - n0);
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
