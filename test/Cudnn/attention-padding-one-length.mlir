// A forward with only one of the padding lengths (a mask_mod `kv < len[b]`
// lifts to seq_len_kv alone) on cuDNN: tg-expand-attention adds the other
// as a full-length constant, so both matmul overrides and both padding
// comparisons are bound. Measured on the H200 (cuDNN 9.19): with only
// n_override bound cuDNN masked nearly every row (-inf stats on 4080 of
// 4096 rows, zero outputs).
// RUN: tg-compile %s --backend=cudnn --emit=mlir | FileCheck %s --check-prefix=IR
// RUN: tg-compile %s --backend=cudnn --emit=cudnn | FileCheck %s

// IR-LABEL: func.func @kv_lengths
// IR: %[[LQ:.*]] = tg.constant dense<96> : tensor<2xi32>
// IR: tg.attention {{.*}} seq_len_q(%[[LQ]] : tensor<2xi32>) seq_len_kv(%arg3 : tensor<2xi32>)

// CHECK: graph "attention fwd
// CHECK: op matmul compute f32 a {{[0-9]+}} b {{[0-9]+}} c {{[0-9]+}} m_override [[LQ:[0-9]+]] n_override [[LKV:[0-9]+]]
// CHECK: op pointwise cmp_lt compute i1 x {{[0-9]+}} b [[LQ]]
// CHECK: op pointwise cmp_lt compute i1 x {{[0-9]+}} b [[LKV]]
func.func @kv_lengths(%q: tensor<2x2x96x64xbf16>, %k: tensor<2x2x160x64xbf16>, %v: tensor<2x2x160x64xbf16>,
                      %len: tensor<2xi32>) -> (tensor<2x2x96x64xbf16>, tensor<2x2x96x1xf32>) {
  %o, %lse = tg.attention %q, %k, %v seq_len_kv(%len : tensor<2xi32>) {scale = 0.125 : f64, training}
      : tensor<2x2x96x64xbf16>, tensor<2x2x160x64xbf16>, tensor<2x2x160x64xbf16> -> tensor<2x2x96x64xbf16>, tensor<2x2x96x1xf32>
      score {
  ^bb0(%s: tensor<f32>, %b: tensor<i64>, %h: tensor<i64>, %qi: tensor<i64>, %ki: tensor<i64>):
    tg.yield %s : tensor<f32>
  }
  return %o, %lse : tensor<2x2x96x64xbf16>, tensor<2x2x96x1xf32>
}
