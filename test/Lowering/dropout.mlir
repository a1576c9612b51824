// RUN: tg-emit-kernels %s | FileCheck %s

// Dropout is pointwise: the keep bit comes from Philox on the element's own
// row-major index with the runtime seed/offset; threshold = floor(p * 2^32)
// and kept values are scaled by 1/(1-p) in double and rounded once.
// CHECK-LABEL: // ===== @scaled: kernels: 1
// CHECK: pointwise exp+dropout 2x3x17x33
// CHECK: // args: %{{.*}} (in) %[[SEED:.*]] (in) %[[OFFSET:.*]] (in) %{{.*}} (out)
// CHECK: const long long *__restrict__ in1,
// CHECK-NEXT: const long long *__restrict__ in2,
// CHECK: const long long x1 = tg_load(in1, 0); // tensor<i64>
// CHECK-NEXT: const long long x2 = tg_load(in2, 0); // tensor<i64>
// CHECK: const float t0 = tg_round_bf16(expf(x0));
// CHECK-NEXT: // tg.dropout
// CHECK-NEXT: const float t1 = dropout_keep(x1, x2, (unsigned long long)i, 429496729u) ? tg_dround_bf16((double)t0 * 1.1111111111111112) : 0.0f;
func.func @scaled(%p: tensor<2x3x17x33xbf16>, %seed: tensor<i64>, %offset: tensor<i64>) -> tensor<2x3x17x33xbf16> {
  %e = tg.exp %p : tensor<2x3x17x33xbf16>
  %d = tg.dropout %e, %seed, %offset prob = 1.000000e-01 : tensor<2x3x17x33xbf16>
  return %d : tensor<2x3x17x33xbf16>
}

// Unscaled dropout keeps values as they are; a constant seed is a literal.
// CHECK-LABEL: // ===== @unscaled: kernels: 1
// CHECK: const float t0 = dropout_keep(1234LL, x1, (unsigned long long)i, 2147483648u) ? x0 : 0.0f;
func.func @unscaled(%x: tensor<5x7xf32>, %offset: tensor<i64>) -> tensor<5x7xf32> {
  %seed = tg.constant dense<1234> : tensor<i64>
  %d = tg.dropout %x, %seed, %offset prob = 5.000000e-01 unscaled : tensor<5x7xf32>
  return %d : tensor<5x7xf32>
}

// The prelude carries the documented Philox4x32-10 mapping.
// RUN: tg-emit-kernels --with-prelude %s | FileCheck %s --check-prefix=PRELUDE
// PRELUDE: // ---- device/philox.cuh ----
// PRELUDE: #define TG_PHILOX_FN __host__ __device__ __forceinline__
// PRELUDE: const unsigned kMul0 = 0xD2511F53u, kMul1 = 0xCD9E8D57u;
// PRELUDE: const unsigned kBump0 = 0x9E3779B9u, kBump1 = 0xBB67AE85u;
// PRELUDE: TG_PHILOX_FN PhiloxWords philox_group(unsigned long long group, unsigned long long offset,
// PRELUDE: return philox4x32_10(static_cast<unsigned>(group), static_cast<unsigned>(group >> 32),
// PRELUDE-NEXT: static_cast<unsigned>(offset), static_cast<unsigned>(offset >> 32), key);
// PRELUDE: TG_PHILOX_FN bool dropout_keep(unsigned long long seed, unsigned long long offset,
// PRELUDE: const PhiloxWords w = philox_group(i >> 2, offset, philox_key(seed));
// PRELUDE-NEXT: return philox_word(w, static_cast<unsigned>(i & 3)) >= threshold;
