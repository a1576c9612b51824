// RUN: tg-opt %s --tg-fuse-attention=report=true -verify-diagnostics | FileCheck %s

// A bias gathered from a table at indices computed from gen_index: the
// gather moves into the score region (the table becomes a table capture)
// and its indices become region arithmetic; the fill mode is kept.
// CHECK-LABEL: func.func @relative_bias_fill
// CHECK-SAME: %[[TABLE:[^:]*]]: tensor<2x15xf32>)
// CHECK: tg.attention {{.*}} captures(%[[TABLE]] : tensor<2x15xf32>) {scale = 2.500000e-01 : f64} :
// CHECK-NEXT: ^bb0(%[[S:[^:]*]]: tensor<f32>, %{{[^:]*}}: tensor<i64>, %[[H:[^:]*]]: tensor<i64>, %[[QI:[^:]*]]: tensor<i64>, %[[KI:[^:]*]]: tensor<i64>, %[[T:[^:]*]]: tensor<2x15xf32>):
// CHECK-NEXT: %[[D:.*]] = tg.sub %[[QI]], %[[KI]] : tensor<i64>, tensor<i64>
// CHECK-NEXT: %[[C:.*]] = tg.constant dense<5> : tensor<i64>
// CHECK-NEXT: %[[R:.*]] = tg.add %[[D]], %[[C]] : tensor<i64>, tensor<i64>
// CHECK-NEXT: %[[E:.*]] = tg.gather %[[T]][%[[H]], %[[R]]] fill(-inf) : tensor<2x15xf32>[tensor<i64>, tensor<i64>]
// CHECK-NEXT: %[[Z:.*]] = tg.add %[[S]], %[[E]] : tensor<f32>, tensor<f32>
// CHECK-NEXT: tg.yield %[[Z]]
func.func @relative_bias_fill(%q: tensor<1x2x8x8xf32>, %k: tensor<1x2x8x8xf32>, %v: tensor<1x2x8x8xf32>,
                              %table: tensor<2x15xf32>) -> tensor<1x2x8x8xf32> {
  %kt = tg.transpose %k perm = [0, 1, 3, 2] : tensor<1x2x8x8xf32> -> tensor<1x2x8x8xf32>
  %s = tg.matmul %q, %kt : tensor<1x2x8x8xf32>, tensor<1x2x8x8xf32> -> tensor<1x2x8x8xf32>
  %c = tg.constant dense<0.25> : tensor<f32>
  %ss = tg.mul %s, %c : tensor<1x2x8x8xf32>, tensor<f32>
  %h = tg.gen_index axis = 1 : tensor<1x2x1x1xi64>
  %qi = tg.gen_index axis = 2 : tensor<1x1x8x1xi64>
  %ki = tg.gen_index axis = 3 : tensor<1x1x1x8xi64>
  %d = tg.sub %qi, %ki : tensor<1x1x8x1xi64>, tensor<1x1x1x8xi64>
  %five = tg.constant dense<5> : tensor<i64>
  %r = tg.add %d, %five : tensor<1x1x8x8xi64>, tensor<i64>
  %bias = tg.gather %table[%h, %r] fill(-inf) : tensor<2x15xf32>[tensor<1x2x1x1xi64>, tensor<1x1x8x8xi64>]
  %z = tg.add %ss, %bias : tensor<1x2x8x8xf32>, tensor<1x2x8x8xf32>
  %p = tg.softmax %z axis = 3 : tensor<1x2x8x8xf32>
  %o = tg.matmul %p, %v : tensor<1x2x8x8xf32>, tensor<1x2x8x8xf32> -> tensor<1x2x8x8xf32>
  return %o : tensor<1x2x8x8xf32>
}

// Indices that are tensors (not index arithmetic) are read at the
// coordinates of the gather: a [1,1,Sq,Skv] index is an element capture
// (read at the score's position), and the table is gathered at its value.
// CHECK-LABEL: func.func @index_tensor
// CHECK-SAME: %[[TABLE:[^:]*]]: tensor<15x2xf32>, %[[IDX:[^:]*]]: tensor<1x1x8x8xi64>)
// CHECK: tg.attention {{.*}} captures(%[[IDX]], %[[TABLE]] : tensor<1x1x8x8xi64>, tensor<15x2xf32>)
// CHECK-NEXT: ^bb0(%{{[^:]*}}: tensor<f32>, %{{[^:]*}}: tensor<i64>, %[[H:[^:]*]]: tensor<i64>, %{{[^:]*}}: tensor<i64>, %{{[^:]*}}: tensor<i64>, %[[I:[^:]*]]: tensor<i64>, %[[T:[^:]*]]: tensor<15x2xf32>):
// CHECK-NEXT: tg.gather %[[T]][%[[I]], %[[H]]] : tensor<15x2xf32>[tensor<i64>, tensor<i64>]
func.func @index_tensor(%q: tensor<1x2x8x8xf32>, %k: tensor<1x2x8x8xf32>, %v: tensor<1x2x8x8xf32>,
                        %table: tensor<15x2xf32>, %idx: tensor<1x1x8x8xi64>) -> tensor<1x2x8x8xf32> {
  %kt = tg.transpose %k perm = [0, 1, 3, 2] : tensor<1x2x8x8xf32> -> tensor<1x2x8x8xf32>
  %s = tg.matmul %q, %kt : tensor<1x2x8x8xf32>, tensor<1x2x8x8xf32> -> tensor<1x2x8x8xf32>
  %h = tg.gen_index axis = 1 : tensor<1x2x1x1xi64>
  %bias = tg.gather %table[%idx, %h] : tensor<15x2xf32>[tensor<1x1x8x8xi64>, tensor<1x2x1x1xi64>]
  %z = tg.add %s, %bias : tensor<1x2x8x8xf32>, tensor<1x2x8x8xf32>
  %p = tg.softmax %z axis = 3 : tensor<1x2x8x8xf32>
  %o = tg.matmul %p, %v : tensor<1x2x8x8xf32>, tensor<1x2x8x8xf32> -> tensor<1x2x8x8xf32>
  return %o : tensor<1x2x8x8xf32>
}

// A gather result seen through views (a [S, S, H] lookup permuted to
// [1, H, S, S], as T5 and Swin write it): the views map the score position
// back to the gather's coordinates, so no copy of the views remains.
// CHECK-LABEL: func.func @through_views
// CHECK-NOT: tg.transpose
// CHECK-NOT: tg.reshape
// CHECK: tg.attention {{.*}} captures(%{{.*}} : tensor<4x2xf32>)
// CHECK-NEXT: ^bb0(%{{[^:]*}}: tensor<f32>, %{{[^:]*}}: tensor<i64>, %[[H:[^:]*]]: tensor<i64>, %[[QI:[^:]*]]: tensor<i64>, %[[KI:[^:]*]]: tensor<i64>, %[[T:[^:]*]]: tensor<4x2xf32>):
// CHECK-NEXT: %[[D:.*]] = tg.sub %[[KI]], %[[QI]]
// CHECK: tg.gather %[[T]][%{{.*}}, %[[H]]] : tensor<4x2xf32>[tensor<i64>, tensor<i64>]
func.func @through_views(%q: tensor<1x2x8x8xf32>, %k: tensor<1x2x8x8xf32>, %v: tensor<1x2x8x8xf32>,
                         %table: tensor<4x2xf32>) -> tensor<1x2x8x8xf32> {
  %kt = tg.transpose %k perm = [0, 1, 3, 2] : tensor<1x2x8x8xf32> -> tensor<1x2x8x8xf32>
  %s = tg.matmul %q, %kt : tensor<1x2x8x8xf32>, tensor<1x2x8x8xf32> -> tensor<1x2x8x8xf32>
  %ctx = tg.gen_index axis = 0 : tensor<8x1xi64>
  %mem = tg.gen_index axis = 1 : tensor<1x8xi64>
  %rel = tg.sub %mem, %ctx : tensor<1x8xi64>, tensor<8x1xi64>
  %n = tg.abs %rel : tensor<8x8xi64>
  %three = tg.constant dense<3> : tensor<i64>
  %bucket = tg.min %n, %three : tensor<8x8xi64>, tensor<i64>
  %b3 = tg.reshape %bucket : tensor<8x8xi64> -> tensor<8x8x1xi64>
  %heads = tg.gen_index axis = 2 : tensor<1x1x2xi64>
  %values = tg.gather %table[%b3, %heads] : tensor<4x2xf32>[tensor<8x8x1xi64>, tensor<1x1x2xi64>]
  %vt = tg.transpose %values perm = [2, 0, 1] : tensor<8x8x2xf32> -> tensor<2x8x8xf32>
  %bias = tg.reshape %vt : tensor<2x8x8xf32> -> tensor<1x2x8x8xf32>
  %z = tg.add %s, %bias : tensor<1x2x8x8xf32>, tensor<1x2x8x8xf32>
  %p = tg.softmax %z axis = 3 : tensor<1x2x8x8xf32>
  %o = tg.matmul %p, %v : tensor<1x2x8x8xf32>, tensor<1x2x8x8xf32> -> tensor<1x2x8x8xf32>
  return %o : tensor<1x2x8x8xf32>
}

// Without a gather behind it, a viewed tensor stays an element capture (as
// before: cuDNN can still read it), and the same tensor may also be a table
// of a gather in the same region: two captures, one of each kind.
// CHECK-LABEL: func.func @element_and_table
// CHECK-SAME: %[[M:[^:]*]]: tensor<1x8xf32>)
// CHECK: %[[M4:.*]] = tg.reshape %[[M]] : tensor<1x8xf32> -> tensor<1x1x1x8xf32>
// CHECK: tg.attention {{.*}} captures(%[[M4]], %[[M]] : tensor<1x1x1x8xf32>, tensor<1x8xf32>)
// CHECK-NEXT: ^bb0(%{{[^:]*}}: tensor<f32>, %{{[^:]*}}: tensor<i64>, %{{[^:]*}}: tensor<i64>, %[[QI:[^:]*]]: tensor<i64>, %{{[^:]*}}: tensor<i64>, %{{[^:]*}}: tensor<f32>, %[[T:[^:]*]]: tensor<1x8xf32>):
// CHECK: tg.gather %[[T]][%{{.*}}, %[[QI]]] : tensor<1x8xf32>[tensor<i64>, tensor<i64>]
func.func @element_and_table(%q: tensor<1x2x8x8xf32>, %k: tensor<1x2x8x8xf32>, %v: tensor<1x2x8x8xf32>,
                             %m: tensor<1x8xf32>) -> tensor<1x2x8x8xf32> {
  %kt = tg.transpose %k perm = [0, 1, 3, 2] : tensor<1x2x8x8xf32> -> tensor<1x2x8x8xf32>
  %s = tg.matmul %q, %kt : tensor<1x2x8x8xf32>, tensor<1x2x8x8xf32> -> tensor<1x2x8x8xf32>
  %mk = tg.reshape %m : tensor<1x8xf32> -> tensor<1x1x1x8xf32>
  %z1 = tg.add %s, %mk : tensor<1x2x8x8xf32>, tensor<1x1x1x8xf32>
  %zero = tg.constant dense<0> : tensor<1x1x1x1xi64>
  %qi = tg.gen_index axis = 2 : tensor<1x1x8x1xi64>
  %mq = tg.gather %m[%zero, %qi] : tensor<1x8xf32>[tensor<1x1x1x1xi64>, tensor<1x1x8x1xi64>]
  %z = tg.mul %z1, %mq : tensor<1x2x8x8xf32>, tensor<1x1x8x1xf32>
  %p = tg.softmax %z axis = 3 : tensor<1x2x8x8xf32>
  %o = tg.matmul %p, %v : tensor<1x2x8x8xf32>, tensor<1x2x8x8xf32> -> tensor<1x2x8x8xf32>
  return %o : tensor<1x2x8x8xf32>
}

// A table computed in the graph (here a matmul of q with position
// embeddings, as DeBERTa's c2p term) stays in the graph; only its [B, H,
// Sq, P] result is captured, never a [B, H, Sq, Skv] tensor.
// CHECK-LABEL: func.func @computed_table
// CHECK: %[[C2P:.*]] = tg.matmul %{{.*}}, %{{.*}} : tensor<1x2x8x8xf32>, tensor<1x2x8x4xf32> -> tensor<1x2x8x4xf32>
// CHECK: tg.attention {{.*}} captures(%[[C2P]] : tensor<1x2x8x4xf32>)
// CHECK: tg.gather %{{.*}}[%{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}] : tensor<1x2x8x4xf32>[tensor<i64>, tensor<i64>, tensor<i64>, tensor<i64>]
func.func @computed_table(%q: tensor<1x2x8x8xf32>, %k: tensor<1x2x8x8xf32>, %v: tensor<1x2x8x8xf32>,
                          %pos: tensor<1x2x8x4xf32>) -> tensor<1x2x8x8xf32> {
  %kt = tg.transpose %k perm = [0, 1, 3, 2] : tensor<1x2x8x8xf32> -> tensor<1x2x8x8xf32>
  %s = tg.matmul %q, %kt : tensor<1x2x8x8xf32>, tensor<1x2x8x8xf32> -> tensor<1x2x8x8xf32>
  %c2p = tg.matmul %q, %pos : tensor<1x2x8x8xf32>, tensor<1x2x8x4xf32> -> tensor<1x2x8x4xf32>
  %gb = tg.gen_index axis = 0 : tensor<1x1x1x1xi64>
  %gh = tg.gen_index axis = 1 : tensor<1x2x1x1xi64>
  %gq = tg.gen_index axis = 2 : tensor<1x1x8x1xi64>
  %gk = tg.gen_index axis = 3 : tensor<1x1x1x8xi64>
  %d = tg.sub %gq, %gk : tensor<1x1x8x1xi64>, tensor<1x1x1x8xi64>
  %lo = tg.constant dense<0> : tensor<i64>
  %hi = tg.constant dense<3> : tensor<i64>
  %d0 = tg.max %d, %lo : tensor<1x1x8x8xi64>, tensor<i64>
  %d1 = tg.min %d0, %hi : tensor<1x1x8x8xi64>, tensor<i64>
  %g = tg.gather %c2p[%gb, %gh, %gq, %d1] : tensor<1x2x8x4xf32>[tensor<1x1x1x1xi64>, tensor<1x2x1x1xi64>, tensor<1x1x8x1xi64>, tensor<1x1x8x8xi64>]
  %z = tg.add %s, %g : tensor<1x2x8x8xf32>, tensor<1x2x8x8xf32>
  %p = tg.softmax %z axis = 3 : tensor<1x2x8x8xf32>
  %o = tg.matmul %p, %v : tensor<1x2x8x8xf32>, tensor<1x2x8x8xf32> -> tensor<1x2x8x8xf32>
  return %o : tensor<1x2x8x8xf32>
}

// A document mask from gathered ids: the comparison stays region math and
// the causal factor is lifted.
// CHECK-LABEL: func.func @document_causal
// CHECK: tg.attention {{.*}} captures(%{{.*}} : tensor<1x8xi32>) {causal = #tg<causal top_left>}
// CHECK: tg.cmp eq
// CHECK-NOT: tg.cmp le
func.func @document_causal(%q: tensor<1x2x8x8xf32>, %k: tensor<1x2x8x8xf32>, %v: tensor<1x2x8x8xf32>,
                           %doc: tensor<1x8xi32>) -> tensor<1x2x8x8xf32> {
  %kt = tg.transpose %k perm = [0, 1, 3, 2] : tensor<1x2x8x8xf32> -> tensor<1x2x8x8xf32>
  %s = tg.matmul %q, %kt : tensor<1x2x8x8xf32>, tensor<1x2x8x8xf32> -> tensor<1x2x8x8xf32>
  %b = tg.gen_index axis = 0 : tensor<1x1x1x1xi64>
  %qi = tg.gen_index axis = 2 : tensor<1x1x8x1xi64>
  %ki = tg.gen_index axis = 3 : tensor<1x1x1x8xi64>
  %dq = tg.gather %doc[%b, %qi] : tensor<1x8xi32>[tensor<1x1x1x1xi64>, tensor<1x1x8x1xi64>]
  %dk = tg.gather %doc[%b, %ki] : tensor<1x8xi32>[tensor<1x1x1x1xi64>, tensor<1x1x1x8xi64>]
  %same = tg.cmp eq, %dq, %dk : tensor<1x1x8x1xi32>, tensor<1x1x1x8xi32>
  %causal = tg.cmp le, %ki, %qi : tensor<1x1x1x8xi64>, tensor<1x1x8x1xi64>
  %false = tg.constant dense<false> : tensor<i1>
  %vis = tg.select %same, %causal, %false : tensor<1x1x8x8xi1>, tensor<1x1x8x8xi1>, tensor<i1>
  %ninf = tg.constant dense<0xFF800000> : tensor<f32>
  %m = tg.select %vis, %s, %ninf : tensor<1x1x8x8xi1>, tensor<1x2x8x8xf32>, tensor<f32>
  %p = tg.softmax %m axis = 3 : tensor<1x2x8x8xf32>
  %o = tg.matmul %p, %v : tensor<1x2x8x8xf32>, tensor<1x2x8x8xf32> -> tensor<1x2x8x8xf32>
  return %o : tensor<1x2x8x8xf32>
}
