// RUN: tg-opt %s --tg-fuse-attention=report=true -verify-diagnostics | FileCheck %s

// The output of tg-decompose-softmax: max subtraction with the safe-softmax
// guard, max(sum, 1), division.
// CHECK-LABEL: func.func @decomposed_safe
// CHECK: tg.attention {{.*}} {scale = 2.500000e-01 : f64} :
// CHECK-NOT: tg.reduce
// CHECK-NOT: tg.exp
func.func @decomposed_safe(%q: tensor<1x2x16x8xf32>, %k: tensor<1x2x16x8xf32>, %v: tensor<1x2x16x8xf32>) -> tensor<1x2x16x8xf32> {
  %kt = tg.transpose %k perm = [0, 1, 3, 2] : tensor<1x2x16x8xf32> -> tensor<1x2x8x16xf32>
  %s = tg.matmul %q, %kt : tensor<1x2x16x8xf32>, tensor<1x2x8x16xf32> -> tensor<1x2x16x16xf32>
  %c = tg.constant dense<0.25> : tensor<f32>
  %z = tg.mul %s, %c : tensor<1x2x16x16xf32>, tensor<f32>
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
  return %o : tensor<1x2x16x8xf32>
}

// Without max subtraction: exp(s) / sum(exp(s)).
// CHECK-LABEL: func.func @decomposed_no_max
// CHECK: tg.attention {{.*}} {scale = 2.500000e-01 : f64} :
// CHECK-NOT: tg.exp
func.func @decomposed_no_max(%q: tensor<1x2x16x8xf32>, %k: tensor<1x2x16x8xf32>, %v: tensor<1x2x16x8xf32>) -> tensor<1x2x16x8xf32> {
  %kt = tg.transpose %k perm = [0, 1, 3, 2] : tensor<1x2x16x8xf32> -> tensor<1x2x8x16xf32>
  %s = tg.matmul %q, %kt : tensor<1x2x16x8xf32>, tensor<1x2x8x16xf32> -> tensor<1x2x16x16xf32>
  %c = tg.constant dense<0.25> : tensor<f32>
  %z = tg.mul %s, %c : tensor<1x2x16x16xf32>, tensor<f32>
  %e = tg.exp %z : tensor<1x2x16x16xf32>
  %sum = tg.reduce sum %e dims = [3] keepdim : tensor<1x2x16x16xf32> -> tensor<1x2x16x1xf32>
  %p = tg.div %e, %sum : tensor<1x2x16x16xf32>, tensor<1x2x16x1xf32>
  %o = tg.matmul %p, %v : tensor<1x2x16x16xf32>, tensor<1x2x16x8xf32> -> tensor<1x2x16x8xf32>
  return %o : tensor<1x2x16x8xf32>
}

// Plain max subtraction, normalised by a multiply with the reciprocal.
// CHECK-LABEL: func.func @decomposed_recip
// CHECK: tg.attention
// CHECK-NOT: tg.recip
func.func @decomposed_recip(%q: tensor<1x2x16x8xbf16>, %k: tensor<1x2x16x8xbf16>, %v: tensor<1x2x16x8xbf16>) -> tensor<1x2x16x8xbf16> {
  %kt = tg.transpose %k perm = [0, 1, 3, 2] : tensor<1x2x16x8xbf16> -> tensor<1x2x8x16xbf16>
  %s = tg.matmul %q, %kt : tensor<1x2x16x8xbf16>, tensor<1x2x8x16xbf16> -> tensor<1x2x16x16xf32>
  %m = tg.reduce max %s dims = [3] keepdim : tensor<1x2x16x16xf32> -> tensor<1x2x16x1xf32>
  %sh = tg.sub %s, %m : tensor<1x2x16x16xf32>, tensor<1x2x16x1xf32>
  %e = tg.exp %sh : tensor<1x2x16x16xf32>
  %sum = tg.reduce sum %e dims = [3] keepdim : tensor<1x2x16x16xf32> -> tensor<1x2x16x1xf32>
  %r = tg.recip %sum : tensor<1x2x16x1xf32>
  %p = tg.mul %r, %e : tensor<1x2x16x1xf32>, tensor<1x2x16x16xf32>
  %pc = tg.cast %p : tensor<1x2x16x16xf32> to tensor<1x2x16x16xbf16>
  %o = tg.matmul %pc, %v : tensor<1x2x16x16xbf16>, tensor<1x2x16x8xbf16> -> tensor<1x2x16x8xbf16>
  return %o : tensor<1x2x16x8xbf16>
}

// exp2 form: 2^((z - max z) * log2(e)) is exp(z - max z); the factor
// cancels into the scale since the region has no other math.
// CHECK-LABEL: func.func @exp2_log2e
// CHECK: tg.attention {{.*}} {scale = 0.35355{{[0-9]*}} : f64} :
// CHECK-NOT: tg.pow
func.func @exp2_log2e(%q: tensor<1x2x16x8xf32>, %k: tensor<1x2x16x8xf32>, %v: tensor<1x2x16x8xf32>) -> tensor<1x2x16x8xf32> {
  %kt = tg.transpose %k perm = [0, 1, 3, 2] : tensor<1x2x16x8xf32> -> tensor<1x2x8x16xf32>
  %s = tg.matmul %q, %kt : tensor<1x2x16x8xf32>, tensor<1x2x8x16xf32> -> tensor<1x2x16x16xf32>
  %c = tg.constant dense<0.353553385> : tensor<f32>
  %z = tg.mul %s, %c : tensor<1x2x16x16xf32>, tensor<f32>
  %m = tg.reduce max %z dims = [3] keepdim : tensor<1x2x16x16xf32> -> tensor<1x2x16x1xf32>
  %sh = tg.sub %z, %m : tensor<1x2x16x16xf32>, tensor<1x2x16x1xf32>
  %log2e = tg.constant dense<1.44269502> : tensor<f32>
  %y = tg.mul %sh, %log2e : tensor<1x2x16x16xf32>, tensor<f32>
  %two = tg.constant dense<2.0> : tensor<f32>
  %e = tg.pow %two, %y : tensor<f32>, tensor<1x2x16x16xf32>
  %sum = tg.reduce sum %e dims = [3] keepdim : tensor<1x2x16x16xf32> -> tensor<1x2x16x1xf32>
  %p = tg.div %e, %sum : tensor<1x2x16x16xf32>, tensor<1x2x16x1xf32>
  %o = tg.matmul %p, %v : tensor<1x2x16x16xf32>, tensor<1x2x16x8xf32> -> tensor<1x2x16x8xf32>
  return %o : tensor<1x2x16x8xf32>
}

// Triton-style exp2: the log2(e) factor is folded into the scale before the
// max, z = s * (scale * log2 e), p = 2^(z - max z). With a bias in between
// the factor ln 2 stays in the region.
// CHECK-LABEL: func.func @exp2_folded_scale_bias
// CHECK: tg.attention {{.*}} captures(%{{.*}} : tensor<1x1x16x16xf32>) {scale = 0.51006{{[0-9]*}} : f64} :
// CHECK: %[[SUM:.*]] = tg.add
// CHECK: %[[LN2:.*]] = tg.constant dense<0.693147{{[0-9]*}}> : tensor<f32>
// CHECK: %[[R:.*]] = tg.mul %[[SUM]], %[[LN2]]
// CHECK: tg.yield %[[R]]
func.func @exp2_folded_scale_bias(%q: tensor<1x2x16x8xf32>, %k: tensor<1x2x16x8xf32>, %v: tensor<1x2x16x8xf32>, %bias: tensor<1x1x16x16xf32>) -> tensor<1x2x16x8xf32> {
  %kt = tg.transpose %k perm = [0, 1, 3, 2] : tensor<1x2x16x8xf32> -> tensor<1x2x8x16xf32>
  %s = tg.matmul %q, %kt : tensor<1x2x16x8xf32>, tensor<1x2x8x16xf32> -> tensor<1x2x16x16xf32>
  %c = tg.constant dense<0.510069728> : tensor<f32>
  %z0 = tg.mul %s, %c : tensor<1x2x16x16xf32>, tensor<f32>
  %z = tg.add %z0, %bias : tensor<1x2x16x16xf32>, tensor<1x1x16x16xf32>
  %m = tg.reduce max %z dims = [3] keepdim : tensor<1x2x16x16xf32> -> tensor<1x2x16x1xf32>
  %sh = tg.sub %z, %m : tensor<1x2x16x16xf32>, tensor<1x2x16x1xf32>
  %two = tg.constant dense<2.0> : tensor<f32>
  %e = tg.pow %two, %sh : tensor<f32>, tensor<1x2x16x16xf32>
  %sum = tg.reduce sum %e dims = [3] keepdim : tensor<1x2x16x16xf32> -> tensor<1x2x16x1xf32>
  %p = tg.div %e, %sum : tensor<1x2x16x16xf32>, tensor<1x2x16x1xf32>
  %o = tg.matmul %p, %v : tensor<1x2x16x16xf32>, tensor<1x2x16x8xf32> -> tensor<1x2x16x8xf32>
  return %o : tensor<1x2x16x8xf32>
}

// Everything in bf16: the matmul rounds the scores to bf16, the scale and
// the softmax are bf16 ops. Fusion computes them in f32.
// CHECK-LABEL: func.func @softmax_bf16
// CHECK: tg.attention {{.*}} {scale = 1.250000e-01 : f64} :
// CHECK-NEXT: ^bb0(%[[S:.*]]: tensor<f32>,
// CHECK-NEXT: tg.yield %[[S]]
func.func @softmax_bf16(%q: tensor<1x2x16x64xbf16>, %k: tensor<1x2x16x64xbf16>, %v: tensor<1x2x16x64xbf16>) -> tensor<1x2x16x64xbf16> {
  %kt = tg.transpose %k perm = [0, 1, 3, 2] : tensor<1x2x16x64xbf16> -> tensor<1x2x64x16xbf16>
  // expected-remark @below {{fused with the scores in f32; the graph as written rounds them 3 time(s)}}
  %s = tg.matmul %q, %kt : tensor<1x2x16x64xbf16>, tensor<1x2x64x16xbf16> -> tensor<1x2x16x16xbf16>
  %c = tg.constant dense<0.125> : tensor<bf16>
  %z = tg.mul %s, %c : tensor<1x2x16x16xbf16>, tensor<bf16>
  %p = tg.softmax %z axis = 3 : tensor<1x2x16x16xbf16>
  %o = tg.matmul %p, %v : tensor<1x2x16x16xbf16>, tensor<1x2x16x64xbf16> -> tensor<1x2x16x64xbf16>
  return %o : tensor<1x2x16x64xbf16>
}

// Softmax upcast to f32 and the probabilities cast back (HF's
// `softmax(attn, dim=-1, dtype=torch.float32).to(query.dtype)`).
// CHECK-LABEL: func.func @softmax_f32_casts
// CHECK: tg.attention {{.*}} {scale = 1.250000e-01 : f64} :
// CHECK-NOT: tg.cast
func.func @softmax_f32_casts(%q: tensor<1x2x16x64xf16>, %k: tensor<1x2x16x64xf16>, %v: tensor<1x2x16x64xf16>) -> tensor<1x2x16x64xf16> {
  %kt = tg.transpose %k perm = [0, 1, 3, 2] : tensor<1x2x16x64xf16> -> tensor<1x2x64x16xf16>
  // expected-remark @below {{fused with the scores in f32; the graph as written rounds them 2 time(s)}}
  %s = tg.matmul %q, %kt : tensor<1x2x16x64xf16>, tensor<1x2x64x16xf16> -> tensor<1x2x16x16xf16>
  %c = tg.constant dense<0.125> : tensor<f16>
  %z = tg.mul %s, %c : tensor<1x2x16x16xf16>, tensor<f16>
  %z32 = tg.cast %z : tensor<1x2x16x16xf16> to tensor<1x2x16x16xf32>
  %p = tg.softmax %z32 axis = 3 : tensor<1x2x16x16xf32>
  %p16 = tg.cast %p : tensor<1x2x16x16xf32> to tensor<1x2x16x16xf16>
  %o = tg.matmul %p16, %v : tensor<1x2x16x16xf16>, tensor<1x2x16x64xf16> -> tensor<1x2x16x64xf16>
  return %o : tensor<1x2x16x64xf16>
}

// Decomposed softmax computed in f32 from bf16 scores, with casts between.
// CHECK-LABEL: func.func @decomposed_mixed_casts
// CHECK: tg.attention
// CHECK-NOT: tg.reduce
func.func @decomposed_mixed_casts(%q: tensor<2x2x16x8xbf16>, %k: tensor<2x2x16x8xbf16>, %v: tensor<2x2x16x8xbf16>) -> tensor<2x2x16x8xbf16> {
  %kt = tg.transpose %k perm = [0, 1, 3, 2] : tensor<2x2x16x8xbf16> -> tensor<2x2x8x16xbf16>
  // expected-remark @below {{fused with the scores in f32; the graph as written rounds them 4 time(s)}}
  %s = tg.matmul %q, %kt : tensor<2x2x16x8xbf16>, tensor<2x2x8x16xbf16> -> tensor<2x2x16x16xbf16>
  %z = tg.cast %s : tensor<2x2x16x16xbf16> to tensor<2x2x16x16xf32>
  %m = tg.reduce max %z dims = [3] keepdim : tensor<2x2x16x16xf32> -> tensor<2x2x16x1xf32>
  %sh = tg.sub %z, %m : tensor<2x2x16x16xf32>, tensor<2x2x16x1xf32>
  %e = tg.exp %sh : tensor<2x2x16x16xf32>
  %e16 = tg.cast %e : tensor<2x2x16x16xf32> to tensor<2x2x16x16xbf16>
  %sum = tg.reduce sum %e dims = [3] keepdim : tensor<2x2x16x16xf32> -> tensor<2x2x16x1xf32>
  %sum16 = tg.cast %sum : tensor<2x2x16x1xf32> to tensor<2x2x16x1xbf16>
  %p = tg.div %e16, %sum16 : tensor<2x2x16x16xbf16>, tensor<2x2x16x1xbf16>
  %o = tg.matmul %p, %v : tensor<2x2x16x16xbf16>, tensor<2x2x16x8xbf16> -> tensor<2x2x16x8xbf16>
  return %o : tensor<2x2x16x8xbf16>
}
