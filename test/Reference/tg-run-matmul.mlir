// tg.matmul and tg.fused_matmul: products accumulate exactly, round once to
// the accumulator (f32, or i32 for integer operands), then convert to the
// result type.
//
// RUN: tg-run --ref %s --entry=matmul --print-values | FileCheck %s
// RUN: tg-run --ref %s --entry=fused --print-values | FileCheck %s --check-prefix=FUSED

// Rows of ones times columns [1, 2^-8] and [1, 3 * 2^-8]: sums 1 + 2^-8
// (a bf16 tie between 1 and 1 + 2^-7: to even, 1) and 1 + 3 * 2^-8 (a tie
// between 1 + 2^-7 and 1 + 2^-6: to even, 1.015625).
// CHECK-LABEL: output bf16_result:
// CHECK-NEXT: values: [1, 1.01562, 1, 1.01562]
// CHECK-LABEL: output f32_result:
// CHECK-NEXT: values: [1.00391, 1.01172, 1.00391, 1.01172]
// i8 x f16: [[1, -2], [3, 4]] . [[0.5, 1], [0.25, -1]].
// CHECK-LABEL: output mixed:
// CHECK-NEXT: values: [0, 3, 2.5, -1]
// i8 x i8 in i32: 127 * 127 * 2 = 32258; as i8 that wraps to 2.
// CHECK-LABEL: output int_i32:
// CHECK-NEXT: values: [32258]
// CHECK-LABEL: output int_i8:
// CHECK-NEXT: values: [2]
// Batch dimensions broadcast: [2, 1, 2] x [1, 2, 1].
// CHECK-LABEL: output batched:
// CHECK-SAME: shape [2, 1, 1]
// CHECK-NEXT: values: [210, 430]
func.func @matmul() -> (tensor<2x2xbf16> {tg.name = "bf16_result"}, tensor<2x2xf32> {tg.name = "f32_result"},
                        tensor<2x2xf32> {tg.name = "mixed"}, tensor<1x1xi32> {tg.name = "int_i32"},
                        tensor<1x1xi8> {tg.name = "int_i8"}, tensor<2x1x1xf32> {tg.name = "batched"}) {
  %ones = tg.constant dense<1.0> : tensor<2x2xf32>
  %b = tg.constant dense<[[1.0, 1.0], [0.00390625, 0.01171875]]> : tensor<2x2xf32>
  %r16 = tg.matmul %ones, %b : tensor<2x2xf32>, tensor<2x2xf32> -> tensor<2x2xbf16>
  %r32 = tg.matmul %ones, %b : tensor<2x2xf32>, tensor<2x2xf32> -> tensor<2x2xf32>
  %ai = tg.constant dense<[[1, -2], [3, 4]]> : tensor<2x2xi8>
  %bh = tg.constant dense<[[0.5, 1.0], [0.25, -1.0]]> : tensor<2x2xf16>
  %mixed = tg.matmul %ai, %bh : tensor<2x2xi8>, tensor<2x2xf16> -> tensor<2x2xf32>
  %row = tg.constant dense<127> : tensor<1x2xi8>
  %col = tg.constant dense<127> : tensor<2x1xi8>
  %i32 = tg.matmul %row, %col : tensor<1x2xi8>, tensor<2x1xi8> -> tensor<1x1xi32>
  %i8 = tg.matmul %row, %col : tensor<1x2xi8>, tensor<2x1xi8> -> tensor<1x1xi8>
  %ba = tg.constant dense<[[[1.0, 2.0]], [[3.0, 4.0]]]> : tensor<2x1x2xf32>
  %bb = tg.constant dense<[[[10.0], [100.0]]]> : tensor<1x2x1xf32>
  %batched = tg.matmul %ba, %bb : tensor<2x1x2xf32>, tensor<1x2x1xf32> -> tensor<2x1x1xf32>
  return %r16, %r32, %mixed, %i32, %i8, %batched : tensor<2x2xbf16>, tensor<2x2xf32>, tensor<2x2xf32>, tensor<1x1xi32>, tensor<1x1xi8>, tensor<2x1x1xf32>
}

// b' = cast(b) * [0.5, 2] (per column) = [[0.5, 4], [1.5, 8]];
// a . b' = [[3.5, 20], [7.5, 44]]; the epilogue adds [-10, -30] per column.
// FUSED-LABEL: output y:
// FUSED-NEXT: values: [-6.5, -10, -2.5, 14]
// With empty regions the op is a plain matmul.
// FUSED-LABEL: output plain:
// FUSED-NEXT: values: [7, 10, 15, 22]
func.func @fused() -> (tensor<2x2xf16> {tg.name = "y"}, tensor<2x2xf32> {tg.name = "plain"}) {
  %a = tg.constant dense<[[1.0, 2.0], [3.0, 4.0]]> : tensor<2x2xf16>
  %b = tg.constant dense<[[1, 2], [3, 4]]> : tensor<2x2xi8>
  %scale = tg.constant dense<[[0.5, 2.0]]> : tensor<1x2xf16>
  %bias = tg.constant dense<[[-10.0, -30.0]]> : tensor<1x2xf32>
  %y = tg.fused_matmul %a, %b b_captures(%scale : tensor<1x2xf16>) epilogue_captures(%bias : tensor<1x2xf32>)
      : tensor<2x2xf16>, tensor<2x2xi8> -> tensor<2x2xf16>
    prologue_a {}
    prologue_b {
    ^bb0(%e: tensor<i8>, %s: tensor<f16>):
      %h = tg.cast %e : tensor<i8> to tensor<f16>
      %d = tg.mul %h, %s : tensor<f16>, tensor<f16>
      tg.yield %d : tensor<f16>
    }
    epilogue {
    ^bb0(%acc: tensor<f32>, %bi: tensor<f32>):
      %sum = tg.add %acc, %bi : tensor<f32>, tensor<f32>
      %out = tg.cast %sum : tensor<f32> to tensor<f16>
      tg.yield %out : tensor<f16>
    }
  %plain = tg.fused_matmul %a, %a : tensor<2x2xf16>, tensor<2x2xf16> -> tensor<2x2xf32>
    prologue_a {} prologue_b {} epilogue {}
  return %y, %plain : tensor<2x2xf16>, tensor<2x2xf32>
}
