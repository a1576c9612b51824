// tgc device library: the split-KV decode's combine kernel. Each split of
// the decode forward (attention_fwd.cuh, kDecode) wrote its rows' output
// normalised over its own keys and their log-sum-exp; the row's output is
// the splits' outputs weighted by exp(lse_s - lse) with lse the log-sum-exp
// over all splits, rounded once to the element type.
#pragma once
#include "prelude.cuh"

namespace tg::device {

/// The splits of a row are shared by kGroups groups of 128 threads (group g
/// takes splits g, g + kGroups, ...), so that several splits' loads are in
/// flight at once; the groups' sums meet in shared memory.
///
/// Launch: grid (ceil(B * Hq * Sq / rows per CTA)), 128 * kGroups threads;
/// in each group kHeadDimV / 8 threads per row (8 columns each). o is
/// [B, Hq, Sq, kHeadDimV] at its strides (head dim contiguous, rows 16-byte
/// aligned).
template <Elem E, int kHeadDimV, int kGroups>
__device__ __forceinline__ void attention_decode_combine(const float *__restrict__ o_partial,
                                                         const float *__restrict__ lse_partial,
                                                         u16 *__restrict__ o, long long splits, long long batch,
                                                         long long num_heads_q, long long seq_q,
                                                         long long o_stride_b, long long o_stride_h,
                                                         long long o_stride_s) {
  static_assert(kHeadDimV % 8 == 0 && kHeadDimV <= 256, "rows are written in 16-byte chunks");
  constexpr int kThreadsPerRow = kHeadDimV / 8;
  constexpr int kRowsPerBlock = 128 / kThreadsPerRow;
  constexpr int kGroupThreads = kRowsPerBlock * kThreadsPerRow; // <= 128
  static_assert(kGroups >= 2, "one group needs no shared sums");
  __shared__ float partial_sums[kGroups - 1][9][128];
  const int group = threadIdx.x / 128, lane = threadIdx.x % 128;
  const long long rows = batch * num_heads_q * seq_q;
  const long long row = static_cast<long long>(blockIdx.x) * kRowsPerBlock + lane / kThreadsPerRow;
  const int col = (lane % kThreadsPerRow) * 8;
  const bool active = lane < kGroupThreads && row < rows;
  float lse = neg_inf();
  float acc[8] = {0, 0, 0, 0, 0, 0, 0, 0};
  float total = 0.0f;
  if (active) {
    for (long long s = 0; s < splits; ++s) lse = fmaxf(lse, lse_partial[s * rows + row]);
    if (lse != neg_inf()) {
#pragma unroll 2
      for (long long s = group; s < splits; s += kGroups) {
        const float part = lse_partial[s * rows + row];
        if (part == neg_inf()) continue;
        const float w = __expf(part - lse);
        total += w;
        const float4 *src = reinterpret_cast<const float4 *>(o_partial + (s * rows + row) * kHeadDimV + col);
        const float4 lo = src[0], hi = src[1];
        acc[0] += w * lo.x, acc[1] += w * lo.y, acc[2] += w * lo.z, acc[3] += w * lo.w;
        acc[4] += w * hi.x, acc[5] += w * hi.y, acc[6] += w * hi.z, acc[7] += w * hi.w;
      }
    }
  }
  if (group > 0) {
    for (int i = 0; i < 8; ++i) partial_sums[group - 1][i][lane] = acc[i];
    partial_sums[group - 1][8][lane] = total;
  }
  __syncthreads();
  if (group > 0 || !active) return;
  for (int g = 0; g < kGroups - 1; ++g) {
    for (int i = 0; i < 8; ++i) acc[i] += partial_sums[g][i][lane];
    total += partial_sums[g][8][lane];
  }
  if (lse != neg_inf()) {
    const float inv = 1.0f / total;
    for (float &x : acc) x *= inv;
  }
  const long long qi = row % seq_q, h = (row / seq_q) % num_heads_q, b = row / (seq_q * num_heads_q);
  uint4 out;
  out.x = pack2<E>(acc[0], acc[1]);
  out.y = pack2<E>(acc[2], acc[3]);
  out.z = pack2<E>(acc[4], acc[5]);
  out.w = pack2<E>(acc[6], acc[7]);
  *reinterpret_cast<uint4 *>(o + b * o_stride_b + h * o_stride_h + qi * o_stride_s + col) = out;
}

} // namespace tg::device
