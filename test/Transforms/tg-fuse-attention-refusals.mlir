// RUN: tg-opt %s --tg-fuse-attention=report=true -verify-diagnostics | FileCheck %s
// RUN: tg-opt %s --tg-fuse-attention --tg-fusion-report -verify-diagnostics | FileCheck %s
// RUN: tg-opt %s --tg-fuse-attention | FileCheck %s

// Every chain here is left unchanged, and the remark says why.
// CHECK-NOT: tg.attention

// Softmax over the query axis.
// CHECK-LABEL: func.func @softmax_wrong_axis
// CHECK: tg.softmax %{{.*}} axis = 2
func.func @softmax_wrong_axis(%q: tensor<1x2x16x8xf32>, %k: tensor<1x2x16x8xf32>, %v: tensor<1x2x16x8xf32>) -> tensor<1x2x16x8xf32> {
  %kt = tg.transpose %k perm = [0, 1, 3, 2] : tensor<1x2x16x8xf32> -> tensor<1x2x8x16xf32>
  %s = tg.matmul %q, %kt : tensor<1x2x16x8xf32>, tensor<1x2x8x16xf32> -> tensor<1x2x16x16xf32>
  // expected-remark @below {{not fused into tg.attention: softmax over axis 2; attention normalises over the last (kv) axis 3}}
  %p = tg.softmax %s axis = 2 : tensor<1x2x16x16xf32>
  %o = tg.matmul %p, %v : tensor<1x2x16x16xf32>, tensor<1x2x16x8xf32> -> tensor<1x2x16x8xf32>
  return %o : tensor<1x2x16x8xf32>
}

// A decomposed softmax whose sum runs over the query axis.
// CHECK-LABEL: func.func @decomposed_wrong_axis
// CHECK: tg.reduce sum
func.func @decomposed_wrong_axis(%q: tensor<1x2x16x8xf32>, %k: tensor<1x2x16x8xf32>, %v: tensor<1x2x16x8xf32>) -> tensor<1x2x16x8xf32> {
  %kt = tg.transpose %k perm = [0, 1, 3, 2] : tensor<1x2x16x8xf32> -> tensor<1x2x8x16xf32>
  %s = tg.matmul %q, %kt : tensor<1x2x16x8xf32>, tensor<1x2x8x16xf32> -> tensor<1x2x16x16xf32>
  %e = tg.exp %s : tensor<1x2x16x16xf32>
  // expected-remark @below {{not fused into tg.attention: softmax sum over dims [2]; attention normalises over the last (kv) axis 3}}
  %sum = tg.reduce sum %e dims = [2] keepdim : tensor<1x2x16x16xf32> -> tensor<1x2x1x16xf32>
  %p = tg.div %e, %sum : tensor<1x2x16x16xf32>, tensor<1x2x1x16xf32>
  %o = tg.matmul %p, %v : tensor<1x2x16x16xf32>, tensor<1x2x16x8xf32> -> tensor<1x2x16x8xf32>
  return %o : tensor<1x2x16x8xf32>
}

// A reduction on the scores that is not the softmax (centering by the
// row mean).
// CHECK-LABEL: func.func @reduction_between
// CHECK: tg.reduce sum
func.func @reduction_between(%q: tensor<1x2x16x8xf32>, %k: tensor<1x2x16x8xf32>, %v: tensor<1x2x16x8xf32>) -> tensor<1x2x16x8xf32> {
  %kt = tg.transpose %k perm = [0, 1, 3, 2] : tensor<1x2x16x8xf32> -> tensor<1x2x8x16xf32>
  %s = tg.matmul %q, %kt : tensor<1x2x16x8xf32>, tensor<1x2x8x16xf32> -> tensor<1x2x16x16xf32>
  // expected-remark @below {{not fused into tg.attention: a tg.reduce between the two matmuls is not part of the softmax}}
  %sum = tg.reduce sum %s dims = [3] keepdim : tensor<1x2x16x16xf32> -> tensor<1x2x16x1xf32>
  %n = tg.constant dense<0.0625> : tensor<f32>
  %mean = tg.mul %sum, %n : tensor<1x2x16x1xf32>, tensor<f32>
  %c = tg.sub %s, %mean : tensor<1x2x16x16xf32>, tensor<1x2x16x1xf32>
  %p = tg.softmax %c axis = 3 : tensor<1x2x16x16xf32>
  %o = tg.matmul %p, %v : tensor<1x2x16x16xf32>, tensor<1x2x16x8xf32> -> tensor<1x2x16x8xf32>
  return %o : tensor<1x2x16x8xf32>
}

// A matmul between the softmax and the output matmul (W . P is not an
// attention output itself: P is its right operand).
// CHECK-LABEL: func.func @matmul_between
func.func @matmul_between(%q: tensor<1x2x16x8xf32>, %k: tensor<1x2x16x8xf32>, %v: tensor<1x2x16x8xf32>, %w: tensor<1x2x16x16xf32>) -> tensor<1x2x16x8xf32> {
  %kt = tg.transpose %k perm = [0, 1, 3, 2] : tensor<1x2x16x8xf32> -> tensor<1x2x8x16xf32>
  %s = tg.matmul %q, %kt : tensor<1x2x16x8xf32>, tensor<1x2x8x16xf32> -> tensor<1x2x16x16xf32>
  %p = tg.softmax %s axis = 3 : tensor<1x2x16x16xf32>
  // expected-remark @below {{not fused into tg.attention: a tg.matmul between the two matmuls is not part of a softmax}}
  %pw = tg.matmul %w, %p : tensor<1x2x16x16xf32>, tensor<1x2x16x16xf32> -> tensor<1x2x16x16xf32>
  %o = tg.matmul %pw, %v : tensor<1x2x16x16xf32>, tensor<1x2x16x8xf32> -> tensor<1x2x16x8xf32>
  return %o : tensor<1x2x16x8xf32>
}

// A second product added to the scores (e.g. a content-to-position term).
// CHECK-LABEL: func.func @two_score_matmuls
func.func @two_score_matmuls(%q: tensor<1x2x16x8xf32>, %k: tensor<1x2x16x8xf32>, %v: tensor<1x2x16x8xf32>, %r: tensor<1x2x8x16xf32>) -> tensor<1x2x16x8xf32> {
  %kt = tg.transpose %k perm = [0, 1, 3, 2] : tensor<1x2x16x8xf32> -> tensor<1x2x8x16xf32>
  %s = tg.matmul %q, %kt : tensor<1x2x16x8xf32>, tensor<1x2x8x16xf32> -> tensor<1x2x16x16xf32>
  // expected-remark @below {{not fused into tg.attention: the scores combine 2 matmul results; a matmul between the two matmuls other than Q.K^T cannot be fused}}
  %pos = tg.matmul %q, %r : tensor<1x2x16x8xf32>, tensor<1x2x8x16xf32> -> tensor<1x2x16x16xf32>
  %t = tg.add %s, %pos : tensor<1x2x16x16xf32>, tensor<1x2x16x16xf32>
  %p = tg.softmax %t axis = 3 : tensor<1x2x16x16xf32>
  %o = tg.matmul %p, %v : tensor<1x2x16x16xf32>, tensor<1x2x16x8xf32> -> tensor<1x2x16x8xf32>
  return %o : tensor<1x2x16x8xf32>
}

// The scaled scores are also returned.
// CHECK-LABEL: func.func @score_used_outside
func.func @score_used_outside(%q: tensor<1x2x16x8xf32>, %k: tensor<1x2x16x8xf32>, %v: tensor<1x2x16x8xf32>) -> (tensor<1x2x16x8xf32>, tensor<1x2x16x16xf32>) {
  %kt = tg.transpose %k perm = [0, 1, 3, 2] : tensor<1x2x16x8xf32> -> tensor<1x2x8x16xf32>
  %s = tg.matmul %q, %kt : tensor<1x2x16x8xf32>, tensor<1x2x8x16xf32> -> tensor<1x2x16x16xf32>
  %c = tg.constant dense<0.25> : tensor<f32>
  %ss = tg.mul %s, %c : tensor<1x2x16x16xf32>, tensor<f32>
  %p = tg.softmax %ss axis = 3 : tensor<1x2x16x16xf32>
  %o = tg.matmul %p, %v : tensor<1x2x16x16xf32>, tensor<1x2x16x8xf32> -> tensor<1x2x16x8xf32>
  // expected-remark @below {{not fused into tg.attention: a value of the attention chain (produced by tg.mul) is also used by func.return outside the chain}}
  return %o, %ss : tensor<1x2x16x8xf32>, tensor<1x2x16x16xf32>
}

// The attention probabilities are also returned (output_attentions=True).
// CHECK-LABEL: func.func @probs_used_outside
func.func @probs_used_outside(%q: tensor<1x2x16x8xbf16>, %k: tensor<1x2x16x8xbf16>, %v: tensor<1x2x16x8xbf16>) -> (tensor<1x2x16x8xbf16>, tensor<1x2x16x16xbf16>) {
  %kt = tg.transpose %k perm = [0, 1, 3, 2] : tensor<1x2x16x8xbf16> -> tensor<1x2x8x16xbf16>
  %s = tg.matmul %q, %kt : tensor<1x2x16x8xbf16>, tensor<1x2x8x16xbf16> -> tensor<1x2x16x16xf32>
  %p = tg.softmax %s axis = 3 : tensor<1x2x16x16xf32>
  %pc = tg.cast %p : tensor<1x2x16x16xf32> to tensor<1x2x16x16xbf16>
  %o = tg.matmul %pc, %v : tensor<1x2x16x16xbf16>, tensor<1x2x16x8xbf16> -> tensor<1x2x16x8xbf16>
  // expected-remark @below {{not fused into tg.attention: a value of the attention chain (produced by tg.cast) is also used by func.return outside the chain}}
  return %o, %pc : tensor<1x2x16x8xbf16>, tensor<1x2x16x16xbf16>
}

// A mask computed from the values of V.
// CHECK-LABEL: func.func @mask_depends_on_v
func.func @mask_depends_on_v(%q: tensor<1x2x16x8xf32>, %k: tensor<1x2x16x8xf32>, %v: tensor<1x2x16x8xf32>) -> tensor<1x2x16x8xf32> {
  %kt = tg.transpose %k perm = [0, 1, 3, 2] : tensor<1x2x16x8xf32> -> tensor<1x2x8x16xf32>
  %s = tg.matmul %q, %kt : tensor<1x2x16x8xf32>, tensor<1x2x8x16xf32> -> tensor<1x2x16x16xf32>
  %vs = tg.reduce sum %v dims = [3] keepdim : tensor<1x2x16x8xf32> -> tensor<1x2x16x1xf32>
  %vr = tg.reshape %vs : tensor<1x2x16x1xf32> -> tensor<1x2x1x16xf32>
  %zero = tg.constant dense<0.0> : tensor<f32>
  %keep = tg.cmp gt, %vr, %zero : tensor<1x2x1x16xf32>, tensor<f32>
  %ninf = tg.constant dense<0xFF800000> : tensor<f32>
  // expected-remark @below {{not fused into tg.attention: a score modifier depends on the values of V}}
  %m = tg.select %keep, %s, %ninf : tensor<1x2x1x16xi1>, tensor<1x2x16x16xf32>, tensor<f32>
  %p = tg.softmax %m axis = 3 : tensor<1x2x16x16xf32>
  %o = tg.matmul %p, %v : tensor<1x2x16x16xf32>, tensor<1x2x16x8xf32> -> tensor<1x2x16x8xf32>
  return %o : tensor<1x2x16x8xf32>
}

// K and V broadcast over the batch: the shapes do not line up with q's.
// CHECK-LABEL: func.func @kv_batch_broadcast
func.func @kv_batch_broadcast(%q: tensor<2x2x16x8xf32>, %k: tensor<1x2x16x8xf32>, %v: tensor<1x2x16x8xf32>) -> tensor<2x2x16x8xf32> {
  %kt = tg.transpose %k perm = [0, 1, 3, 2] : tensor<1x2x16x8xf32> -> tensor<1x2x8x16xf32>
  // expected-remark @below {{not fused into tg.attention: shapes do not line up: k/v batch (1, 1) differs from q's (2)}}
  %s = tg.matmul %q, %kt : tensor<2x2x16x8xf32>, tensor<1x2x8x16xf32> -> tensor<2x2x16x16xf32>
  %p = tg.softmax %s axis = 3 : tensor<2x2x16x16xf32>
  %o = tg.matmul %p, %v : tensor<2x2x16x16xf32>, tensor<1x2x16x8xf32> -> tensor<2x2x16x8xf32>
  return %o : tensor<2x2x16x8xf32>
}

// q, k and v of different element types.
// CHECK-LABEL: func.func @mixed_qkv_types
func.func @mixed_qkv_types(%q: tensor<1x2x16x8xbf16>, %k: tensor<1x2x16x8xbf16>, %v: tensor<1x2x16x8xf32>) -> tensor<1x2x16x8xf32> {
  %kt = tg.transpose %k perm = [0, 1, 3, 2] : tensor<1x2x16x8xbf16> -> tensor<1x2x8x16xbf16>
  // expected-remark @below {{not fused into tg.attention: q, k and v have element types bf16, bf16, f32; attention needs one of bf16, f16, f32 for all three}}
  %s = tg.matmul %q, %kt : tensor<1x2x16x8xbf16>, tensor<1x2x8x16xbf16> -> tensor<1x2x16x16xf32>
  %p = tg.softmax %s axis = 3 : tensor<1x2x16x16xf32>
  %o = tg.matmul %p, %v : tensor<1x2x16x16xf32>, tensor<1x2x16x8xf32> -> tensor<1x2x16x8xf32>
  return %o : tensor<1x2x16x8xf32>
}

// Unscaled dropout without the 1/(1-p) rescale is not attention's dropout.
// CHECK-LABEL: func.func @unscaled_dropout_alone
func.func @unscaled_dropout_alone(%q: tensor<1x2x16x8xf32>, %k: tensor<1x2x16x8xf32>, %v: tensor<1x2x16x8xf32>, %seed: tensor<i64>, %offset: tensor<i64>) -> tensor<1x2x16x8xf32> {
  %kt = tg.transpose %k perm = [0, 1, 3, 2] : tensor<1x2x16x8xf32> -> tensor<1x2x8x16xf32>
  %s = tg.matmul %q, %kt : tensor<1x2x16x8xf32>, tensor<1x2x8x16xf32> -> tensor<1x2x16x16xf32>
  %p = tg.softmax %s axis = 3 : tensor<1x2x16x16xf32>
  // expected-remark @below {{not fused into tg.attention: unscaled dropout must be followed by exactly one rescale by 1/(1-p) to match attention's dropout}}
  %pd = tg.dropout %p, %seed, %offset prob = 1.000000e-01 unscaled : tensor<1x2x16x16xf32>
  %o = tg.matmul %pd, %v : tensor<1x2x16x16xf32>, tensor<1x2x16x8xf32> -> tensor<1x2x16x8xf32>
  return %o : tensor<1x2x16x8xf32>
}

// The probabilities scaled by an arbitrary constant.
// CHECK-LABEL: func.func @probs_scaled
func.func @probs_scaled(%q: tensor<1x2x16x8xf32>, %k: tensor<1x2x16x8xf32>, %v: tensor<1x2x16x8xf32>) -> tensor<1x2x16x8xf32> {
  %kt = tg.transpose %k perm = [0, 1, 3, 2] : tensor<1x2x16x8xf32> -> tensor<1x2x8x16xf32>
  %s = tg.matmul %q, %kt : tensor<1x2x16x8xf32>, tensor<1x2x8x16xf32> -> tensor<1x2x16x16xf32>
  %p = tg.softmax %s axis = 3 : tensor<1x2x16x16xf32>
  %c = tg.constant dense<2.0> : tensor<f32>
  // expected-remark @below {{not fused into tg.attention: the probabilities are multiplied by a constant that is not dropout's 1/(1-p) rescale}}
  %p2 = tg.mul %p, %c : tensor<1x2x16x16xf32>, tensor<f32>
  %o = tg.matmul %p2, %v : tensor<1x2x16x16xf32>, tensor<1x2x16x8xf32> -> tensor<1x2x16x8xf32>
  return %o : tensor<1x2x16x8xf32>
}

// A max(sum, 1) guard without max subtraction would change the result
// (sum(exp(z)) may be below 1).
// CHECK-LABEL: func.func @guard_without_max
func.func @guard_without_max(%q: tensor<1x2x16x8xf32>, %k: tensor<1x2x16x8xf32>, %v: tensor<1x2x16x8xf32>) -> tensor<1x2x16x8xf32> {
  %kt = tg.transpose %k perm = [0, 1, 3, 2] : tensor<1x2x16x8xf32> -> tensor<1x2x8x16xf32>
  %s = tg.matmul %q, %kt : tensor<1x2x16x8xf32>, tensor<1x2x8x16xf32> -> tensor<1x2x16x16xf32>
  %e = tg.exp %s : tensor<1x2x16x16xf32>
  %sum = tg.reduce sum %e dims = [3] keepdim : tensor<1x2x16x16xf32> -> tensor<1x2x16x1xf32>
  %one = tg.constant dense<1.0> : tensor<f32>
  %den = tg.max %sum, %one : tensor<1x2x16x1xf32>, tensor<f32>
  // expected-remark @below {{not fused into tg.attention: max(sum, c) guards a softmax without max subtraction; the guard would change the result}}
  %p = tg.div %e, %den : tensor<1x2x16x16xf32>, tensor<1x2x16x1xf32>
  %o = tg.matmul %p, %v : tensor<1x2x16x16xf32>, tensor<1x2x16x8xf32> -> tensor<1x2x16x8xf32>
  return %o : tensor<1x2x16x8xf32>
}

// Scores converted to integers.
// CHECK-LABEL: func.func @scores_to_int
func.func @scores_to_int(%q: tensor<1x2x16x8xf32>, %k: tensor<1x2x16x8xf32>, %v: tensor<1x2x16x8xf32>) -> tensor<1x2x16x8xf32> {
  %kt = tg.transpose %k perm = [0, 1, 3, 2] : tensor<1x2x16x8xf32> -> tensor<1x2x8x16xf32>
  %s = tg.matmul %q, %kt : tensor<1x2x16x8xf32>, tensor<1x2x8x16xf32> -> tensor<1x2x16x16xf32>
  // expected-remark @below {{not fused into tg.attention: tg.cast turns the scores into i32; only float and boolean score values are fused}}
  %si = tg.cast %s : tensor<1x2x16x16xf32> to tensor<1x2x16x16xi32>
  %sf = tg.cast %si : tensor<1x2x16x16xi32> to tensor<1x2x16x16xf32>
  %p = tg.softmax %sf axis = 3 : tensor<1x2x16x16xf32>
  %o = tg.matmul %p, %v : tensor<1x2x16x16xf32>, tensor<1x2x16x8xf32> -> tensor<1x2x16x8xf32>
  return %o : tensor<1x2x16x8xf32>
}

// Rank-3 attention ([B*H, S, D], as older code writes it) is not fused.
// CHECK-LABEL: func.func @rank3_attention
func.func @rank3_attention(%q: tensor<4x16x8xf32>, %k: tensor<4x16x8xf32>, %v: tensor<4x16x8xf32>) -> tensor<4x16x8xf32> {
  %kt = tg.transpose %k perm = [0, 2, 1] : tensor<4x16x8xf32> -> tensor<4x8x16xf32>
  %s = tg.matmul %q, %kt : tensor<4x16x8xf32>, tensor<4x8x16xf32> -> tensor<4x16x16xf32>
  %p = tg.softmax %s axis = 2 : tensor<4x16x16xf32>
  // expected-remark @below {{not fused into tg.attention: the output matmul has rank 3; only rank-4 [B, H, S, D] attention is fused}}
  %o = tg.matmul %p, %v : tensor<4x16x16xf32>, tensor<4x16x8xf32> -> tensor<4x16x8xf32>
  return %o : tensor<4x16x8xf32>
}

// Plain matmuls that are not attention get no remark.
// CHECK-LABEL: func.func @not_attention
func.func @not_attention(%a: tensor<4x8xf32>, %b: tensor<8x8xf32>) -> tensor<4x8xf32> {
  %c = tg.matmul %a, %b : tensor<4x8xf32>, tensor<8x8xf32> -> tensor<4x8xf32>
  %d = tg.matmul %c, %b : tensor<4x8xf32>, tensor<8x8xf32> -> tensor<4x8xf32>
  return %d : tensor<4x8xf32>
}
