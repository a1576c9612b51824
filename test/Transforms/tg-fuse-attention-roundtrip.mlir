// RUN: tg-opt %s --tg-decompose-sdpa --tg-fuse-attention=report=true -verify-diagnostics | FileCheck %s
// EQUIV-PIPELINE: tg-decompose-sdpa,tg-fuse-attention
//
// tg.sdpa -> tg-decompose-sdpa -> tg-fuse-attention gives one tg.attention
// for every sdpa option; the interpreter-equivalence test compares it with
// the original tg.sdpa.

// CHECK-LABEL: func.func @plain_bf16
// CHECK-NEXT: %[[O:.*]] = tg.attention %{{.*}}, %{{.*}}, %{{.*}} {scale = 0.35355{{[0-9]*}} : f64} :
// CHECK-NEXT: ^bb0(%[[S:.*]]: tensor<f32>,
// CHECK-NEXT: tg.yield %[[S]]
// CHECK-NEXT: }
// CHECK-NEXT: return %[[O]]
func.func @plain_bf16(%q: tensor<1x2x16x8xbf16>, %k: tensor<1x2x16x8xbf16>, %v: tensor<1x2x16x8xbf16>) -> tensor<1x2x16x8xbf16> {
  %o = tg.sdpa %q, %k, %v : tensor<1x2x16x8xbf16>, tensor<1x2x16x8xbf16>, tensor<1x2x16x8xbf16> -> tensor<1x2x16x8xbf16>
  return %o : tensor<1x2x16x8xbf16>
}

// CHECK-LABEL: func.func @scale_f16
// CHECK-NEXT: tg.attention {{.*}} {scale = 0.2{{0*[0-9]*}} : f64} :
func.func @scale_f16(%q: tensor<1x2x16x8xf16>, %k: tensor<1x2x16x8xf16>, %v: tensor<1x2x16x8xf16>) -> tensor<1x2x16x8xf16> {
  %o = tg.sdpa %q, %k, %v {scale = 0.2} : tensor<1x2x16x8xf16>, tensor<1x2x16x8xf16>, tensor<1x2x16x8xf16> -> tensor<1x2x16x8xf16>
  return %o : tensor<1x2x16x8xf16>
}

// CHECK-LABEL: func.func @causal_top_left_gqa
// CHECK-NEXT: tg.attention {{.*}} {causal = #tg<causal top_left>, scale = {{.*}}} : tensor<2x4x16x8xbf16>, tensor<2x2x16x8xbf16>, tensor<2x2x16x8xbf16>
// CHECK-NEXT: ^bb0(%[[S:.*]]: tensor<f32>,
// CHECK-NEXT: tg.yield %[[S]]
func.func @causal_top_left_gqa(%q: tensor<2x4x16x8xbf16>, %k: tensor<2x2x16x8xbf16>, %v: tensor<2x2x16x8xbf16>) -> tensor<2x4x16x8xbf16> {
  %o = tg.sdpa %q, %k, %v {causal = #tg<causal top_left>} : tensor<2x4x16x8xbf16>, tensor<2x2x16x8xbf16>, tensor<2x2x16x8xbf16> -> tensor<2x4x16x8xbf16>
  return %o : tensor<2x4x16x8xbf16>
}

// CHECK-LABEL: func.func @causal_bottom_right_mqa
// CHECK-NEXT: tg.attention {{.*}} {causal = #tg<causal bottom_right>, scale = {{.*}}} : tensor<1x4x8x8xf32>, tensor<1x1x16x8xf32>, tensor<1x1x16x8xf32>
func.func @causal_bottom_right_mqa(%q: tensor<1x4x8x8xf32>, %k: tensor<1x1x16x8xf32>, %v: tensor<1x1x16x8xf32>) -> tensor<1x4x8x8xf32> {
  %o = tg.sdpa %q, %k, %v {causal = #tg<causal bottom_right>} : tensor<1x4x8x8xf32>, tensor<1x1x16x8xf32>, tensor<1x1x16x8xf32> -> tensor<1x4x8x8xf32>
  return %o : tensor<1x4x8x8xf32>
}

// CHECK-LABEL: func.func @window_left_right
// CHECK-NEXT: tg.attention {{.*}} {scale = {{.*}}, window_left = 3 : i64, window_right = 2 : i64} :
// CHECK-NEXT: ^bb0(%[[S:.*]]: tensor<f32>,
// CHECK-NEXT: tg.yield %[[S]]
func.func @window_left_right(%q: tensor<1x2x16x8xf32>, %k: tensor<1x2x16x8xf32>, %v: tensor<1x2x16x8xf32>) -> tensor<1x2x16x8xf32> {
  %o = tg.sdpa %q, %k, %v {window_left = 3 : i64, window_right = 2 : i64} : tensor<1x2x16x8xf32>, tensor<1x2x16x8xf32>, tensor<1x2x16x8xf32> -> tensor<1x2x16x8xf32>
  return %o : tensor<1x2x16x8xf32>
}

// CHECK-LABEL: func.func @causal_window_bottom_right
// CHECK-NEXT: tg.attention {{.*}} {causal = #tg<causal bottom_right>, scale = {{.*}}, window_left = 4 : i64} :
func.func @causal_window_bottom_right(%q: tensor<1x2x8x8xbf16>, %k: tensor<1x2x16x8xbf16>, %v: tensor<1x2x16x8xbf16>) -> tensor<1x2x8x8xbf16> {
  %o = tg.sdpa %q, %k, %v {causal = #tg<causal bottom_right>, window_left = 4 : i64} : tensor<1x2x8x8xbf16>, tensor<1x2x16x8xbf16>, tensor<1x2x16x8xbf16> -> tensor<1x2x8x8xbf16>
  return %o : tensor<1x2x8x8xbf16>
}

// The bias (bf16, broadcast over the batch) is captured and converted.
// CHECK-LABEL: func.func @bias_bf16
// CHECK-SAME: %[[B:[^:]*]]: tensor<1x2x16x16xbf16>)
// CHECK-NEXT: tg.attention {{.*}} captures(%[[B]] : tensor<1x2x16x16xbf16>)
func.func @bias_bf16(%q: tensor<2x2x16x8xbf16>, %k: tensor<2x2x16x8xbf16>, %v: tensor<2x2x16x8xbf16>, %bias: tensor<1x2x16x16xbf16>) -> tensor<2x2x16x8xbf16> {
  %o = tg.sdpa %q, %k, %v bias(%bias : tensor<1x2x16x16xbf16>) : tensor<2x2x16x8xbf16>, tensor<2x2x16x8xbf16>, tensor<2x2x16x8xbf16> -> tensor<2x2x16x8xbf16>
  return %o : tensor<2x2x16x8xbf16>
}

// Soft-capping stays region math.
// CHECK-LABEL: func.func @softcap
// CHECK-NEXT: tg.attention
// CHECK: tg.tanh
func.func @softcap(%q: tensor<1x2x16x8xf32>, %k: tensor<1x2x16x8xf32>, %v: tensor<1x2x16x8xf32>) -> tensor<1x2x16x8xf32> {
  %o = tg.sdpa %q, %k, %v {softcap = 20.0} : tensor<1x2x16x8xf32>, tensor<1x2x16x8xf32>, tensor<1x2x16x8xf32> -> tensor<1x2x16x8xf32>
  return %o : tensor<1x2x16x8xf32>
}

// ALiBi with causal masking: the slopes are captured, the distance is index
// math, the causal mask is lifted.
// CHECK-LABEL: func.func @alibi_causal
// CHECK: tg.attention {{.*}} captures(%{{.*}} : tensor<1x4x1x1xf32>) {causal = #tg<causal top_left>
func.func @alibi_causal(%q: tensor<1x4x16x8xbf16>, %k: tensor<1x4x16x8xbf16>, %v: tensor<1x4x16x8xbf16>) -> tensor<1x4x16x8xbf16> {
  %o = tg.sdpa %q, %k, %v {alibi, causal = #tg<causal top_left>} : tensor<1x4x16x8xbf16>, tensor<1x4x16x8xbf16>, tensor<1x4x16x8xbf16> -> tensor<1x4x16x8xbf16>
  return %o : tensor<1x4x16x8xbf16>
}

// Padding of keys and queries: lifted to the seq_len operands.
// CHECK-LABEL: func.func @padding
// CHECK-SAME: %[[LQ:[^:]*]]: tensor<3xi32>, %[[LK:[^:]*]]: tensor<3xi64>)
// CHECK-NEXT: tg.attention %{{.*}}, %{{.*}}, %{{.*}} seq_len_q(%[[LQ]] : tensor<3xi32>) seq_len_kv(%[[LK]] : tensor<3xi64>) {scale = {{.*}}} :
// CHECK-NEXT: ^bb0(%[[S:.*]]: tensor<f32>,
// CHECK-NEXT: tg.yield %[[S]]
func.func @padding(%q: tensor<3x2x8x8xf32>, %k: tensor<3x2x16x8xf32>, %v: tensor<3x2x16x8xf32>, %lq: tensor<3xi32>, %lk: tensor<3xi64>) -> tensor<3x2x8x8xf32> {
  %o = tg.sdpa %q, %k, %v seq_len_q(%lq : tensor<3xi32>) seq_len_kv(%lk : tensor<3xi64>) : tensor<3x2x8x8xf32>, tensor<3x2x16x8xf32>, tensor<3x2x16x8xf32> -> tensor<3x2x8x8xf32>
  return %o : tensor<3x2x8x8xf32>
}

// Bottom-right causal with padding uses the actual lengths: recognised
// symbolically as diag = q + Lkv[b] - Lq[b].
// CHECK-LABEL: func.func @padding_causal_bottom_right
// CHECK-NEXT: tg.attention %{{.*}}, %{{.*}}, %{{.*}} seq_len_q(%{{.*}}) seq_len_kv(%{{.*}}) {causal = #tg<causal bottom_right>, scale = {{.*}}} :
// CHECK-NEXT: ^bb0(%[[S:.*]]: tensor<f32>,
// CHECK-NEXT: tg.yield %[[S]]
func.func @padding_causal_bottom_right(%q: tensor<2x2x8x8xbf16>, %k: tensor<2x2x16x8xbf16>, %v: tensor<2x2x16x8xbf16>, %lq: tensor<2xi32>, %lk: tensor<2xi32>) -> tensor<2x2x8x8xbf16> {
  %o = tg.sdpa %q, %k, %v seq_len_q(%lq : tensor<2xi32>) seq_len_kv(%lk : tensor<2xi32>) {causal = #tg<causal bottom_right>} : tensor<2x2x8x8xbf16>, tensor<2x2x16x8xbf16>, tensor<2x2x16x8xbf16> -> tensor<2x2x8x8xbf16>
  return %o : tensor<2x2x8x8xbf16>
}

// Only key padding with bottom-right causal: Lq is the static Sq.
// CHECK-LABEL: func.func @kv_padding_causal_bottom_right
// CHECK-NEXT: tg.attention %{{.*}}, %{{.*}}, %{{.*}} seq_len_kv(%{{.*}}) {causal = #tg<causal bottom_right>, scale = {{.*}}, window_left = 2 : i64} :
func.func @kv_padding_causal_bottom_right(%q: tensor<2x2x8x8xf32>, %k: tensor<2x2x16x8xf32>, %v: tensor<2x2x16x8xf32>, %lk: tensor<2xi32>) -> tensor<2x2x8x8xf32> {
  %o = tg.sdpa %q, %k, %v seq_len_kv(%lk : tensor<2xi32>) {causal = #tg<causal bottom_right>, window_left = 2 : i64} : tensor<2x2x8x8xf32>, tensor<2x2x16x8xf32>, tensor<2x2x16x8xf32> -> tensor<2x2x8x8xf32>
  return %o : tensor<2x2x8x8xf32>
}

// Dropout.
// CHECK-LABEL: func.func @dropout
// CHECK-NEXT: tg.attention {{.*}} seed(%{{.*}}) offset(%{{.*}}) {dropout = 2.000000e-01 : f64, scale = {{.*}}} :
func.func @dropout(%q: tensor<1x2x16x8xbf16>, %k: tensor<1x2x16x8xbf16>, %v: tensor<1x2x16x8xbf16>, %seed: tensor<i64>, %offset: tensor<i64>) -> tensor<1x2x16x8xbf16> {
  %o = tg.sdpa %q, %k, %v seed(%seed) offset(%offset) {dropout = 0.2} : tensor<1x2x16x8xbf16>, tensor<1x2x16x8xbf16>, tensor<1x2x16x8xbf16> -> tensor<1x2x16x8xbf16>
  return %o : tensor<1x2x16x8xbf16>
}

// Training: the stats come back from the fused op.
// CHECK-LABEL: func.func @training_causal
// CHECK-NEXT: %[[O:.*]], %[[ST:.*]] = tg.attention {{.*}} {causal = #tg<causal top_left>, scale = {{.*}}, training} :
// CHECK: return %[[O]], %[[ST]]
func.func @training_causal(%q: tensor<1x2x16x8xf16>, %k: tensor<1x2x16x8xf16>, %v: tensor<1x2x16x8xf16>) -> (tensor<1x2x16x8xf16>, tensor<1x2x16x1xf32>) {
  %o, %st = tg.sdpa %q, %k, %v {causal = #tg<causal top_left>, training} : tensor<1x2x16x8xf16>, tensor<1x2x16x8xf16>, tensor<1x2x16x8xf16> -> tensor<1x2x16x8xf16>, tensor<1x2x16x1xf32>
  return %o, %st : tensor<1x2x16x8xf16>, tensor<1x2x16x1xf32>
}

// Everything at once.
// CHECK-LABEL: func.func @everything
// CHECK: %[[O:.*]], %[[ST:.*]] = tg.attention %{{.*}}, %{{.*}}, %{{.*}} seq_len_q(%{{.*}}) seq_len_kv(%{{.*}}) seed(%{{.*}}) offset(%{{.*}}) captures({{.*}}) {causal = #tg<causal bottom_right>, dropout = 1.000000e-01 : f64, scale = {{.*}}, training, window_left = 3 : i64} : tensor<2x4x8x8xf32>, tensor<2x2x16x8xf32>, tensor<2x2x16x8xf32>
// CHECK: tg.tanh
// CHECK-NOT: tg.select
// CHECK: return %[[O]], %[[ST]]
func.func @everything(%q: tensor<2x4x8x8xf32>, %k: tensor<2x2x16x8xf32>, %v: tensor<2x2x16x8xf32>, %bias: tensor<1x4x8x16xf32>, %lq: tensor<2xi32>, %lk: tensor<2xi32>, %seed: tensor<i64>, %off: tensor<i64>) -> (tensor<2x4x8x8xf32>, tensor<2x4x8x1xf32>) {
  %o, %st = tg.sdpa %q, %k, %v bias(%bias : tensor<1x4x8x16xf32>) seq_len_q(%lq : tensor<2xi32>) seq_len_kv(%lk : tensor<2xi32>) seed(%seed) offset(%off) {causal = #tg<causal bottom_right>, window_left = 3 : i64, softcap = 30.0, alibi, training, dropout = 0.1, scale = 0.3} : tensor<2x4x8x8xf32>, tensor<2x2x16x8xf32>, tensor<2x2x16x8xf32> -> tensor<2x4x8x8xf32>, tensor<2x4x8x1xf32>
  return %o, %st : tensor<2x4x8x8xf32>, tensor<2x4x8x1xf32>
}
