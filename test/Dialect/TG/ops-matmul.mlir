// tg.matmul (mixed element types, accumulators, batch broadcasting) and every
// optional form of tg.fused_matmul.
// RUN: tg-opt %s | tg-opt | FileCheck %s
// RUN: tg-opt %s --mlir-print-op-generic | tg-opt | FileCheck %s

// CHECK-LABEL: func.func @matmuls
// CHECK-SAME: (%[[Q:.*]]: tensor<2x8x16x64xbf16>, %[[KT:.*]]: tensor<1x8x64x32xbf16>, %[[X:.*]]: tensor<16x64xi8>, %[[W:.*]]: tensor<64x32xi8>, %[[H:.*]]: tensor<64x32xf16>)
func.func @matmuls(%q: tensor<2x8x16x64xbf16>, %kt: tensor<1x8x64x32xbf16>,
                   %x: tensor<16x64xi8>, %w: tensor<64x32xi8>, %h: tensor<64x32xf16>) {
  // Batch dimensions broadcast (1 against 2).
  // CHECK: tg.matmul %[[Q]], %[[KT]] : tensor<2x8x16x64xbf16>, tensor<1x8x64x32xbf16> -> tensor<2x8x16x32xf32>
  %0 = tg.matmul %q, %kt : tensor<2x8x16x64xbf16>, tensor<1x8x64x32xbf16> -> tensor<2x8x16x32xf32>
  // CHECK: tg.matmul %[[Q]], %[[KT]] acc = f32 : tensor<2x8x16x64xbf16>, tensor<1x8x64x32xbf16> -> tensor<2x8x16x32xbf16>
  %1 = tg.matmul %q, %kt acc = f32 : tensor<2x8x16x64xbf16>, tensor<1x8x64x32xbf16> -> tensor<2x8x16x32xbf16>
  // CHECK: tg.matmul %[[X]], %[[W]] acc = i32 : tensor<16x64xi8>, tensor<64x32xi8> -> tensor<16x32xi32>
  %2 = tg.matmul %x, %w acc = i32 : tensor<16x64xi8>, tensor<64x32xi8> -> tensor<16x32xi32>
  // An i32 accumulator may round to a float result.
  // CHECK: tg.matmul %[[X]], %[[W]] : tensor<16x64xi8>, tensor<64x32xi8> -> tensor<16x32xf16>
  %3 = tg.matmul %x, %w : tensor<16x64xi8>, tensor<64x32xi8> -> tensor<16x32xf16>
  // Mixed inputs: i8 x f16 accumulates in f32.
  // CHECK: tg.matmul %[[X]], %[[H]] : tensor<16x64xi8>, tensor<64x32xf16> -> tensor<16x32xf16>
  %4 = tg.matmul %x, %h : tensor<16x64xi8>, tensor<64x32xf16> -> tensor<16x32xf16>
  return
}

// CHECK-LABEL: func.func @fused_dequant
// CHECK-SAME: (%[[X:.*]]: tensor<16x64xf16>, %[[W:.*]]: tensor<64x32xi8>, %[[SCALE:.*]]: tensor<1x32xf16>)
func.func @fused_dequant(%x: tensor<16x64xf16>, %w: tensor<64x32xi8>, %scale: tensor<1x32xf16>) -> tensor<16x32xf16> {
  // CHECK: tg.fused_matmul %[[X]], %[[W]] b_captures(%[[SCALE]] : tensor<1x32xf16>) : tensor<16x64xf16>, tensor<64x32xi8> -> tensor<16x32xf16> prologue_a {
  // CHECK-NEXT: } prologue_b {
  // CHECK-NEXT: ^bb0(%[[E:.*]]: tensor<i8>, %[[S:.*]]: tensor<f16>):
  // CHECK-NEXT: %[[C:.*]] = tg.cast %[[E]] : tensor<i8> to tensor<f16>
  // CHECK-NEXT: %[[D:.*]] = tg.mul %[[C]], %[[S]] : tensor<f16>, tensor<f16>
  // CHECK-NEXT: tg.yield %[[D]] : tensor<f16>
  // CHECK-NEXT: } epilogue {
  // CHECK-NEXT: }
  %y = tg.fused_matmul %x, %w b_captures(%scale : tensor<1x32xf16>)
      : tensor<16x64xf16>, tensor<64x32xi8> -> tensor<16x32xf16>
    prologue_a {}
    prologue_b {
    ^bb0(%e: tensor<i8>, %s: tensor<f16>):
      %h = tg.cast %e : tensor<i8> to tensor<f16>
      %d = tg.mul %h, %s : tensor<f16>, tensor<f16>
      tg.yield %d : tensor<f16>
    }
    epilogue {}
  return %y : tensor<16x32xf16>
}

// Every capture list, an explicit accumulator and all three regions.
// CHECK-LABEL: func.func @fused_all_regions
// CHECK-SAME: (%[[A:.*]]: tensor<2x16x64xi8>, %[[B:.*]]: tensor<2x64x32xi8>, %[[SA:.*]]: tensor<f32>, %[[SB:.*]]: tensor<2x1x32xf32>, %[[BIAS:.*]]: tensor<1x1x32xf32>)
func.func @fused_all_regions(%a: tensor<2x16x64xi8>, %b: tensor<2x64x32xi8>, %sa: tensor<f32>,
                             %sb: tensor<2x1x32xf32>, %bias: tensor<1x1x32xf32>) -> tensor<2x16x32xbf16> {
  // CHECK: tg.fused_matmul %[[A]], %[[B]] a_captures(%[[SA]] : tensor<f32>) b_captures(%[[SB]] : tensor<2x1x32xf32>) epilogue_captures(%[[BIAS]] : tensor<1x1x32xf32>) acc = f32 : tensor<2x16x64xi8>, tensor<2x64x32xi8> -> tensor<2x16x32xbf16> prologue_a {
  // CHECK: tg.yield %{{.*}} : tensor<f32>
  // CHECK-NEXT: } prologue_b {
  // CHECK: tg.yield %{{.*}} : tensor<f32>
  // CHECK-NEXT: } epilogue {
  // CHECK-NEXT: ^bb0(%[[ACC:.*]]: tensor<f32>, %[[BE:.*]]: tensor<f32>):
  // CHECK-NEXT: %[[SUM:.*]] = tg.add %[[ACC]], %[[BE]] : tensor<f32>, tensor<f32>
  // CHECK-NEXT: %[[ACT:.*]] = tg.sigmoid %[[SUM]] : tensor<f32>
  // CHECK-NEXT: %[[OUT:.*]] = tg.cast %[[ACT]] : tensor<f32> to tensor<bf16>
  // CHECK-NEXT: tg.yield %[[OUT]] : tensor<bf16>
  %y = tg.fused_matmul %a, %b a_captures(%sa : tensor<f32>) b_captures(%sb : tensor<2x1x32xf32>)
      epilogue_captures(%bias : tensor<1x1x32xf32>) acc = f32
      : tensor<2x16x64xi8>, tensor<2x64x32xi8> -> tensor<2x16x32xbf16>
    prologue_a {
    ^bb0(%e: tensor<i8>, %s: tensor<f32>):
      %f = tg.cast %e : tensor<i8> to tensor<f32>
      %d = tg.mul %f, %s : tensor<f32>, tensor<f32>
      tg.yield %d : tensor<f32>
    }
    prologue_b {
    ^bb0(%e: tensor<i8>, %s: tensor<f32>):
      %f = tg.cast %e : tensor<i8> to tensor<f32>
      %d = tg.mul %f, %s : tensor<f32>, tensor<f32>
      tg.yield %d : tensor<f32>
    }
    epilogue {
    ^bb0(%acc: tensor<f32>, %be: tensor<f32>):
      %sum = tg.add %acc, %be : tensor<f32>, tensor<f32>
      %act = tg.sigmoid %sum : tensor<f32>
      %out = tg.cast %act : tensor<f32> to tensor<bf16>
      tg.yield %out : tensor<bf16>
    }
  return %y : tensor<2x16x32xbf16>
}

// An epilogue that quantises an f32 accumulator to an integer result.
// CHECK-LABEL: func.func @fused_quantise
// CHECK: tg.fused_matmul {{.*}} -> tensor<4x4xi8> prologue_a {
// CHECK: } epilogue {
// CHECK: tg.cast %{{.*}} : tensor<f32> to tensor<i8>
func.func @fused_quantise(%a: tensor<4x8xf16>, %b: tensor<8x4xf16>) -> tensor<4x4xi8> {
  %y = tg.fused_matmul %a, %b : tensor<4x8xf16>, tensor<8x4xf16> -> tensor<4x4xi8>
    prologue_a {} prologue_b {}
    epilogue {
    ^bb0(%acc: tensor<f32>):
      %q = tg.cast %acc : tensor<f32> to tensor<i8>
      tg.yield %q : tensor<i8>
    }
  return %y : tensor<4x4xi8>
}
