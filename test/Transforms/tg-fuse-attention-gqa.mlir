// RUN: tg-opt %s --tg-fuse-attention=report=true -verify-diagnostics | FileCheck %s

// GQA as HF's repeat_kv writes it: [B,Hkv,S,D] -> [B,Hkv,1,S,D] ->
// broadcast [B,Hkv,G,S,D] -> [B,Hq,S,D]. The attention reads the kv heads
// directly (head h uses kv head h / G).
// CHECK-LABEL: func.func @gqa_repeat_kv
// CHECK-SAME: (%[[Q:[^:]*]]: tensor<1x4x16x8xbf16>, %[[K:[^:]*]]: tensor<1x2x16x8xbf16>, %[[V:[^:]*]]: tensor<1x2x16x8xbf16>)
// CHECK: tg.attention %[[Q]], %[[K]], %[[V]] {scale = 0.35355{{[0-9]*}} : f64} : tensor<1x4x16x8xbf16>, tensor<1x2x16x8xbf16>, tensor<1x2x16x8xbf16> -> tensor<1x4x16x8xbf16>
// CHECK-NOT: tg.broadcast
// CHECK-NOT: tg.reshape
func.func @gqa_repeat_kv(%q: tensor<1x4x16x8xbf16>, %k: tensor<1x2x16x8xbf16>, %v: tensor<1x2x16x8xbf16>) -> tensor<1x4x16x8xbf16> {
  %k5 = tg.reshape %k : tensor<1x2x16x8xbf16> -> tensor<1x2x1x16x8xbf16>
  %kb = tg.broadcast %k5 : tensor<1x2x1x16x8xbf16> -> tensor<1x2x2x16x8xbf16>
  %kr = tg.reshape %kb : tensor<1x2x2x16x8xbf16> -> tensor<1x4x16x8xbf16>
  %v5 = tg.reshape %v : tensor<1x2x16x8xbf16> -> tensor<1x2x1x16x8xbf16>
  %vb = tg.broadcast %v5 : tensor<1x2x1x16x8xbf16> -> tensor<1x2x2x16x8xbf16>
  %vr = tg.reshape %vb : tensor<1x2x2x16x8xbf16> -> tensor<1x4x16x8xbf16>
  %kt = tg.transpose %kr perm = [0, 1, 3, 2] : tensor<1x4x16x8xbf16> -> tensor<1x4x8x16xbf16>
  %s = tg.matmul %q, %kt : tensor<1x4x16x8xbf16>, tensor<1x4x8x16xbf16> -> tensor<1x4x16x16xf32>
  %c = tg.constant dense<0.353553385> : tensor<f32>
  %ss = tg.mul %s, %c : tensor<1x4x16x16xf32>, tensor<f32>
  %p = tg.softmax %ss axis = 3 : tensor<1x4x16x16xf32>
  %pc = tg.cast %p : tensor<1x4x16x16xf32> to tensor<1x4x16x16xbf16>
  %o = tg.matmul %pc, %vr : tensor<1x4x16x16xbf16>, tensor<1x4x16x8xbf16> -> tensor<1x4x16x8xbf16>
  return %o : tensor<1x4x16x8xbf16>
}

// The [B,Hkv,1,S,D] tensors arrive as graph arguments: the attention reads
// them as [B,Hkv,S,D], and since that reshape of a contiguous argument is a
// view, the arguments take the 4-D shape.
// CHECK-LABEL: func.func @gqa_rank5_inputs
// CHECK-SAME: (%[[Q:[^:]*]]: tensor<2x6x16x8xf32>, %[[K:[^:]*]]: tensor<2x2x16x8xf32>, %[[V:[^:]*]]: tensor<2x2x16x8xf32>)
// CHECK-NEXT: tg.attention %[[Q]], %[[K]], %[[V]]
func.func @gqa_rank5_inputs(%q: tensor<2x6x16x8xf32>, %k5: tensor<2x2x1x16x8xf32>, %v5: tensor<2x2x1x16x8xf32>) -> tensor<2x6x16x8xf32> {
  %kb = tg.broadcast %k5 : tensor<2x2x1x16x8xf32> -> tensor<2x2x3x16x8xf32>
  %kr = tg.reshape %kb : tensor<2x2x3x16x8xf32> -> tensor<2x6x16x8xf32>
  %vb = tg.broadcast %v5 : tensor<2x2x1x16x8xf32> -> tensor<2x2x3x16x8xf32>
  %vr = tg.reshape %vb : tensor<2x2x3x16x8xf32> -> tensor<2x6x16x8xf32>
  %kt = tg.transpose %kr perm = [0, 1, 3, 2] : tensor<2x6x16x8xf32> -> tensor<2x6x8x16xf32>
  %s = tg.matmul %q, %kt : tensor<2x6x16x8xf32>, tensor<2x6x8x16xf32> -> tensor<2x6x16x16xf32>
  %p = tg.softmax %s axis = 3 : tensor<2x6x16x16xf32>
  %o = tg.matmul %p, %vr : tensor<2x6x16x16xf32>, tensor<2x6x16x8xf32> -> tensor<2x6x16x8xf32>
  return %o : tensor<2x6x16x8xf32>
}

// MQA by tg.broadcast of a one-head K and V.
// CHECK-LABEL: func.func @mqa_broadcast
// CHECK: tg.attention {{.*}} : tensor<1x4x16x8xf16>, tensor<1x1x16x8xf16>, tensor<1x1x16x8xf16> -> tensor<1x4x16x8xf16>
func.func @mqa_broadcast(%q: tensor<1x4x16x8xf16>, %k: tensor<1x1x16x8xf16>, %v: tensor<1x1x16x8xf16>) -> tensor<1x4x16x8xf16> {
  %kb = tg.broadcast %k : tensor<1x1x16x8xf16> -> tensor<1x4x16x8xf16>
  %vb = tg.broadcast %v : tensor<1x1x16x8xf16> -> tensor<1x4x16x8xf16>
  %kt = tg.transpose %kb perm = [0, 1, 3, 2] : tensor<1x4x16x8xf16> -> tensor<1x4x8x16xf16>
  %s = tg.matmul %q, %kt : tensor<1x4x16x8xf16>, tensor<1x4x8x16xf16> -> tensor<1x4x16x16xf32>
  %p = tg.softmax %s axis = 3 : tensor<1x4x16x16xf32>
  %pc = tg.cast %p : tensor<1x4x16x16xf32> to tensor<1x4x16x16xf16>
  %o = tg.matmul %pc, %vb : tensor<1x4x16x16xf16>, tensor<1x4x16x8xf16> -> tensor<1x4x16x8xf16>
  return %o : tensor<1x4x16x8xf16>
}

// MQA through the matmul's own batch broadcasting (K/V with one head).
// CHECK-LABEL: func.func @mqa_matmul_broadcast
// CHECK: tg.attention {{.*}} : tensor<1x4x16x8xf32>, tensor<1x1x16x8xf32>, tensor<1x1x16x8xf32> -> tensor<1x4x16x8xf32>
func.func @mqa_matmul_broadcast(%q: tensor<1x4x16x8xf32>, %k: tensor<1x1x16x8xf32>, %v: tensor<1x1x16x8xf32>) -> tensor<1x4x16x8xf32> {
  %kt = tg.transpose %k perm = [0, 1, 3, 2] : tensor<1x1x16x8xf32> -> tensor<1x1x8x16xf32>
  %s = tg.matmul %q, %kt : tensor<1x4x16x8xf32>, tensor<1x1x8x16xf32> -> tensor<1x4x16x16xf32>
  %p = tg.softmax %s axis = 3 : tensor<1x4x16x16xf32>
  %o = tg.matmul %p, %v : tensor<1x4x16x16xf32>, tensor<1x1x16x8xf32> -> tensor<1x4x16x8xf32>
  return %o : tensor<1x4x16x8xf32>
}

// Tiling the heads (k.repeat(1, G, 1, 1)) maps head h to kv head h % Hkv,
// which is not GQA's h / G: the expanded K and V are used as they are.
// CHECK-LABEL: func.func @tiled_heads_not_gqa
// CHECK: %[[KR:.*]] = tg.reshape %{{.*}} : tensor<1x2x2x16x8xf32> -> tensor<1x4x16x8xf32>
// CHECK: %[[VR:.*]] = tg.reshape %{{.*}} : tensor<1x2x2x16x8xf32> -> tensor<1x4x16x8xf32>
// CHECK: tg.attention %{{.*}}, %[[KR]], %[[VR]] {{.*}} : tensor<1x4x16x8xf32>, tensor<1x4x16x8xf32>, tensor<1x4x16x8xf32>
func.func @tiled_heads_not_gqa(%q: tensor<1x4x16x8xf32>, %k: tensor<1x2x16x8xf32>, %v: tensor<1x2x16x8xf32>) -> tensor<1x4x16x8xf32> {
  %k5 = tg.reshape %k : tensor<1x2x16x8xf32> -> tensor<1x1x2x16x8xf32>
  %kb = tg.broadcast %k5 : tensor<1x1x2x16x8xf32> -> tensor<1x2x2x16x8xf32>
  %kr = tg.reshape %kb : tensor<1x2x2x16x8xf32> -> tensor<1x4x16x8xf32>
  %v5 = tg.reshape %v : tensor<1x2x16x8xf32> -> tensor<1x1x2x16x8xf32>
  %vb = tg.broadcast %v5 : tensor<1x1x2x16x8xf32> -> tensor<1x2x2x16x8xf32>
  %vr = tg.reshape %vb : tensor<1x2x2x16x8xf32> -> tensor<1x4x16x8xf32>
  %kt = tg.transpose %kr perm = [0, 1, 3, 2] : tensor<1x4x16x8xf32> -> tensor<1x4x8x16xf32>
  %s = tg.matmul %q, %kt : tensor<1x4x16x8xf32>, tensor<1x4x8x16xf32> -> tensor<1x4x16x16xf32>
  %c = tg.constant dense<0.353553385> : tensor<f32>
  %ss = tg.mul %s, %c : tensor<1x4x16x16xf32>, tensor<f32>
  %p = tg.softmax %ss axis = 3 : tensor<1x4x16x16xf32>
  %o = tg.matmul %p, %vr : tensor<1x4x16x16xf32>, tensor<1x4x16x8xf32> -> tensor<1x4x16x8xf32>
  return %o : tensor<1x4x16x8xf32>
}
