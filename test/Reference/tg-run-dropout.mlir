// tg.dropout: the keep bit of element i is Philox4x32-10 word i % 4 of
// counter (i / 4, 0, offset) under key seed, compared with floor(p 2^32).
// With seed = offset = 0 the words for i = 0..3 are the Random123 known
// answer for zero counter and key: 6627e8d5 e169c58d bc57ac4c 9b00dbd8.
//
// RUN: tg-run --ref %s --print-values | FileCheck %s

// p = 0.5 (threshold 2^31): drop, keep, keep, keep; kept values * 2.
// CHECK-LABEL: output half:
// CHECK-NEXT: values: [0, 2, 2, 2]
// CHECK-LABEL: output half_unscaled:
// CHECK-NEXT: values: [0, 1, 1, 1]
// p = 0.61: threshold 2619930050 > 0x9b00dbd8 = 2600524760 drops element 3;
// kept values * 1 / 0.39.
// CHECK-LABEL: output p61:
// CHECK-NEXT: values: [0, 2.5641, 2.5641, 0]
// p = 0 keeps everything unchanged.
// CHECK-LABEL: output p0:
// CHECK-NEXT: values: [1, 1, 1, 1]
func.func @dropout() -> (tensor<2x2xf32> {tg.name = "half"}, tensor<2x2xf32> {tg.name = "half_unscaled"},
                         tensor<2x2xf32> {tg.name = "p61"}, tensor<2x2xf32> {tg.name = "p0"}) {
  %x = tg.constant dense<1.0> : tensor<2x2xf32>
  %zero = tg.constant dense<0> : tensor<i64>
  %a = tg.dropout %x, %zero, %zero prob = 5.000000e-01 : tensor<2x2xf32>
  %b = tg.dropout %x, %zero, %zero prob = 5.000000e-01 unscaled : tensor<2x2xf32>
  %c = tg.dropout %x, %zero, %zero prob = 6.100000e-01 : tensor<2x2xf32>
  %d = tg.dropout %x, %zero, %zero prob = 0.000000e+00 : tensor<2x2xf32>
  return %a, %b, %c, %d : tensor<2x2xf32>, tensor<2x2xf32>, tensor<2x2xf32>, tensor<2x2xf32>
}
