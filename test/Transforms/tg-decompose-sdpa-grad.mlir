// RUN: tg-opt %s --tg-decompose-sdpa | FileCheck %s
// RUN: tg-opt %s --tg-decompose-sdpa | FileCheck %s --check-prefix=GONE
// RUN: tg-opt %s --tg-decompose-sdpa --tg-decompose-softmax --canonicalize | tg-opt | FileCheck %s --check-prefix=GONE

// GONE-NOT: tg.sdpa_grad

// The textbook backward: recompute S, P = exp(S - lse), dV = Pᵀ.dO,
// dP = dO.Vᵀ, D = rowsum(dO * O), dS = P * (dP - D) * scale,
// dQ = dS.K, dK = dSᵀ.Q.
// CHECK-LABEL: func.func @plain(
// CHECK-SAME: %[[Q:[a-z0-9]+]]: tensor<1x2x8x4xf32>, %[[K:[a-z0-9]+]]: tensor<1x2x8x4xf32>, %[[V:[a-z0-9]+]]: tensor<1x2x8x4xf32>, %[[O:[a-z0-9]+]]: tensor<1x2x8x4xf32>, %[[DO:[a-z0-9]+]]: tensor<1x2x8x4xf32>, %[[LSE:[a-z0-9]+]]: tensor<1x2x8x1xf32>
// CHECK-DAG: %[[ZERO:.*]] = tg.constant dense<0.000000e+00> : tensor<f32>
// CHECK-DAG: %[[NINF:.*]] = tg.constant dense<0xFF800000> : tensor<f32>
// CHECK-DAG: %[[SCALE:.*]] = tg.constant dense<5.000000e-01> : tensor<f32>
// CHECK: %[[KT:.*]] = tg.transpose %[[K]] perm = [0, 1, 3, 2]
// CHECK: %[[S0:.*]] = tg.matmul %[[Q]], %[[KT]]
// CHECK: %[[S:.*]] = tg.mul %[[S0]], %[[SCALE]]
// CHECK: %[[EMPTY:.*]] = tg.cmp eq, %[[LSE]], %[[NINF]]
// CHECK: %[[SAFE:.*]] = tg.select %[[EMPTY]], %[[ZERO]], %[[LSE]]
// CHECK: %[[SHIFTED:.*]] = tg.sub %[[S]], %[[SAFE]] : tensor<1x2x8x8xf32>, tensor<1x2x8x1xf32>
// CHECK: %[[P:.*]] = tg.exp %[[SHIFTED]]
// CHECK: %[[PT:.*]] = tg.transpose %[[P]] perm = [0, 1, 3, 2]
// CHECK: %[[DV:.*]] = tg.matmul %[[PT]], %[[DO]] : tensor<1x2x8x8xf32>, tensor<1x2x8x4xf32> -> tensor<1x2x8x4xf32>
// CHECK: %[[VT:.*]] = tg.transpose %[[V]] perm = [0, 1, 3, 2]
// CHECK: %[[DP:.*]] = tg.matmul %[[DO]], %[[VT]] : tensor<1x2x8x4xf32>, tensor<1x2x4x8xf32> -> tensor<1x2x8x8xf32>
// CHECK: %[[PROD:.*]] = tg.mul %[[DO]], %[[O]]
// CHECK: %[[D:.*]] = tg.reduce sum %[[PROD]] dims = [3] keepdim : tensor<1x2x8x4xf32> -> tensor<1x2x8x1xf32>
// CHECK: %[[DIFF:.*]] = tg.sub %[[DP]], %[[D]]
// CHECK: %[[DS0:.*]] = tg.mul %[[P]], %[[DIFF]]
// CHECK: %[[DS:.*]] = tg.mul %[[DS0]], %[[SCALE]]
// CHECK: %[[DQ:.*]] = tg.matmul %[[DS]], %[[K]] : tensor<1x2x8x8xf32>, tensor<1x2x8x4xf32> -> tensor<1x2x8x4xf32>
// CHECK: %[[DST:.*]] = tg.transpose %[[DS]] perm = [0, 1, 3, 2]
// CHECK: %[[DK:.*]] = tg.matmul %[[DST]], %[[Q]] : tensor<1x2x8x8xf32>, tensor<1x2x8x4xf32> -> tensor<1x2x8x4xf32>
// CHECK: return %[[DQ]], %[[DK]], %[[DV]]
func.func @plain(%q: tensor<1x2x8x4xf32>, %k: tensor<1x2x8x4xf32>, %v: tensor<1x2x8x4xf32>, %o: tensor<1x2x8x4xf32>, %do: tensor<1x2x8x4xf32>, %lse: tensor<1x2x8x1xf32>) -> (tensor<1x2x8x4xf32>, tensor<1x2x8x4xf32>, tensor<1x2x8x4xf32>) {
  %dq, %dk, %dv = tg.sdpa_grad %q, %k, %v, %o, %do, %lse : tensor<1x2x8x4xf32>, tensor<1x2x8x4xf32>, tensor<1x2x8x4xf32>, tensor<1x2x8x4xf32>, tensor<1x2x8x4xf32>, tensor<1x2x8x1xf32>
  return %dq, %dk, %dv : tensor<1x2x8x4xf32>, tensor<1x2x8x4xf32>, tensor<1x2x8x4xf32>
}

// GQA: dK and dV stay f32 per query head, are summed over the 2 query heads
// of each kv head, then rounded once; dQ rounds in its matmul.
// CHECK-LABEL: func.func @gqa(
// CHECK-SAME: %[[Q:[a-z0-9]+]]: tensor<1x4x8x4xbf16>, %[[K:[a-z0-9]+]]: tensor<1x2x8x4xbf16>
// CHECK: %[[K5:.*]] = tg.reshape %[[K]] : tensor<1x2x8x4xbf16> -> tensor<1x2x1x8x4xbf16>
// CHECK: %[[KB:.*]] = tg.broadcast %[[K5]]
// CHECK: %[[KH:.*]] = tg.reshape %[[KB]] : tensor<1x2x2x8x4xbf16> -> tensor<1x4x8x4xbf16>
// CHECK: %[[DVH:.*]] = tg.matmul %{{.*}}, %{{.*}} : tensor<1x4x8x8xf32>, tensor<1x4x8x4xbf16> -> tensor<1x4x8x4xf32>
// CHECK: %[[DV5:.*]] = tg.reshape %[[DVH]] : tensor<1x4x8x4xf32> -> tensor<1x2x2x8x4xf32>
// CHECK: %[[DVS:.*]] = tg.reduce sum %[[DV5]] dims = [2] : tensor<1x2x2x8x4xf32> -> tensor<1x2x8x4xf32>
// CHECK: %[[DV:.*]] = tg.cast %[[DVS]] : tensor<1x2x8x4xf32> to tensor<1x2x8x4xbf16>
// CHECK: %[[DQ:.*]] = tg.matmul %[[DS:.*]], %[[KH]] : tensor<1x4x8x8xf32>, tensor<1x4x8x4xbf16> -> tensor<1x4x8x4xbf16>
// CHECK: %[[DST:.*]] = tg.transpose %[[DS]]
// CHECK: %[[DKH:.*]] = tg.matmul %[[DST]], %[[Q]] : tensor<1x4x8x8xf32>, tensor<1x4x8x4xbf16> -> tensor<1x4x8x4xf32>
// CHECK: %[[DK5:.*]] = tg.reshape %[[DKH]] : tensor<1x4x8x4xf32> -> tensor<1x2x2x8x4xf32>
// CHECK: %[[DKS:.*]] = tg.reduce sum %[[DK5]] dims = [2]
// CHECK: %[[DK:.*]] = tg.cast %[[DKS]] : tensor<1x2x8x4xf32> to tensor<1x2x8x4xbf16>
// CHECK: return %[[DQ]], %[[DK]], %[[DV]]
func.func @gqa(%q: tensor<1x4x8x4xbf16>, %k: tensor<1x2x8x4xbf16>, %v: tensor<1x2x8x4xbf16>, %o: tensor<1x4x8x4xbf16>, %do: tensor<1x4x8x4xbf16>, %lse: tensor<1x4x8x1xf32>) -> (tensor<1x4x8x4xbf16>, tensor<1x2x8x4xbf16>, tensor<1x2x8x4xbf16>) {
  %dq, %dk, %dv = tg.sdpa_grad %q, %k, %v, %o, %do, %lse : tensor<1x4x8x4xbf16>, tensor<1x2x8x4xbf16>, tensor<1x2x8x4xbf16>, tensor<1x4x8x4xbf16>, tensor<1x4x8x4xbf16>, tensor<1x4x8x1xf32>
  return %dq, %dk, %dv : tensor<1x4x8x4xbf16>, tensor<1x2x8x4xbf16>, tensor<1x2x8x4xbf16>
}

// Dropout: the recomputed P is dropped for dV, and dP gets the same mask
// and 1/(1-p) scaling (same seed and offset); D comes from O in f32.
// CHECK-LABEL: func.func @dropout(
// CHECK-SAME: %[[O:[a-z0-9]+]]: tensor<1x2x8x4xbf16>, %[[DO:[a-z0-9]+]]: tensor<1x2x8x4xbf16>, %[[LSE:[a-z0-9]+]]: tensor<1x2x8x1xf32>, %[[SEED:[a-z0-9]+]]: tensor<i64>, %[[OFF:[a-z0-9]+]]: tensor<i64>
// CHECK: %[[P:.*]] = tg.exp
// CHECK: %[[PD:.*]] = tg.dropout %[[P]], %[[SEED]], %[[OFF]] prob = 2.000000e-01 : tensor<1x2x8x8xf32>
// CHECK: %[[PT:.*]] = tg.transpose %[[PD]]
// CHECK: tg.matmul %[[PT]], %[[DO]]
// CHECK: %[[DPD:.*]] = tg.matmul %[[DO]], %{{.*}} -> tensor<1x2x8x8xf32>
// CHECK: %[[DP:.*]] = tg.dropout %[[DPD]], %[[SEED]], %[[OFF]] prob = 2.000000e-01 : tensor<1x2x8x8xf32>
// CHECK-DAG: %[[O32:.*]] = tg.cast %[[O]] : tensor<1x2x8x4xbf16> to tensor<1x2x8x4xf32>
// CHECK-DAG: %[[DO32:.*]] = tg.cast %[[DO]] : tensor<1x2x8x4xbf16> to tensor<1x2x8x4xf32>
// CHECK: %[[PROD:.*]] = tg.mul %[[DO32]], %[[O32]]
// CHECK: %[[D:.*]] = tg.reduce sum %[[PROD]] dims = [3] keepdim
// CHECK: %[[DIFF:.*]] = tg.sub %[[DP]], %[[D]]
// CHECK: tg.mul %[[P]], %[[DIFF]]
func.func @dropout(%q: tensor<1x2x8x4xbf16>, %k: tensor<1x2x8x4xbf16>, %v: tensor<1x2x8x4xbf16>, %o: tensor<1x2x8x4xbf16>, %do: tensor<1x2x8x4xbf16>, %lse: tensor<1x2x8x1xf32>, %seed: tensor<i64>, %off: tensor<i64>) -> (tensor<1x2x8x4xbf16>, tensor<1x2x8x4xbf16>, tensor<1x2x8x4xbf16>) {
  %dq, %dk, %dv = tg.sdpa_grad %q, %k, %v, %o, %do, %lse seed(%seed) offset(%off) {dropout = 0.2 : f64} : tensor<1x2x8x4xbf16>, tensor<1x2x8x4xbf16>, tensor<1x2x8x4xbf16>, tensor<1x2x8x4xbf16>, tensor<1x2x8x4xbf16>, tensor<1x2x8x1xf32>
  return %dq, %dk, %dv : tensor<1x2x8x4xbf16>, tensor<1x2x8x4xbf16>, tensor<1x2x8x4xbf16>
}

// Softcap: dS is multiplied by 1 - tanh² of the capped argument, before the
// scale; masks are rebuilt exactly as in the forward.
// CHECK-LABEL: func.func @softcap_causal(
// CHECK-DAG: %[[ONE:.*]] = tg.constant dense<1.000000e+00> : tensor<f32>
// CHECK-DAG: %[[SCALE:.*]] = tg.constant dense<5.000000e-01> : tensor<f32>
// CHECK: %[[T:.*]] = tg.tanh
// CHECK: tg.gen_index axis = 2
// CHECK: tg.cmp le
// CHECK: %[[DS0:.*]] = tg.mul %{{.*}}, %{{.*}} : tensor<1x2x8x8xf32>, tensor<1x2x8x8xf32>
// CHECK: %[[T2:.*]] = tg.mul %[[T]], %[[T]]
// CHECK: %[[DER:.*]] = tg.sub %[[ONE]], %[[T2]]
// CHECK: %[[DS1:.*]] = tg.mul %[[DS0]], %[[DER]]
// CHECK: %[[DS:.*]] = tg.mul %[[DS1]], %[[SCALE]]
// CHECK: tg.matmul %[[DS]]
func.func @softcap_causal(%q: tensor<1x2x8x4xf32>, %k: tensor<1x2x8x4xf32>, %v: tensor<1x2x8x4xf32>, %o: tensor<1x2x8x4xf32>, %do: tensor<1x2x8x4xf32>, %lse: tensor<1x2x8x1xf32>) -> (tensor<1x2x8x4xf32>, tensor<1x2x8x4xf32>, tensor<1x2x8x4xf32>) {
  %dq, %dk, %dv = tg.sdpa_grad %q, %k, %v, %o, %do, %lse {causal = #tg<causal top_left>, softcap = 5.0 : f64} : tensor<1x2x8x4xf32>, tensor<1x2x8x4xf32>, tensor<1x2x8x4xf32>, tensor<1x2x8x4xf32>, tensor<1x2x8x4xf32>, tensor<1x2x8x1xf32>
  return %dq, %dk, %dv : tensor<1x2x8x4xf32>, tensor<1x2x8x4xf32>, tensor<1x2x8x4xf32>
}
