// tg.softmax and its log-sum-exp stats. For x = [1, 2, 3]:
//   sum = 1 + e^-1 + e^-2 = 1.5032147, p = [e^-2, e^-1, 1] / sum
//   lse = 3 + ln(1.5032147) = 3.4076060
// A slice that is all -inf (fully masked) gives zeros and -inf stats; the
// axis can be any dimension.
//
// RUN: tg-run --ref %s --print-values | FileCheck %s

// CHECK-LABEL: output p:
// CHECK-NEXT: values: [0.0900306, 0.244728, 0.665241, 0, 0, 0]
// CHECK-LABEL: output lse:
// CHECK-NEXT: values: [3.40761, -inf]
// Along axis 0 of [[1, 5], [2, 5], [3, 5]] in bf16: the same p and uniform
// thirds, rounded to bf16 (8 significant bits): 0.0900306 -> 184 * 2^-11,
// 0.244728 -> 251 * 2^-10, 0.665241 -> 170 * 2^-8, 1/3 -> 171 * 2^-9.
// CHECK-LABEL: output p_axis0:
// CHECK-NEXT: values: [0.0898438, 0.333984, 0.245117, 0.333984, 0.664062, 0.333984]
// CHECK-LABEL: output lse_axis0:
// CHECK-NEXT: values: [3.40761, 6.09861]
func.func @softmax() -> (tensor<2x3xf32> {tg.name = "p"}, tensor<2x1xf32> {tg.name = "lse"},
                         tensor<3x2xbf16> {tg.name = "p_axis0"}, tensor<1x2xf32> {tg.name = "lse_axis0"}) {
  %x = tg.constant dense<[[1.0, 2.0, 3.0], [0xFF800000, 0xFF800000, 0xFF800000]]> : tensor<2x3xf32>
  %p, %lse = tg.softmax %x axis = 1 : tensor<2x3xf32> stats tensor<2x1xf32>
  %y = tg.constant dense<[[1.0, 5.0], [2.0, 5.0], [3.0, 5.0]]> : tensor<3x2xbf16>
  %p0, %lse0 = tg.softmax %y axis = 0 : tensor<3x2xbf16> stats tensor<1x2xf32>
  return %p, %lse, %p0, %lse0 : tensor<2x3xf32>, tensor<2x1xf32>, tensor<3x2xbf16>, tensor<1x2xf32>
}
