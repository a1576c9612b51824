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
// CHECK-NEXT: const float t1 = tg_dropout_keep(x1, x2, (unsigned long long)i, 429496729u) ? tg_dround_bf16((double)t0 * 1.1111111111111112) : 0.0f;
func.func @scaled(%p: tensor<2x3x17x33xbf16>, %seed: tensor<i64>, %offset: tensor<i64>) -> tensor<2x3x17x33xbf16> {
  %e = tg.exp %p : tensor<2x3x17x33xbf16>
  %d = tg.dropout %e, %seed, %offset prob = 1.000000e-01 : tensor<2x3x17x33xbf16>
  return %d : tensor<2x3x17x33xbf16>
}

// Unscaled dropout keeps values as they are; a constant seed is a literal.
// CHECK-LABEL: // ===== @unscaled: kernels: 1
// CHECK: const float t0 = tg_dropout_keep(1234LL, x1, (unsigned long long)i, 2147483648u) ? x0 : 0.0f;
func.func @unscaled(%x: tensor<5x7xf32>, %offset: tensor<i64>) -> tensor<5x7xf32> {
  %seed = tg.constant dense<1234> : tensor<i64>
  %d = tg.dropout %x, %seed, %offset prob = 5.000000e-01 unscaled : tensor<5x7xf32>
  return %d : tensor<5x7xf32>
}

// The prelude carries the documented Philox4x32-10 mapping.
// RUN: tg-emit-kernels --with-prelude %s | FileCheck %s --check-prefix=PRELUDE
// PRELUDE: const unsigned int kMul0 = 0xD2511F53u, kMul1 = 0xCD9E8D57u;
// PRELUDE: const unsigned int kWeyl0 = 0x9E3779B9u, kWeyl1 = 0xBB67AE85u;
// PRELUDE: const unsigned long long group = index >> 2;
// PRELUDE: (unsigned int)group, (unsigned int)(group >> 32),
// PRELUDE-NEXT: (unsigned int)offsetBits, (unsigned int)(offsetBits >> 32)};
// PRELUDE: counter, (unsigned int)seedBits, (unsigned int)(seedBits >> 32));
// PRELUDE: return word >= threshold;
