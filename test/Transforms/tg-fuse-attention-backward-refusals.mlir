// RUN: tg-opt %s --tg-fuse-attention="report=true backward=true" -verify-diagnostics | FileCheck %s
// EQUIV-PIPELINE: tg-fuse-attention{backward=true}
//
// Hand-written attention backward graphs (the form tg-decompose-sdpa writes)
// that must not fuse into tg.attention_grad.
// CHECK-NOT: tg.attention_grad

// The score gradient dS is also returned.
// CHECK-LABEL: func.func @score_gradient_used_outside
// CHECK: tg.exp
func.func @score_gradient_used_outside(%q: tensor<1x2x16x8xf32>, %k: tensor<1x2x16x8xf32>, %v: tensor<1x2x16x8xf32>, %o: tensor<1x2x16x8xf32>, %do: tensor<1x2x16x8xf32>, %lse: tensor<1x2x16x1xf32>) -> (tensor<1x2x16x8xf32>, tensor<1x2x16x8xf32>, tensor<1x2x16x8xf32>, tensor<1x2x16x16xf32>) {
  %zero = tg.constant dense<0.000000e+00> : tensor<f32>
  %ninf = tg.constant dense<0xFF800000> : tensor<f32>
  %scale = tg.constant dense<0.353553385> : tensor<f32>
  %kt = tg.transpose %k perm = [0, 1, 3, 2] : tensor<1x2x16x8xf32> -> tensor<1x2x8x16xf32>
  %s = tg.matmul %q, %kt : tensor<1x2x16x8xf32>, tensor<1x2x8x16xf32> -> tensor<1x2x16x16xf32>
  %z = tg.mul %s, %scale : tensor<1x2x16x16xf32>, tensor<f32>
  %empty = tg.cmp eq, %lse, %ninf : tensor<1x2x16x1xf32>, tensor<f32>
  %safe = tg.select %empty, %zero, %lse : tensor<1x2x16x1xi1>, tensor<f32>, tensor<1x2x16x1xf32>
  %sh = tg.sub %z, %safe : tensor<1x2x16x16xf32>, tensor<1x2x16x1xf32>
  %p = tg.exp %sh : tensor<1x2x16x16xf32>
  %pt = tg.transpose %p perm = [0, 1, 3, 2] : tensor<1x2x16x16xf32> -> tensor<1x2x16x16xf32>
  %dv = tg.matmul %pt, %do : tensor<1x2x16x16xf32>, tensor<1x2x16x8xf32> -> tensor<1x2x16x8xf32>
  %vt = tg.transpose %v perm = [0, 1, 3, 2] : tensor<1x2x16x8xf32> -> tensor<1x2x8x16xf32>
  %dp = tg.matmul %do, %vt : tensor<1x2x16x8xf32>, tensor<1x2x8x16xf32> -> tensor<1x2x16x16xf32>
  %oo = tg.mul %do, %o : tensor<1x2x16x8xf32>, tensor<1x2x16x8xf32>
  %d = tg.reduce sum %oo dims = [3] keepdim : tensor<1x2x16x8xf32> -> tensor<1x2x16x1xf32>
  %x = tg.sub %dp, %d : tensor<1x2x16x16xf32>, tensor<1x2x16x1xf32>
  %dz = tg.mul %p, %x : tensor<1x2x16x16xf32>, tensor<1x2x16x16xf32>
  %ds = tg.mul %dz, %scale : tensor<1x2x16x16xf32>, tensor<f32>
  %dq = tg.matmul %ds, %k : tensor<1x2x16x16xf32>, tensor<1x2x16x8xf32> -> tensor<1x2x16x8xf32>
  %dst = tg.transpose %ds perm = [0, 1, 3, 2] : tensor<1x2x16x16xf32> -> tensor<1x2x16x16xf32>
  %dk = tg.matmul %dst, %q : tensor<1x2x16x16xf32>, tensor<1x2x16x8xf32> -> tensor<1x2x16x8xf32>
  // expected-remark @below {{not fused into tg.attention_grad: not the attention backward: the score gradient is also used by func.return}}
  return %dq, %dk, %dv, %ds : tensor<1x2x16x8xf32>, tensor<1x2x16x8xf32>, tensor<1x2x16x8xf32>, tensor<1x2x16x16xf32>
}

// D is computed from V instead of from dO and O.
// CHECK-LABEL: func.func @wrong_row_term
// CHECK: tg.exp
func.func @wrong_row_term(%q: tensor<1x2x16x8xf32>, %k: tensor<1x2x16x8xf32>, %v: tensor<1x2x16x8xf32>, %o: tensor<1x2x16x8xf32>, %do: tensor<1x2x16x8xf32>, %lse: tensor<1x2x16x1xf32>) -> (tensor<1x2x16x8xf32>, tensor<1x2x16x8xf32>, tensor<1x2x16x8xf32>) {
  %scale = tg.constant dense<0.353553385> : tensor<f32>
  %kt = tg.transpose %k perm = [0, 1, 3, 2] : tensor<1x2x16x8xf32> -> tensor<1x2x8x16xf32>
  %s = tg.matmul %q, %kt : tensor<1x2x16x8xf32>, tensor<1x2x8x16xf32> -> tensor<1x2x16x16xf32>
  %z = tg.mul %s, %scale : tensor<1x2x16x16xf32>, tensor<f32>
  %sh = tg.sub %z, %lse : tensor<1x2x16x16xf32>, tensor<1x2x16x1xf32>
  %p = tg.exp %sh : tensor<1x2x16x16xf32>
  %pt = tg.transpose %p perm = [0, 1, 3, 2] : tensor<1x2x16x16xf32> -> tensor<1x2x16x16xf32>
  %dv = tg.matmul %pt, %do : tensor<1x2x16x16xf32>, tensor<1x2x16x8xf32> -> tensor<1x2x16x8xf32>
  %vt = tg.transpose %v perm = [0, 1, 3, 2] : tensor<1x2x16x8xf32> -> tensor<1x2x8x16xf32>
  %dp = tg.matmul %do, %vt : tensor<1x2x16x8xf32>, tensor<1x2x8x16xf32> -> tensor<1x2x16x16xf32>
  // expected-remark @below {{not fused into tg.attention_grad: not the attention backward: D is not rowsum(dO * O)}}
  %vv = tg.mul %v, %o : tensor<1x2x16x8xf32>, tensor<1x2x16x8xf32>
  %d = tg.reduce sum %vv dims = [3] keepdim : tensor<1x2x16x8xf32> -> tensor<1x2x16x1xf32>
  %x = tg.sub %dp, %d : tensor<1x2x16x16xf32>, tensor<1x2x16x1xf32>
  %dz = tg.mul %p, %x : tensor<1x2x16x16xf32>, tensor<1x2x16x16xf32>
  %ds = tg.mul %dz, %scale : tensor<1x2x16x16xf32>, tensor<f32>
  %dq = tg.matmul %ds, %k : tensor<1x2x16x16xf32>, tensor<1x2x16x8xf32> -> tensor<1x2x16x8xf32>
  %dst = tg.transpose %ds perm = [0, 1, 3, 2] : tensor<1x2x16x16xf32> -> tensor<1x2x16x16xf32>
  %dk = tg.matmul %dst, %q : tensor<1x2x16x16xf32>, tensor<1x2x16x8xf32> -> tensor<1x2x16x8xf32>
  return %dq, %dk, %dv : tensor<1x2x16x8xf32>, tensor<1x2x16x8xf32>, tensor<1x2x16x8xf32>
}

// dK uses a different tensor than the forward's Q.
// CHECK-LABEL: func.func @dk_with_other_q
// CHECK: tg.exp
func.func @dk_with_other_q(%q: tensor<1x2x16x8xf32>, %q2: tensor<1x2x16x8xf32>, %k: tensor<1x2x16x8xf32>, %v: tensor<1x2x16x8xf32>, %o: tensor<1x2x16x8xf32>, %do: tensor<1x2x16x8xf32>, %lse: tensor<1x2x16x1xf32>) -> (tensor<1x2x16x8xf32>, tensor<1x2x16x8xf32>, tensor<1x2x16x8xf32>) {
  %kt = tg.transpose %k perm = [0, 1, 3, 2] : tensor<1x2x16x8xf32> -> tensor<1x2x8x16xf32>
  // expected-remark @below {{not fused into tg.attention_grad: not the attention backward: dQ and dK do not use the forward's K and Q}}
  %s = tg.matmul %q, %kt : tensor<1x2x16x8xf32>, tensor<1x2x8x16xf32> -> tensor<1x2x16x16xf32>
  %sh = tg.sub %s, %lse : tensor<1x2x16x16xf32>, tensor<1x2x16x1xf32>
  %p = tg.exp %sh : tensor<1x2x16x16xf32>
  %pt = tg.transpose %p perm = [0, 1, 3, 2] : tensor<1x2x16x16xf32> -> tensor<1x2x16x16xf32>
  %dv = tg.matmul %pt, %do : tensor<1x2x16x16xf32>, tensor<1x2x16x8xf32> -> tensor<1x2x16x8xf32>
  %vt = tg.transpose %v perm = [0, 1, 3, 2] : tensor<1x2x16x8xf32> -> tensor<1x2x8x16xf32>
  %dp = tg.matmul %do, %vt : tensor<1x2x16x8xf32>, tensor<1x2x8x16xf32> -> tensor<1x2x16x16xf32>
  %oo = tg.mul %do, %o : tensor<1x2x16x8xf32>, tensor<1x2x16x8xf32>
  %d = tg.reduce sum %oo dims = [3] keepdim : tensor<1x2x16x8xf32> -> tensor<1x2x16x1xf32>
  %x = tg.sub %dp, %d : tensor<1x2x16x16xf32>, tensor<1x2x16x1xf32>
  %dz = tg.mul %p, %x : tensor<1x2x16x16xf32>, tensor<1x2x16x16xf32>
  %dq = tg.matmul %dz, %k : tensor<1x2x16x16xf32>, tensor<1x2x16x8xf32> -> tensor<1x2x16x8xf32>
  %dst = tg.transpose %dz perm = [0, 1, 3, 2] : tensor<1x2x16x16xf32> -> tensor<1x2x16x16xf32>
  %dk = tg.matmul %dst, %q2 : tensor<1x2x16x16xf32>, tensor<1x2x16x8xf32> -> tensor<1x2x16x8xf32>
  return %dq, %dk, %dv : tensor<1x2x16x8xf32>, tensor<1x2x16x8xf32>, tensor<1x2x16x8xf32>
}
