// RUN: tg-opt %s --tg-decompose-sdpa --canonicalize --tg-fuse-attention="report=true" -verify-diagnostics | FileCheck %s
// The same values before fusion, after it, and after its expansion:
// RUN: tg-run --ref %s --entry=dbias_bf16 --print-values --print-precision=3 | grep -v "^tg-run" | sed "s/ hash .*//" > %t.direct
// RUN: tg-opt %s --tg-decompose-sdpa --canonicalize --tg-fuse-attention | tg-run --ref - --entry=dbias_bf16 --print-values --print-precision=3 | grep -v "^tg-run" | sed "s/ hash .*//" > %t.fused
// RUN: diff %t.direct %t.fused
// RUN: tg-opt %s --tg-decompose-sdpa --canonicalize --tg-fuse-attention --tg-expand-attention=all=true | tg-run --ref - --entry=dbias_bf16 --print-values --print-precision=3 | grep -v "^tg-run" | sed "s/ hash .*//" > %t.expanded
// RUN: diff %t.direct %t.expanded
//
// tg.sdpa_grad's dbias (dZ summed over the bias's broadcast dims, rounded)
// fuses into tg.attention_grad as the gradient of the captured bias: its
// index in grad_captures and one capture_grads result.

// CHECK-LABEL: func.func @dbias_bf16
// CHECK-SAME: %[[BIAS:[a-z0-9]+]]: tensor<1x2x8x8xbf16>
// CHECK: %[[DQ:[^,]+]], %[[DK:[^,]+]], %[[DV:[^,]+]], %[[DB:[^ ]+]] = tg.attention_grad {{.*}} captures(%[[BIAS]] : tensor<1x2x8x8xbf16>) {causal = #tg<causal top_left>, grad_captures = array<i64: 0>
// CHECK: } capture_grads(tensor<1x2x8x8xbf16>)
// CHECK-NOT: tg.reduce
// CHECK: return %[[DQ]], %[[DK]], %[[DV]], %[[DB]]
func.func @dbias_bf16(%q: tensor<2x2x8x8xbf16>, %k: tensor<2x2x8x8xbf16>, %v: tensor<2x2x8x8xbf16>,
    %o: tensor<2x2x8x8xbf16>, %do: tensor<2x2x8x8xbf16>, %lse: tensor<2x2x8x1xf32>, %bias: tensor<1x2x8x8xbf16>)
    -> (tensor<2x2x8x8xbf16>, tensor<2x2x8x8xbf16>, tensor<2x2x8x8xbf16>, tensor<1x2x8x8xbf16>) {
  %dq, %dk, %dv, %db = tg.sdpa_grad %q, %k, %v, %o, %do, %lse bias(%bias : tensor<1x2x8x8xbf16>) {softcap = 3.0 : f64, causal = #tg<causal top_left>}
      : tensor<2x2x8x8xbf16>, tensor<2x2x8x8xbf16>, tensor<2x2x8x8xbf16>, tensor<2x2x8x8xbf16>, tensor<2x2x8x8xbf16>, tensor<2x2x8x1xf32> -> dbias tensor<1x2x8x8xbf16>
  return %dq, %dk, %dv, %db : tensor<2x2x8x8xbf16>, tensor<2x2x8x8xbf16>, tensor<2x2x8x8xbf16>, tensor<1x2x8x8xbf16>
}

// An f32 bias over every score: dZ itself is the gradient.
// CHECK-LABEL: func.func @dbias_f32_full
// CHECK: %{{[^,]+}}, %{{[^,]+}}, %{{[^,]+}}, %[[DB:[^ ]+]] = tg.attention_grad {{.*}}grad_captures = array<i64: 0>
// CHECK: return {{.*}}, %[[DB]]
func.func @dbias_f32_full(%q: tensor<1x2x8x8xf32>, %k: tensor<1x2x8x8xf32>, %v: tensor<1x2x8x8xf32>,
    %o: tensor<1x2x8x8xf32>, %do: tensor<1x2x8x8xf32>, %lse: tensor<1x2x8x1xf32>, %bias: tensor<1x2x8x8xf32>)
    -> (tensor<1x2x8x8xf32>, tensor<1x2x8x8xf32>, tensor<1x2x8x8xf32>, tensor<1x2x8x8xf32>) {
  %dq, %dk, %dv, %db = tg.sdpa_grad %q, %k, %v, %o, %do, %lse bias(%bias : tensor<1x2x8x8xf32>)
      : tensor<1x2x8x8xf32>, tensor<1x2x8x8xf32>, tensor<1x2x8x8xf32>, tensor<1x2x8x8xf32>, tensor<1x2x8x8xf32>, tensor<1x2x8x1xf32> -> dbias tensor<1x2x8x8xf32>
  return %dq, %dk, %dv, %db : tensor<1x2x8x8xf32>, tensor<1x2x8x8xf32>, tensor<1x2x8x8xf32>, tensor<1x2x8x8xf32>
}

// dZ summed over the wrong dims is no bias gradient: not fused.
// CHECK-LABEL: func.func @not_a_bias_gradient
// CHECK-NOT: tg.attention_grad
func.func @not_a_bias_gradient(%q: tensor<1x2x8x8xf32>, %k: tensor<1x2x8x8xf32>, %v: tensor<1x2x8x8xf32>,
    %o: tensor<1x2x8x8xf32>, %do: tensor<1x2x8x8xf32>, %lse: tensor<1x2x8x1xf32>, %bias: tensor<1x2x8x8xf32>)
    -> (tensor<1x2x8x8xf32>, tensor<1x2x8x8xf32>, tensor<1x2x8x8xf32>, tensor<1x2x8x1xf32>) {
  %dq, %dk, %dv, %db = tg.sdpa_grad %q, %k, %v, %o, %do, %lse bias(%bias : tensor<1x2x8x8xf32>)
      : tensor<1x2x8x8xf32>, tensor<1x2x8x8xf32>, tensor<1x2x8x8xf32>, tensor<1x2x8x8xf32>, tensor<1x2x8x8xf32>, tensor<1x2x8x1xf32> -> dbias tensor<1x2x8x8xf32>
  // expected-remark @below {{not the attention backward: dZ is also used by a value that is not the gradient of an additive captured tensor}}
  %rows = tg.reduce sum %db dims = [3] keepdim : tensor<1x2x8x8xf32> -> tensor<1x2x8x1xf32>
  return %dq, %dk, %dv, %rows : tensor<1x2x8x8xf32>, tensor<1x2x8x8xf32>, tensor<1x2x8x8xf32>, tensor<1x2x8x1xf32>
}
