// tg.attention_grad (the backward that tg-fuse-attention produces) prints and
// parses back, with and without its optional operands and score_grad region.
// RUN: tg-opt %s | tg-opt | FileCheck %s
// RUN: tg-opt %s --mlir-print-op-generic | tg-opt | FileCheck %s

// CHECK-LABEL: func.func @minimal
// CHECK: %{{.*}}, %{{.*}}, %{{.*}} = tg.attention_grad %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}} {causal = #tg<causal top_left>, scale = 1.250000e-01 : f64} : tensor<1x4x16x64xbf16>, tensor<1x2x16x64xbf16>, tensor<1x2x16x64xbf16>, tensor<1x4x16x64xbf16>, tensor<1x4x16x64xbf16>, tensor<1x4x16x1xf32> score {
// CHECK: } score_grad {
// CHECK-NEXT: }
func.func @minimal(%q: tensor<1x4x16x64xbf16>, %k: tensor<1x2x16x64xbf16>, %v: tensor<1x2x16x64xbf16>, %o: tensor<1x4x16x64xbf16>, %do: tensor<1x4x16x64xbf16>, %lse: tensor<1x4x16x1xf32>) -> (tensor<1x4x16x64xbf16>, tensor<1x2x16x64xbf16>, tensor<1x2x16x64xbf16>) {
  %dq, %dk, %dv = tg.attention_grad %q, %k, %v, %o, %do, %lse {causal = #tg<causal top_left>, scale = 0.125 : f64}
      : tensor<1x4x16x64xbf16>, tensor<1x2x16x64xbf16>, tensor<1x2x16x64xbf16>, tensor<1x4x16x64xbf16>, tensor<1x4x16x64xbf16>, tensor<1x4x16x1xf32>
      score {
  ^bb0(%s: tensor<f32>, %b: tensor<i64>, %h: tensor<i64>, %qi: tensor<i64>, %ki: tensor<i64>):
    tg.yield %s : tensor<f32>
  } score_grad {
  }
  return %dq, %dk, %dv : tensor<1x4x16x64xbf16>, tensor<1x2x16x64xbf16>, tensor<1x2x16x64xbf16>
}

// Soft-capping with its derivative, padding, dropout and a captured bias.
// CHECK-LABEL: func.func @everything
// CHECK: tg.attention_grad %{{.*}} seq_len_q(%{{.*}} : tensor<2xi32>) seq_len_kv(%{{.*}} : tensor<2xi64>) seed(%{{.*}}) offset(%{{.*}}) captures(%{{.*}} : tensor<1x4x16x16xf32>) {dropout = 1.000000e-01 : f64, window_left = 4 : i64}
// CHECK: score {
// CHECK: tg.tanh
// CHECK: } score_grad {
// CHECK-NEXT: ^bb0(%{{.*}}: tensor<f32>, %{{.*}}: tensor<i64>, %{{.*}}: tensor<i64>, %{{.*}}: tensor<i64>, %{{.*}}: tensor<i64>, %{{.*}}: tensor<f32>, %[[DZ:.*]]: tensor<f32>):
// CHECK: tg.mul %[[DZ]]
func.func @everything(%q: tensor<2x4x16x32xf32>, %k: tensor<2x4x16x32xf32>, %v: tensor<2x4x16x32xf32>, %o: tensor<2x4x16x32xf32>, %do: tensor<2x4x16x32xf32>, %lse: tensor<2x4x16x1xf32>, %lq: tensor<2xi32>, %lk: tensor<2xi64>, %seed: tensor<i64>, %off: tensor<i64>, %bias: tensor<1x4x16x16xf32>) -> (tensor<2x4x16x32xf32>, tensor<2x4x16x32xf32>, tensor<2x4x16x32xf32>) {
  %dq, %dk, %dv = tg.attention_grad %q, %k, %v, %o, %do, %lse seq_len_q(%lq : tensor<2xi32>) seq_len_kv(%lk : tensor<2xi64>) seed(%seed) offset(%off) captures(%bias : tensor<1x4x16x16xf32>) {dropout = 0.1 : f64, window_left = 4 : i64}
      : tensor<2x4x16x32xf32>, tensor<2x4x16x32xf32>, tensor<2x4x16x32xf32>, tensor<2x4x16x32xf32>, tensor<2x4x16x32xf32>, tensor<2x4x16x1xf32>
      score {
  ^bb0(%s: tensor<f32>, %b: tensor<i64>, %h: tensor<i64>, %qi: tensor<i64>, %ki: tensor<i64>, %bias_e: tensor<f32>):
    %c = tg.constant dense<30.0> : tensor<f32>
    %x = tg.div %s, %c : tensor<f32>, tensor<f32>
    %t = tg.tanh %x : tensor<f32>
    %y = tg.mul %t, %c : tensor<f32>, tensor<f32>
    %r = tg.add %y, %bias_e : tensor<f32>, tensor<f32>
    tg.yield %r : tensor<f32>
  } score_grad {
  ^bb0(%s: tensor<f32>, %b: tensor<i64>, %h: tensor<i64>, %qi: tensor<i64>, %ki: tensor<i64>, %bias_e: tensor<f32>, %dz: tensor<f32>):
    %c = tg.constant dense<30.0> : tensor<f32>
    %one = tg.constant dense<1.0> : tensor<f32>
    %x = tg.div %s, %c : tensor<f32>, tensor<f32>
    %t = tg.tanh %x : tensor<f32>
    %t2 = tg.mul %t, %t : tensor<f32>, tensor<f32>
    %d = tg.sub %one, %t2 : tensor<f32>, tensor<f32>
    %g = tg.mul %dz, %d : tensor<f32>, tensor<f32>
    tg.yield %g : tensor<f32>
  }
  return %dq, %dk, %dv : tensor<2x4x16x32xf32>, tensor<2x4x16x32xf32>, tensor<2x4x16x32xf32>
}

// A captured bias's gradient: grad_captures and one capture_grads result.
// CHECK-LABEL: func.func @capture_grads
// CHECK: %{{.*}}, %{{.*}}, %{{.*}}, %[[DB:.*]] = tg.attention_grad {{.*}} captures(%{{.*}} : tensor<1x4x16x16xbf16>) {grad_captures = array<i64: 0>}
// CHECK: } capture_grads(tensor<1x4x16x16xbf16>)
// CHECK: return %[[DB]]
func.func @capture_grads(%q: tensor<1x4x16x8xbf16>, %lse: tensor<1x4x16x1xf32>, %bias: tensor<1x4x16x16xbf16>) -> tensor<1x4x16x16xbf16> {
  %dq, %dk, %dv, %db = tg.attention_grad %q, %q, %q, %q, %q, %lse captures(%bias : tensor<1x4x16x16xbf16>) {grad_captures = array<i64: 0>} : tensor<1x4x16x8xbf16>, tensor<1x4x16x8xbf16>, tensor<1x4x16x8xbf16>, tensor<1x4x16x8xbf16>, tensor<1x4x16x8xbf16>, tensor<1x4x16x1xf32> score {
  ^bb0(%s: tensor<f32>, %b: tensor<i64>, %h: tensor<i64>, %qi: tensor<i64>, %ki: tensor<i64>, %e: tensor<bf16>):
    %ef = tg.cast %e : tensor<bf16> to tensor<f32>
    %r = tg.add %s, %ef : tensor<f32>, tensor<f32>
    tg.yield %r : tensor<f32>
  } score_grad {
  } capture_grads(tensor<1x4x16x16xbf16>)
  return %db : tensor<1x4x16x16xbf16>
}

// tg.sdpa_grad with the bias's gradient.
// CHECK-LABEL: func.func @sdpa_grad_dbias
// CHECK: tg.sdpa_grad {{.*}} bias(%{{.*}} : tensor<1x4x16x16xf32>) {{.*}} -> dbias tensor<1x4x16x16xf32>
func.func @sdpa_grad_dbias(%q: tensor<1x4x16x8xbf16>, %lse: tensor<1x4x16x1xf32>, %bias: tensor<1x4x16x16xf32>) -> tensor<1x4x16x16xf32> {
  %dq, %dk, %dv, %db = tg.sdpa_grad %q, %q, %q, %q, %q, %lse bias(%bias : tensor<1x4x16x16xf32>) : tensor<1x4x16x8xbf16>, tensor<1x4x16x8xbf16>, tensor<1x4x16x8xbf16>, tensor<1x4x16x8xbf16>, tensor<1x4x16x8xbf16>, tensor<1x4x16x1xf32> -> dbias tensor<1x4x16x16xf32>
  return %db : tensor<1x4x16x16xf32>
}
