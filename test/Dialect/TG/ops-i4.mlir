// i4 weights: a graph input that tg.cast, tg.matmul and tg.fused_matmul
// (and its prologue) read.
// RUN: tg-opt %s | tg-opt | FileCheck %s

// CHECK-LABEL: func.func @dequantise
// CHECK: tg.cast %{{.*}} : tensor<64x32xi4> to tensor<64x32xbf16>
func.func @dequantise(%w: tensor<64x32xi4>) -> tensor<64x32xbf16> {
  %h = tg.cast %w : tensor<64x32xi4> to tensor<64x32xbf16>
  return %h : tensor<64x32xbf16>
}

// CHECK-LABEL: func.func @mixed
// CHECK: tg.matmul %{{.*}}, %{{.*}} : tensor<16x64xbf16>, tensor<64x32xi4> -> tensor<16x32xbf16>
func.func @mixed(%x: tensor<16x64xbf16>, %w: tensor<64x32xi4>) -> tensor<16x32xbf16> {
  %y = tg.matmul %x, %w : tensor<16x64xbf16>, tensor<64x32xi4> -> tensor<16x32xbf16>
  return %y : tensor<16x32xbf16>
}

// CHECK-LABEL: func.func @scaled
// CHECK: ^bb0(%{{.*}}: tensor<i4>, %{{.*}}: tensor<bf16>):
func.func @scaled(%x: tensor<16x64xbf16>, %w: tensor<64x32xi4>, %s: tensor<1x32xbf16>) -> tensor<16x32xbf16> {
  %y = tg.fused_matmul %x, %w b_captures(%s : tensor<1x32xbf16>)
      : tensor<16x64xbf16>, tensor<64x32xi4> -> tensor<16x32xbf16>
    prologue_a {}
    prologue_b {
    ^bb0(%e: tensor<i4>, %c: tensor<bf16>):
      %h = tg.cast %e : tensor<i4> to tensor<bf16>
      %d = tg.mul %h, %c : tensor<bf16>, tensor<bf16>
      tg.yield %d : tensor<bf16>
    }
    epilogue {}
  return %y : tensor<16x32xbf16>
}
