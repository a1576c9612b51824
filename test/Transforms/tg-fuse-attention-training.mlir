// RUN: tg-opt %s --tg-fuse-attention=report=true -verify-diagnostics | FileCheck %s

// tg.softmax with stats whose log-sum-exp is returned: training mode.
// CHECK-LABEL: func.func @softmax_stats
// CHECK: %[[O:.*]], %[[LSE:.*]] = tg.attention {{.*}} {causal = #tg<causal top_left>, scale = 0.35355{{[0-9]*}} : f64, training} : {{.*}} -> tensor<1x2x16x8xbf16>, tensor<1x2x16x1xf32>
// CHECK: return %[[O]], %[[LSE]]
func.func @softmax_stats(%q: tensor<1x2x16x8xbf16>, %k: tensor<1x2x16x8xbf16>, %v: tensor<1x2x16x8xbf16>) -> (tensor<1x2x16x8xbf16>, tensor<1x2x16x1xf32>) {
  %kt = tg.transpose %k perm = [0, 1, 3, 2] : tensor<1x2x16x8xbf16> -> tensor<1x2x8x16xbf16>
  %s = tg.matmul %q, %kt : tensor<1x2x16x8xbf16>, tensor<1x2x8x16xbf16> -> tensor<1x2x16x16xf32>
  %c = tg.constant dense<0.353553385> : tensor<f32>
  %ss = tg.mul %s, %c : tensor<1x2x16x16xf32>, tensor<f32>
  %qi = tg.gen_index axis = 2 : tensor<1x1x16x1xi64>
  %ki = tg.gen_index axis = 3 : tensor<1x1x1x16xi64>
  %keep = tg.cmp le, %ki, %qi : tensor<1x1x1x16xi64>, tensor<1x1x16x1xi64>
  %ninf = tg.constant dense<0xFF800000> : tensor<f32>
  %m = tg.select %keep, %ss, %ninf : tensor<1x1x16x16xi1>, tensor<1x2x16x16xf32>, tensor<f32>
  %p, %lse = tg.softmax %m axis = 3 : tensor<1x2x16x16xf32> stats tensor<1x2x16x1xf32>
  %pc = tg.cast %p : tensor<1x2x16x16xf32> to tensor<1x2x16x16xbf16>
  %o = tg.matmul %pc, %v : tensor<1x2x16x16xbf16>, tensor<1x2x16x8xbf16> -> tensor<1x2x16x8xbf16>
  return %o, %lse : tensor<1x2x16x8xbf16>, tensor<1x2x16x1xf32>
}

// The stats as tg-decompose-softmax computes them: log(sum) + guarded max.
// CHECK-LABEL: func.func @decomposed_lse
// CHECK: %[[O:.*]], %[[LSE:.*]] = tg.attention {{.*}} {training} :
// CHECK-NOT: tg.log
// CHECK: return %[[O]], %[[LSE]]
func.func @decomposed_lse(%q: tensor<1x2x16x8xf32>, %k: tensor<1x2x16x8xf32>, %v: tensor<1x2x16x8xf32>) -> (tensor<1x2x16x8xf32>, tensor<1x2x16x1xf32>) {
  %kt = tg.transpose %k perm = [0, 1, 3, 2] : tensor<1x2x16x8xf32> -> tensor<1x2x8x16xf32>
  %z = tg.matmul %q, %kt : tensor<1x2x16x8xf32>, tensor<1x2x8x16xf32> -> tensor<1x2x16x16xf32>
  %m = tg.reduce max %z dims = [3] keepdim : tensor<1x2x16x16xf32> -> tensor<1x2x16x1xf32>
  %ninf = tg.constant dense<0xFF800000> : tensor<f32>
  %zero = tg.constant dense<0.0> : tensor<f32>
  %masked = tg.cmp eq, %m, %ninf : tensor<1x2x16x1xf32>, tensor<f32>
  %safe = tg.select %masked, %zero, %m : tensor<1x2x16x1xi1>, tensor<f32>, tensor<1x2x16x1xf32>
  %sh = tg.sub %z, %safe : tensor<1x2x16x16xf32>, tensor<1x2x16x1xf32>
  %e = tg.exp %sh : tensor<1x2x16x16xf32>
  %sum = tg.reduce sum %e dims = [3] keepdim : tensor<1x2x16x16xf32> -> tensor<1x2x16x1xf32>
  %one = tg.constant dense<1.0> : tensor<f32>
  %den = tg.max %sum, %one : tensor<1x2x16x1xf32>, tensor<f32>
  %p = tg.div %e, %den : tensor<1x2x16x16xf32>, tensor<1x2x16x1xf32>
  %o = tg.matmul %p, %v : tensor<1x2x16x16xf32>, tensor<1x2x16x8xf32> -> tensor<1x2x16x8xf32>
  %logsum = tg.log %sum : tensor<1x2x16x1xf32>
  %lse = tg.add %logsum, %safe : tensor<1x2x16x1xf32>, tensor<1x2x16x1xf32>
  return %o, %lse : tensor<1x2x16x8xf32>, tensor<1x2x16x1xf32>
}

// Unused stats: inference mode.
// CHECK-LABEL: func.func @unused_stats
// CHECK: %[[O:.*]] = tg.attention
// CHECK-NOT: training
func.func @unused_stats(%q: tensor<1x2x16x8xf32>, %k: tensor<1x2x16x8xf32>, %v: tensor<1x2x16x8xf32>) -> tensor<1x2x16x8xf32> {
  %kt = tg.transpose %k perm = [0, 1, 3, 2] : tensor<1x2x16x8xf32> -> tensor<1x2x8x16xf32>
  %s = tg.matmul %q, %kt : tensor<1x2x16x8xf32>, tensor<1x2x8x16xf32> -> tensor<1x2x16x16xf32>
  %p, %lse = tg.softmax %s axis = 3 : tensor<1x2x16x16xf32> stats tensor<1x2x16x1xf32>
  %o = tg.matmul %p, %v : tensor<1x2x16x16xf32>, tensor<1x2x16x8xf32> -> tensor<1x2x16x8xf32>
  return %o : tensor<1x2x16x8xf32>
}
