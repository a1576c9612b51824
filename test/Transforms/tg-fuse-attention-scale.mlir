// RUN: tg-opt %s --tg-fuse-attention=report=true -verify-diagnostics | FileCheck %s

// Scale as a multiply of the scores (the tg-decompose-sdpa form).
// CHECK-LABEL: func.func @scale_scores_mul
// CHECK-SAME: (%[[Q:[^:]*]]: tensor<1x2x16x8xbf16>, %[[K:[^:]*]]: tensor<1x2x16x8xbf16>, %[[V:[^:]*]]: tensor<1x2x16x8xbf16>)
// CHECK: %[[O:.*]] = tg.attention %[[Q]], %[[K]], %[[V]] {scale = 0.35355338454246521 : f64} :
// CHECK-NEXT: ^bb0(%[[S:[^:]*]]: tensor<f32>, %{{.*}}: tensor<i64>, %{{.*}}: tensor<i64>, %{{.*}}: tensor<i64>, %{{.*}}: tensor<i64>):
// CHECK-NEXT: tg.yield %[[S]] : tensor<f32>
// CHECK-NOT: tg.matmul
// CHECK-NOT: tg.softmax
// CHECK: return %[[O]]
func.func @scale_scores_mul(%q: tensor<1x2x16x8xbf16>, %k: tensor<1x2x16x8xbf16>, %v: tensor<1x2x16x8xbf16>) -> tensor<1x2x16x8xbf16> {
  %kt = tg.transpose %k perm = [0, 1, 3, 2] : tensor<1x2x16x8xbf16> -> tensor<1x2x8x16xbf16>
  %s = tg.matmul %q, %kt : tensor<1x2x16x8xbf16>, tensor<1x2x8x16xbf16> -> tensor<1x2x16x16xf32>
  %c = tg.constant dense<0.353553385> : tensor<f32>
  %ss = tg.mul %s, %c : tensor<1x2x16x16xf32>, tensor<f32>
  %p = tg.softmax %ss axis = 3 : tensor<1x2x16x16xf32>
  %pc = tg.cast %p : tensor<1x2x16x16xf32> to tensor<1x2x16x16xbf16>
  %o = tg.matmul %pc, %v : tensor<1x2x16x16xbf16>, tensor<1x2x16x8xbf16> -> tensor<1x2x16x8xbf16>
  return %o : tensor<1x2x16x8xbf16>
}

// Division of the scores by sqrt(d), sqrt computed from a constant.
// CHECK-LABEL: func.func @scale_scores_div_sqrt
// CHECK: tg.attention %{{.*}}, %{{.*}}, %{{.*}} {scale = 0.35355339{{[0-9]*}} : f64} :
// CHECK-NOT: tg.div
func.func @scale_scores_div_sqrt(%q: tensor<1x2x16x8xf32>, %k: tensor<1x2x16x8xf32>, %v: tensor<1x2x16x8xf32>) -> tensor<1x2x16x8xf32> {
  %kt = tg.transpose %k perm = [0, 1, 3, 2] : tensor<1x2x16x8xf32> -> tensor<1x2x8x16xf32>
  %s = tg.matmul %q, %kt : tensor<1x2x16x8xf32>, tensor<1x2x8x16xf32> -> tensor<1x2x16x16xf32>
  %d = tg.constant dense<8.0> : tensor<f32>
  %sd = tg.sqrt %d : tensor<f32>
  %ss = tg.div %s, %sd : tensor<1x2x16x16xf32>, tensor<f32>
  %p = tg.softmax %ss axis = 3 : tensor<1x2x16x16xf32>
  %o = tg.matmul %p, %v : tensor<1x2x16x16xf32>, tensor<1x2x16x8xf32> -> tensor<1x2x16x8xf32>
  return %o : tensor<1x2x16x8xf32>
}

// Scale on Q (in bf16, before the matmul).
// CHECK-LABEL: func.func @scale_on_q
// CHECK-SAME: (%[[Q:[^:]*]]: tensor<1x2x16x8xbf16>
// CHECK: tg.attention %[[Q]], %{{.*}}, %{{.*}} {scale = 0.353515625 : f64} :
// CHECK-NOT: tg.mul
func.func @scale_on_q(%q: tensor<1x2x16x8xbf16>, %k: tensor<1x2x16x8xbf16>, %v: tensor<1x2x16x8xbf16>) -> tensor<1x2x16x8xbf16> {
  %c = tg.constant dense<0.353553385> : tensor<bf16>
  %qs = tg.mul %q, %c : tensor<1x2x16x8xbf16>, tensor<bf16>
  %kt = tg.transpose %k perm = [0, 1, 3, 2] : tensor<1x2x16x8xbf16> -> tensor<1x2x8x16xbf16>
  %s = tg.matmul %qs, %kt : tensor<1x2x16x8xbf16>, tensor<1x2x8x16xbf16> -> tensor<1x2x16x16xf32>
  %p = tg.softmax %s axis = 3 : tensor<1x2x16x16xf32>
  %pc = tg.cast %p : tensor<1x2x16x16xf32> to tensor<1x2x16x16xbf16>
  %o = tg.matmul %pc, %v : tensor<1x2x16x16xbf16>, tensor<1x2x16x8xbf16> -> tensor<1x2x16x8xbf16>
  return %o : tensor<1x2x16x8xbf16>
}

// Scale on K before its transpose, as a division.
// CHECK-LABEL: func.func @scale_on_k_div
// CHECK-SAME: (%{{[^:]*}}: tensor<1x2x16x8xf16>, %[[K:[^:]*]]: tensor<1x2x16x8xf16>
// CHECK: tg.attention %{{.*}}, %[[K]], %{{.*}} {scale = 2.500000e-01 : f64} :
func.func @scale_on_k_div(%q: tensor<1x2x16x8xf16>, %k: tensor<1x2x16x8xf16>, %v: tensor<1x2x16x8xf16>) -> tensor<1x2x16x8xf16> {
  %c = tg.constant dense<4.0> : tensor<f16>
  %ks = tg.div %k, %c : tensor<1x2x16x8xf16>, tensor<f16>
  %kt = tg.transpose %ks perm = [0, 1, 3, 2] : tensor<1x2x16x8xf16> -> tensor<1x2x8x16xf16>
  %s = tg.matmul %q, %kt : tensor<1x2x16x8xf16>, tensor<1x2x8x16xf16> -> tensor<1x2x16x16xf32>
  %p = tg.softmax %s axis = 3 : tensor<1x2x16x16xf32>
  %pc = tg.cast %p : tensor<1x2x16x16xf32> to tensor<1x2x16x16xf16>
  %o = tg.matmul %pc, %v : tensor<1x2x16x16xf16>, tensor<1x2x16x8xf16> -> tensor<1x2x16x8xf16>
  return %o : tensor<1x2x16x8xf16>
}

// sqrt(sqrt(d)) on both Q and K^T (the scale split between the operands),
// each written with the constant on the left.
// CHECK-LABEL: func.func @scale_split_q_kt
// CHECK: tg.attention {{.*}} {scale = 0.35355{{[0-9]*}} : f64} :
func.func @scale_split_q_kt(%q: tensor<1x2x16x8xf32>, %k: tensor<1x2x16x8xf32>, %v: tensor<1x2x16x8xf32>) -> tensor<1x2x16x8xf32> {
  %c = tg.constant dense<0.594603557> : tensor<f32>
  %qs = tg.mul %c, %q : tensor<f32>, tensor<1x2x16x8xf32>
  %kt = tg.transpose %k perm = [0, 1, 3, 2] : tensor<1x2x16x8xf32> -> tensor<1x2x8x16xf32>
  %kts = tg.mul %c, %kt : tensor<f32>, tensor<1x2x8x16xf32>
  %s = tg.matmul %qs, %kts : tensor<1x2x16x8xf32>, tensor<1x2x8x16xf32> -> tensor<1x2x16x16xf32>
  %p = tg.softmax %s axis = 3 : tensor<1x2x16x16xf32>
  %o = tg.matmul %p, %v : tensor<1x2x16x16xf32>, tensor<1x2x16x8xf32> -> tensor<1x2x16x8xf32>
  return %o : tensor<1x2x16x8xf32>
}

// Scale after the bias: (s + bias) * c stays region math (scale = 1).
// CHECK-LABEL: func.func @scale_after_bias
// CHECK-SAME: %[[BIAS:[^:]*]]: tensor<1x2x16x16xf32>)
// CHECK: tg.attention %{{.*}}, %{{.*}}, %{{.*}} captures(%[[BIAS]] : tensor<1x2x16x16xf32>) :
// CHECK-NEXT: ^bb0(%[[S:[^:]*]]: tensor<f32>, %{{.*}}: tensor<i64>, %{{.*}}: tensor<i64>, %{{.*}}: tensor<i64>, %{{.*}}: tensor<i64>, %[[B:[^:]*]]: tensor<f32>):
// CHECK-NEXT: %[[SUM:.*]] = tg.add %[[S]], %[[B]]
// CHECK-NEXT: %[[C:.*]] = tg.constant dense<1.250000e-01> : tensor<f32>
// CHECK-NEXT: %[[R:.*]] = tg.mul %[[SUM]], %[[C]]
// CHECK-NEXT: tg.yield %[[R]]
func.func @scale_after_bias(%q: tensor<1x2x16x8xf32>, %k: tensor<1x2x16x8xf32>, %v: tensor<1x2x16x8xf32>, %bias: tensor<1x2x16x16xf32>) -> tensor<1x2x16x8xf32> {
  %kt = tg.transpose %k perm = [0, 1, 3, 2] : tensor<1x2x16x8xf32> -> tensor<1x2x8x16xf32>
  %s = tg.matmul %q, %kt : tensor<1x2x16x8xf32>, tensor<1x2x8x16xf32> -> tensor<1x2x16x16xf32>
  %sb = tg.add %s, %bias : tensor<1x2x16x16xf32>, tensor<1x2x16x16xf32>
  %c = tg.constant dense<0.125> : tensor<f32>
  %ss = tg.mul %sb, %c : tensor<1x2x16x16xf32>, tensor<f32>
  %p = tg.softmax %ss axis = 3 : tensor<1x2x16x16xf32>
  %o = tg.matmul %p, %v : tensor<1x2x16x16xf32>, tensor<1x2x16x8xf32> -> tensor<1x2x16x8xf32>
  return %o : tensor<1x2x16x8xf32>
}

// No scale at all; q, k and v are the same tensor.
// CHECK-LABEL: func.func @no_scale_self
// CHECK-SAME: (%[[X:[^:]*]]: tensor<2x2x16x8xbf16>)
// CHECK: tg.attention %[[X]], %[[X]], %[[X]] :
func.func @no_scale_self(%x: tensor<2x2x16x8xbf16>) -> tensor<2x2x16x8xbf16> {
  %kt = tg.transpose %x perm = [0, 1, 3, 2] : tensor<2x2x16x8xbf16> -> tensor<2x2x8x16xbf16>
  %s = tg.matmul %x, %kt : tensor<2x2x16x8xbf16>, tensor<2x2x8x16xbf16> -> tensor<2x2x16x16xf32>
  %p = tg.softmax %s axis = 3 : tensor<2x2x16x16xf32>
  %pc = tg.cast %p : tensor<2x2x16x16xf32> to tensor<2x2x16x16xbf16>
  %o = tg.matmul %pc, %x : tensor<2x2x16x16xbf16>, tensor<2x2x16x8xbf16> -> tensor<2x2x16x8xbf16>
  return %o : tensor<2x2x16x8xbf16>
}
