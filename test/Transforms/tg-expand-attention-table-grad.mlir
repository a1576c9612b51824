// The expansion into tg ops has no scatter-add: a table gradient
// (grad_captures of a table capture) is refused with the reason, and where
// the fused NVRTC backward could take the op the message says so; where it
// cannot (f32), it says why not.
// RUN: not tg-opt %s -split-input-file --tg-expand-attention -o /dev/null 2>&1 | FileCheck %s --check-prefix=EXPAND
// RUN: not tg-opt %s -split-input-file --tg-expand-attention="all=true" -o /dev/null 2>&1 | FileCheck %s --check-prefix=ALL

// EXPAND: error: 'tg.attention_grad' op returns the gradient of table capture 0 (grad_captures), which the expansion into tg ops cannot compute (it has no scatter-add) and cuDNN cannot gather; only the fused NVRTC backward computes it, which does not take this op: the fused backward takes bf16 or f16 tensors, got f32
// EXPAND-NOT: error:
// ALL: error: 'tg.attention_grad' op returns the gradient of table capture 0 (grad_captures), which the expansion into tg ops cannot compute (it has no scatter-add) and cuDNN cannot gather; only the fused NVRTC backward computes it (leave this op to it: do not expand every attention)
func.func @f32_table_gradient(%q: tensor<1x2x8x16xf32>, %o: tensor<1x2x8x16xf32>, %lse: tensor<1x2x8x1xf32>,
                              %table: tensor<2x15xf32>) -> tensor<2x15xf32> {
  %dq, %dk, %dv, %dt = tg.attention_grad %q, %q, %q, %o, %o, %lse captures(%table : tensor<2x15xf32>)
      {grad_captures = array<i64: 0>}
      : tensor<1x2x8x16xf32>, tensor<1x2x8x16xf32>, tensor<1x2x8x16xf32>, tensor<1x2x8x16xf32>,
        tensor<1x2x8x16xf32>, tensor<1x2x8x1xf32>
      score {
  ^bb0(%s: tensor<f32>, %b: tensor<i64>, %h: tensor<i64>, %qi: tensor<i64>, %ki: tensor<i64>, %t: tensor<2x15xf32>):
    %e = tg.gather %t[%h, %qi] : tensor<2x15xf32>[tensor<i64>, tensor<i64>]
    %z = tg.add %s, %e : tensor<f32>, tensor<f32>
    tg.yield %z : tensor<f32>
  } score_grad {
  } capture_grads(tensor<2x15xf32>)
  return %dt : tensor<2x15xf32>
}

// -----

func.func @bf16_table_gradient(%q: tensor<1x2x8x16xbf16>, %o: tensor<1x2x8x16xbf16>, %lse: tensor<1x2x8x1xf32>,
                               %table: tensor<2x15xf32>) -> tensor<2x15xf32> {
  %dq, %dk, %dv, %dt = tg.attention_grad %q, %q, %q, %o, %o, %lse captures(%table : tensor<2x15xf32>)
      {grad_captures = array<i64: 0>}
      : tensor<1x2x8x16xbf16>, tensor<1x2x8x16xbf16>, tensor<1x2x8x16xbf16>, tensor<1x2x8x16xbf16>,
        tensor<1x2x8x16xbf16>, tensor<1x2x8x1xf32>
      score {
  ^bb0(%s: tensor<f32>, %b: tensor<i64>, %h: tensor<i64>, %qi: tensor<i64>, %ki: tensor<i64>, %t: tensor<2x15xf32>):
    %e = tg.gather %t[%h, %qi] : tensor<2x15xf32>[tensor<i64>, tensor<i64>]
    %z = tg.add %s, %e : tensor<f32>, tensor<f32>
    tg.yield %z : tensor<f32>
  } score_grad {
  } capture_grads(tensor<2x15xf32>)
  return %dt : tensor<2x15xf32>
}
