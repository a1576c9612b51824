// The fp8 forms of tg.sdpa and tg.attention: fp8_scales operands, amax
// results, fp8 or 16-bit outputs; printed and parsed back, also through the
// generic form.
// RUN: tg-opt %s | tg-opt | FileCheck %s
// RUN: tg-opt %s --mlir-print-op-generic | tg-opt | FileCheck %s

// CHECK-LABEL: func.func @sdpa_fp8
// CHECK-SAME: (%[[Q:[^:]*]]: tensor<1x4x32x64xf8E4M3FN>, %[[K:[^:]*]]: tensor<1x2x32x64xf8E4M3FN>, %[[V:[^:]*]]: tensor<1x2x32x64xf8E4M3FN>, %[[DQ:[^:]*]]: tensor<f32>, %[[DK:[^:]*]]: tensor<f32>, %[[DV:[^:]*]]: tensor<f32>, %[[DS:[^:]*]]: tensor<f32>, %[[SS:[^:]*]]: tensor<f32>, %[[SO:[^:]*]]: tensor<f32>)
func.func @sdpa_fp8(%q: tensor<1x4x32x64xf8E4M3FN>, %k: tensor<1x2x32x64xf8E4M3FN>, %v: tensor<1x2x32x64xf8E4M3FN>,
                    %dq: tensor<f32>, %dk: tensor<f32>, %dv: tensor<f32>, %ds: tensor<f32>, %ss: tensor<f32>, %so: tensor<f32>)
    -> (tensor<1x4x32x64xf8E4M3FN>, tensor<f32>, tensor<f32>, tensor<1x4x32x64xbf16>, tensor<1x4x32x1xf32>) {
  // CHECK: %[[O:[^,]*]], %[[AS:[^,]*]], %[[AO:[^ ]*]] = tg.sdpa %[[Q]], %[[K]], %[[V]] fp8_scales(%[[DQ]], %[[DK]], %[[DV]], %[[DS]], %[[SS]], %[[SO]] : tensor<f32>, tensor<f32>, tensor<f32>, tensor<f32>, tensor<f32>, tensor<f32>) {causal = #tg<causal top_left>} : tensor<1x4x32x64xf8E4M3FN>, tensor<1x2x32x64xf8E4M3FN>, tensor<1x2x32x64xf8E4M3FN> -> tensor<1x4x32x64xf8E4M3FN> amax(tensor<f32>, tensor<f32>)
  %o, %amax_s, %amax_o = tg.sdpa %q, %k, %v
      fp8_scales(%dq, %dk, %dv, %ds, %ss, %so : tensor<f32>, tensor<f32>, tensor<f32>, tensor<f32>, tensor<f32>, tensor<f32>)
      {causal = #tg<causal top_left>}
      : tensor<1x4x32x64xf8E4M3FN>, tensor<1x2x32x64xf8E4M3FN>, tensor<1x2x32x64xf8E4M3FN>
      -> tensor<1x4x32x64xf8E4M3FN> amax(tensor<f32>, tensor<f32>)
  // A 16-bit output, training stats, no amax.
  // CHECK: %[[O2:[^,]*]], %[[LSE:[^ ]*]] = tg.sdpa %[[Q]], %[[K]], %[[V]] fp8_scales(%[[DQ]], %[[DK]], %[[DV]], %[[DS]], %[[SS]], %[[SO]] : {{.*}}) {training} : {{.*}} -> tensor<1x4x32x64xbf16>, tensor<1x4x32x1xf32>{{$}}
  %o2, %lse = tg.sdpa %q, %k, %v
      fp8_scales(%dq, %dk, %dv, %ds, %ss, %so : tensor<f32>, tensor<f32>, tensor<f32>, tensor<f32>, tensor<f32>, tensor<f32>)
      {training}
      : tensor<1x4x32x64xf8E4M3FN>, tensor<1x2x32x64xf8E4M3FN>, tensor<1x2x32x64xf8E4M3FN>
      -> tensor<1x4x32x64xbf16>, tensor<1x4x32x1xf32>
  // CHECK: return %[[O]], %[[AS]], %[[AO]], %[[O2]], %[[LSE]]
  return %o, %amax_s, %amax_o, %o2, %lse : tensor<1x4x32x64xf8E4M3FN>, tensor<f32>, tensor<f32>, tensor<1x4x32x64xbf16>, tensor<1x4x32x1xf32>
}

// CHECK-LABEL: func.func @attention_fp8
// CHECK-SAME: (%[[Q:[^:]*]]: tensor<1x2x16x32xf8E5M2>, %[[S:[^:]*]]: tensor<f32>, %[[LEN:[^:]*]]: tensor<1xi32>)
func.func @attention_fp8(%q: tensor<1x2x16x32xf8E5M2>, %s: tensor<f32>, %len: tensor<1xi32>)
    -> (tensor<1x2x16x32xf8E5M2>, tensor<1x2x16x1xf32>, tensor<f32>, tensor<f32>) {
  // CHECK: %[[A0:[^,]*]], %[[A1:[^,]*]], %[[A2:[^,]*]], %[[A3:[^ ]*]] = tg.attention %[[Q]], %[[Q]], %[[Q]] seq_len_kv(%[[LEN]] : tensor<1xi32>) fp8_scales(%[[S]], %[[S]], %[[S]], %[[S]], %[[S]], %[[S]] : {{.*}}) {scale = 1.250000e-01 : f64, training} : tensor<1x2x16x32xf8E5M2>, tensor<1x2x16x32xf8E5M2>, tensor<1x2x16x32xf8E5M2> -> tensor<1x2x16x32xf8E5M2>, tensor<1x2x16x1xf32> amax(tensor<f32>, tensor<f32>) score {
  // CHECK: tg.yield
  %o, %lse, %amax_s, %amax_o = tg.attention %q, %q, %q seq_len_kv(%len : tensor<1xi32>)
      fp8_scales(%s, %s, %s, %s, %s, %s : tensor<f32>, tensor<f32>, tensor<f32>, tensor<f32>, tensor<f32>, tensor<f32>)
      {scale = 0.125 : f64, training}
      : tensor<1x2x16x32xf8E5M2>, tensor<1x2x16x32xf8E5M2>, tensor<1x2x16x32xf8E5M2>
      -> tensor<1x2x16x32xf8E5M2>, tensor<1x2x16x1xf32> amax(tensor<f32>, tensor<f32>) score {
  ^bb0(%sc: tensor<f32>, %b: tensor<i64>, %h: tensor<i64>, %qi: tensor<i64>, %ki: tensor<i64>):
    tg.yield %sc : tensor<f32>
  }
  // CHECK: return %[[A0]], %[[A1]], %[[A2]], %[[A3]]
  return %o, %lse, %amax_s, %amax_o : tensor<1x2x16x32xf8E5M2>, tensor<1x2x16x1xf32>, tensor<f32>, tensor<f32>
}
