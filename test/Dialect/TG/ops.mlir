// One instance of every tg op: it parses, verifies, prints, and parses back,
// both in the custom form and in the generic form.
// RUN: tg-opt %s | tg-opt | FileCheck %s
// RUN: tg-opt %s --mlir-print-op-generic | tg-opt | FileCheck %s

// CHECK-LABEL: func.func @all_ops
// CHECK-SAME: (%[[X:.*]]: tensor<2x4x8x8xf32>, %[[BIAS:.*]]: tensor<1x4x8x8xf32>, %[[SEED:.*]]: tensor<i64>, %[[OFFSET:.*]]: tensor<i64>)
func.func @all_ops(%x: tensor<2x4x8x8xf32>, %bias: tensor<1x4x8x8xf32>,
                   %seed: tensor<i64>, %offset: tensor<i64>) -> tensor<2x4x8x8xf32> {
  // CHECK: %[[C:.*]] = tg.constant dense<5.000000e-01> : tensor<f32>
  %c = tg.constant dense<0.5> : tensor<f32>
  // CHECK: %[[ADD:.*]] = tg.add %[[X]], %[[BIAS]] : tensor<2x4x8x8xf32>, tensor<1x4x8x8xf32>
  %add = tg.add %x, %bias : tensor<2x4x8x8xf32>, tensor<1x4x8x8xf32>
  // CHECK: %[[SUB:.*]] = tg.sub %[[ADD]], %[[C]] : tensor<2x4x8x8xf32>, tensor<f32>
  %sub = tg.sub %add, %c : tensor<2x4x8x8xf32>, tensor<f32>
  // CHECK: %[[MUL:.*]] = tg.mul %[[SUB]], %[[C]] : tensor<2x4x8x8xf32>, tensor<f32>
  %mul = tg.mul %sub, %c : tensor<2x4x8x8xf32>, tensor<f32>
  // CHECK: %[[DIV:.*]] = tg.div %[[MUL]], %[[C]] : tensor<2x4x8x8xf32>, tensor<f32>
  %div = tg.div %mul, %c : tensor<2x4x8x8xf32>, tensor<f32>
  // CHECK: %[[MAX:.*]] = tg.max %[[DIV]], %[[X]] : tensor<2x4x8x8xf32>, tensor<2x4x8x8xf32>
  %max = tg.max %div, %x : tensor<2x4x8x8xf32>, tensor<2x4x8x8xf32>
  // CHECK: %[[MIN:.*]] = tg.min %[[MAX]], %[[C]] : tensor<2x4x8x8xf32>, tensor<f32>
  %min = tg.min %max, %c : tensor<2x4x8x8xf32>, tensor<f32>
  // CHECK: %[[POW:.*]] = tg.pow %[[MIN]], %[[C]] : tensor<2x4x8x8xf32>, tensor<f32>
  %pow = tg.pow %min, %c : tensor<2x4x8x8xf32>, tensor<f32>
  // CHECK: %[[EXP:.*]] = tg.exp %[[POW]] : tensor<2x4x8x8xf32>
  %exp = tg.exp %pow : tensor<2x4x8x8xf32>
  // CHECK: %[[LOG:.*]] = tg.log %[[EXP]] : tensor<2x4x8x8xf32>
  %log = tg.log %exp : tensor<2x4x8x8xf32>
  // CHECK: %[[TANH:.*]] = tg.tanh %[[LOG]] : tensor<2x4x8x8xf32>
  %tanh = tg.tanh %log : tensor<2x4x8x8xf32>
  // CHECK: %[[NEG:.*]] = tg.neg %[[TANH]] : tensor<2x4x8x8xf32>
  %neg = tg.neg %tanh : tensor<2x4x8x8xf32>
  // CHECK: %[[ABS:.*]] = tg.abs %[[NEG]] : tensor<2x4x8x8xf32>
  %abs = tg.abs %neg : tensor<2x4x8x8xf32>
  // CHECK: %[[SQRT:.*]] = tg.sqrt %[[ABS]] : tensor<2x4x8x8xf32>
  %sqrt = tg.sqrt %abs : tensor<2x4x8x8xf32>
  // CHECK: %[[RSQRT:.*]] = tg.rsqrt %[[SQRT]] : tensor<2x4x8x8xf32>
  %rsqrt = tg.rsqrt %sqrt : tensor<2x4x8x8xf32>
  // CHECK: %[[RECIP:.*]] = tg.recip %[[RSQRT]] : tensor<2x4x8x8xf32>
  %recip = tg.recip %rsqrt : tensor<2x4x8x8xf32>
  // CHECK: %[[SIG:.*]] = tg.sigmoid %[[RECIP]] : tensor<2x4x8x8xf32>
  %sig = tg.sigmoid %recip : tensor<2x4x8x8xf32>
  // CHECK: %[[QI:.*]] = tg.gen_index axis = 2 : tensor<1x1x8x8xi32>
  %qi = tg.gen_index axis = 2 : tensor<1x1x8x8xi32>
  // CHECK: %[[KI:.*]] = tg.gen_index axis = 3 : tensor<1x1x8x8xi32>
  %ki = tg.gen_index axis = 3 : tensor<1x1x8x8xi32>
  // The predicate prints as a bare keyword with single spaces.
  // CHECK: %[[KEEP:.*]] = tg.cmp le, %[[KI]], %[[QI]] : tensor<1x1x8x8xi32>, tensor<1x1x8x8xi32>
  %keep = tg.cmp le, %ki, %qi : tensor<1x1x8x8xi32>, tensor<1x1x8x8xi32>
  // CHECK: %[[NINF:.*]] = tg.constant dense<0xFF800000> : tensor<f32>
  %ninf = tg.constant dense<0xFF800000> : tensor<f32>
  // CHECK: %[[SEL:.*]] = tg.select %[[KEEP]], %[[SIG]], %[[NINF]] : tensor<1x1x8x8xi1>, tensor<2x4x8x8xf32>, tensor<f32>
  %sel = tg.select %keep, %sig, %ninf : tensor<1x1x8x8xi1>, tensor<2x4x8x8xf32>, tensor<f32>
  // CHECK: %[[H:.*]] = tg.cast %[[SEL]] : tensor<2x4x8x8xf32> to tensor<2x4x8x8xbf16>
  %h = tg.cast %sel : tensor<2x4x8x8xf32> to tensor<2x4x8x8xbf16>
  // CHECK: %[[HF:.*]] = tg.cast %[[H]] : tensor<2x4x8x8xbf16> to tensor<2x4x8x8xf32>
  %hf = tg.cast %h : tensor<2x4x8x8xbf16> to tensor<2x4x8x8xf32>
  // CHECK: %[[RED:.*]] = tg.reduce sum %[[HF]] dims = [3] keepdim : tensor<2x4x8x8xf32> -> tensor<2x4x8x1xf32>
  %red = tg.reduce sum %hf dims = [3] keepdim : tensor<2x4x8x8xf32> -> tensor<2x4x8x1xf32>
  // CHECK: %[[T:.*]] = tg.transpose %[[HF]] perm = [0, 1, 3, 2] : tensor<2x4x8x8xf32> -> tensor<2x4x8x8xf32>
  %t = tg.transpose %hf perm = [0, 1, 3, 2] : tensor<2x4x8x8xf32> -> tensor<2x4x8x8xf32>
  // CHECK: %[[R:.*]] = tg.reshape %[[RED]] : tensor<2x4x8x1xf32> -> tensor<2x4x1x8xf32>
  %r = tg.reshape %red : tensor<2x4x8x1xf32> -> tensor<2x4x1x8xf32>
  // CHECK: %[[B:.*]] = tg.broadcast %[[R]] : tensor<2x4x1x8xf32> -> tensor<2x4x8x8xf32>
  %b = tg.broadcast %r : tensor<2x4x1x8xf32> -> tensor<2x4x8x8xf32>
  // CHECK: %[[MM:.*]] = tg.matmul %[[T]], %[[B]] : tensor<2x4x8x8xf32>, tensor<2x4x8x8xf32> -> tensor<2x4x8x8xf32>
  %mm = tg.matmul %t, %b : tensor<2x4x8x8xf32>, tensor<2x4x8x8xf32> -> tensor<2x4x8x8xf32>
  // CHECK: %[[SM:.*]], %{{.*}} = tg.softmax %[[MM]] axis = 3 : tensor<2x4x8x8xf32> stats tensor<2x4x8x1xf32>
  %sm, %lse = tg.softmax %mm axis = 3 : tensor<2x4x8x8xf32> stats tensor<2x4x8x1xf32>
  // CHECK: %[[DR:.*]] = tg.dropout %[[SM]], %[[SEED]], %[[OFFSET]] prob = 1.000000e-01 : tensor<2x4x8x8xf32>
  %dr = tg.dropout %sm, %seed, %offset prob = 0.1 : tensor<2x4x8x8xf32>
  // CHECK: %[[O:.*]] = tg.sdpa %[[DR]], %[[X]], %[[X]] : tensor<2x4x8x8xf32>, tensor<2x4x8x8xf32>, tensor<2x4x8x8xf32> -> tensor<2x4x8x8xf32>
  %o = tg.sdpa %dr, %x, %x : tensor<2x4x8x8xf32>, tensor<2x4x8x8xf32>, tensor<2x4x8x8xf32> -> tensor<2x4x8x8xf32>
  // CHECK: %[[O2:.*]], %[[ST:.*]] = tg.sdpa %[[O]], %[[X]], %[[X]] {training} : {{.*}} -> tensor<2x4x8x8xf32>, tensor<2x4x8x1xf32>
  %o2, %st = tg.sdpa %o, %x, %x {training} : tensor<2x4x8x8xf32>, tensor<2x4x8x8xf32>, tensor<2x4x8x8xf32> -> tensor<2x4x8x8xf32>, tensor<2x4x8x1xf32>
  // CHECK: %[[DQ:.*]], %[[DK:.*]], %[[DV:.*]] = tg.sdpa_grad %[[O]], %[[X]], %[[X]], %[[O2]], %[[O2]], %[[ST]] :
  %dq, %dk, %dv = tg.sdpa_grad %o, %x, %x, %o2, %o2, %st : tensor<2x4x8x8xf32>, tensor<2x4x8x8xf32>, tensor<2x4x8x8xf32>, tensor<2x4x8x8xf32>, tensor<2x4x8x8xf32>, tensor<2x4x8x1xf32>
  // CHECK: %[[A:.*]] = tg.attention %[[DQ]], %[[DK]], %[[DV]] : {{.*}} -> tensor<2x4x8x8xf32> score {
  // CHECK-NEXT: ^bb0(%[[S:.*]]: tensor<f32>, %{{.*}}: tensor<i64>, %{{.*}}: tensor<i64>, %{{.*}}: tensor<i64>, %{{.*}}: tensor<i64>):
  // CHECK-NEXT: tg.yield %[[S]] : tensor<f32>
  // CHECK-NEXT: }
  %a = tg.attention %dq, %dk, %dv : tensor<2x4x8x8xf32>, tensor<2x4x8x8xf32>, tensor<2x4x8x8xf32> -> tensor<2x4x8x8xf32> score {
  ^bb0(%s: tensor<f32>, %bb: tensor<i64>, %hh: tensor<i64>, %q: tensor<i64>, %k: tensor<i64>):
    tg.yield %s : tensor<f32>
  }
  // CHECK: %[[FM:.*]] = tg.fused_matmul %[[A]], %[[X]] : tensor<2x4x8x8xf32>, tensor<2x4x8x8xf32> -> tensor<2x4x8x8xf32> prologue_a {
  // CHECK-NEXT: } prologue_b {
  // CHECK-NEXT: } epilogue {
  // CHECK-NEXT: }
  %fm = tg.fused_matmul %a, %x : tensor<2x4x8x8xf32>, tensor<2x4x8x8xf32> -> tensor<2x4x8x8xf32> prologue_a {} prologue_b {} epilogue {}
  // CHECK: return %[[FM]]
  return %fm : tensor<2x4x8x8xf32>
}
