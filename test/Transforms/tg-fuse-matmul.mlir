// RUN: tg-opt %s --tg-fuse-matmul=report=true -verify-diagnostics | FileCheck %s

// int8 weights dequantised by a cast and a per-column scale: prologue_b.
// CHECK-LABEL: func.func @int8_weight_dequant
// CHECK-SAME: (%[[X:[^:]*]]: tensor<16x64xf16>, %[[W:[^:]*]]: tensor<64x32xi8>, %[[SC:[^:]*]]: tensor<1x32xf16>)
// CHECK: %[[Y:.*]] = tg.fused_matmul %[[X]], %[[W]] b_captures(%[[SC]] : tensor<1x32xf16>) : tensor<16x64xf16>, tensor<64x32xi8> -> tensor<16x32xf32> prologue_a {
// CHECK-NEXT: } prologue_b {
// CHECK-NEXT: ^bb0(%[[E:.*]]: tensor<i8>, %[[S:.*]]: tensor<f16>):
// CHECK-NEXT: %[[H:.*]] = tg.cast %[[E]] : tensor<i8> to tensor<f16>
// CHECK-NEXT: %[[D:.*]] = tg.mul %[[H]], %[[S]] : tensor<f16>, tensor<f16>
// CHECK-NEXT: tg.yield %[[D]] : tensor<f16>
// CHECK-NEXT: } epilogue {
// CHECK-NEXT: }
// CHECK-NOT: tg.matmul
// CHECK: return %[[Y]]
func.func @int8_weight_dequant(%x: tensor<16x64xf16>, %w: tensor<64x32xi8>, %scale: tensor<1x32xf16>) -> tensor<16x32xf32> {
  %wf = tg.cast %w : tensor<64x32xi8> to tensor<64x32xf16>
  %ws = tg.mul %wf, %scale : tensor<64x32xf16>, tensor<1x32xf16>
  %y = tg.matmul %x, %ws : tensor<16x64xf16>, tensor<64x32xf16> -> tensor<16x32xf32>
  return %y : tensor<16x32xf32>
}

// fp8 activations upcast to bf16 and scaled by a splat constant (inlined).
// CHECK-LABEL: func.func @fp8_activation_prologue
// CHECK: tg.fused_matmul %{{.*}}, %{{.*}} : tensor<8x32xf8E4M3FN>, tensor<32x16xbf16> -> tensor<8x16xbf16> prologue_a {
// CHECK-NEXT: ^bb0(%[[E:.*]]: tensor<f8E4M3FN>):
// CHECK-NEXT: %[[B:.*]] = tg.cast %[[E]] : tensor<f8E4M3FN> to tensor<bf16>
// CHECK-NEXT: %[[C:.*]] = tg.constant dense<5.000000e-01> : tensor<bf16>
// CHECK-NEXT: %[[M:.*]] = tg.mul %[[C]], %[[B]]
// CHECK-NEXT: tg.yield %[[M]]
// CHECK-NEXT: } prologue_b {
// CHECK-NEXT: } epilogue {
func.func @fp8_activation_prologue(%x: tensor<8x32xf8E4M3FN>, %w: tensor<32x16xbf16>) -> tensor<8x16xbf16> {
  %xb = tg.cast %x : tensor<8x32xf8E4M3FN> to tensor<8x32xbf16>
  %c = tg.constant dense<0.5> : tensor<bf16>
  %xs = tg.mul %c, %xb : tensor<bf16>, tensor<8x32xbf16>
  %y = tg.matmul %xs, %w : tensor<8x32xbf16>, tensor<32x16xbf16> -> tensor<8x16xbf16>
  return %y : tensor<8x16xbf16>
}

// Bias add and ReLU epilogue on an f32 result.
// CHECK-LABEL: func.func @bias_relu
// CHECK-SAME: %[[BIAS:[^:]*]]: tensor<1x32xf32>)
// CHECK: %[[Y:.*]] = tg.fused_matmul %{{.*}}, %{{.*}} epilogue_captures(%[[BIAS]] : tensor<1x32xf32>) : tensor<16x64xbf16>, tensor<64x32xbf16> -> tensor<16x32xf32>
// CHECK: } epilogue {
// CHECK-NEXT: ^bb0(%[[ACC:.*]]: tensor<f32>, %[[B:.*]]: tensor<f32>):
// CHECK-NEXT: %[[A:.*]] = tg.add %[[ACC]], %[[B]]
// CHECK-NEXT: %[[Z:.*]] = tg.constant dense<0.000000e+00> : tensor<f32>
// CHECK-NEXT: %[[R:.*]] = tg.max %[[A]], %[[Z]]
// CHECK-NEXT: tg.yield %[[R]] : tensor<f32>
// CHECK: return %[[Y]]
func.func @bias_relu(%x: tensor<16x64xbf16>, %w: tensor<64x32xbf16>, %bias: tensor<1x32xf32>) -> tensor<16x32xf32> {
  %y = tg.matmul %x, %w : tensor<16x64xbf16>, tensor<64x32xbf16> -> tensor<16x32xf32>
  %yb = tg.add %y, %bias : tensor<16x32xf32>, tensor<1x32xf32>
  %zero = tg.constant dense<0.0> : tensor<f32>
  %r = tg.max %yb, %zero : tensor<16x32xf32>, tensor<f32>
  return %r : tensor<16x32xf32>
}

// A sigmoid-GELU diamond (y * sigmoid(1.702 y)) then a cast to bf16; the
// bf16 matmul result is re-rounded first inside the epilogue.
// CHECK-LABEL: func.func @gelu_diamond_cast
// CHECK: tg.fused_matmul {{.*}} : tensor<16x64xbf16>, tensor<64x32xbf16> -> tensor<16x32xbf16>
// CHECK: } epilogue {
// CHECK-NEXT: ^bb0(%[[ACC:.*]]: tensor<f32>):
// CHECK-NEXT: %[[Y:.*]] = tg.cast %[[ACC]] : tensor<f32> to tensor<bf16>
// CHECK-NEXT: %[[Y32:.*]] = tg.cast %[[Y]] : tensor<bf16> to tensor<f32>
// CHECK: tg.sigmoid
// CHECK: tg.mul %[[Y32]]
// CHECK: tg.yield %{{.*}} : tensor<bf16>
func.func @gelu_diamond_cast(%x: tensor<16x64xbf16>, %w: tensor<64x32xbf16>) -> tensor<16x32xbf16> {
  %y = tg.matmul %x, %w : tensor<16x64xbf16>, tensor<64x32xbf16> -> tensor<16x32xbf16>
  %y32 = tg.cast %y : tensor<16x32xbf16> to tensor<16x32xf32>
  %k = tg.constant dense<1.702> : tensor<f32>
  %a = tg.mul %y32, %k : tensor<16x32xf32>, tensor<f32>
  %s = tg.sigmoid %a : tensor<16x32xf32>
  %g = tg.mul %y32, %s : tensor<16x32xf32>, tensor<16x32xf32>
  %o = tg.cast %g : tensor<16x32xf32> to tensor<16x32xbf16>
  return %o : tensor<16x32xbf16>
}

// Prologues on both operands and an epilogue, batched.
// CHECK-LABEL: func.func @both_prologues_and_epilogue
// CHECK: tg.fused_matmul {{.*}} a_captures({{.*}}) b_captures({{.*}}) epilogue_captures({{.*}})
// CHECK-NOT: tg.matmul
func.func @both_prologues_and_epilogue(%x: tensor<2x8x32xi8>, %xs: tensor<2x8x1xf16>, %w: tensor<2x32x16xi8>, %ws: tensor<2x1x16xf16>, %bias: tensor<1x1x16xf32>) -> tensor<2x8x16xf32> {
  %xf = tg.cast %x : tensor<2x8x32xi8> to tensor<2x8x32xf16>
  %xd = tg.mul %xf, %xs : tensor<2x8x32xf16>, tensor<2x8x1xf16>
  %wf = tg.cast %w : tensor<2x32x16xi8> to tensor<2x32x16xf16>
  %wd = tg.mul %wf, %ws : tensor<2x32x16xf16>, tensor<2x1x16xf16>
  %y = tg.matmul %xd, %wd : tensor<2x8x32xf16>, tensor<2x32x16xf16> -> tensor<2x8x16xf32>
  %yb = tg.add %y, %bias : tensor<2x8x16xf32>, tensor<1x1x16xf32>
  return %yb : tensor<2x8x16xf32>
}

// The dequantised weight is also returned: the prologue is not fused (it
// would be computed twice), the epilogue still is.
// CHECK-LABEL: func.func @prologue_value_shared
// CHECK: %[[WF:.*]] = tg.cast
// CHECK: tg.fused_matmul %{{.*}}, %[[WF]] : {{.*}} prologue_a {
// CHECK-NEXT: } prologue_b {
// CHECK-NEXT: } epilogue {
// CHECK-NEXT: ^bb0
func.func @prologue_value_shared(%x: tensor<16x64xf16>, %w: tensor<64x32xi8>) -> (tensor<16x32xf32>, tensor<64x32xf16>) {
  // expected-remark @below {{not fused into a matmul prologue: its value has users other than the matmul chain}}
  %wf = tg.cast %w : tensor<64x32xi8> to tensor<64x32xf16>
  %y = tg.matmul %x, %wf : tensor<16x64xf16>, tensor<64x32xf16> -> tensor<16x32xf32>
  %c = tg.constant dense<2.0> : tensor<f32>
  %y2 = tg.mul %y, %c : tensor<16x32xf32>, tensor<f32>
  return %y2, %wf : tensor<16x32xf32>, tensor<64x32xf16>
}

// An epilogue value that is also returned ends the epilogue before it.
// CHECK-LABEL: func.func @epilogue_value_shared
// CHECK: %[[Y:.*]] = tg.fused_matmul
// CHECK: epilogue {
// CHECK: tg.add
// CHECK-NOT: tg.sigmoid
// CHECK: }
// CHECK: %[[S:.*]] = tg.sigmoid %[[Y]]
// CHECK: return %[[S]], %[[Y]]
func.func @epilogue_value_shared(%x: tensor<16x64xf32>, %w: tensor<64x32xf32>, %bias: tensor<1x32xf32>) -> (tensor<16x32xf32>, tensor<16x32xf32>) {
  %y = tg.matmul %x, %w : tensor<16x64xf32>, tensor<64x32xf32> -> tensor<16x32xf32>
  %yb = tg.add %y, %bias : tensor<16x32xf32>, tensor<1x32xf32>
  %s = tg.sigmoid %yb : tensor<16x32xf32>
  return %s, %yb : tensor<16x32xf32>, tensor<16x32xf32>
}

// Nothing to fuse: the matmul stays.
// CHECK-LABEL: func.func @plain_matmul
// CHECK: tg.matmul
// CHECK-NOT: tg.fused_matmul
func.func @plain_matmul(%x: tensor<16x64xf32>, %w: tensor<64x32xf32>) -> tensor<16x32xf32> {
  %y = tg.matmul %x, %w : tensor<16x64xf32>, tensor<64x32xf32> -> tensor<16x32xf32>
  return %y : tensor<16x32xf32>
}
