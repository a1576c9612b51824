// RUN: tg-opt %s --tg-decompose-sdpa --tg-fuse-attention="report=true backward=true" -verify-diagnostics | FileCheck %s
// RUN: tg-opt %s --tg-decompose-sdpa --tg-fuse-attention=backward=false | FileCheck %s --check-prefix=NOBWD
// EQUIV-PIPELINE: tg-decompose-sdpa,tg-fuse-attention{backward=true}
//
// The textbook backward that tg-decompose-sdpa writes for tg.sdpa_grad fuses
// into one tg.attention_grad (same score region as the forward, plus the
// chain rule through it in score_grad); the equivalence test compares it with
// the original tg.sdpa_grad on the interpreter.

// NOBWD-LABEL: func.func @plain
// NOBWD-NOT: tg.attention_grad
// NOBWD: tg.matmul

// CHECK-LABEL: func.func @plain
// CHECK-SAME: (%[[Q:[^:]*]]: tensor<1x2x16x8xf32>, %[[K:[^:]*]]: tensor<1x2x16x8xf32>, %[[V:[^:]*]]: tensor<1x2x16x8xf32>, %[[O:[^:]*]]: tensor<1x2x16x8xf32>, %[[DO:[^:]*]]: tensor<1x2x16x8xf32>, %[[LSE:[^:]*]]: tensor<1x2x16x1xf32>)
// CHECK-NEXT: %[[DQ:.*]], %[[DK:.*]], %[[DV:.*]] = tg.attention_grad %[[Q]], %[[K]], %[[V]], %[[O]], %[[DO]], %[[LSE]] {scale = 0.35355{{[0-9]*}} : f64} :
// CHECK-NEXT: ^bb0(%[[S:.*]]: tensor<f32>,
// CHECK-NEXT: tg.yield %[[S]]
// CHECK-NEXT: } score_grad {
// CHECK-NEXT: }
// CHECK-NEXT: return %[[DQ]], %[[DK]], %[[DV]]
func.func @plain(%q: tensor<1x2x16x8xf32>, %k: tensor<1x2x16x8xf32>, %v: tensor<1x2x16x8xf32>, %o: tensor<1x2x16x8xf32>, %do: tensor<1x2x16x8xf32>, %lse: tensor<1x2x16x1xf32>) -> (tensor<1x2x16x8xf32>, tensor<1x2x16x8xf32>, tensor<1x2x16x8xf32>) {
  %dq, %dk, %dv = tg.sdpa_grad %q, %k, %v, %o, %do, %lse : tensor<1x2x16x8xf32>, tensor<1x2x16x8xf32>, tensor<1x2x16x8xf32>, tensor<1x2x16x8xf32>, tensor<1x2x16x8xf32>, tensor<1x2x16x1xf32>
  return %dq, %dk, %dv : tensor<1x2x16x8xf32>, tensor<1x2x16x8xf32>, tensor<1x2x16x8xf32>
}

// GQA (dK and dV summed onto the kv heads), causal, bf16.
// CHECK-LABEL: func.func @gqa_causal_bf16
// CHECK-NEXT: tg.attention_grad {{.*}} {causal = #tg<causal top_left>, scale = {{.*}}} : tensor<2x4x16x8xbf16>, tensor<2x2x16x8xbf16>, tensor<2x2x16x8xbf16>
// CHECK-NOT: tg.matmul
func.func @gqa_causal_bf16(%q: tensor<2x4x16x8xbf16>, %k: tensor<2x2x16x8xbf16>, %v: tensor<2x2x16x8xbf16>, %o: tensor<2x4x16x8xbf16>, %do: tensor<2x4x16x8xbf16>, %lse: tensor<2x4x16x1xf32>) -> (tensor<2x4x16x8xbf16>, tensor<2x2x16x8xbf16>, tensor<2x2x16x8xbf16>) {
  %dq, %dk, %dv = tg.sdpa_grad %q, %k, %v, %o, %do, %lse {causal = #tg<causal top_left>} : tensor<2x4x16x8xbf16>, tensor<2x2x16x8xbf16>, tensor<2x2x16x8xbf16>, tensor<2x4x16x8xbf16>, tensor<2x4x16x8xbf16>, tensor<2x4x16x1xf32>
  return %dq, %dk, %dv : tensor<2x4x16x8xbf16>, tensor<2x2x16x8xbf16>, tensor<2x2x16x8xbf16>
}

// Soft-capping: its derivative becomes the score_grad region.
// CHECK-LABEL: func.func @softcap
// CHECK-NEXT: tg.attention_grad
// CHECK: tg.tanh
// CHECK: } score_grad {
// CHECK-NEXT: ^bb0(%[[S:[^:]*]]: tensor<f32>, %{{[^:]*}}: tensor<i64>, %{{[^:]*}}: tensor<i64>, %{{[^:]*}}: tensor<i64>, %{{[^:]*}}: tensor<i64>, %[[DZ:[^:]*]]: tensor<f32>):
// CHECK: %[[T:.*]] = tg.tanh %[[S]]
// CHECK: tg.mul %[[T]], %[[T]]
// CHECK: tg.mul %[[DZ]]
// CHECK: tg.yield
func.func @softcap(%q: tensor<1x2x16x8xf32>, %k: tensor<1x2x16x8xf32>, %v: tensor<1x2x16x8xf32>, %o: tensor<1x2x16x8xf32>, %do: tensor<1x2x16x8xf32>, %lse: tensor<1x2x16x1xf32>) -> (tensor<1x2x16x8xf32>, tensor<1x2x16x8xf32>, tensor<1x2x16x8xf32>) {
  %dq, %dk, %dv = tg.sdpa_grad %q, %k, %v, %o, %do, %lse {softcap = 5.0} : tensor<1x2x16x8xf32>, tensor<1x2x16x8xf32>, tensor<1x2x16x8xf32>, tensor<1x2x16x8xf32>, tensor<1x2x16x8xf32>, tensor<1x2x16x1xf32>
  return %dq, %dk, %dv : tensor<1x2x16x8xf32>, tensor<1x2x16x8xf32>, tensor<1x2x16x8xf32>
}

// Bias and ALiBi (additive: no score_grad math), bottom-right causal.
// CHECK-LABEL: func.func @bias_alibi_bottom_right
// CHECK: tg.attention_grad {{.*}} captures({{.*}}) {causal = #tg<causal bottom_right>, scale = {{.*}}} :
// CHECK: } score_grad {
// CHECK-NEXT: }
func.func @bias_alibi_bottom_right(%q: tensor<1x4x8x8xf16>, %k: tensor<1x4x16x8xf16>, %v: tensor<1x4x16x8xf16>, %o: tensor<1x4x8x8xf16>, %do: tensor<1x4x8x8xf16>, %lse: tensor<1x4x8x1xf32>, %bias: tensor<1x4x8x16xf32>) -> (tensor<1x4x8x8xf16>, tensor<1x4x16x8xf16>, tensor<1x4x16x8xf16>) {
  %dq, %dk, %dv = tg.sdpa_grad %q, %k, %v, %o, %do, %lse bias(%bias : tensor<1x4x8x16xf32>) {alibi, causal = #tg<causal bottom_right>} : tensor<1x4x8x8xf16>, tensor<1x4x16x8xf16>, tensor<1x4x16x8xf16>, tensor<1x4x8x8xf16>, tensor<1x4x8x8xf16>, tensor<1x4x8x1xf32>
  return %dq, %dk, %dv : tensor<1x4x8x8xf16>, tensor<1x4x16x8xf16>, tensor<1x4x16x8xf16>
}

// Dropout (the same keep mask for P and dP), padding and a window.
// CHECK-LABEL: func.func @dropout_padding_window
// CHECK-NEXT: tg.attention_grad {{.*}} seq_len_q(%{{.*}}) seq_len_kv(%{{.*}}) seed(%{{.*}}) offset(%{{.*}}) {dropout = 2.000000e-01 : f64, scale = {{.*}}, window_left = 3 : i64, window_right = 1 : i64} :
func.func @dropout_padding_window(%q: tensor<2x2x16x8xf32>, %k: tensor<2x2x16x8xf32>, %v: tensor<2x2x16x8xf32>, %o: tensor<2x2x16x8xf32>, %do: tensor<2x2x16x8xf32>, %lse: tensor<2x2x16x1xf32>, %lq: tensor<2xi32>, %lk: tensor<2xi32>, %seed: tensor<i64>, %off: tensor<i64>) -> (tensor<2x2x16x8xf32>, tensor<2x2x16x8xf32>, tensor<2x2x16x8xf32>) {
  %dq, %dk, %dv = tg.sdpa_grad %q, %k, %v, %o, %do, %lse seq_len_q(%lq : tensor<2xi32>) seq_len_kv(%lk : tensor<2xi32>) seed(%seed) offset(%off) {dropout = 0.2, window_left = 3 : i64, window_right = 1 : i64} : tensor<2x2x16x8xf32>, tensor<2x2x16x8xf32>, tensor<2x2x16x8xf32>, tensor<2x2x16x8xf32>, tensor<2x2x16x8xf32>, tensor<2x2x16x1xf32>
  return %dq, %dk, %dv : tensor<2x2x16x8xf32>, tensor<2x2x16x8xf32>, tensor<2x2x16x8xf32>
}

// A training step: the forward fuses to tg.attention, the backward to
// tg.attention_grad, each exactly once.
// CHECK-LABEL: func.func @training_step
// CHECK: %[[O:.*]], %[[LSE:.*]] = tg.attention {{.*}} {causal = #tg<causal top_left>, scale = {{.*}}, training}
// CHECK: tg.attention_grad %{{.*}}, %{{.*}}, %{{.*}}, %[[O]], %{{.*}}, %[[LSE]] {causal = #tg<causal top_left>
// CHECK-NOT: tg.attention
func.func @training_step(%q: tensor<1x2x16x8xbf16>, %k: tensor<1x2x16x8xbf16>, %v: tensor<1x2x16x8xbf16>, %do: tensor<1x2x16x8xbf16>) -> (tensor<1x2x16x8xbf16>, tensor<1x2x16x8xbf16>, tensor<1x2x16x8xbf16>, tensor<1x2x16x8xbf16>) {
  %o, %lse = tg.sdpa %q, %k, %v {causal = #tg<causal top_left>, training} : tensor<1x2x16x8xbf16>, tensor<1x2x16x8xbf16>, tensor<1x2x16x8xbf16> -> tensor<1x2x16x8xbf16>, tensor<1x2x16x1xf32>
  %dq, %dk, %dv = tg.sdpa_grad %q, %k, %v, %o, %do, %lse {causal = #tg<causal top_left>} : tensor<1x2x16x8xbf16>, tensor<1x2x16x8xbf16>, tensor<1x2x16x8xbf16>, tensor<1x2x16x8xbf16>, tensor<1x2x16x8xbf16>, tensor<1x2x16x1xf32>
  return %o, %dq, %dk, %dv : tensor<1x2x16x8xbf16>, tensor<1x2x16x8xbf16>, tensor<1x2x16x8xbf16>, tensor<1x2x16x8xbf16>
}
