// RUN: tg-opt %s --tg-fuse-attention=report=true -verify-diagnostics | FileCheck %s

// Soft-capping c * tanh(s / c) becomes region math; the division by c
// directly follows the scale, so it joins the scale attribute.
// CHECK-LABEL: func.func @softcap
// CHECK: tg.attention {{.*}} {scale = 5.000000e-03 : f64} :
// CHECK-NEXT: ^bb0(%[[S:.*]]: tensor<f32>,
// CHECK-NEXT: %[[T:.*]] = tg.tanh %[[S]]
// CHECK-NEXT: %[[C:.*]] = tg.constant dense<5.000000e+01> : tensor<f32>
// CHECK-NEXT: %[[R:.*]] = tg.mul %[[T]], %[[C]]
// CHECK-NEXT: tg.yield %[[R]]
func.func @softcap(%q: tensor<1x2x16x8xf32>, %k: tensor<1x2x16x8xf32>, %v: tensor<1x2x16x8xf32>) -> tensor<1x2x16x8xf32> {
  %kt = tg.transpose %k perm = [0, 1, 3, 2] : tensor<1x2x16x8xf32> -> tensor<1x2x8x16xf32>
  %s = tg.matmul %q, %kt : tensor<1x2x16x8xf32>, tensor<1x2x8x16xf32> -> tensor<1x2x16x16xf32>
  %c = tg.constant dense<0.25> : tensor<f32>
  %ss = tg.mul %s, %c : tensor<1x2x16x16xf32>, tensor<f32>
  %cap = tg.constant dense<50.0> : tensor<f32>
  %d = tg.div %ss, %cap : tensor<1x2x16x16xf32>, tensor<f32>
  %t = tg.tanh %d : tensor<1x2x16x16xf32>
  %sc = tg.mul %t, %cap : tensor<1x2x16x16xf32>, tensor<f32>
  %p = tg.softmax %sc axis = 3 : tensor<1x2x16x16xf32>
  %o = tg.matmul %p, %v : tensor<1x2x16x16xf32>, tensor<1x2x16x8xf32> -> tensor<1x2x16x8xf32>
  return %o : tensor<1x2x16x8xf32>
}

// ALiBi: slopes [1,H,1,1] (a captured constant) times (kv - q), computed
// from the index arguments in the region, then a causal mask (lifted).
// CHECK-LABEL: func.func @alibi_causal
// CHECK: %[[SL:.*]] = tg.constant dense<[{{.*}}]> : tensor<1x4x1x1xf32>
// CHECK: tg.attention {{.*}} captures(%[[SL]] : tensor<1x4x1x1xf32>) {causal = #tg<causal top_left>, scale = 0.35355{{[0-9]*}} : f64} :
// CHECK-NEXT: ^bb0(%[[S:[^:]*]]: tensor<f32>, %{{[^:]*}}: tensor<i64>, %{{[^:]*}}: tensor<i64>, %[[QI:[^:]*]]: tensor<i64>, %[[KI:[^:]*]]: tensor<i64>, %[[SLOPE:[^:]*]]: tensor<f32>):
// CHECK: tg.sub %[[KI]], %[[QI]] : tensor<i64>, tensor<i64>
// CHECK: tg.cast {{.*}} : tensor<i64> to tensor<f32>
// CHECK: tg.mul %{{.*}}, %[[SLOPE]]
// CHECK: tg.add %[[S]]
func.func @alibi_causal(%q: tensor<1x4x16x8xbf16>, %k: tensor<1x4x16x8xbf16>, %v: tensor<1x4x16x8xbf16>) -> tensor<1x4x16x8xbf16> {
  %kt = tg.transpose %k perm = [0, 1, 3, 2] : tensor<1x4x16x8xbf16> -> tensor<1x4x8x16xbf16>
  %s = tg.matmul %q, %kt : tensor<1x4x16x8xbf16>, tensor<1x4x8x16xbf16> -> tensor<1x4x16x16xf32>
  %c = tg.constant dense<0.353553385> : tensor<f32>
  %ss = tg.mul %s, %c : tensor<1x4x16x16xf32>, tensor<f32>
  %qi = tg.gen_index axis = 2 : tensor<1x1x16x1xi64>
  %ki = tg.gen_index axis = 3 : tensor<1x1x1x16xi64>
  %dist = tg.sub %ki, %qi : tensor<1x1x1x16xi64>, tensor<1x1x16x1xi64>
  %distf = tg.cast %dist : tensor<1x1x16x16xi64> to tensor<1x1x16x16xf32>
  %slopes = tg.constant dense<[[[[0.25]], [[0.0625]], [[0.015625]], [[0.00390625]]]]> : tensor<1x4x1x1xf32>
  %alibi = tg.mul %distf, %slopes : tensor<1x1x16x16xf32>, tensor<1x4x1x1xf32>
  %sa = tg.add %ss, %alibi : tensor<1x4x16x16xf32>, tensor<1x4x16x16xf32>
  %keep = tg.cmp le, %ki, %qi : tensor<1x1x1x16xi64>, tensor<1x1x16x1xi64>
  %ninf = tg.constant dense<0xFF800000> : tensor<f32>
  %m = tg.select %keep, %sa, %ninf : tensor<1x1x16x16xi1>, tensor<1x4x16x16xf32>, tensor<f32>
  %p = tg.softmax %m axis = 3 : tensor<1x4x16x16xf32>
  %pc = tg.cast %p : tensor<1x4x16x16xf32> to tensor<1x4x16x16xbf16>
  %o = tg.matmul %pc, %v : tensor<1x4x16x16xbf16>, tensor<1x4x16x8xbf16> -> tensor<1x4x16x8xbf16>
  return %o : tensor<1x4x16x8xbf16>
}

// A bf16 relative-position bias [1,H,Sq,Skv] added to the scores: captured
// and converted to f32 inside the region.
// CHECK-LABEL: func.func @relative_bias_bf16
// CHECK-SAME: %[[BIAS:[^:]*]]: tensor<1x2x16x16xbf16>)
// CHECK: tg.attention {{.*}} captures(%[[BIAS]] : tensor<1x2x16x16xbf16>)
// CHECK: %[[B32:.*]] = tg.cast %{{.*}} : tensor<bf16> to tensor<f32>
// CHECK: tg.add %{{.*}}, %[[B32]]
func.func @relative_bias_bf16(%q: tensor<1x2x16x8xbf16>, %k: tensor<1x2x16x8xbf16>, %v: tensor<1x2x16x8xbf16>, %bias: tensor<1x2x16x16xbf16>) -> tensor<1x2x16x8xbf16> {
  %kt = tg.transpose %k perm = [0, 1, 3, 2] : tensor<1x2x16x8xbf16> -> tensor<1x2x8x16xbf16>
  // expected-remark @below {{fused with the scores in f32; the graph as written rounds them 3 time(s)}}
  %s = tg.matmul %q, %kt : tensor<1x2x16x8xbf16>, tensor<1x2x8x16xbf16> -> tensor<1x2x16x16xbf16>
  %sb = tg.add %s, %bias : tensor<1x2x16x16xbf16>, tensor<1x2x16x16xbf16>
  %p = tg.softmax %sb axis = 3 : tensor<1x2x16x16xbf16>
  %o = tg.matmul %p, %v : tensor<1x2x16x16xbf16>, tensor<1x2x16x8xbf16> -> tensor<1x2x16x8xbf16>
  return %o : tensor<1x2x16x8xbf16>
}

// Arbitrary score math that depends on the score itself (a clamp and a
// score-dependent mask) and a runtime scalar temperature (captured as
// [1,1,1,1]).
// CHECK-LABEL: func.func @custom_math
// CHECK-SAME: %[[T:[^:]*]]: tensor<f32>)
// CHECK: %[[T4:.*]] = tg.reshape %[[T]] : tensor<f32> -> tensor<1x1x1x1xf32>
// CHECK: tg.attention {{.*}} captures(%[[T4]] : tensor<1x1x1x1xf32>)
// CHECK: tg.min
// CHECK: tg.cmp gt
// CHECK: tg.select
func.func @custom_math(%q: tensor<1x2x16x8xf32>, %k: tensor<1x2x16x8xf32>, %v: tensor<1x2x16x8xf32>, %temp: tensor<f32>) -> tensor<1x2x16x8xf32> {
  %kt = tg.transpose %k perm = [0, 1, 3, 2] : tensor<1x2x16x8xf32> -> tensor<1x2x8x16xf32>
  %s = tg.matmul %q, %kt : tensor<1x2x16x8xf32>, tensor<1x2x8x16xf32> -> tensor<1x2x16x16xf32>
  %st = tg.div %s, %temp : tensor<1x2x16x16xf32>, tensor<f32>
  %hi = tg.constant dense<4.0> : tensor<f32>
  %cl = tg.min %st, %hi : tensor<1x2x16x16xf32>, tensor<f32>
  %lo = tg.constant dense<-3.0> : tensor<f32>
  %ok = tg.cmp gt, %cl, %lo : tensor<1x2x16x16xf32>, tensor<f32>
  %ninf = tg.constant dense<0xFF800000> : tensor<f32>
  %m = tg.select %ok, %cl, %ninf : tensor<1x2x16x16xi1>, tensor<1x2x16x16xf32>, tensor<f32>
  %p = tg.softmax %m axis = 3 : tensor<1x2x16x16xf32>
  %o = tg.matmul %p, %v : tensor<1x2x16x16xf32>, tensor<1x2x16x8xf32> -> tensor<1x2x16x8xf32>
  return %o : tensor<1x2x16x8xf32>
}
