// tgc device library: the attention backward's last kernels: dQ = scale *
// the f32 accumulator, and a captured tensor's gradient, each rounded once
// to the element type.
#pragma once
#include "attention_bwd_preprocess.cuh"
#include "dq_accumulator.cuh"

namespace tg::device {

/// Launch: grid (ceil(Sq / kRowKernelRows), Hq, B), kRowKernelThreads threads.
/// dq_accum is [B, Hq, Sq, kHeadDimQK] dense f32 in dq_accumulator.cuh's
/// layout (kSwizzled: rows' 32-byte chunks permuted); dq is [B, Hq, Sq,
/// kHeadDimQK] at its strides (head dim contiguous, rows 16-byte aligned).
/// Ragged (kRagged): Sq is max_seqlen_q, dq is packed (b stride 0) and only
/// each sequence's rows are written.
template <Elem E, int kHeadDimQK, bool kSwizzled, bool kRagged = false>
__device__ __forceinline__ void attention_bwd_convert(const float *__restrict__ dq_accum,
                                                      u16 *__restrict__ dq, long long num_heads_q,
                                                      long long seq_len_q, long long dq_stride_b,
                                                      long long dq_stride_h, long long dq_stride_s,
                                                      float scale, const int *cu_seqlens_q = nullptr,
                                                      long long tokens_q = 0) {
  static_assert(kHeadDimQK % 8 == 0 && (!kSwizzled || kHeadDimQK % 64 == 0),
                "rows are written in 16-byte chunks; swizzled rows have groups of eight 32-byte chunks");
  const int tid = threadIdx.x;
  const int part = tid % kRowKernelThreadsPerRow;
  const long long row = static_cast<long long>(blockIdx.x) * kRowKernelRows + tid / kRowKernelThreadsPerRow;
  const long long h = blockIdx.y, b = blockIdx.z;
  long long start = 0;
  int rows = static_cast<int>(seq_len_q);
  if constexpr (kRagged) ragged_sequence(cu_seqlens_q, b, tokens_q, seq_len_q, &start, &rows);
  if (row >= rows) return;
  const float4 *acc_row =
      reinterpret_cast<const float4 *>(dq_accum + ((b * num_heads_q + h) * seq_len_q + row) * kHeadDimQK);
  u16 *dq_row = dq + b * dq_stride_b + h * dq_stride_h + (start + row) * dq_stride_s;
  for (int chunk = part; chunk < kHeadDimQK / 8; chunk += kRowKernelThreadsPerRow) {
    // (the permutation moves whole 8-float chunks: one 16-byte output chunk)
    const int at = dq_accum_column<kSwizzled>(row, 8 * chunk) / 4;
    const float4 lo = acc_row[at], hi = acc_row[at + 1];
    uint4 out;
    out.x = pack2<E>(lo.x * scale, lo.y * scale);
    out.y = pack2<E>(lo.z * scale, lo.w * scale);
    out.z = pack2<E>(hi.x * scale, hi.y * scale);
    out.w = pack2<E>(hi.z * scale, hi.w * scale);
    *reinterpret_cast<uint4 *>(dq_row + 8 * chunk) = out;
  }
}

/// A captured tensor's gradient: the dense f32 accumulator [d0, d1, d2, d3]
/// rounded into `dst` at its strides. Launch: grid (ceil(n / 1024)), 256
/// threads, 4 elements per thread.
template <Elem E>
__device__ __forceinline__ void capture_grad_convert(const float *__restrict__ src, u16 *__restrict__ dst,
                                                     long long d0, long long d1, long long d2, long long d3,
                                                     long long stride0, long long stride1, long long stride2,
                                                     long long stride3) {
  const long long n = d0 * d1 * d2 * d3;
#pragma unroll
  for (int i = 0; i < 4; ++i) {
    const long long e = static_cast<long long>(blockIdx.x) * 1024 + i * 256 + threadIdx.x;
    if (e < n) {
      const long long x3 = e % d3, x2 = (e / d3) % d2, x1 = (e / (d3 * d2)) % d1, x0 = e / (d3 * d2 * d1);
      dst[x0 * stride0 + x1 * stride1 + x2 * stride2 + x3 * stride3] =
          static_cast<u16>(pack2<E>(src[e], 0.0f) & 0xffffu);
    }
  }
}

} // namespace tg::device
