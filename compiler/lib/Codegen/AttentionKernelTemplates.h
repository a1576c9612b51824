#ifndef TG_CODEGEN_ATTENTIONKERNELTEMPLATES_H
#define TG_CODEGEN_ATTENTIONKERNELTEMPLATES_H

// Fixed text of the attention forward kernel's stages. `$(NAME)` marks what
// the emitter (AttentionKernel.cpp) fills in; everything that depends on a
// spec option is either a constant of the configuration block or a section
// the emitter includes or leaves out.

namespace tg::codegen::templates {

// Global -> shared tile copies and the K/V tile loader.
inline const char *kTileLoads = R"cuda(
// ---------------------------------------------------------------------------
// Stage: global -> shared tile copies (cp.async, 16 bytes per copy)
// ---------------------------------------------------------------------------
// Copies rows [0, kRows) x columns [0, kCols) of a global tile whose rows are
// `row_stride` elements apart into a shared tile (layout: tile_offset).
// With kCheckRows, rows >= valid_rows are zero-filled without reading global
// memory (partial tiles at the end of a sequence).
// Byte offset of element (row, col) in a shared tile: padded rows of kPitch
// elements, or (kPitch == 0) the 128-byte-swizzled K-major layout wgmma reads:
// 64-column blocks of kRows rows x 128 bytes, 16-byte chunk c of row r stored
// at chunk c ^ (r % 8) (tiles are 1024-byte aligned).
template <int kRows, int kPitch>
__device__ __forceinline__ unsigned tile_offset(int row, int col) {
  if constexpr (kPitch > 0) {
    return (row * kPitch + col) * 2;
  } else {
    const int chunk = col / 8;
    return (chunk / 8) * (kRows * 128) + row * 128 + (((chunk % 8) ^ (row % 8)) * 16) + (col % 8) * 2;
  }
}

template <int kRows, int kCols, int kPitch, bool kCheckRows>
__device__ __forceinline__ void load_tile_async(unsigned smem_tile, const elem_t *gmem_tile,
                                                long long row_stride, int valid_rows, int tid) {
  constexpr int kChunksPerRow = kCols / 8;  // 8 elements = 16 bytes
  constexpr int kChunks = kRows * kChunksPerRow;
  // Opaque to the optimiser: without this, the per-chunk 64-bit offsets are
  // hoisted out of the main loop and pinned in registers (spills at 4 warps).
  asm volatile("" : "+l"(row_stride), "+l"(gmem_tile));
#pragma unroll
  for (int i = 0; i < (kChunks + kThreads - 1) / kThreads; ++i) {
    const int chunk = tid + i * kThreads;
    if (kChunks % kThreads == 0 || chunk < kChunks) {
      const int row = chunk / kChunksPerRow;
      const int col = (chunk % kChunksPerRow) * 8;
      const bool valid = !kCheckRows || row < valid_rows;
      const elem_t *src = valid ? gmem_tile + row * row_stride + col : gmem_tile;
      cp_async_16(smem_tile + tile_offset<kRows, kPitch>(row, col), src, valid);
    }
  }
}

// Issues the copies of rows [n0, n0 + kBlockN) of one K or V head; rows past
// len_kv are zero-filled (only the last tile checks).
template <int kCols, int kPitch>
__device__ __forceinline__ void load_key_rows(unsigned smem_tile, const elem_t *head, long long stride_s,
                                              int n0, int len_kv, int tid) {
  const elem_t *src = head + n0 * stride_s;
  const int valid_rows = len_kv - n0;
  if (valid_rows >= kBlockN)
    load_tile_async<kBlockN, kCols, kPitch, false>(smem_tile, src, stride_s, valid_rows, tid);
  else
    load_tile_async<kBlockN, kCols, kPitch, true>(smem_tile, src, stride_s, valid_rows, tid);
}
__device__ __forceinline__ void load_k_tile(unsigned smem_k_stage, const elem_t *k_head, long long k_stride_s,
                                            int n0, int len_kv, int tid) {
  load_key_rows<kHeadDimQK, kQKPitch>(smem_k_stage, k_head, k_stride_s, n0, len_kv, tid);
}
__device__ __forceinline__ void load_v_tile(unsigned smem_v_stage, const elem_t *v_head, long long v_stride_s,
                                            int n0, int len_kv, int tid) {
  load_key_rows<kHeadDimV, kVPitch>(smem_v_stage, v_head, v_stride_s, n0, len_kv, tid);
}
)cuda";

// Q fragments: once into registers, or per k-step from shared memory.
inline const char *kQFragments = R"cuda(
// ---------------------------------------------------------------------------
// Stage: Q fragments (mma A operand) from the shared Q tile
// ---------------------------------------------------------------------------
// A 16x16 A fragment is four 8x8 tiles: rows 0-7/8-15 x columns 0-7/8-15;
// lane l addresses row (l % 16), column 8 * (l / 16).
__device__ __forceinline__ void load_q_fragment(unsigned (&a)[4], unsigned smem_q, int warp_row0,
                                                int m_tile, int k_step, int lane) {
  const int row = warp_row0 + m_tile * 16 + (lane % 16);
  const int col = k_step * 16 + 8 * (lane / 16);
  ldmatrix_x4(smem_q + (row * kQRegionPitch + col) * 2, a[0], a[1], a[2], a[3]);
}
)cuda";

// S = Q Kᵀ for one K tile, Q held in registers.
inline const char *kScoresQInRegisters = R"cuda(
// ---------------------------------------------------------------------------
// Stage: S = Q K^T for one K tile (raw dot products, f32)
// ---------------------------------------------------------------------------
// s[m][n] is the 16x8 accumulator tile of query rows warp_row0 + 16 m and keys
// n0 + 8 n. K rows are the column-major B operand as stored, so plain
// ldmatrix gives it: lanes 0-7 keys 0-7 dims 0-7, 8-15 keys 0-7 dims 8-15,
// 16-23 keys 8-15 dims 0-7, 24-31 keys 8-15 dims 8-15. The steps (k-step,
// pair of key tiles) run as a software pipeline: the K fragment of step
// i + kFragmentPrefetch is loaded before the mma of step i, hiding the
// shared-memory latency.
__device__ __forceinline__ void load_k_fragment(unsigned (&b)[4], unsigned smem_k_stage, int k_step,
                                                int key_pair, int lane) {
  const int key = key_pair * 16 + (lane % 8) + 8 * (lane / 16);
  const int dim = k_step * 16 + 8 * ((lane / 8) % 2);
  ldmatrix_x4(smem_k_stage + (key * kQKPitch + dim) * 2, b[0], b[1], b[2], b[3]);
}

__device__ __forceinline__ void compute_scores(float (&s)[kMTiles][kNTiles][4],
                                               const unsigned (&q_frag)[kMTiles][kQKSteps][4],
                                               unsigned smem_k_stage, int lane) {
  constexpr int kPairs = kNTiles / 2;
  constexpr int kSteps = kQKSteps * kPairs;
#pragma unroll
  for (int m = 0; m < kMTiles; ++m)
#pragma unroll
    for (int n = 0; n < kNTiles; ++n)
#pragma unroll
      for (int e = 0; e < 4; ++e) s[m][n][e] = 0.0f;
  constexpr int kRing = kFragmentPrefetch + 1;  // K fragments in flight + the one in use
  unsigned k_frag[kRing][4];
#pragma unroll
  for (int step = 0; step < kFragmentPrefetch && step < kSteps; ++step)
    load_k_fragment(k_frag[step % kRing], smem_k_stage, step / kPairs, step % kPairs, lane);
#pragma unroll
  for (int ks = 0; ks < kQKSteps; ++ks) {
#pragma unroll
    for (int np = 0; np < kPairs; ++np) {
      const int step = ks * kPairs + np;
      const int ahead = step + kFragmentPrefetch;
      if (ahead < kSteps)
        load_k_fragment(k_frag[ahead % kRing], smem_k_stage, ahead / kPairs, ahead % kPairs, lane);
#pragma unroll
      for (int m = 0; m < kMTiles; ++m) {
        mma_16x8x16(s[m][2 * np], q_frag[m][ks], k_frag[step % kRing][0], k_frag[step % kRing][1]);
        mma_16x8x16(s[m][2 * np + 1], q_frag[m][ks], k_frag[step % kRing][2], k_frag[step % kRing][3]);
      }
    }
  }
}
)cuda";

// S = Q Kᵀ for one K tile, Q re-read from shared memory per k-step.
inline const char *kScoresQInShared = R"cuda(
// ---------------------------------------------------------------------------
// Stage: S = Q K^T for one K tile (raw dot products, f32)
// ---------------------------------------------------------------------------
// s[m][n] is the 16x8 accumulator tile of query rows warp_row0 + 16 m and keys
// n0 + 8 n. Q fragments are re-read from shared memory for each k-step (the
// O and S accumulators leave no registers to keep them). K rows are the
// column-major B operand as stored, so plain ldmatrix gives it: lanes 0-7
// keys 0-7 dims 0-7, 8-15 keys 0-7 dims 8-15, 16-23 keys 8-15 dims 0-7,
// 24-31 keys 8-15 dims 8-15. The steps (k-step, pair of key tiles) run as a
// software pipeline: the fragments of step i + kFragmentPrefetch are loaded
// before the mma of step i, hiding the shared-memory latency.
__device__ __forceinline__ void load_k_fragment(unsigned (&b)[4], unsigned smem_k_stage, int k_step,
                                                int key_pair, int lane) {
  const int key = key_pair * 16 + (lane % 8) + 8 * (lane / 16);
  const int dim = k_step * 16 + 8 * ((lane / 8) % 2);
  ldmatrix_x4(smem_k_stage + (key * kQKPitch + dim) * 2, b[0], b[1], b[2], b[3]);
}

__device__ __forceinline__ void compute_scores(float (&s)[kMTiles][kNTiles][4], unsigned smem_q,
                                               int warp_row0, unsigned smem_k_stage, int lane) {
  constexpr int kPairs = kNTiles / 2;
  constexpr int kSteps = kQKSteps * kPairs;
#pragma unroll
  for (int m = 0; m < kMTiles; ++m)
#pragma unroll
    for (int n = 0; n < kNTiles; ++n)
#pragma unroll
      for (int e = 0; e < 4; ++e) s[m][n][e] = 0.0f;
  // Fragments of the next kFragmentPrefetch steps are in flight; the Q
  // fragments of a k-step load with the K fragment of its first step.
  static_assert(kFragmentPrefetch <= kPairs, "Q ring holds two k-steps");
  constexpr int kRing = kFragmentPrefetch + 1;
  unsigned q_frag[2][kMTiles][4];
  unsigned k_frag[kRing][4];
#pragma unroll
  for (int step = 0; step < kFragmentPrefetch && step < kSteps; ++step) {
    if (step % kPairs == 0) {
#pragma unroll
      for (int m = 0; m < kMTiles; ++m)
        load_q_fragment(q_frag[(step / kPairs) % 2][m], smem_q, warp_row0, m, step / kPairs, lane);
    }
    load_k_fragment(k_frag[step % kRing], smem_k_stage, step / kPairs, step % kPairs, lane);
  }
#pragma unroll
  for (int ks = 0; ks < kQKSteps; ++ks) {
#pragma unroll
    for (int np = 0; np < kPairs; ++np) {
      const int step = ks * kPairs + np;
      const int ahead = step + kFragmentPrefetch;
      if (ahead < kSteps) {
        if (ahead % kPairs == 0) {
#pragma unroll
          for (int m = 0; m < kMTiles; ++m)
            load_q_fragment(q_frag[(ahead / kPairs) % 2][m], smem_q, warp_row0, m, ahead / kPairs, lane);
        }
        load_k_fragment(k_frag[ahead % kRing], smem_k_stage, ahead / kPairs, ahead % kPairs, lane);
      }
#pragma unroll
      for (int m = 0; m < kMTiles; ++m) {
        mma_16x8x16(s[m][2 * np], q_frag[ks % 2][m], k_frag[step % kRing][0], k_frag[step % kRing][1]);
        mma_16x8x16(s[m][2 * np + 1], q_frag[ks % 2][m], k_frag[step % kRing][2], k_frag[step % kRing][3]);
      }
    }
  }
}
)cuda";

// Online softmax over one tile of scores.
inline const char *kOnlineSoftmax = R"cuda(
// ---------------------------------------------------------------------------
// Stage: online softmax (exp2 domain, lazy rescaling)
// ---------------------------------------------------------------------------
// Scores become unnormalised probabilities p = exp2(x * kSoftmaxScaleLog2 -
// max_scaled): one FFMA and one ex2 per element. The running max of a row
// only moves when the tile's max exceeds it by more than kRescaleThreshold
// (log2 units), so p <= 2^kRescaleThreshold and most tiles skip rescaling O
// and the sums; the decision is taken for the whole warp (one vote). The
// result is exact: O, the sum and the log-sum-exp all refer to the same max.
// A row with no visible key so far keeps max = -inf and uses 0 as its max
// in the exponent, so exp2(-inf - 0) = 0 and no NaN appears. row_sum holds
// only this lane's columns; the 4 lanes of a row are summed once, in the
// epilogue.
//
// With a score modifier (kSubtractMaxFirst) a score can be a huge finite
// value such as an additive mask of finfo(bf16).min = -3.39e38: times log2(e)
// that overflows to -inf, and a row whose visible keys so far are all such
// values would compute exp2(-inf + inf) = NaN. There the max is subtracted
// before the scale, (x - max) * kSoftmaxScaleLog2, which is exact for equal
// huge values (softmax of a row of finfo.min is uniform, as in the graph).
// Raw dot products (no modifier) cannot reach that range, so the plain
// kernel keeps the single FFMA x * k - max * k.
constexpr float kRescaleThreshold = 8.0f;  // p stays <= 256: no f32 overflow, bf16 keeps its precision

// The max a row's exponents subtract: 0 while the row has no visible key.
__device__ __forceinline__ float softmax_base(float row_max) {
  return row_max == neg_inf() ? 0.0f : row_max;
}

// exp2 of score x relative to the row max `base` (softmax_base), with
// base_scaled = base * kSoftmaxScaleLog2 precomputed once per row.
__device__ __forceinline__ float softmax_exp2(float x, float base, float base_scaled) {
  if constexpr (kSubtractMaxFirst)
    return fast_exp2((x - base) * kSoftmaxScaleLog2);
  else
    return fast_exp2(x * kSoftmaxScaleLog2 - base_scaled);
}

__device__ __forceinline__ void online_softmax(float (&s)[kMTiles][kNTiles][4],
                                               float (&row_max)[kMTiles][2],
                                               float (&row_sum)[kMTiles][2],
                                               float (&o_acc)[kMTiles][kOTiles][4]) {
  float tile_max[kMTiles][2];
  bool grows = false;
#pragma unroll
  for (int m = 0; m < kMTiles; ++m) {
#pragma unroll
    for (int half = 0; half < 2; ++half) {  // rows r and r + 8 of the m16 tile
      float mx[kNTiles];  // pairwise tree: depth log2(kNTiles) + 1, not a serial chain
#pragma unroll
      for (int n = 0; n < kNTiles; ++n) mx[n] = fmaxf(s[m][n][2 * half], s[m][n][2 * half + 1]);
#pragma unroll
      for (int stride = 1; stride < kNTiles; stride *= 2)
#pragma unroll
        for (int n = 0; n + stride < kNTiles; n += 2 * stride) mx[n] = fmaxf(mx[n], mx[n + stride]);
      tile_max[m][half] = quad_max(mx[0]);
      // -inf - -inf is NaN: a row still without keys does not grow.
      grows |= (tile_max[m][half] - row_max[m][half]) * kSoftmaxScaleLog2 > kRescaleThreshold;
    }
  }
  if (__any_sync(0xffffffffu, grows)) {
#pragma unroll
    for (int m = 0; m < kMTiles; ++m) {
#pragma unroll
      for (int half = 0; half < 2; ++half) {
        const float old_max = row_max[m][half];
        const float new_max = fmaxf(old_max, tile_max[m][half]);
        const float new_base = softmax_base(new_max);
        const float correction = softmax_exp2(old_max, new_base, new_base * kSoftmaxScaleLog2);
        row_max[m][half] = new_max;
        row_sum[m][half] *= correction;
#pragma unroll
        for (int d = 0; d < kOTiles; ++d) {
          o_acc[m][d][2 * half] *= correction;
          o_acc[m][d][2 * half + 1] *= correction;
        }
      }
    }
  }
#pragma unroll
  for (int m = 0; m < kMTiles; ++m) {
#pragma unroll
    for (int half = 0; half < 2; ++half) {
      const float base = softmax_base(row_max[m][half]);
      const float base_scaled = base * kSoftmaxScaleLog2;
      float sum[kNTiles];  // pairwise tree, as for the max
#pragma unroll
      for (int n = 0; n < kNTiles; ++n) {
#pragma unroll
        for (int j = 0; j < 2; ++j)
          s[m][n][2 * half + j] = softmax_exp2(s[m][n][2 * half + j], base, base_scaled);
        sum[n] = s[m][n][2 * half] + s[m][n][2 * half + 1];
      }
#pragma unroll
      for (int stride = 1; stride < kNTiles; stride *= 2)
#pragma unroll
        for (int n = 0; n + stride < kNTiles; n += 2 * stride) sum[n] += sum[n + stride];
      row_sum[m][half] += sum[0];
    }
  }
}
)cuda";

// O += P V for one V tile.
inline const char *kAccumulatePV = R"cuda(
// ---------------------------------------------------------------------------
// Stage: O += P V for one V tile
// ---------------------------------------------------------------------------
// The f32 accumulator layout of two adjacent 16x8 S tiles equals the A
// fragment layout of one 16x16 P tile, so P goes from registers straight
// into the mma after rounding to the element type. V rows are row-major
// (keys x dims), the B operand wants keys contiguous: ldmatrix .trans, lanes
// 0-7 keys 0-7 dims 0-7, 8-15 keys 8-15 dims 0-7, 16-23 keys 0-7 dims 8-15,
// 24-31 keys 8-15 dims 8-15. As for S, the steps (k-step, pair of output
// tiles) are software-pipelined: V fragments of step i + kFragmentPrefetch
// load before the mma of step i.
__device__ __forceinline__ void load_v_fragment(unsigned (&b)[4], unsigned smem_v_stage, int k_step,
                                                int dim_pair, int lane) {
  const int key = k_step * 16 + (lane % 8) + 8 * ((lane / 8) % 2);
  const int dim = dim_pair * 16 + 8 * (lane / 16);
  ldmatrix_x4_trans(smem_v_stage + (key * kVPitch + dim) * 2, b[0], b[1], b[2], b[3]);
}

__device__ __forceinline__ void pack_p_fragment(unsigned (&a)[kMTiles][4],
                                                const float (&p)[kMTiles][kNTiles][4], int kk) {
#pragma unroll
  for (int m = 0; m < kMTiles; ++m) {
    a[m][0] = pack_elem_x2(p[m][2 * kk][0], p[m][2 * kk][1]);
    a[m][1] = pack_elem_x2(p[m][2 * kk][2], p[m][2 * kk][3]);
    a[m][2] = pack_elem_x2(p[m][2 * kk + 1][0], p[m][2 * kk + 1][1]);
    a[m][3] = pack_elem_x2(p[m][2 * kk + 1][2], p[m][2 * kk + 1][3]);
  }
}

__device__ __forceinline__ void accumulate_pv(float (&o_acc)[kMTiles][kOTiles][4],
                                              const float (&p)[kMTiles][kNTiles][4],
                                              unsigned smem_v_stage, int lane) {
  constexpr int kPairs = kOTiles / 2;  // output tiles loaded two at a time
  constexpr int kSteps = kPVSteps * kPairs;
  constexpr int kRing = kFragmentPrefetch + 1;  // V fragments in flight + the one in use
  unsigned p_frag[kMTiles][4];
  unsigned v_frag[kRing][4];
#pragma unroll
  for (int step = 0; step < kFragmentPrefetch && step < kSteps; ++step)
    load_v_fragment(v_frag[step % kRing], smem_v_stage, step / kPairs, step % kPairs, lane);
  // Nested loops (not one flattened loop) so that both unroll fully and every
  // register-array index is a compile-time constant.
#pragma unroll
  for (int kk = 0; kk < kPVSteps; ++kk) {
    pack_p_fragment(p_frag, p, kk);
#pragma unroll
    for (int dp = 0; dp < kPairs; ++dp) {
      const int step = kk * kPairs + dp;
      const int ahead = step + kFragmentPrefetch;
      if (ahead < kSteps)
        load_v_fragment(v_frag[ahead % kRing], smem_v_stage, ahead / kPairs, ahead % kPairs, lane);
#pragma unroll
      for (int m = 0; m < kMTiles; ++m) {
        mma_16x8x16(o_acc[m][2 * dp], p_frag[m], v_frag[step % kRing][0], v_frag[step % kRing][1]);
        mma_16x8x16(o_acc[m][2 * dp + 1], p_frag[m], v_frag[step % kRing][2], v_frag[step % kRing][3]);
      }
    }
  }
  if constexpr (kOTiles % 2 == 1) {  // head dim an odd multiple of 8: the last 8 columns
#pragma unroll
    for (int kk = 0; kk < kPVSteps; ++kk) {
      pack_p_fragment(p_frag, p, kk);
      const int key = kk * 16 + (lane % 8) + 8 * ((lane / 8) % 2);  // lanes 0-15 address
      unsigned b0, b1;
      ldmatrix_x2_trans(smem_v_stage + (key * kVPitch + (kOTiles - 1) * 8) * 2, b0, b1);
#pragma unroll
      for (int m = 0; m < kMTiles; ++m) mma_16x8x16(o_acc[m][kOTiles - 1], p_frag[m], b0, b1);
    }
  }
}
)cuda";

// sm_90a: S = Q Kᵀ and O += P V with wgmma, operands from shared memory.
inline const char *kWgmmaStages = R"cuda(
// ---------------------------------------------------------------------------
// Stage: S = Q K^T with wgmma (sm_90a)
// ---------------------------------------------------------------------------
// Each warpgroup (4 warps) owns 64 query rows; wgmma reads Q and K from
// shared memory through descriptors (both K-major, 128-byte swizzle), so a
// K tile is read once per warpgroup instead of once per warp. The f32
// accumulators have the mma.sync layout per 16-row warp slice, so the softmax
// stages are shared with the mma.sync kernels.
__device__ __forceinline__ void compute_scores(float (&s)[kMTiles][kNTiles][4], unsigned smem_q,
                                               int warp, unsigned smem_k_stage) {
  const unsigned q_rows = smem_q + (warp / 4) * 64 * 128;  // this warpgroup's 64 rows
#pragma unroll
  for (int n = 0; n < kNTiles; ++n) fence_operand(s[0][n]);
  wgmma_fence();
#pragma unroll
  for (int ks = 0; ks < kQKSteps; ++ks) {
    // k16 step: 64-column block ks / 4, 32 bytes per step inside the swizzled row.
    const unsigned a = q_rows + (ks / 4) * (kBlockM * 128) + (ks % 4) * 32;
    const unsigned b = smem_k_stage + (ks / 4) * (kBlockN * 128) + (ks % 4) * 32;
    wgmma_scores(s[0], k_major_descriptor(a), k_major_descriptor(b), ks > 0);
  }
  wgmma_commit();
  wgmma_wait<0>();
#pragma unroll
  for (int n = 0; n < kNTiles; ++n) fence_operand(s[0][n]);
}

// ---------------------------------------------------------------------------
// Stage: O += P V with wgmma (sm_90a)
// ---------------------------------------------------------------------------
// P (rounded to the element type) is the register A operand: its layout is the
// accumulator layout of S. V [keys x dims] is the MN-major B operand (dims
// contiguous, 128-byte swizzle): 64-dim blocks kBlockN * 128 bytes apart,
// 8-key groups 1024 bytes apart.
__device__ __forceinline__ void accumulate_pv(float (&o_acc)[kMTiles][kOTiles][4],
                                              const float (&p)[kMTiles][kNTiles][4],
                                              unsigned smem_v_stage) {
  unsigned p_frag[kPVSteps][4];
#pragma unroll
  for (int kk = 0; kk < kPVSteps; ++kk) {
    p_frag[kk][0] = pack_elem_x2(p[0][2 * kk][0], p[0][2 * kk][1]);
    p_frag[kk][1] = pack_elem_x2(p[0][2 * kk][2], p[0][2 * kk][3]);
    p_frag[kk][2] = pack_elem_x2(p[0][2 * kk + 1][0], p[0][2 * kk + 1][1]);
    p_frag[kk][3] = pack_elem_x2(p[0][2 * kk + 1][2], p[0][2 * kk + 1][3]);
  }
#pragma unroll
  for (int d = 0; d < kOTiles; ++d) fence_operand(o_acc[0][d]);
  wgmma_fence();
#pragma unroll
  for (int kk = 0; kk < kPVSteps; ++kk)
    wgmma_output(o_acc[0], p_frag[kk], mn_major_descriptor(smem_v_stage + kk * 16 * 128));
  wgmma_commit();
  wgmma_wait<0>();
#pragma unroll
  for (int d = 0; d < kOTiles; ++d) fence_operand(o_acc[0][d]);
}
)cuda";

} // namespace tg::codegen::templates

#endif // TG_CODEGEN_ATTENTIONKERNELTEMPLATES_H
