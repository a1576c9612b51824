// RUN: tg-opt %s --tg-expand-attention=all=true | FileCheck %s
// By default only what the fused backward kernels cannot run (f32 here):
// RUN: tg-opt %s --tg-expand-attention | FileCheck %s --check-prefix=DEFAULT
// Same values before and after expansion (reference interpreter; the
// exhaustive check over the decomposition's backward configurations is
// SdpaBackward.FusedAndExpandedMatchDirect in tgc-unit-tests):
// RUN: tg-run --ref %s --entry=softcap_causal_f32 --print-values --print-precision=3 | grep -v "^tg-run" | sed "s/ hash .*//" > %t.direct
// RUN: tg-opt %s --tg-expand-attention=all=true | tg-run --ref - --entry=softcap_causal_f32 --print-values --print-precision=3 | grep -v "^tg-run" | sed "s/ hash .*//" > %t.expanded
// RUN: diff %t.direct %t.expanded
// RUN: tg-run --ref %s --entry=gqa_bias_bf16 --print-values --print-precision=2 | grep -v "^tg-run" | sed "s/ hash .*//" > %t.direct2
// RUN: tg-opt %s --tg-expand-attention=all=true | tg-run --ref - --entry=gqa_bias_bf16 --print-values --print-precision=2 | grep -v "^tg-run" | sed "s/ hash .*//" > %t.expanded2
// RUN: diff %t.direct2 %t.expanded2

// The textbook backward: the score region on the scaled scores, the causal
// mask, P = exp(z - lse), dV, dP, D = rowsum(dO * O), dZ = P * (dP - D),
// then score_grad applied to the scaled scores and dZ, the scale, dQ, dK.
// DEFAULT-LABEL: func.func @softcap_causal_f32
// DEFAULT-NOT: tg.attention_grad
// DEFAULT: tg.matmul
// DEFAULT-LABEL: func.func @gqa_bias_bf16
// DEFAULT: tg.attention_grad
// DEFAULT-NOT: tg.matmul
// DEFAULT-LABEL: func.func @on_cudnn
// CHECK-LABEL: func.func @softcap_causal_f32
// CHECK-SAME: %[[Q:[a-z0-9]+]]: tensor<1x2x6x8xf32> {tg.name = "q"}, %[[K:[a-z0-9]+]]: tensor<1x2x6x8xf32> {tg.name = "k"}, %[[V:[a-z0-9]+]]: tensor<1x2x6x8xf32> {tg.name = "v"}, %[[O:[a-z0-9]+]]: tensor<1x2x6x8xf32> {tg.name = "o"}, %[[DO:[a-z0-9]+]]: tensor<1x2x6x8xf32> {tg.name = "do"}, %[[LSE:[a-z0-9]+]]: tensor<1x2x6x1xf32> {tg.name = "stats"}
// CHECK-NOT: tg.attention_grad
// CHECK: %[[KT:.*]] = tg.transpose %[[K]] perm = [0, 1, 3, 2]
// CHECK: %[[QK:.*]] = tg.matmul %[[Q]], %[[KT]]
// CHECK: %[[S:.*]] = tg.mul %[[QK]], %{{.*}} : tensor<1x2x6x6xf32>, tensor<f32>
// CHECK: %[[T:.*]] = tg.tanh %[[S]] : tensor<1x2x6x6xf32>
// CHECK: %[[Z0:.*]] = tg.mul %[[T]], %{{.*}} : tensor<1x2x6x6xf32>, tensor<f32>
// CHECK: %[[KEEP:.*]] = tg.cmp le
// CHECK: %[[Z:.*]] = tg.select %[[KEEP]], %[[Z0]], %{{.*}} : tensor<1x1x6x6xi1>, tensor<1x2x6x6xf32>, tensor<f32>
// CHECK: %[[SHIFTED:.*]] = tg.sub %[[Z]], %{{.*}} : tensor<1x2x6x6xf32>, tensor<1x2x6x1xf32>
// CHECK: %[[P:.*]] = tg.exp %[[SHIFTED]]
// CHECK: %[[PT:.*]] = tg.transpose %[[P]]
// CHECK: %[[DV:.*]] = tg.matmul %[[PT]], %[[DO]]
// CHECK: %[[DP:.*]] = tg.matmul %[[DO]], %{{.*}} -> tensor<1x2x6x6xf32>
// CHECK: %[[PROD:.*]] = tg.mul %[[DO]], %[[O]]
// CHECK: %[[D:.*]] = tg.reduce sum %[[PROD]] dims = [3] keepdim
// CHECK: %[[DIFF:.*]] = tg.sub %[[DP]], %[[D]]
// CHECK: %[[DZ:.*]] = tg.mul %[[P]], %[[DIFF]]
// score_grad, rebuilt on the scaled scores (not the softcapped ones):
// CHECK: %[[T2:.*]] = tg.tanh %[[S]] : tensor<1x2x6x6xf32>
// CHECK: %[[SQ:.*]] = tg.mul %[[T2]], %[[T2]]
// CHECK: %[[DERIV:.*]] = tg.sub %{{.*}}, %[[SQ]]
// CHECK: %[[DS0:.*]] = tg.mul %[[DZ]], %[[DERIV]]
// CHECK: %[[DS:.*]] = tg.mul %[[DS0]], %{{.*}} : tensor<1x2x6x6xf32>, tensor<f32>
// CHECK: %[[DSS:.*]] = tg.mul %[[DS]], %{{.*}} : tensor<1x2x6x6xf32>, tensor<f32>
// CHECK: %[[DQ:.*]] = tg.matmul %[[DSS]], %[[K]]
// CHECK: %[[DST:.*]] = tg.transpose %[[DSS]]
// CHECK: %[[DK:.*]] = tg.matmul %[[DST]], %[[Q]]
// CHECK: return %[[DQ]], %[[DK]], %[[DV]]
func.func @softcap_causal_f32(%q: tensor<1x2x6x8xf32> {tg.name = "q"}, %k: tensor<1x2x6x8xf32> {tg.name = "k"},
    %v: tensor<1x2x6x8xf32> {tg.name = "v"}, %o: tensor<1x2x6x8xf32> {tg.name = "o"},
    %do: tensor<1x2x6x8xf32> {tg.name = "do"}, %lse: tensor<1x2x6x1xf32> {tg.name = "stats"})
    -> (tensor<1x2x6x8xf32>, tensor<1x2x6x8xf32>, tensor<1x2x6x8xf32>) {
  %dq, %dk, %dv = tg.attention_grad %q, %k, %v, %o, %do, %lse {causal = #tg<causal top_left>, scale = 0.07 : f64}
      : tensor<1x2x6x8xf32>, tensor<1x2x6x8xf32>, tensor<1x2x6x8xf32>, tensor<1x2x6x8xf32>, tensor<1x2x6x8xf32>, tensor<1x2x6x1xf32>
      score {
  ^bb0(%s: tensor<f32>, %b: tensor<i64>, %h: tensor<i64>, %qi: tensor<i64>, %ki: tensor<i64>):
    %t = tg.tanh %s : tensor<f32>
    %c = tg.constant dense<5.0> : tensor<f32>
    %r = tg.mul %t, %c : tensor<f32>, tensor<f32>
    tg.yield %r : tensor<f32>
  } score_grad {
  ^bb0(%s: tensor<f32>, %b: tensor<i64>, %h: tensor<i64>, %qi: tensor<i64>, %ki: tensor<i64>, %dz: tensor<f32>):
    %t = tg.tanh %s : tensor<f32>
    %t2 = tg.mul %t, %t : tensor<f32>, tensor<f32>
    %one = tg.constant dense<1.0> : tensor<f32>
    %d = tg.sub %one, %t2 : tensor<f32>, tensor<f32>
    %g = tg.mul %dz, %d : tensor<f32>, tensor<f32>
    %c = tg.constant dense<5.0> : tensor<f32>
    %r = tg.mul %g, %c : tensor<f32>, tensor<f32>
    tg.yield %r : tensor<f32>
  }
  return %dq, %dk, %dv : tensor<1x2x6x8xf32>, tensor<1x2x6x8xf32>, tensor<1x2x6x8xf32>
}

// GQA with a captured bias (an empty score_grad: the identity): dK and dV
// are summed over the two query heads of each kv head, in f32, then
// rounded once.
// CHECK-LABEL: func.func @gqa_bias_bf16
// CHECK-SAME: %[[Q:[a-z0-9]+]]: tensor<1x4x8x8xbf16>{{.*}}, %[[BIAS:[a-z0-9]+]]: tensor<1x4x8x8xf32>
// CHECK-NOT: tg.attention_grad
// CHECK: tg.add %{{.*}}, %[[BIAS]] : tensor<1x4x8x8xf32>, tensor<1x4x8x8xf32>
// CHECK: %[[DVH:.*]] = tg.matmul %{{.*}}, %{{.*}} : tensor<1x4x8x8xf32>, tensor<1x4x8x8xbf16> -> tensor<1x4x8x8xf32>
// CHECK: %[[DV5:.*]] = tg.reshape %[[DVH]] : tensor<1x4x8x8xf32> -> tensor<1x2x2x8x8xf32>
// CHECK: %[[DVS:.*]] = tg.reduce sum %[[DV5]] dims = [2]
// CHECK: %[[DV:.*]] = tg.cast %[[DVS]] : tensor<1x2x8x8xf32> to tensor<1x2x8x8xbf16>
// CHECK: %[[DKH:.*]] = tg.matmul %{{.*}}, %[[Q]] : tensor<1x4x8x8xf32>, tensor<1x4x8x8xbf16> -> tensor<1x4x8x8xf32>
// CHECK: %[[DK5:.*]] = tg.reshape %[[DKH]]
// CHECK: %[[DKS:.*]] = tg.reduce sum %[[DK5]] dims = [2]
// CHECK: %[[DK:.*]] = tg.cast %[[DKS]]
// CHECK: return %{{.*}}, %[[DK]], %[[DV]]
func.func @gqa_bias_bf16(%q: tensor<1x4x8x8xbf16>, %k: tensor<1x2x8x8xbf16>, %v: tensor<1x2x8x8xbf16>,
    %o: tensor<1x4x8x8xbf16>, %do: tensor<1x4x8x8xbf16>, %lse: tensor<1x4x8x1xf32>, %bias: tensor<1x4x8x8xf32>)
    -> (tensor<1x4x8x8xbf16>, tensor<1x2x8x8xbf16>, tensor<1x2x8x8xbf16>) {
  %dq, %dk, %dv = tg.attention_grad %q, %k, %v, %o, %do, %lse captures(%bias : tensor<1x4x8x8xf32>) {scale = 0.35 : f64}
      : tensor<1x4x8x8xbf16>, tensor<1x2x8x8xbf16>, tensor<1x2x8x8xbf16>, tensor<1x4x8x8xbf16>, tensor<1x4x8x8xbf16>, tensor<1x4x8x1xf32>
      score {
  ^bb0(%s: tensor<f32>, %b: tensor<i64>, %h: tensor<i64>, %qi: tensor<i64>, %ki: tensor<i64>, %e: tensor<f32>):
    %r = tg.add %s, %e : tensor<f32>, tensor<f32>
    tg.yield %r : tensor<f32>
  } score_grad {
  }
  return %dq, %dk, %dv : tensor<1x4x8x8xbf16>, tensor<1x2x8x8xbf16>, tensor<1x2x8x8xbf16>
}

// On cuDNN: left alone.
// CHECK-LABEL: func.func @on_cudnn
// CHECK: tg.attention_grad {{.*}}tg.backend = #tg<backend cudnn>
func.func @on_cudnn(%q: tensor<1x2x8x8xbf16>, %k: tensor<1x2x8x8xbf16>, %v: tensor<1x2x8x8xbf16>,
    %o: tensor<1x2x8x8xbf16>, %do: tensor<1x2x8x8xbf16>, %lse: tensor<1x2x8x1xf32>)
    -> (tensor<1x2x8x8xbf16>, tensor<1x2x8x8xbf16>, tensor<1x2x8x8xbf16>) {
  %dq, %dk, %dv = tg.attention_grad %q, %k, %v, %o, %do, %lse {scale = 0.35 : f64, tg.backend = #tg<backend cudnn>}
      : tensor<1x2x8x8xbf16>, tensor<1x2x8x8xbf16>, tensor<1x2x8x8xbf16>, tensor<1x2x8x8xbf16>, tensor<1x2x8x8xbf16>, tensor<1x2x8x1xf32>
      score {
  ^bb0(%s: tensor<f32>, %b: tensor<i64>, %h: tensor<i64>, %qi: tensor<i64>, %ki: tensor<i64>):
    tg.yield %s : tensor<f32>
  } score_grad {
  }
  return %dq, %dk, %dv : tensor<1x2x8x8xbf16>, tensor<1x2x8x8xbf16>, tensor<1x2x8x8xbf16>
}
