// RUN: tg-opt %s --tg-fuse-attention=report=true -verify-diagnostics | FileCheck %s

// Dropout on the probabilities: the attribute plus the seed and offset
// operands (same Philox mapping over [B,Hq,Sq,Skv]).
// CHECK-LABEL: func.func @dropout_after_softmax
// CHECK-SAME: %[[SEED:[^:]*]]: tensor<i64>, %[[OFF:[^:]*]]: tensor<i64>)
// CHECK: tg.attention %{{.*}}, %{{.*}}, %{{.*}} seed(%[[SEED]]) offset(%[[OFF]]) {dropout = 1.000000e-01 : f64, scale = 0.35355{{[0-9]*}} : f64} :
// CHECK-NOT: tg.dropout
func.func @dropout_after_softmax(%q: tensor<1x2x16x8xbf16>, %k: tensor<1x2x16x8xbf16>, %v: tensor<1x2x16x8xbf16>, %seed: tensor<i64>, %offset: tensor<i64>) -> tensor<1x2x16x8xbf16> {
  %kt = tg.transpose %k perm = [0, 1, 3, 2] : tensor<1x2x16x8xbf16> -> tensor<1x2x8x16xbf16>
  %s = tg.matmul %q, %kt : tensor<1x2x16x8xbf16>, tensor<1x2x8x16xbf16> -> tensor<1x2x16x16xf32>
  %c = tg.constant dense<0.353553385> : tensor<f32>
  %ss = tg.mul %s, %c : tensor<1x2x16x16xf32>, tensor<f32>
  %p = tg.softmax %ss axis = 3 : tensor<1x2x16x16xf32>
  %pd = tg.dropout %p, %seed, %offset prob = 1.000000e-01 : tensor<1x2x16x16xf32>
  %pc = tg.cast %pd : tensor<1x2x16x16xf32> to tensor<1x2x16x16xbf16>
  %o = tg.matmul %pc, %v : tensor<1x2x16x16xbf16>, tensor<1x2x16x8xbf16> -> tensor<1x2x16x8xbf16>
  return %o : tensor<1x2x16x8xbf16>
}

// Unscaled dropout in bf16 followed by the explicit 1/(1-p) rescale.
// CHECK-LABEL: func.func @dropout_unscaled_rescale
// CHECK: tg.attention {{.*}} {dropout = 2.500000e-01 : f64} :
// CHECK-NOT: tg.mul
func.func @dropout_unscaled_rescale(%q: tensor<1x2x16x8xbf16>, %k: tensor<1x2x16x8xbf16>, %v: tensor<1x2x16x8xbf16>, %seed: tensor<i64>, %offset: tensor<i64>) -> tensor<1x2x16x8xbf16> {
  %kt = tg.transpose %k perm = [0, 1, 3, 2] : tensor<1x2x16x8xbf16> -> tensor<1x2x8x16xbf16>
  // expected-remark @below {{fused with the scores in f32; the graph as written rounds them 3 time(s)}}
  %s = tg.matmul %q, %kt : tensor<1x2x16x8xbf16>, tensor<1x2x8x16xbf16> -> tensor<1x2x16x16xf32>
  %p = tg.softmax %s axis = 3 : tensor<1x2x16x16xf32>
  %pc = tg.cast %p : tensor<1x2x16x16xf32> to tensor<1x2x16x16xbf16>
  %pd = tg.dropout %pc, %seed, %offset prob = 2.500000e-01 unscaled : tensor<1x2x16x16xbf16>
  %r = tg.constant dense<1.33333337> : tensor<bf16>
  %pr = tg.mul %pd, %r : tensor<1x2x16x16xbf16>, tensor<bf16>
  %o = tg.matmul %pr, %v : tensor<1x2x16x16xbf16>, tensor<1x2x16x8xbf16> -> tensor<1x2x16x8xbf16>
  return %o : tensor<1x2x16x8xbf16>
}

// Dropout before the normalisation: dropout(exp(z - m)) / sum(exp(z - m))
// equals dropout(softmax(z)) element by element (same index, same mask).
// CHECK-LABEL: func.func @dropout_before_normalisation
// CHECK: tg.attention {{.*}} seed(%{{.*}}) offset(%{{.*}}) {dropout = 5.000000e-01 : f64} :
// CHECK-NOT: tg.exp
func.func @dropout_before_normalisation(%q: tensor<1x2x16x8xf32>, %k: tensor<1x2x16x8xf32>, %v: tensor<1x2x16x8xf32>, %seed: tensor<i64>, %offset: tensor<i64>) -> tensor<1x2x16x8xf32> {
  %kt = tg.transpose %k perm = [0, 1, 3, 2] : tensor<1x2x16x8xf32> -> tensor<1x2x8x16xf32>
  %s = tg.matmul %q, %kt : tensor<1x2x16x8xf32>, tensor<1x2x8x16xf32> -> tensor<1x2x16x16xf32>
  %m = tg.reduce max %s dims = [3] keepdim : tensor<1x2x16x16xf32> -> tensor<1x2x16x1xf32>
  %sh = tg.sub %s, %m : tensor<1x2x16x16xf32>, tensor<1x2x16x1xf32>
  %e = tg.exp %sh : tensor<1x2x16x16xf32>
  %sum = tg.reduce sum %e dims = [3] keepdim : tensor<1x2x16x16xf32> -> tensor<1x2x16x1xf32>
  %ed = tg.dropout %e, %seed, %offset prob = 5.000000e-01 : tensor<1x2x16x16xf32>
  %p = tg.div %ed, %sum : tensor<1x2x16x16xf32>, tensor<1x2x16x1xf32>
  %o = tg.matmul %p, %v : tensor<1x2x16x16xf32>, tensor<1x2x16x8xf32> -> tensor<1x2x16x8xf32>
  return %o : tensor<1x2x16x8xf32>
}
