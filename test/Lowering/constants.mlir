// RUN: tg-emit-kernels %s | FileCheck %s

// A non-splat constant is written by its own kernel from a table embedded
// in the source; its readers then load it like any buffer.
// CHECK-LABEL: // ===== @table: kernels: 2
// CHECK: // ----- kernel 0: constant 2x3
// CHECK: // args: %[[C:.*]] (out)
// CHECK: static __device__ const float kValues[6] = {
// CHECK-NEXT: 1.0f, (-2.5f), 0.125f, 3.0f, 1e+10f, (-0.0f)
// CHECK-NEXT: };
// CHECK: tg_constant_0(float *__restrict__ out0) {
// CHECK: tg_store(out0, i, kValues[i]);
// CHECK: // ----- kernel 1: pointwise add 2x3
// CHECK: // args: %{{.*}} (in) %[[C]] (in) %{{.*}} (out)
func.func @table(%x: tensor<2x3xf32>) -> tensor<2x3xf32> {
  %a = tg.constant dense<[[1.0, -2.5, 0.125], [3.0, 1.0e10, -0.0]]> : tensor<2x3xf32>
  %s = tg.add %x, %a : tensor<2x3xf32>, tensor<2x3xf32>
  return %s : tensor<2x3xf32>
}

// Infinities and NaN cannot appear in a static initialiser: such tables
// hold f32 bit patterns.
// CHECK-LABEL: // ===== @non_finite: kernels: 1
// CHECK: (as f32 bit patterns)
// CHECK-NEXT: static __device__ const unsigned int kValues[3] = {
// CHECK-NEXT: 0x7f800000u, 0xff800000u, 0x3f800000u
// CHECK: tg_store(out0, i, __uint_as_float(kValues[i]));
func.func @non_finite() -> tensor<3xbf16> {
  %a = tg.constant dense<[0x7F80, 0xFF80, 1.0]> : tensor<3xbf16>
  return %a : tensor<3xbf16>
}

// Integer and boolean tables keep their compute types.
// CHECK-LABEL: // ===== @ints: kernels: 3
// CHECK: static __device__ const bool kValues[4] = {
// CHECK-NEXT: true, false, false, true
// CHECK: tg_constant_0(unsigned char *__restrict__ out0) {
// CHECK: static __device__ const long long kValues[3] = {
// CHECK-NEXT: TG_I64_MIN, 0LL, 9223372036854775807LL
// CHECK: static __device__ const float kValues[2] = {
// CHECK-NEXT: 448.0f, (-0.5f)
// CHECK: tg_constant_2(__nv_fp8_e4m3 *__restrict__ out0) {
func.func @ints() -> (tensor<2x2xi1>, tensor<3xi64>, tensor<2xf8E4M3FN>) {
  %b = tg.constant dense<[[true, false], [false, true]]> : tensor<2x2xi1>
  %i = tg.constant dense<[-9223372036854775808, 0, 9223372036854775807]> : tensor<3xi64>
  %f = tg.constant dense<[448.0, -0.5]> : tensor<2xf8E4M3FN>
  return %b, %i, %f : tensor<2x2xi1>, tensor<3xi64>, tensor<2xf8E4M3FN>
}

// A returned splat is written by a copy kernel; an unused one costs nothing.
// CHECK-LABEL: // ===== @splat_result: kernels: 1
// CHECK: // ----- kernel 0: copy result scalar
// CHECK: tg_store(out0, i, (-7LL));
func.func @splat_result() -> tensor<i32> {
  %unused = tg.constant dense<[1.0, 2.0]> : tensor<2xf32>
  %c = tg.constant dense<-7> : tensor<i32>
  return %c : tensor<i32>
}
