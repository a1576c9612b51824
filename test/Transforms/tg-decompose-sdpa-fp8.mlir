// tg-decompose-sdpa turns an FP8 tg.sdpa straight into a tg.attention with
// the same fp8_scales and amax results (no primitive ops: fusion could not
// rebuild the fp8 scaling); softcap, bias and ALiBi become the score region.
// RUN: tg-opt %s --tg-decompose-sdpa | FileCheck %s

// CHECK-LABEL: func.func @plain
// CHECK-SAME: (%[[Q:[^:]*]]: {{.*}}, %[[K:[^:]*]]: {{.*}}, %[[V:[^:]*]]: {{.*}}, %[[DQ:[^:]*]]: tensor<f32>, %[[DK:[^:]*]]: tensor<f32>, %[[DV:[^:]*]]: tensor<f32>, %[[DS:[^:]*]]: tensor<f32>, %[[SS:[^:]*]]: tensor<f32>, %[[SO:[^:]*]]: tensor<f32>)
// CHECK-NOT: tg.matmul
// CHECK: %[[O:[^,]*]], %[[LSE:[^,]*]], %[[AS:[^,]*]], %[[AO:[^ ]*]] = tg.attention %[[Q]], %[[K]], %[[V]] fp8_scales(%[[DQ]], %[[DK]], %[[DV]], %[[DS]], %[[SS]], %[[SO]] : {{.*}}) {causal = #tg<causal top_left>, scale = 0.17677669529663687 : f64, training}
// CHECK-SAME: -> tensor<1x4x16x32xbf16>, tensor<1x4x16x1xf32> amax(tensor<f32>, tensor<f32>) score {
// CHECK-NEXT: ^bb0(%[[S:[^:]*]]: tensor<f32>
// CHECK-NEXT: tg.yield %[[S]] : tensor<f32>
// CHECK-NOT: tg.softmax
// CHECK: return %[[O]], %[[LSE]], %[[AS]], %[[AO]]
func.func @plain(%q: tensor<1x4x16x32xf8E4M3FN>, %k: tensor<1x2x24x32xf8E4M3FN>, %v: tensor<1x2x24x32xf8E4M3FN>,
                 %dq: tensor<f32>, %dk: tensor<f32>, %dv: tensor<f32>, %ds: tensor<f32>, %ss: tensor<f32>, %so: tensor<f32>)
    -> (tensor<1x4x16x32xbf16>, tensor<1x4x16x1xf32>, tensor<f32>, tensor<f32>) {
  %o, %lse, %as, %ao = tg.sdpa %q, %k, %v fp8_scales(%dq, %dk, %dv, %ds, %ss, %so : tensor<f32>, tensor<f32>, tensor<f32>, tensor<f32>, tensor<f32>, tensor<f32>)
      {causal = #tg<causal top_left>, training}
      : tensor<1x4x16x32xf8E4M3FN>, tensor<1x2x24x32xf8E4M3FN>, tensor<1x2x24x32xf8E4M3FN>
      -> tensor<1x4x16x32xbf16>, tensor<1x4x16x1xf32> amax(tensor<f32>, tensor<f32>)
  return %o, %lse, %as, %ao : tensor<1x4x16x32xbf16>, tensor<1x4x16x1xf32>, tensor<f32>, tensor<f32>
}

// Masks and dropout stay attributes and operands.
// CHECK-LABEL: func.func @masks_and_dropout
// CHECK: tg.attention {{.*}} seq_len_q(%{{.*}} : tensor<1xi32>) seq_len_kv(%{{.*}} : tensor<1xi32>) seed(%{{.*}}) offset(%{{.*}}) fp8_scales(
// CHECK-SAME: {causal = #tg<causal bottom_right>, dropout = 1.000000e-01 : f64, scale = 5.000000e-01 : f64, window_left = 4 : i64}
func.func @masks_and_dropout(%q: tensor<1x2x16x32xf8E5M2>, %s: tensor<f32>, %len: tensor<1xi32>, %seed: tensor<i64>, %offset: tensor<i64>)
    -> tensor<1x2x16x32xf8E5M2> {
  %o = tg.sdpa %q, %q, %q seq_len_q(%len : tensor<1xi32>) seq_len_kv(%len : tensor<1xi32>) seed(%seed) offset(%offset)
      fp8_scales(%s, %s, %s, %s, %s, %s : tensor<f32>, tensor<f32>, tensor<f32>, tensor<f32>, tensor<f32>, tensor<f32>)
      {causal = #tg<causal bottom_right>, window_left = 4 : i64, dropout = 0.1 : f64, scale = 0.5 : f64}
      : tensor<1x2x16x32xf8E5M2>, tensor<1x2x16x32xf8E5M2>, tensor<1x2x16x32xf8E5M2> -> tensor<1x2x16x32xf8E5M2>
  return %o : tensor<1x2x16x32xf8E5M2>
}

// softcap, bias and bottom-right ALiBi in tg.sdpa's order; the slopes are a
// [1, Hq, 1, 1] capture.
// CHECK-LABEL: func.func @modifiers
// CHECK-SAME: %[[BIAS:[^:]*]]: tensor<1x1x16x24xbf16>)
// CHECK: %[[SLOPES:.*]] = tg.constant dense<{{.*}}> : tensor<1x4x1x1xf32>
// CHECK: tg.attention {{.*}} captures(%[[BIAS]], %[[SLOPES]] : tensor<1x1x16x24xbf16>, tensor<1x4x1x1xf32>) fp8_scales(
// CHECK-NEXT: ^bb0(%[[S:[^:]*]]: tensor<f32>, %{{[^:]*}}: tensor<i64>, %{{[^:]*}}: tensor<i64>, %[[QI:[^:]*]]: tensor<i64>, %[[KI:[^:]*]]: tensor<i64>, %[[BE:[^:]*]]: tensor<bf16>, %[[SE:[^:]*]]: tensor<f32>):
// CHECK-DAG: %[[CAP:.*]] = tg.constant dense<2.000000e+01> : tensor<f32>
// CHECK: %[[D:.*]] = tg.div %[[S]], %[[CAP]]
// CHECK: %[[T:.*]] = tg.tanh %[[D]]
// CHECK: %[[C:.*]] = tg.mul %[[T]], %[[CAP]]
// CHECK: %[[B32:.*]] = tg.cast %[[BE]] : tensor<bf16> to tensor<f32>
// CHECK: %[[SB:.*]] = tg.add %[[C]], %[[B32]]
// CHECK: %[[SHIFT:.*]] = tg.sub
// CHECK: %[[DIAG:.*]] = tg.add %[[QI]], %[[SHIFT]]
// CHECK: %[[DIST:.*]] = tg.sub %[[KI]], %[[DIAG]]
// CHECK: %[[DF:.*]] = tg.cast %[[DIST]] : tensor<i64> to tensor<f32>
// CHECK: %[[A:.*]] = tg.mul %[[DF]], %[[SE]]
// CHECK: %[[R:.*]] = tg.add %[[SB]], %[[A]]
// CHECK: tg.yield %[[R]] : tensor<f32>
func.func @modifiers(%q: tensor<1x4x16x32xf8E4M3FN>, %k: tensor<1x2x24x32xf8E4M3FN>, %s: tensor<f32>, %bias: tensor<1x1x16x24xbf16>)
    -> tensor<1x4x16x32xf8E4M3FN> {
  %o = tg.sdpa %q, %k, %k bias(%bias : tensor<1x1x16x24xbf16>)
      fp8_scales(%s, %s, %s, %s, %s, %s : tensor<f32>, tensor<f32>, tensor<f32>, tensor<f32>, tensor<f32>, tensor<f32>)
      {softcap = 20.0 : f64, alibi, causal = #tg<causal bottom_right>}
      : tensor<1x4x16x32xf8E4M3FN>, tensor<1x2x24x32xf8E4M3FN>, tensor<1x2x24x32xf8E4M3FN> -> tensor<1x4x16x32xf8E4M3FN>
  return %o : tensor<1x4x16x32xf8E4M3FN>
}
