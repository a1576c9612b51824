// RUN: tg-emit-kernels %s | FileCheck %s

// tg.cast: float -> float rounds (fp8 saturating), float -> int truncates
// and saturates, int -> int wraps, i32/i64 -> narrow floats round once
// (through double), i1 is 0/1 and anything -> i1 is `!= 0`.
// CHECK-LABEL: // ===== @casts: kernels: 1
// CHECK: tg_pointwise_0(const float *__restrict__ in0,
// CHECK: unsigned char *__restrict__ out0) {
// CHECK: const float t0 = tg_round_f8e4m3(x0);
// CHECK-NEXT: // tg.cast
// CHECK-NEXT: const float t1 = tg_round_f8e5m2(t0);
// CHECK-NEXT: // tg.cast
// CHECK-NEXT: const long long t2 = tg_f2i_sat(t1, -128LL, 127LL);
// CHECK-NEXT: // tg.cast
// CHECK-NEXT: const long long t3 = t2;
// CHECK-NEXT: // tg.cast
// CHECK-NEXT: const float t4 = tg_dround_bf16((double)(t3));
// CHECK-NEXT: // tg.cast
// CHECK-NEXT: const long long t5 = tg_f2i_sat(t4, -2147483648LL, 2147483647LL);
// CHECK-NEXT: // tg.cast
// CHECK-NEXT: const long long t6 = tg_wrap_i8(t5);
// CHECK-NEXT: // tg.cast
// CHECK-NEXT: const float t7 = tg_round_f16((float)(t6));
// CHECK-NEXT: // tg.cast
// CHECK-NEXT: const bool t8 = (t7 != 0.0f);
// CHECK-NEXT: // tg.cast
// CHECK-NEXT: const float t9 = (t8 ? 1.0f : 0.0f);
// CHECK-NEXT: // tg.cast
// CHECK-NEXT: const long long t10 = tg_f2i_sat(t9, TG_I64_MIN, TG_I64_MAX);
// CHECK-NEXT: // tg.cast
// CHECK-NEXT: const bool t11 = (t10 != 0);
// CHECK: tg_store(out0, i, t11);
func.func @casts(%x: tensor<8xf32>) -> tensor<8xi1> {
  %0 = tg.cast %x : tensor<8xf32> to tensor<8xf8E4M3FN>
  %1 = tg.cast %0 : tensor<8xf8E4M3FN> to tensor<8xf8E5M2>
  %2 = tg.cast %1 : tensor<8xf8E5M2> to tensor<8xi8>
  %3 = tg.cast %2 : tensor<8xi8> to tensor<8xi32>
  %4 = tg.cast %3 : tensor<8xi32> to tensor<8xbf16>
  %5 = tg.cast %4 : tensor<8xbf16> to tensor<8xi32>
  %6 = tg.cast %5 : tensor<8xi32> to tensor<8xi8>
  %7 = tg.cast %6 : tensor<8xi8> to tensor<8xf16>
  %8 = tg.cast %7 : tensor<8xf16> to tensor<8xi1>
  %9 = tg.cast %8 : tensor<8xi1> to tensor<8xf32>
  %10 = tg.cast %9 : tensor<8xf32> to tensor<8xi64>
  %11 = tg.cast %10 : tensor<8xi64> to tensor<8xi1>
  return %11 : tensor<8xi1>
}

// Each element type's pointer type in the kernel signature.
// CHECK-LABEL: // ===== @storage_types: kernels: 1
// CHECK: tg_pointwise_0(const __nv_bfloat16 *__restrict__ in0,
// CHECK-NEXT: const __half *__restrict__ in1,
// CHECK-NEXT: const __nv_fp8_e4m3 *__restrict__ in2,
// CHECK-NEXT: const __nv_fp8_e5m2 *__restrict__ in3,
// CHECK-NEXT: const signed char *__restrict__ in4,
// CHECK-NEXT: const int *__restrict__ in5,
// CHECK-NEXT: const long long *__restrict__ in6,
// CHECK-NEXT: const unsigned char *__restrict__ in7,
// CHECK-NEXT: float *__restrict__ out0) {
func.func @storage_types(%a: tensor<4xbf16>, %b: tensor<4xf16>, %c: tensor<4xf8E4M3FN>, %d: tensor<4xf8E5M2>,
                         %e: tensor<4xi8>, %f: tensor<4xi32>, %g: tensor<4xi64>, %h: tensor<4xi1>) -> tensor<4xf32> {
  %a1 = tg.cast %a : tensor<4xbf16> to tensor<4xf32>
  %b1 = tg.cast %b : tensor<4xf16> to tensor<4xf32>
  %c1 = tg.cast %c : tensor<4xf8E4M3FN> to tensor<4xf32>
  %d1 = tg.cast %d : tensor<4xf8E5M2> to tensor<4xf32>
  %e1 = tg.cast %e : tensor<4xi8> to tensor<4xf32>
  %f1 = tg.cast %f : tensor<4xi32> to tensor<4xf32>
  %g1 = tg.cast %g : tensor<4xi64> to tensor<4xf32>
  %s0 = tg.add %a1, %b1 : tensor<4xf32>, tensor<4xf32>
  %s1 = tg.add %s0, %c1 : tensor<4xf32>, tensor<4xf32>
  %s2 = tg.add %s1, %d1 : tensor<4xf32>, tensor<4xf32>
  %s3 = tg.add %s2, %e1 : tensor<4xf32>, tensor<4xf32>
  %s4 = tg.add %s3, %f1 : tensor<4xf32>, tensor<4xf32>
  %s5 = tg.add %s4, %g1 : tensor<4xf32>, tensor<4xf32>
  %zero = tg.constant dense<0.0> : tensor<f32>
  %s6 = tg.select %h, %s5, %zero : tensor<4xi1>, tensor<4xf32>, tensor<f32>
  return %s6 : tensor<4xf32>
}
