// ---------------------------------------------------------------------------
// Element-wise helpers of the generic kernels and of score regions
// ---------------------------------------------------------------------------
// What the generated pointwise, reduction, softmax and matmul kernels and the
// attention kernels' score modifiers compute with. Semantics follow the
// reference interpreter (compiler/include/tg/Reference/Interpreter.h) and
// the op descriptions in TGOps.td:
//  - loads/stores convert between storage and compute types (exact);
//  - tg_round_* round an f32 result to bf16/f16 (nearest even, overflow to
//    inf) or to fp8 (nearest even, saturating to the largest finite value,
//    NaN stays NaN); tg_wrap_* wrap a 64-bit integer to i8/i32;
//  - tg_i* are 64-bit integer ops that wrap instead of overflowing;
//  - tg_f2i_sat is tg.cast float -> integer (truncate, saturate, NaN -> 0);
//  - tg_fmax/tg_fmin propagate NaN; tg_warp_reduce/tg_block_reduce;
//  - dropout_keep is the documented Philox keep bit (philox.cuh).
// Every helper's name starts with tg_ or TG_.
#pragma once
// A guard as well: a kernel with a score region pastes these helpers and
// the attention library into one translation unit.
#ifndef TG_DEVICE_ELEMENTWISE_CUH
#define TG_DEVICE_ELEMENTWISE_CUH

#include "philox.cuh"
#include <cuda_fp16.h>
#include <cuda_bf16.h>
#include <cuda_fp8.h>

#define TG_INF __int_as_float(0x7f800000)
#define TG_NAN __int_as_float(0x7fffffff)
#define TG_I64_MIN (-9223372036854775807LL - 1)
#define TG_I64_MAX 9223372036854775807LL
#define TG_FN __device__ __forceinline__ // inline, not static: no unused warnings

// Loads: storage type -> compute type (float, long long or bool); exact.
TG_FN float tg_load(const float *p, long long i) { return p[i]; }
TG_FN float tg_load(const __half *p, long long i) { return __half2float(p[i]); }
TG_FN float tg_load(const __nv_bfloat16 *p, long long i) { return __bfloat162float(p[i]); }
TG_FN float tg_load(const __nv_fp8_e4m3 *p, long long i) { return float(p[i]); }
TG_FN float tg_load(const __nv_fp8_e5m2 *p, long long i) { return float(p[i]); }
TG_FN long long tg_load(const signed char *p, long long i) { return p[i]; }
// i4 (weight storage): two's complement nibbles, two per byte, element i in
// byte i / 2, the low nibble first. No kernel writes i4.
struct tg_i4x2 {
  unsigned char bits;
};
TG_FN long long tg_load(const tg_i4x2 *p, long long i) {
  const unsigned nibble = (p[i >> 1].bits >> ((i & 1) * 4)) & 15u;
  return static_cast<long long>(nibble ^ 8u) - 8;
}
TG_FN long long tg_load(const int *p, long long i) { return p[i]; }
TG_FN long long tg_load(const long long *p, long long i) { return p[i]; }
TG_FN bool tg_load(const unsigned char *p, long long i) { return p[i] != 0; }

// Stores: a compute value already rounded to the element type -> storage.
TG_FN void tg_store(float *p, long long i, float v) { p[i] = v; }
TG_FN void tg_store(__half *p, long long i, float v) { p[i] = __float2half_rn(v); }
TG_FN void tg_store(__nv_bfloat16 *p, long long i, float v) { p[i] = __float2bfloat16_rn(v); }
TG_FN void tg_store(__nv_fp8_e4m3 *p, long long i, float v) {
  __nv_fp8_e4m3 e;
  e.__x = __nv_cvt_float_to_fp8(v, __NV_SATFINITE, __NV_E4M3);
  p[i] = e;
}
TG_FN void tg_store(__nv_fp8_e5m2 *p, long long i, float v) {
  __nv_fp8_e5m2 e;
  e.__x = __nv_cvt_float_to_fp8(v, __NV_SATFINITE, __NV_E5M2);
  p[i] = e;
}
TG_FN void tg_store(signed char *p, long long i, long long v) { p[i] = (signed char)v; }
TG_FN void tg_store(int *p, long long i, long long v) { p[i] = (int)v; }
TG_FN void tg_store(long long *p, long long i, long long v) { p[i] = v; }
TG_FN void tg_store(unsigned char *p, long long i, bool v) { p[i] = v ? 1 : 0; }

// Vector access for large element-wise kernels: V consecutive elements from
// index i (i % V == 0; buffers are 16-byte aligned, so the V elements' bytes
// are aligned to their size up to 16) moved by the widest aligned loads and
// stores, then converted per element exactly as tg_load / tg_store do.
template <class T> struct tg_elements_per_unit { static constexpr int value = 1; };
template <> struct tg_elements_per_unit<tg_i4x2> { static constexpr int value = 2; };

/// B bytes (4, 8 or a multiple of 16) as the widest words that move them.
template <int B> struct tg_chunk_word { using type = uint4; };
template <> struct tg_chunk_word<4> { using type = unsigned; };
template <> struct tg_chunk_word<8> { using type = uint2; };
template <int B>
struct tg_chunk {
  static_assert(B == 4 || B == 8 || B % 16 == 0, "4, 8 or a multiple of 16 bytes");
  using Word = typename tg_chunk_word<B>::type;
  static constexpr int kWords = B < 16 ? 1 : B / 16;
  Word words[kWords];
};

/// Loads or stores a chunk at a B-aligned (at most 16-aligned) address.
template <int B>
TG_FN tg_chunk<B> tg_load_chunk(const void *src) {
  tg_chunk<B> c;
#pragma unroll
  for (int k = 0; k < tg_chunk<B>::kWords; ++k)
    c.words[k] = static_cast<const typename tg_chunk<B>::Word *>(src)[k];
  return c;
}
template <int B>
TG_FN void tg_store_chunk(void *dst, const tg_chunk<B> &c) {
#pragma unroll
  for (int k = 0; k < tg_chunk<B>::kWords; ++k)
    static_cast<typename tg_chunk<B>::Word *>(dst)[k] = c.words[k];
}

// The elements' bytes move between the chunk and element objects by memcpy
// (not through a pointer cast, which type-based alias analysis may break);
// with constant offsets that is register moves.
template <int V, class T, class R>
TG_FN void tg_load_vec(const T *p, long long i, R (&out)[V]) {
  constexpr int kPer = tg_elements_per_unit<T>::value;
  constexpr int kBytes = V / kPer * static_cast<int>(sizeof(T));
  const tg_chunk<kBytes> chunk = tg_load_chunk<kBytes>(p + i / kPer);
#pragma unroll
  for (int v = 0; v < V; ++v) {
    T unit;
    memcpy(&unit, reinterpret_cast<const unsigned char *>(chunk.words) + v / kPer * sizeof(T), sizeof(T));
    out[v] = tg_load(&unit, v % kPer);
  }
}

template <int V, class T, class R>
TG_FN void tg_store_vec(T *p, long long i, const R (&in)[V]) {
  static_assert(tg_elements_per_unit<T>::value == 1, "no kernel writes i4");
  constexpr int kBytes = V * static_cast<int>(sizeof(T));
  tg_chunk<kBytes> chunk;
#pragma unroll
  for (int v = 0; v < V; ++v) {
    T unit;
    tg_store(&unit, 0, in[v]);
    memcpy(reinterpret_cast<unsigned char *>(chunk.words) + v * sizeof(T), &unit, sizeof(T));
  }
  tg_store_chunk<kBytes>(p + i, chunk);
}

// Rounding an f32 value to a narrower float type (the result stays in f32).
TG_FN float tg_round_bf16(float x) { return __bfloat162float(__float2bfloat16_rn(x)); }
TG_FN float tg_round_f16(float x) { return __half2float(__float2half_rn(x)); }
TG_FN float tg_fp8_to_float(__nv_fp8_storage_t bits, __nv_fp8_interpretation_t kind) {
  return __half2float(__half(__nv_cvt_fp8_to_halfraw(bits, kind)));
}
TG_FN float tg_round_f8e4m3(float x) {
  return tg_fp8_to_float(__nv_cvt_float_to_fp8(x, __NV_SATFINITE, __NV_E4M3), __NV_E4M3);
}
TG_FN float tg_round_f8e5m2(float x) {
  return tg_fp8_to_float(__nv_cvt_float_to_fp8(x, __NV_SATFINITE, __NV_E5M2), __NV_E5M2);
}

// Integers: computed in 64 bits with wrap-around, then wrapped to the width.
TG_FN long long tg_wrap_i4(long long x) { return ((x & 0xfLL) ^ 0x8LL) - 0x8LL; }
TG_FN long long tg_wrap_i8(long long x) { return ((x & 0xffLL) ^ 0x80LL) - 0x80LL; }
TG_FN long long tg_wrap_i32(long long x) {
  return ((x & 0xffffffffLL) ^ 0x80000000LL) - 0x80000000LL;
}
TG_FN long long tg_iadd(long long a, long long b) {
  return (long long)((unsigned long long)a + (unsigned long long)b);
}
TG_FN long long tg_isub(long long a, long long b) {
  return (long long)((unsigned long long)a - (unsigned long long)b);
}
TG_FN long long tg_imul(long long a, long long b) {
  return (long long)((unsigned long long)a * (unsigned long long)b);
}
TG_FN long long tg_ineg(long long a) { return (long long)(0ULL - (unsigned long long)a); }
TG_FN long long tg_iabs(long long a) { return a < 0 ? tg_ineg(a) : a; }
// Truncating division; x / 0 gives 0 and MIN / -1 wraps (no trap on GPUs).
TG_FN long long tg_idiv(long long a, long long b) {
  return b == 0 ? 0 : b == -1 ? tg_ineg(a) : a / b;
}
TG_FN long long tg_imax(long long a, long long b) { return a > b ? a : b; }
TG_FN long long tg_imin(long long a, long long b) { return a < b ? a : b; }

// tg.cast float -> integer: truncate toward zero, saturate to [lo, hi], NaN -> 0.
TG_FN long long tg_f2i_sat(float x, long long lo, long long hi) {
  if (x != x)
    return 0;
  if (x <= (float)lo)
    return lo;
  if (x >= (float)hi) // (float)hi rounds up to a power of two, so x < it fits
    return hi;
  return (long long)x;
}
// Rounding a double once to a float type (integer -> float casts of i32/i64,
// sums accumulated in double, dropout's x / (1 - p)).
TG_FN float tg_dround_f32(double x) { return (float)x; }
TG_FN float tg_dround_bf16(double x) { return __bfloat162float(__double2bfloat16(x)); }
TG_FN float tg_dround_f16(double x) { return __half2float(__double2half(x)); }
TG_FN float tg_dround_f8e4m3(double x) {
  return tg_fp8_to_float(__nv_cvt_double_to_fp8(x, __NV_SATFINITE, __NV_E4M3), __NV_E4M3);
}
TG_FN float tg_dround_f8e5m2(double x) {
  return tg_fp8_to_float(__nv_cvt_double_to_fp8(x, __NV_SATFINITE, __NV_E5M2), __NV_E5M2);
}

// tg-compile --fast-math (score regions): the GPU's approximate
// instructions. ex2.approx and lg2.approx have relative errors up to 2^-22
// (plus the rounding of the scaling), tanh.approx up to 2^-10.99.
TG_FN float tg_exp_approx(float x) {
  float y;
  asm("ex2.approx.ftz.f32 %0, %1;" : "=f"(y) : "f"(x * 1.44269504f));
  return y;
}
TG_FN float tg_log_approx(float x) {
  float y;
  asm("lg2.approx.ftz.f32 %0, %1;" : "=f"(y) : "f"(x));
  return y * 0.693147181f;
}
TG_FN float tg_tanh_approx(float x) {
  float y;
  asm("tanh.approx.f32 %0, %1;" : "=f"(y) : "f"(x));
  return y;
}
TG_FN float tg_sigmoid_approx(float x) { return 0.5f * tg_tanh_approx(0.5f * x) + 0.5f; }

// max/min propagate NaN and order -0 below +0, as the reference does
// (fmaxf/fminf would drop the NaN).
TG_FN float tg_fmax(float a, float b) {
  if (a != a || b != b)
    return TG_NAN;
  if (a == b)
    return signbit(a) ? b : a;
  return a > b ? a : b;
}
TG_FN float tg_fmin(float a, float b) {
  if (a != a || b != b)
    return TG_NAN;
  if (a == b)
    return signbit(a) ? a : b;
  return a < b ? a : b;
}

// Reductions across the 32 lanes of a warp and across a block.
#define TG_METHOD __device__ __forceinline__
struct tg_sum_op {
  TG_METHOD float operator()(float a, float b) const { return a + b; }
  TG_METHOD double operator()(double a, double b) const { return a + b; }
  TG_METHOD long long operator()(long long a, long long b) const { return tg_iadd(a, b); }
};
struct tg_max_op {
  TG_METHOD float operator()(float a, float b) const { return tg_fmax(a, b); }
  TG_METHOD long long operator()(long long a, long long b) const { return tg_imax(a, b); }
};
struct tg_min_op {
  TG_METHOD float operator()(float a, float b) const { return tg_fmin(a, b); }
  TG_METHOD long long operator()(long long a, long long b) const { return tg_imin(a, b); }
};
template <typename T, typename Op>
TG_FN T tg_warp_reduce(T value, Op op) {
  for (int delta = 16; delta > 0; delta >>= 1)
    value = op(value, __shfl_xor_sync(0xffffffffu, value, delta));
  return value;
}
// Every thread of the block gets the result; `scratch` holds one value per
// warp (32 entries). Safe to call repeatedly with the same scratch.
template <typename T, typename Op>
TG_FN T tg_block_reduce(T value, Op op, T *scratch) {
  value = tg_warp_reduce(value, op);
  __syncthreads(); // the previous call's readers are done with scratch
  if ((threadIdx.x & 31) == 0)
    scratch[threadIdx.x >> 5] = value;
  __syncthreads();
  value = scratch[0];
  for (int w = 1; w < (int)(blockDim.x >> 5); ++w)
    value = op(value, scratch[w]);
  return value;
}

#endif // TG_DEVICE_ELEMENTWISE_CUH
