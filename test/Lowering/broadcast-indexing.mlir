// RUN: tg-emit-kernels %s | FileCheck %s

// Operands of other shapes are read at coordinate 0 along their size-1
// dimensions (compile-time strides); rank-0 operands at offset 0; splat
// constants are literals, with inf and NaN spelled through the prelude.
// CHECK-LABEL: // ===== @broadcast: kernels: 1
// CHECK: // Coordinates of element i in [2, 3, 5]
// CHECK-NEXT: const long long c0 = (i / 15);
// CHECK-NEXT: const long long c1 = (i / 5) % 3;
// CHECK-NEXT: const long long c2 = i % 5;
// CHECK: const float x0 = tg_load(in0, c0 * 3 + c1); // tensor<2x3x1xf32>
// CHECK-NEXT: const float x1 = tg_load(in1, c2); // tensor<1x1x5xf32>
// CHECK-NEXT: const float x2 = tg_load(in2, 0); // tensor<f32>
// CHECK: const float t0 = x0 + x1;
// CHECK: const float t1 = tg_fmax(t0, __int_as_float(0xff800000));
// CHECK: const float t2 = tg_fmin(t1, __int_as_float(0x7f800000));
// CHECK: const float t3 = t2 * x2;
// CHECK: const bool t4 = t3 != __int_as_float(0x7fffffff);
// CHECK: const float t5 = t4 ? t3 : (-0.5f);
func.func @broadcast(%a: tensor<2x3x1xf32>, %b: tensor<1x1x5xf32>, %s: tensor<f32>) -> tensor<2x3x5xf32> {
  %0 = tg.add %a, %b : tensor<2x3x1xf32>, tensor<1x1x5xf32>
  %ninf = tg.constant dense<0xFF800000> : tensor<f32>
  %1 = tg.max %0, %ninf : tensor<2x3x5xf32>, tensor<f32>
  %inf = tg.constant dense<0x7F800000> : tensor<1x1x1xf32>
  %2 = tg.min %1, %inf : tensor<2x3x5xf32>, tensor<1x1x1xf32>
  %3 = tg.mul %2, %s : tensor<2x3x5xf32>, tensor<f32>
  %nan = tg.constant dense<0x7FC00000> : tensor<f32>
  %4 = tg.cmp ne, %3, %nan : tensor<2x3x5xf32>, tensor<f32>
  %half = tg.constant dense<-0.5> : tensor<f32>
  %5 = tg.select %4, %3, %half : tensor<2x3x5xi1>, tensor<2x3x5xf32>, tensor<f32>
  return %5 : tensor<2x3x5xf32>
}

// Odd shapes and a size-1 leading dimension: no coordinate for size-1
// dimensions, and the outermost one needs no modulo.
// CHECK-LABEL: // ===== @odd: kernels: 1
// CHECK: i < 231LL;
// CHECK: // Coordinates of element i in [1, 7, 33]
// CHECK-NEXT: const long long c1 = (i / 33);
// CHECK-NEXT: const long long c2 = i % 33;
// CHECK: const float x0 = tg_load(in0, i); // tensor<1x7x33xf16>
// CHECK-NEXT: const float x1 = tg_load(in1, c2); // tensor<1x1x33xf16>
// CHECK-NEXT: const float x2 = tg_load(in2, c1); // tensor<1x7x1xf16>
// CHECK: const float t0 = tg_round_f16(x0 * x1);
// CHECK: const float t1 = tg_round_f16(t0 - x2);
func.func @odd(%x: tensor<1x7x33xf16>, %w: tensor<1x1x33xf16>, %b: tensor<1x7x1xf16>) -> tensor<1x7x33xf16> {
  %0 = tg.mul %x, %w : tensor<1x7x33xf16>, tensor<1x1x33xf16>
  %1 = tg.sub %0, %b : tensor<1x7x33xf16>, tensor<1x7x1xf16>
  return %1 : tensor<1x7x33xf16>
}
