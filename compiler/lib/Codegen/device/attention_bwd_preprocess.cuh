// tgc device library: the attention backward's preprocess kernel. Per query
// row (b, h, q): delta = rowsum(dO * O) in f32, and the row of the f32 dQ
// accumulator set to zero (the main kernel adds into it atomically).
#pragma once
#include "ragged.cuh"

namespace tg::device {

/// Rows per CTA of the preprocess and convert kernels (128 threads, 8 per row).
constexpr int kRowKernelThreads = 128;
constexpr int kRowKernelThreadsPerRow = 8;
constexpr int kRowKernelRows = kRowKernelThreads / kRowKernelThreadsPerRow;

/// The packed sequences of the ragged layout (kRagged): the [B + 1]
/// offsets, the token count, and the [Tq, Hq] stats that the preprocess
/// copies into `lse_rows`, [B, Hq, max_seqlen_q] like delta.
struct RaggedRows {
  const int *cu_seqlens_q;
  long long tokens_q;
  const float *lse;
  float *lse_rows;
};

/// Launch: grid (ceil(Sq / kRowKernelRows), Hq, B), kRowKernelThreads threads.
/// o and d_o are [B, Hq, Sq, kHeadDimV] at their strides (elements, head dim
/// contiguous, rows 16-byte aligned); delta is [B, Hq, Sq] and dq_accum
/// [B, Hq, Sq, kHeadDimQK], both dense f32. Ragged: Sq is max_seqlen_q, o
/// and d_o are packed (b strides 0), and only each sequence's rows are
/// written.
template <Elem E, int kHeadDimQK, int kHeadDimV, bool kRagged = false>
__device__ __forceinline__ void attention_bwd_preprocess(
    const u16 *__restrict__ o, const u16 *__restrict__ d_o, float *__restrict__ delta,
    float *__restrict__ dq_accum, long long num_heads_q, long long seq_len_q, long long o_stride_b,
    long long o_stride_h, long long o_stride_s, long long do_stride_b, long long do_stride_h,
    long long do_stride_s, RaggedRows ragged = {}) {
  static_assert(kHeadDimV % 8 == 0 && kHeadDimQK % 4 == 0, "rows are read in 16-byte chunks");
  const int tid = threadIdx.x;
  const int part = tid % kRowKernelThreadsPerRow;  // this thread's share of the row
  const long long row = static_cast<long long>(blockIdx.x) * kRowKernelRows + tid / kRowKernelThreadsPerRow;
  const long long h = blockIdx.y, b = blockIdx.z;
  const long long row_index = (b * num_heads_q + h) * seq_len_q + row;
  long long start = 0;
  int rows = static_cast<int>(seq_len_q);
  if constexpr (kRagged) ragged_sequence(ragged.cu_seqlens_q, b, ragged.tokens_q, seq_len_q, &start, &rows);
  float sum = 0.0f;
  if (row < rows) {
    const u16 *o_row = o + b * o_stride_b + h * o_stride_h + (start + row) * o_stride_s;
    const u16 *do_row = d_o + b * do_stride_b + h * do_stride_h + (start + row) * do_stride_s;
    for (int chunk = part; chunk < kHeadDimV / 8; chunk += kRowKernelThreadsPerRow) {
      const uint4 ov = *reinterpret_cast<const uint4 *>(o_row + 8 * chunk);
      const uint4 dv = *reinterpret_cast<const uint4 *>(do_row + 8 * chunk);
      const unsigned op[4] = {ov.x, ov.y, ov.z, ov.w}, dp[4] = {dv.x, dv.y, dv.z, dv.w};
#pragma unroll
      for (int i = 0; i < 4; ++i)
        sum += low_float<E>(op[i]) * low_float<E>(dp[i]) + high_float<E>(op[i]) * high_float<E>(dp[i]);
    }
    float4 *acc_row = reinterpret_cast<float4 *>(dq_accum + row_index * kHeadDimQK);
    for (int i = part; i < kHeadDimQK / 4; i += kRowKernelThreadsPerRow)
      acc_row[i] = float4{0.0f, 0.0f, 0.0f, 0.0f};
  }
  // The 8 threads of a row are 8 consecutive lanes.
#pragma unroll
  for (int step = 1; step < kRowKernelThreadsPerRow; step *= 2)
    sum += __shfl_xor_sync(0xffffffffu, sum, step);
  if (part == 0 && row < rows) {
    delta[row_index] = sum;
    if constexpr (kRagged) ragged.lse_rows[row_index] = ragged.lse[(start + row) * num_heads_q + h];
  }
}

} // namespace tg::device
