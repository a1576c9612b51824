// tgc device library: the forward's online softmax over tiles of scores in
// the mma.sync accumulator layout (mma.cuh; wgmma.cuh uses the same one),
// in base 2 with the score scale folded into the exponent.
//
// Scores become unnormalised probabilities p = exp2(x * scale_log2 -
// max_scaled): one FFMA and one ex2 per element. The running max of a row
// only moves when the tile's max exceeds it by more than kRescaleThreshold
// (log2 units), so p <= 2^kRescaleThreshold and most tiles skip rescaling O
// and the sums; the decision is taken for the whole warp (one vote). The
// result is exact: O, the sum and the log-sum-exp all refer to the same max.
// A row with no visible key so far keeps max = -inf and uses 0 as its max
// in the exponent, so exp2(-inf - 0) = 0 and no NaN appears. row_sum holds
// only this lane's columns; the 4 lanes of a row are summed once, in the
// epilogue (quad_sum).
//
// With kSubtractMaxFirst (a score modifier ran) a score can be a huge finite
// value such as an additive mask of finfo(bf16).min = -3.39e38: times log2(e)
// that overflows to -inf, and a row whose visible keys so far are all such
// values would compute exp2(-inf + inf) = NaN. There the max is subtracted
// before the scale, (x - max) * scale_log2, which is exact for equal huge
// values (softmax of a row of finfo.min is uniform, as in the graph). Raw
// dot products (no modifier) cannot reach that range, so the plain kernel
// keeps the single FFMA x * k - max * k.
#pragma once
#include "prelude.cuh"

namespace tg::device {

/// Reductions over the 4 lanes that share one accumulator row.
__device__ __forceinline__ float quad_max(float x) {
  x = fmaxf(x, __shfl_xor_sync(0xffffffffu, x, 1));
  return fmaxf(x, __shfl_xor_sync(0xffffffffu, x, 2));
}
__device__ __forceinline__ float quad_sum(float x) {
  x += __shfl_xor_sync(0xffffffffu, x, 1);
  return x + __shfl_xor_sync(0xffffffffu, x, 2);
}

constexpr float kLn2 = 0.693147181f;  // log-sum-exp from base 2 back to natural log
constexpr float kRescaleThreshold = 8.0f;  // p stays <= 256: no f32 overflow, bf16 keeps its precision

/// The max a row's exponents subtract: 0 while the row has no visible key.
__device__ __forceinline__ float softmax_base(float row_max) {
  return row_max == neg_inf() ? 0.0f : row_max;
}

/// exp2 of score x relative to the row max `base` (softmax_base), with
/// base_scaled = base * scale_log2 precomputed once per row.
template <bool kSubtractMaxFirst>
__device__ __forceinline__ float softmax_exp2(float x, float base, float base_scaled,
                                              float scale_log2) {
  if constexpr (kSubtractMaxFirst)
    return fast_exp2((x - base) * scale_log2);
  else
    return fast_exp2(x * scale_log2 - base_scaled);
}

/// One tile of scores s (kMTiles x kNTiles accumulator tiles of this warp)
/// into probabilities, updating the running row max and sum. When the max
/// of a row moves, the row's earlier output must be scaled:
/// rescale_row(m, half, correction) is called for every row of the warp
/// then, and the result says whether it was. `scale_log2` is a compile-time
/// constant of the caller (exp(s) = exp2(x * scale_log2); fp8's runtime
/// descales multiply into it). kTightMax: the max never lags (p <= 1).
template <int kMTiles, int kNTiles, bool kSubtractMaxFirst, class RescaleRow, bool kTightMax = false>
__device__ __forceinline__ bool online_softmax_step(float (&s)[kMTiles][kNTiles][4],
                                                    float (&row_max)[kMTiles][2],
                                                    float (&row_sum)[kMTiles][2], float scale_log2,
                                                    RescaleRow rescale_row) {
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
      grows |= (tile_max[m][half] - row_max[m][half]) * scale_log2 > (kTightMax ? 0.0f : kRescaleThreshold);
    }
  }
  const bool rescale = __any_sync(0xffffffffu, grows);
  if (rescale) {
#pragma unroll
    for (int m = 0; m < kMTiles; ++m) {
#pragma unroll
      for (int half = 0; half < 2; ++half) {
        const float old_max = row_max[m][half];
        const float new_max = fmaxf(old_max, tile_max[m][half]);
        const float new_base = softmax_base(new_max);
        const float correction =
            softmax_exp2<kSubtractMaxFirst>(old_max, new_base, new_base * scale_log2, scale_log2);
        row_max[m][half] = new_max;
        row_sum[m][half] *= correction;
        rescale_row(m, half, correction);
      }
    }
  }
#pragma unroll
  for (int m = 0; m < kMTiles; ++m) {
#pragma unroll
    for (int half = 0; half < 2; ++half) {
      const float base = softmax_base(row_max[m][half]);
      const float base_scaled = base * scale_log2;
      float sum[kNTiles];  // pairwise tree, as for the max
#pragma unroll
      for (int n = 0; n < kNTiles; ++n) {
#pragma unroll
        for (int j = 0; j < 2; ++j)
          s[m][n][2 * half + j] =
              softmax_exp2<kSubtractMaxFirst>(s[m][n][2 * half + j], base, base_scaled, scale_log2);
        sum[n] = s[m][n][2 * half] + s[m][n][2 * half + 1];
      }
#pragma unroll
      for (int stride = 1; stride < kNTiles; stride *= 2)
#pragma unroll
        for (int n = 0; n + stride < kNTiles; n += 2 * stride) sum[n] += sum[n + stride];
      row_sum[m][half] += sum[0];
    }
  }
  return rescale;
}

/// online_softmax_step with the output rescaled at once (its P V done).
template <int kMTiles, int kNTiles, int kOTiles, bool kSubtractMaxFirst>
__device__ __forceinline__ void online_softmax(float (&s)[kMTiles][kNTiles][4],
                                               float (&row_max)[kMTiles][2],
                                               float (&row_sum)[kMTiles][2],
                                               float (&o_acc)[kMTiles][kOTiles][4],
                                               float scale_log2) {
  online_softmax_step<kMTiles, kNTiles, kSubtractMaxFirst>(
      s, row_max, row_sum, scale_log2, [&](int m, int half, float correction) {
#pragma unroll
        for (int d = 0; d < kOTiles; ++d) {
          o_acc[m][d][2 * half] *= correction;
          o_acc[m][d][2 * half + 1] *= correction;
        }
      });
}

/// online_softmax_step for a kernel whose P V is still in flight: the
/// corrections are kept for rescale_output, the result says whether to
/// apply them.
template <int kMTiles, int kNTiles, bool kSubtractMaxFirst, bool kTightMax = false>
__device__ __forceinline__ bool online_softmax_deferred(float (&s)[kMTiles][kNTiles][4],
                                                        float (&row_max)[kMTiles][2],
                                                        float (&row_sum)[kMTiles][2],
                                                        float (&correction)[kMTiles][2], float scale_log2) {
  auto keep = [&](int m, int half, float c) { correction[m][half] = c; };
  return online_softmax_step<kMTiles, kNTiles, kSubtractMaxFirst, decltype(keep), kTightMax>(
      s, row_max, row_sum, scale_log2, keep);
}

/// Scales the output accumulators of each row by its correction.
template <int kMTiles, int kOTiles>
__device__ __forceinline__ void rescale_output(float (&o_acc)[kMTiles][kOTiles][4],
                                               const float (&correction)[kMTiles][2]) {
#pragma unroll
  for (int m = 0; m < kMTiles; ++m)
#pragma unroll
    for (int d = 0; d < kOTiles; ++d)
#pragma unroll
      for (int e = 0; e < 4; ++e) o_acc[m][d][e] *= correction[m][e / 2];
}

} // namespace tg::device
