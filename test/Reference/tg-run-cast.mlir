// tg.cast: floats round to nearest even (fp8 saturating, NaN stays NaN),
// floats to integers truncate and saturate (NaN -> 0), integers wrap, and
// anything becomes i1 as `value != 0`.
//
// RUN: tg-run --ref %s --print-values | FileCheck %s

// x = [1.5, -2.7, 300, 1e10, nan, 448, 500, -1e9]
// CHECK-LABEL: output to_i8:
// CHECK-NEXT: values: [1, -2, 127, 127, 0, 127, 127, -128]
// f8E4M3FN: -2.7 -> -2.75 (step 0.25 in [2, 4)), 300 -> 288 (step 32),
// everything beyond 448 saturates.
// CHECK-LABEL: output to_f8e4m3:
// CHECK-NEXT: values: [1.5, -2.75, 288, 448, nan, 448, 448, -448]
// f8E5M2: -2.7 -> -2.5 (step 0.5), 300 -> 320 (step 64), 1e10 -> 57344.
// CHECK-LABEL: output to_f8e5m2:
// CHECK-NEXT: values: [1.5, -2.5, 320, 57344, nan, 448, 512, -57344]
// bf16: -2.7 -> -173 * 2^-6, 1e10 -> 149 * 2^26, -1e9 -> -238 * 2^22.
// CHECK-LABEL: output to_bf16:
// CHECK-NEXT: values: [1.5, -2.70312, 300, 9.99922e+09, nan, 448, 500, -9.98244e+08]
// f16: 1e10 overflows to inf; -2.7 -> -1382 * 2^-9.
// CHECK-LABEL: output to_f16:
// CHECK-NEXT: values: [1.5, -2.69922, 300, inf, nan, 448, 500, -inf]
// CHECK-LABEL: output to_i1:
// CHECK-NEXT: values: [1, 1, 1, 1, 1, 1, 1, 1]
// CHECK-LABEL: output wrap_i8:
// CHECK-NEXT: values: [44, 127, 127, 0]
// CHECK-LABEL: output bool_to_f32:
// CHECK-NEXT: values: [0, 0, 1, 1]
// CHECK-LABEL: output i64_to_i32:
// CHECK-NEXT: values: [1, -1, -2147483648]
func.func @casts() -> (tensor<8xi8> {tg.name = "to_i8"}, tensor<8xf8E4M3FN> {tg.name = "to_f8e4m3"},
                       tensor<8xf8E5M2> {tg.name = "to_f8e5m2"}, tensor<8xbf16> {tg.name = "to_bf16"},
                       tensor<8xf16> {tg.name = "to_f16"}, tensor<8xi1> {tg.name = "to_i1"},
                       tensor<4xi8> {tg.name = "wrap_i8"}, tensor<4xf32> {tg.name = "bool_to_f32"},
                       tensor<3xi32> {tg.name = "i64_to_i32"}) {
  %x = tg.constant dense<[1.5, -2.7, 300.0, 1.0e10, 0x7FC00000, 448.0, 500.0, -1.0e9]> : tensor<8xf32>
  %i8 = tg.cast %x : tensor<8xf32> to tensor<8xi8>
  %e4 = tg.cast %x : tensor<8xf32> to tensor<8xf8E4M3FN>
  %e5 = tg.cast %x : tensor<8xf32> to tensor<8xf8E5M2>
  %bf = tg.cast %x : tensor<8xf32> to tensor<8xbf16>
  %h = tg.cast %x : tensor<8xf32> to tensor<8xf16>
  %b = tg.cast %x : tensor<8xf32> to tensor<8xi1>
  %ints = tg.constant dense<[300, -129, 127, 256]> : tensor<4xi32>
  %w = tg.cast %ints : tensor<4xi32> to tensor<4xi8>
  %z = tg.constant dense<[0.0, -0.0, 0x7FC00000, 2.0]> : tensor<4xf32>
  %zb = tg.cast %z : tensor<4xf32> to tensor<4xi1>
  %zf = tg.cast %zb : tensor<4xi1> to tensor<4xf32>
  %wide = tg.constant dense<[1, 4294967295, 2147483648]> : tensor<3xi64>
  %narrow = tg.cast %wide : tensor<3xi64> to tensor<3xi32>
  return %i8, %e4, %e5, %bf, %h, %b, %w, %zf, %narrow : tensor<8xi8>, tensor<8xf8E4M3FN>, tensor<8xf8E5M2>, tensor<8xbf16>, tensor<8xf16>, tensor<8xi1>, tensor<4xi8>, tensor<4xf32>, tensor<3xi32>
}
