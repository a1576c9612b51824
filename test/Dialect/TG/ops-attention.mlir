// Every optional operand and attribute of tg.sdpa, tg.sdpa_grad and
// tg.attention, with GQA shapes (Hq = 8, Hkv = 2) and Dv != D.
// RUN: tg-opt %s | tg-opt | FileCheck %s
// RUN: tg-opt %s --mlir-print-op-generic | tg-opt | FileCheck %s

// CHECK-LABEL: func.func @sdpa_forms
// CHECK-SAME: (%[[Q:[^:]*]]: tensor<2x8x16x64xbf16>, %[[K:[^:]*]]: tensor<2x2x32x64xbf16>, %[[V:[^:]*]]: tensor<2x2x32x48xbf16>, %[[BIAS:[^:]*]]: tensor<1x8x16x32xf32>, %[[LQ:[^:]*]]: tensor<2xi32>, %[[LKV:[^:]*]]: tensor<2xi64>, %[[SEED:[^:]*]]: tensor<i64>, %[[OFF:[^:]*]]: tensor<i64>)
func.func @sdpa_forms(%q: tensor<2x8x16x64xbf16>, %k: tensor<2x2x32x64xbf16>, %v: tensor<2x2x32x48xbf16>,
                      %bias: tensor<1x8x16x32xf32>, %lq: tensor<2xi32>, %lkv: tensor<2xi64>,
                      %seed: tensor<i64>, %offset: tensor<i64>) {
  // CHECK: tg.sdpa %[[Q]], %[[K]], %[[V]] : tensor<2x8x16x64xbf16>, tensor<2x2x32x64xbf16>, tensor<2x2x32x48xbf16> -> tensor<2x8x16x48xbf16>
  %0 = tg.sdpa %q, %k, %v : tensor<2x8x16x64xbf16>, tensor<2x2x32x64xbf16>, tensor<2x2x32x48xbf16> -> tensor<2x8x16x48xbf16>
  // CHECK: tg.sdpa %[[Q]], %[[K]], %[[V]] bias(%[[BIAS]] : tensor<1x8x16x32xf32>) :
  %1 = tg.sdpa %q, %k, %v bias(%bias : tensor<1x8x16x32xf32>) : tensor<2x8x16x64xbf16>, tensor<2x2x32x64xbf16>, tensor<2x2x32x48xbf16> -> tensor<2x8x16x48xbf16>
  // CHECK: tg.sdpa %[[Q]], %[[K]], %[[V]] seq_len_q(%[[LQ]] : tensor<2xi32>) :
  %2 = tg.sdpa %q, %k, %v seq_len_q(%lq : tensor<2xi32>) : tensor<2x8x16x64xbf16>, tensor<2x2x32x64xbf16>, tensor<2x2x32x48xbf16> -> tensor<2x8x16x48xbf16>
  // CHECK: tg.sdpa %[[Q]], %[[K]], %[[V]] seq_len_kv(%[[LKV]] : tensor<2xi64>) :
  %3 = tg.sdpa %q, %k, %v seq_len_kv(%lkv : tensor<2xi64>) : tensor<2x8x16x64xbf16>, tensor<2x2x32x64xbf16>, tensor<2x2x32x48xbf16> -> tensor<2x8x16x48xbf16>
  // Seed and offset without dropout are allowed (unused).
  // CHECK: tg.sdpa %[[Q]], %[[K]], %[[V]] seed(%[[SEED]]) offset(%[[OFF]]) :
  %4 = tg.sdpa %q, %k, %v seed(%seed) offset(%offset) : tensor<2x8x16x64xbf16>, tensor<2x2x32x64xbf16>, tensor<2x2x32x48xbf16> -> tensor<2x8x16x48xbf16>
  // CHECK: tg.sdpa %[[Q]], %[[K]], %[[V]] {alibi, causal = #tg<causal top_left>, scale = 1.250000e-01 : f64, softcap = 3.000000e+01 : f64, window_left = 8 : i64, window_right = 0 : i64} :
  %5 = tg.sdpa %q, %k, %v {scale = 0.125 : f64, softcap = 30.0 : f64, alibi, causal = #tg<causal top_left>, window_left = 8 : i64, window_right = 0 : i64} : tensor<2x8x16x64xbf16>, tensor<2x2x32x64xbf16>, tensor<2x2x32x48xbf16> -> tensor<2x8x16x48xbf16>
  // Everything at once, in training mode.
  // CHECK: tg.sdpa %[[Q]], %[[K]], %[[V]] bias(%[[BIAS]] : tensor<1x8x16x32xf32>) seq_len_q(%[[LQ]] : tensor<2xi32>) seq_len_kv(%[[LKV]] : tensor<2xi64>) seed(%[[SEED]]) offset(%[[OFF]]) {causal = #tg<causal bottom_right>, dropout = 1.000000e-01 : f64, training, window_left = 4 : i64} : tensor<2x8x16x64xbf16>, tensor<2x2x32x64xbf16>, tensor<2x2x32x48xbf16> -> tensor<2x8x16x48xbf16>, tensor<2x8x16x1xf32>
  %6, %lse = tg.sdpa %q, %k, %v bias(%bias : tensor<1x8x16x32xf32>) seq_len_q(%lq : tensor<2xi32>)
      seq_len_kv(%lkv : tensor<2xi64>) seed(%seed) offset(%offset)
      {causal = #tg<causal bottom_right>, window_left = 4 : i64, dropout = 0.1 : f64, training}
      : tensor<2x8x16x64xbf16>, tensor<2x2x32x64xbf16>, tensor<2x2x32x48xbf16> -> tensor<2x8x16x48xbf16>, tensor<2x8x16x1xf32>
  // The default causal mode is omitted when printed.
  // CHECK: tg.sdpa %[[Q]], %[[K]], %[[V]] : tensor<2x8x16x64xbf16>
  %7 = tg.sdpa %q, %k, %v {causal = #tg<causal none>} : tensor<2x8x16x64xbf16>, tensor<2x2x32x64xbf16>, tensor<2x2x32x48xbf16> -> tensor<2x8x16x48xbf16>
  return
}

// CHECK-LABEL: func.func @sdpa_grad_forms
// CHECK-SAME: (%[[Q:[^:]*]]: tensor<1x4x8x16xf16>, %[[K:[^:]*]]: tensor<1x1x8x16xf16>, %[[V:[^:]*]]: tensor<1x1x8x16xf16>, %[[O:[^:]*]]: tensor<1x4x8x16xf16>, %[[DO:[^:]*]]: tensor<1x4x8x16xf16>, %[[LSE:[^:]*]]: tensor<1x4x8x1xf32>, %[[BIAS:[^:]*]]: tensor<1x1x8x8xf16>, %[[L:[^:]*]]: tensor<1xi32>, %[[SEED:[^:]*]]: tensor<i64>, %[[OFF:[^:]*]]: tensor<i64>)
func.func @sdpa_grad_forms(%q: tensor<1x4x8x16xf16>, %k: tensor<1x1x8x16xf16>, %v: tensor<1x1x8x16xf16>,
                           %o: tensor<1x4x8x16xf16>, %do: tensor<1x4x8x16xf16>, %lse: tensor<1x4x8x1xf32>,
                           %bias: tensor<1x1x8x8xf16>, %l: tensor<1xi32>, %seed: tensor<i64>, %offset: tensor<i64>) {
  // CHECK: tg.sdpa_grad %[[Q]], %[[K]], %[[V]], %[[O]], %[[DO]], %[[LSE]] : tensor<1x4x8x16xf16>, tensor<1x1x8x16xf16>, tensor<1x1x8x16xf16>, tensor<1x4x8x16xf16>, tensor<1x4x8x16xf16>, tensor<1x4x8x1xf32>
  %0:3 = tg.sdpa_grad %q, %k, %v, %o, %do, %lse : tensor<1x4x8x16xf16>, tensor<1x1x8x16xf16>, tensor<1x1x8x16xf16>, tensor<1x4x8x16xf16>, tensor<1x4x8x16xf16>, tensor<1x4x8x1xf32>
  // CHECK: tg.sdpa_grad %[[Q]], %[[K]], %[[V]], %[[O]], %[[DO]], %[[LSE]] bias(%[[BIAS]] : tensor<1x1x8x8xf16>) seq_len_q(%[[L]] : tensor<1xi32>) seq_len_kv(%[[L]] : tensor<1xi32>) seed(%[[SEED]]) offset(%[[OFF]]) {alibi, causal = #tg<causal bottom_right>, dropout = 2.500000e-01 : f64, scale = 5.000000e-01 : f64, softcap = 5.000000e+01 : f64, window_left = 2 : i64, window_right = 3 : i64} :
  %1:3 = tg.sdpa_grad %q, %k, %v, %o, %do, %lse bias(%bias : tensor<1x1x8x8xf16>) seq_len_q(%l : tensor<1xi32>)
      seq_len_kv(%l : tensor<1xi32>) seed(%seed) offset(%offset)
      {causal = #tg<causal bottom_right>, window_left = 2 : i64, window_right = 3 : i64, dropout = 0.25 : f64,
       scale = 0.5 : f64, softcap = 50.0 : f64, alibi}
      : tensor<1x4x8x16xf16>, tensor<1x1x8x16xf16>, tensor<1x1x8x16xf16>, tensor<1x4x8x16xf16>, tensor<1x4x8x16xf16>, tensor<1x4x8x1xf32>
  // CHECK: tg.sdpa_grad %[[Q]], %[[K]], %[[V]], %[[O]], %[[DO]], %[[LSE]] seq_len_kv(%[[L]] : tensor<1xi32>) :
  %2:3 = tg.sdpa_grad %q, %k, %v, %o, %do, %lse seq_len_kv(%l : tensor<1xi32>) : tensor<1x4x8x16xf16>, tensor<1x1x8x16xf16>, tensor<1x1x8x16xf16>, tensor<1x4x8x16xf16>, tensor<1x4x8x16xf16>, tensor<1x4x8x1xf32>
  return
}

// CHECK-LABEL: func.func @attention_forms
// CHECK-SAME: (%[[Q:[^:]*]]: tensor<2x8x16x64xf16>, %[[K:[^:]*]]: tensor<2x2x32x64xf16>, %[[V:[^:]*]]: tensor<2x2x32x64xf16>, %[[BIAS:[^:]*]]: tensor<1x8x16x32xf32>, %[[SLOPES:[^:]*]]: tensor<1x8x1x1xf32>, %[[LQ:[^:]*]]: tensor<2xi32>, %[[LKV:[^:]*]]: tensor<2xi32>, %[[SEED:[^:]*]]: tensor<i64>, %[[OFF:[^:]*]]: tensor<i64>)
func.func @attention_forms(%q: tensor<2x8x16x64xf16>, %k: tensor<2x2x32x64xf16>, %v: tensor<2x2x32x64xf16>,
                           %bias: tensor<1x8x16x32xf32>, %slopes: tensor<1x8x1x1xf32>,
                           %lq: tensor<2xi32>, %lkv: tensor<2xi32>, %seed: tensor<i64>, %offset: tensor<i64>) {
  // Soft-capping and ALiBi written in the score region, with two captures.
  // CHECK: tg.attention %[[Q]], %[[K]], %[[V]] captures(%[[BIAS]], %[[SLOPES]] : tensor<1x8x16x32xf32>, tensor<1x8x1x1xf32>) {causal = #tg<causal bottom_right>, scale = 1.250000e-01 : f64} : tensor<2x8x16x64xf16>, tensor<2x2x32x64xf16>, tensor<2x2x32x64xf16> -> tensor<2x8x16x64xf16> score {
  // CHECK-NEXT: ^bb0(%[[S:.*]]: tensor<f32>, %{{.*}}: tensor<i64>, %{{.*}}: tensor<i64>, %[[QI:.*]]: tensor<i64>, %[[KI:.*]]: tensor<i64>, %[[B:.*]]: tensor<f32>, %[[SLOPE:.*]]: tensor<f32>):
  // CHECK: %[[CAP:.*]] = tg.constant dense<3.000000e+01> : tensor<f32>
  // CHECK: tg.div %[[S]], %[[CAP]]
  // CHECK: tg.sub %[[KI]], %[[QI]] : tensor<i64>, tensor<i64>
  // CHECK: tg.yield %{{.*}} : tensor<f32>
  %0 = tg.attention %q, %k, %v captures(%bias, %slopes : tensor<1x8x16x32xf32>, tensor<1x8x1x1xf32>)
      {causal = #tg<causal bottom_right>, scale = 0.125 : f64}
      : tensor<2x8x16x64xf16>, tensor<2x2x32x64xf16>, tensor<2x2x32x64xf16> -> tensor<2x8x16x64xf16>
      score {
  ^bb0(%s: tensor<f32>, %b: tensor<i64>, %h: tensor<i64>, %qi: tensor<i64>, %ki: tensor<i64>,
       %be: tensor<f32>, %slope: tensor<f32>):
    %cap = tg.constant dense<30.0> : tensor<f32>
    %t0 = tg.div %s, %cap : tensor<f32>, tensor<f32>
    %t1 = tg.tanh %t0 : tensor<f32>
    %t2 = tg.mul %t1, %cap : tensor<f32>, tensor<f32>
    %t3 = tg.add %t2, %be : tensor<f32>, tensor<f32>
    %d = tg.sub %ki, %qi : tensor<i64>, tensor<i64>
    %df = tg.cast %d : tensor<i64> to tensor<f32>
    %al = tg.mul %slope, %df : tensor<f32>, tensor<f32>
    %t4 = tg.add %t3, %al : tensor<f32>, tensor<f32>
    tg.yield %t4 : tensor<f32>
  }
  // Padding, dropout, window and training; a custom mask in the region.
  // CHECK: %{{.*}}, %{{.*}} = tg.attention %[[Q]], %[[K]], %[[V]] seq_len_q(%[[LQ]] : tensor<2xi32>) seq_len_kv(%[[LKV]] : tensor<2xi32>) seed(%[[SEED]]) offset(%[[OFF]]) {dropout = 1.000000e-01 : f64, training, window_left = 4 : i64, window_right = 4 : i64} : tensor<2x8x16x64xf16>, tensor<2x2x32x64xf16>, tensor<2x2x32x64xf16> -> tensor<2x8x16x64xf16>, tensor<2x8x16x1xf32> score {
  // CHECK: tg.select
  %1, %lse = tg.attention %q, %k, %v seq_len_q(%lq : tensor<2xi32>) seq_len_kv(%lkv : tensor<2xi32>)
      seed(%seed) offset(%offset) {window_left = 4 : i64, window_right = 4 : i64, dropout = 0.1 : f64, training}
      : tensor<2x8x16x64xf16>, tensor<2x2x32x64xf16>, tensor<2x2x32x64xf16> -> tensor<2x8x16x64xf16>, tensor<2x8x16x1xf32>
      score {
  ^bb0(%s: tensor<f32>, %b: tensor<i64>, %h: tensor<i64>, %qi: tensor<i64>, %ki: tensor<i64>):
    %odd = tg.constant dense<1> : tensor<i64>
    %hit = tg.cmp eq, %ki, %odd : tensor<i64>, tensor<i64>
    %ninf = tg.constant dense<0xFF800000> : tensor<f32>
    %m = tg.select %hit, %ninf, %s : tensor<i1>, tensor<f32>, tensor<f32>
    tg.yield %m : tensor<f32>
  }
  return
}
