// tgc device library: the attention forward's epilogue. O / rowsum rounded
// to the element type, staged through shared memory (each warp its own
// rows) so that global stores are 16 bytes wide; with training, the
// natural-log log-sum-exp per row. Rows with no visible key (rowsum 0) and
// padding rows (q_idx >= len_q) become zeros with log-sum-exp -inf.
#pragma once
#include "softmax.cuh"

namespace tg::device {

/// What FP8 attention adds to the epilogue (tg.attention's fp8_scales; all 1
/// and null otherwise): O = acc / rowsum * o_scale (descale_s * descale_v)
/// is what amax_o takes the max of, the stored value is O * out_scale
/// (scale_o) rounded to the output type, the log-sum-exp's scale is
/// multiplied by lse_scale (descale_q * descale_k), and amax_s is the
/// largest probability, 1 / rowsum of a row with keys.
struct Fp8Epilogue {
  float o_scale = 1.0f, out_scale = 1.0f, lse_scale = 1.0f;
  float *amax_s = nullptr, *amax_o = nullptr;
};

/// Raises *amax (a non-negative float, 0 before the launch) to the largest
/// `value` of the warp (NaN wins: its bits compare above every number's).
__device__ __forceinline__ void raise_amax(float *amax, float value) {
#pragma unroll
  for (int offset = 16; offset > 0; offset /= 2) value = fmaxf(value, __shfl_xor_sync(0xffffffffu, value, offset));
  if (amax != nullptr && (threadIdx.x % 32) == 0)
    atomicMax(reinterpret_cast<unsigned *>(amax), __float_as_uint(value));
}

/// `o_stage` is the kernel's Q region (no longer read), rows of kOPitch
/// 16-bit words; `lse_tile` is null without training, its rows `lse_stride`
/// apart. Rows >= `rows` (the tensor's, or a packed sequence's, end) are not
/// written. An fp8 output (K::kOutElem) is stored as byte pairs: o_tile and
/// o_stride_s count 16-bit words.
template <class K>
__device__ __forceinline__ void store_output(const float (&o_acc)[K::kMTiles][K::kOTiles][4],
                                             const float (&row_max)[K::kMTiles][2],
                                             const float (&row_sum)[K::kMTiles][2],
                                             unsigned char *smem, u16 *o_tile, long long o_stride_s,
                                             float *lse_tile, long long lse_stride, int m0, int warp,
                                             int lane, int len_q, long long seq_len_q,
                                             const Fp8Epilogue &fp8 = Fp8Epilogue{}) {
  constexpr bool kFp8Out = is_fp8(K::kOutElem);
  float amax_s = 0.0f, amax_o = 0.0f;
  u16 *o_stage = reinterpret_cast<u16 *>(smem);
#pragma unroll
  for (int m = 0; m < K::kMTiles; ++m) {
#pragma unroll
    for (int half = 0; half < 2; ++half) {
      const int row = warp * K::kWarpRows + m * 16 + lane / 4 + 8 * half;  // within the CTA tile
      const float sum = quad_sum(row_sum[m][half]);
      const bool has_keys = sum > 0.0f && m0 + row < len_q;
      // Dropout: the row sums were taken before it, so kept values are
      // rescaled by 1 / (1 - p) here.
      const float inv_sum = has_keys ? (K::kDropout ? K::kDropoutRescale / sum : 1.0f / sum) : 0.0f;
      if constexpr (K::kTraining) {
        if (lse_tile != nullptr && lane % 4 == 0 && m0 + row < seq_len_q) {
          // Natural-log log-sum-exp of the scaled, modified, masked scores.
          // The max is scaled in natural units (not base 2) so that a huge
          // finite max (finfo.min masks) does not overflow.
          lse_tile[row * lse_stride] =
              has_keys ? row_max[m][half] * (K::kSoftmaxScale * fp8.lse_scale) + log2f(sum) * kLn2 : neg_inf();
        }
      }
      if constexpr (K::kFp8) amax_s = fmaxf(amax_s, inv_sum);  // exp(max - max) / rowsum
#pragma unroll
      for (int d = 0; d < K::kOTiles; ++d) {
        float o0 = o_acc[m][d][2 * half] * inv_sum, o1 = o_acc[m][d][2 * half + 1] * inv_sum;
        if constexpr (K::kFp8) {
          o0 *= fp8.o_scale, o1 *= fp8.o_scale;
          amax_o = fmaxf(amax_o, fmaxf(fabsf(o0), fabsf(o1)));
          o0 *= fp8.out_scale, o1 *= fp8.out_scale;
        }
        if constexpr (kFp8Out)
          o_stage[row * K::kOPitch + d * 4 + lane % 4] =
              K::kOutElem == Elem::E4M3 ? cvt_pack_e4m3x2(o0, o1) : cvt_pack_e5m2x2(o0, o1);
        else
          *reinterpret_cast<unsigned *>(&o_stage[row * K::kOPitch + d * 8 + 2 * (lane % 4)]) =
              pack2<K::kOutElem>(o0, o1);
      }
    }
  }
  if constexpr (K::kFp8) {
    raise_amax(fp8.amax_s, amax_s);
    raise_amax(fp8.amax_o, amax_o);
  }
  __syncwarp();
  constexpr int kChunksPerRow = K::kHeadDimV * elem_bytes(K::kOutElem) / 16;  // 16-byte chunks
#pragma unroll
  for (int i = 0; i < (K::kWarpRows * kChunksPerRow + 31) / 32; ++i) {
    const int chunk = lane + 32 * i;
    const int row = warp * K::kWarpRows + chunk / kChunksPerRow;
    const int col = (chunk % kChunksPerRow) * 8;
    if (chunk < K::kWarpRows * kChunksPerRow && m0 + row < seq_len_q) {
      *reinterpret_cast<uint4 *>(o_tile + row * o_stride_s + col) =
          *reinterpret_cast<const uint4 *>(&o_stage[row * K::kOPitch + col]);
    }
  }
}

/// Decode: the split's partial result of each packed row r (query r % Sq of
/// head h0 + r / Sq): O / rowsum in f32 and the natural-log log-sum-exp
/// (-inf and zeros where the split saw no key), for
/// attention_decode_combine.cuh. Params is ForwardParams.
template <class K, class Params>
__device__ __forceinline__ void store_partial_output(const float (&o_acc)[K::kMTiles][K::kOTiles][4],
                                                     const float (&row_max)[K::kMTiles][2],
                                                     const float (&row_sum)[K::kMTiles][2], const Params &p,
                                                     long long b, long long h0, int warp, int lane) {
  const int seq_q = static_cast<int>(p.seq_len_q);
  const int rows = static_cast<int>(K::kQueryHeadsPerKvHead) * seq_q;
#pragma unroll
  for (int m = 0; m < K::kMTiles; ++m) {
#pragma unroll
    for (int half = 0; half < 2; ++half) {
      const int row = warp * K::kWarpRows + m * 16 + lane / 4 + 8 * half;
      const float sum = quad_sum(row_sum[m][half]);
      if (row >= rows) continue;
      const bool has_keys = sum > 0.0f;
      const float inv_sum = has_keys ? 1.0f / sum : 0.0f;
      const long long index =
          ((static_cast<long long>(blockIdx.x) * p.batch + b) * p.num_heads_q + h0 + row / seq_q) * seq_q +
          row % seq_q;
      if (lane % 4 == 0)
        p.lse_partial[index] =
            has_keys ? row_max[m][half] * K::kSoftmaxScale + log2f(sum) * kLn2 : neg_inf();
      float *o_row = p.o_partial + index * K::kHeadDimV;
#pragma unroll
      for (int d = 0; d < K::kOTiles; ++d)
        *reinterpret_cast<float2 *>(o_row + d * 8 + 2 * (lane % 4)) =
            float2{o_acc[m][d][2 * half] * inv_sum, o_acc[m][d][2 * half + 1] * inv_sum};
    }
  }
}

} // namespace tg::device
