// tg.attention_grad returning a table's gradient has no backend yet (no
// scatter-add kernel; cuDNN cannot gather): compiling it is an error with
// the reason, never a silently missing result.
// RUN: not tg-compile %s --emit=plan 2>&1 | FileCheck %s --check-prefix=GRAD
// RUN: not tg-compile %s --backend=cudnn --emit=plan 2>&1 | FileCheck %s --check-prefix=GRAD
// RUN: tg-opt %s --tg-select-backend="backend=cudnn explain=true" 2>&1 | FileCheck %s --check-prefix=EXPLAIN

// EXPLAIN: remark: backend nvrtc: cudnn was requested but capture #0 (tensor<2x15xf32>) is a table read by tg.gather at computed indices; cuDNN's pointwise operation graph cannot gather (its operands are read only at the score's position), nor scatter-add the table gradients

// GRAD: error: 'tg.attention_grad' op returns the gradient of table capture 0 (grad_captures), which no backend computes yet: the expansion into tg ops has no scatter-add and cuDNN cannot gather; the CPU reference (tg-run --ref) computes it
func.func @table_gradient(%q: tensor<1x2x8x16xbf16>, %o: tensor<1x2x8x16xbf16>, %lse: tensor<1x2x8x1xf32>,
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
