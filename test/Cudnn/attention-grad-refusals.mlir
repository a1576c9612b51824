// tg.attention_grad that cuDNN cannot run exactly as tg defines it is left
// to tg-expand-attention (generic kernels), with the reason in the explain
// remarks; the last function is accepted.
// RUN: tg-opt %s --tg-select-backend=explain=true 2>&1 | FileCheck %s
// RUN: tg-opt %s --tg-select-backend="backend=cudnn explain=true" 2>&1 | FileCheck %s --check-prefix=PINNED
// RUN: tg-compile %s --entry=f32 --emit=mlir | FileCheck %s --check-prefix=EXPANDED

// EXPANDED-LABEL: func.func @f32
// EXPANDED-NOT: tg.attention_grad
// EXPANDED: tg.exp
// EXPANDED: return

// CHECK: remark: backend nvrtc: cuDNN cannot run it: cuDNN's dropout mask (its own Philox stream) differs from tg.dropout's documented keep-bit mapping, so results would not match the graph
// PINNED: remark: backend nvrtc: cudnn was requested but cuDNN's dropout mask
func.func @dropout(%q: tensor<1x2x64x64xbf16>, %k: tensor<1x2x64x64xbf16>, %v: tensor<1x2x64x64xbf16>, %o: tensor<1x2x64x64xbf16>, %do: tensor<1x2x64x64xbf16>, %lse: tensor<1x2x64x1xf32>, %seed: tensor<i64>, %off: tensor<i64>) -> (tensor<1x2x64x64xbf16>, tensor<1x2x64x64xbf16>, tensor<1x2x64x64xbf16>) {
  %dq, %dk, %dv = tg.attention_grad %q, %k, %v, %o, %do, %lse seed(%seed) offset(%off) {dropout = 1.000000e-01 : f64, scale = 0.125 : f64}
      : tensor<1x2x64x64xbf16>, tensor<1x2x64x64xbf16>, tensor<1x2x64x64xbf16>, tensor<1x2x64x64xbf16>, tensor<1x2x64x64xbf16>, tensor<1x2x64x1xf32>
      score {
  ^bb0(%s: tensor<f32>, %b: tensor<i64>, %h: tensor<i64>, %qi: tensor<i64>, %ki: tensor<i64>):
    tg.yield %s : tensor<f32>
  } score_grad {
  }
  return %dq, %dk, %dv : tensor<1x2x64x64xbf16>, tensor<1x2x64x64xbf16>, tensor<1x2x64x64xbf16>
}

// CHECK: remark: backend nvrtc: cuDNN cannot run it: cuDNN's attention backward needs head dims that are multiples of 8 and at most 256 (D = 60)
func.func @head_dim_60(%q: tensor<1x2x64x60xbf16>, %k: tensor<1x2x64x60xbf16>, %v: tensor<1x2x64x60xbf16>, %o: tensor<1x2x64x60xbf16>, %do: tensor<1x2x64x60xbf16>, %lse: tensor<1x2x64x1xf32>) -> (tensor<1x2x64x60xbf16>, tensor<1x2x64x60xbf16>, tensor<1x2x64x60xbf16>) {
  %dq, %dk, %dv = tg.attention_grad %q, %k, %v, %o, %do, %lse {scale = 0.125 : f64}
      : tensor<1x2x64x60xbf16>, tensor<1x2x64x60xbf16>, tensor<1x2x64x60xbf16>, tensor<1x2x64x60xbf16>, tensor<1x2x64x60xbf16>, tensor<1x2x64x1xf32>
      score {
  ^bb0(%s: tensor<f32>, %b: tensor<i64>, %h: tensor<i64>, %qi: tensor<i64>, %ki: tensor<i64>):
    tg.yield %s : tensor<f32>
  } score_grad {
  }
  return %dq, %dk, %dv : tensor<1x2x64x60xbf16>, tensor<1x2x64x60xbf16>, tensor<1x2x64x60xbf16>
}

// CHECK: remark: backend nvrtc: cuDNN cannot run it: cuDNN's attention backward needs head dims that are multiples of 8 and at most 256 (D = 264)
func.func @head_dim_264(%q: tensor<1x2x64x264xbf16>, %k: tensor<1x2x64x264xbf16>, %v: tensor<1x2x64x264xbf16>, %o: tensor<1x2x64x264xbf16>, %do: tensor<1x2x64x264xbf16>, %lse: tensor<1x2x64x1xf32>) -> (tensor<1x2x64x264xbf16>, tensor<1x2x64x264xbf16>, tensor<1x2x64x264xbf16>) {
  %dq, %dk, %dv = tg.attention_grad %q, %k, %v, %o, %do, %lse {scale = 0.125 : f64}
      : tensor<1x2x64x264xbf16>, tensor<1x2x64x264xbf16>, tensor<1x2x64x264xbf16>, tensor<1x2x64x264xbf16>, tensor<1x2x64x264xbf16>, tensor<1x2x64x1xf32>
      score {
  ^bb0(%s: tensor<f32>, %b: tensor<i64>, %h: tensor<i64>, %qi: tensor<i64>, %ki: tensor<i64>):
    tg.yield %s : tensor<f32>
  } score_grad {
  }
  return %dq, %dk, %dv : tensor<1x2x64x264xbf16>, tensor<1x2x64x264xbf16>, tensor<1x2x64x264xbf16>
}

// CHECK: remark: backend nvrtc: cuDNN cannot run it: cuDNN's attention backward takes bf16/f16 q, k, v (not f32)
// PINNED: remark: backend nvrtc: cudnn was requested but cuDNN's attention backward takes bf16/f16 q, k, v (not f32)
func.func @f32(%q: tensor<1x2x64x64xf32>, %k: tensor<1x2x64x64xf32>, %v: tensor<1x2x64x64xf32>, %o: tensor<1x2x64x64xf32>, %do: tensor<1x2x64x64xf32>, %lse: tensor<1x2x64x1xf32>) -> (tensor<1x2x64x64xf32>, tensor<1x2x64x64xf32>, tensor<1x2x64x64xf32>) {
  %dq, %dk, %dv = tg.attention_grad %q, %k, %v, %o, %do, %lse {scale = 0.125 : f64}
      : tensor<1x2x64x64xf32>, tensor<1x2x64x64xf32>, tensor<1x2x64x64xf32>, tensor<1x2x64x64xf32>, tensor<1x2x64x64xf32>, tensor<1x2x64x1xf32>
      score {
  ^bb0(%s: tensor<f32>, %b: tensor<i64>, %h: tensor<i64>, %qi: tensor<i64>, %ki: tensor<i64>):
    tg.yield %s : tensor<f32>
  } score_grad {
  }
  return %dq, %dk, %dv : tensor<1x2x64x64xf32>, tensor<1x2x64x64xf32>, tensor<1x2x64x64xf32>
}

// CHECK: remark: backend nvrtc: cuDNN cannot run it: with padding, cuDNN's backward skips the padded rows (matmul overrides) and does not promise the zero gradients tg defines there
func.func @padding(%q: tensor<1x2x64x64xbf16>, %k: tensor<1x2x64x64xbf16>, %v: tensor<1x2x64x64xbf16>, %o: tensor<1x2x64x64xbf16>, %do: tensor<1x2x64x64xbf16>, %lse: tensor<1x2x64x1xf32>, %lq: tensor<1xi32>, %lkv: tensor<1xi32>) -> (tensor<1x2x64x64xbf16>, tensor<1x2x64x64xbf16>, tensor<1x2x64x64xbf16>) {
  %dq, %dk, %dv = tg.attention_grad %q, %k, %v, %o, %do, %lse seq_len_q(%lq : tensor<1xi32>) seq_len_kv(%lkv : tensor<1xi32>) {scale = 0.125 : f64}
      : tensor<1x2x64x64xbf16>, tensor<1x2x64x64xbf16>, tensor<1x2x64x64xbf16>, tensor<1x2x64x64xbf16>, tensor<1x2x64x64xbf16>, tensor<1x2x64x1xf32>
      score {
  ^bb0(%s: tensor<f32>, %b: tensor<i64>, %h: tensor<i64>, %qi: tensor<i64>, %ki: tensor<i64>):
    tg.yield %s : tensor<f32>
  } score_grad {
  }
  return %dq, %dk, %dv : tensor<1x2x64x64xbf16>, tensor<1x2x64x64xbf16>, tensor<1x2x64x64xbf16>
}

// CHECK: remark: backend nvrtc: cuDNN cannot run it: cuDNN's padding masks take int32 sequence lengths
func.func @padding_i64(%q: tensor<1x2x64x64xbf16>, %k: tensor<1x2x64x64xbf16>, %v: tensor<1x2x64x64xbf16>, %o: tensor<1x2x64x64xbf16>, %do: tensor<1x2x64x64xbf16>, %lse: tensor<1x2x64x1xf32>, %lkv: tensor<1xi64>) -> (tensor<1x2x64x64xbf16>, tensor<1x2x64x64xbf16>, tensor<1x2x64x64xbf16>) {
  %dq, %dk, %dv = tg.attention_grad %q, %k, %v, %o, %do, %lse seq_len_kv(%lkv : tensor<1xi64>) {scale = 0.125 : f64}
      : tensor<1x2x64x64xbf16>, tensor<1x2x64x64xbf16>, tensor<1x2x64x64xbf16>, tensor<1x2x64x64xbf16>, tensor<1x2x64x64xbf16>, tensor<1x2x64x1xf32>
      score {
  ^bb0(%s: tensor<f32>, %b: tensor<i64>, %h: tensor<i64>, %qi: tensor<i64>, %ki: tensor<i64>):
    tg.yield %s : tensor<f32>
  } score_grad {
  }
  return %dq, %dk, %dv : tensor<1x2x64x64xbf16>, tensor<1x2x64x64xbf16>, tensor<1x2x64x64xbf16>
}

// CHECK: remark: backend nvrtc: cuDNN cannot run it: the backward's score region (bias, ALiBi, soft-capping or other score math) is not lowered to cuDNN yet; only the scale and the attribute masks are (a captured bias may also be -inf on whole rows, where exp(S - stats) would give NaN instead of tg's zero gradients)
func.func @softcap(%q: tensor<1x2x64x64xbf16>, %k: tensor<1x2x64x64xbf16>, %v: tensor<1x2x64x64xbf16>, %o: tensor<1x2x64x64xbf16>, %do: tensor<1x2x64x64xbf16>, %lse: tensor<1x2x64x1xf32>) -> (tensor<1x2x64x64xbf16>, tensor<1x2x64x64xbf16>, tensor<1x2x64x64xbf16>) {
  %dq, %dk, %dv = tg.attention_grad %q, %k, %v, %o, %do, %lse {scale = 0.125 : f64}
      : tensor<1x2x64x64xbf16>, tensor<1x2x64x64xbf16>, tensor<1x2x64x64xbf16>, tensor<1x2x64x64xbf16>, tensor<1x2x64x64xbf16>, tensor<1x2x64x1xf32>
      score {
  ^bb0(%s: tensor<f32>, %b: tensor<i64>, %h: tensor<i64>, %qi: tensor<i64>, %ki: tensor<i64>):
    %t = tg.tanh %s : tensor<f32>
    tg.yield %t : tensor<f32>
  } score_grad {
  ^bb0(%s: tensor<f32>, %b: tensor<i64>, %h: tensor<i64>, %qi: tensor<i64>, %ki: tensor<i64>, %dz: tensor<f32>):
    %t = tg.tanh %s : tensor<f32>
    %t2 = tg.mul %t, %t : tensor<f32>, tensor<f32>
    %one = tg.constant dense<1.0> : tensor<f32>
    %d = tg.sub %one, %t2 : tensor<f32>, tensor<f32>
    %g = tg.mul %dz, %d : tensor<f32>, tensor<f32>
    tg.yield %g : tensor<f32>
  }
  return %dq, %dk, %dv : tensor<1x2x64x64xbf16>, tensor<1x2x64x64xbf16>, tensor<1x2x64x64xbf16>
}

// CHECK: remark: backend nvrtc: cuDNN cannot run it: cuDNN has no bottom-right causal mask with Sq > Skv (128 > 64) without padding (cudnn-frontend refuses it)
func.func @bottom_right_sq_gt_skv(%q: tensor<1x2x128x64xbf16>, %k: tensor<1x2x64x64xbf16>, %v: tensor<1x2x64x64xbf16>, %o: tensor<1x2x128x64xbf16>, %do: tensor<1x2x128x64xbf16>, %lse: tensor<1x2x128x1xf32>) -> (tensor<1x2x128x64xbf16>, tensor<1x2x64x64xbf16>, tensor<1x2x64x64xbf16>) {
  %dq, %dk, %dv = tg.attention_grad %q, %k, %v, %o, %do, %lse {causal = #tg<causal bottom_right>, scale = 0.125 : f64}
      : tensor<1x2x128x64xbf16>, tensor<1x2x64x64xbf16>, tensor<1x2x64x64xbf16>, tensor<1x2x128x64xbf16>, tensor<1x2x128x64xbf16>, tensor<1x2x128x1xf32>
      score {
  ^bb0(%s: tensor<f32>, %b: tensor<i64>, %h: tensor<i64>, %qi: tensor<i64>, %ki: tensor<i64>):
    tg.yield %s : tensor<f32>
  } score_grad {
  }
  return %dq, %dk, %dv : tensor<1x2x128x64xbf16>, tensor<1x2x64x64xbf16>, tensor<1x2x64x64xbf16>
}

// CHECK: remark: backend nvrtc: cuDNN cannot run it: cuDNN found no engine config for the backward with a sliding window
func.func @window_sq_gt_skv(%q: tensor<1x2x128x64xbf16>, %k: tensor<1x2x64x64xbf16>, %v: tensor<1x2x64x64xbf16>, %o: tensor<1x2x128x64xbf16>, %do: tensor<1x2x128x64xbf16>, %lse: tensor<1x2x128x1xf32>) -> (tensor<1x2x128x64xbf16>, tensor<1x2x64x64xbf16>, tensor<1x2x64x64xbf16>) {
  %dq, %dk, %dv = tg.attention_grad %q, %k, %v, %o, %do, %lse {window_left = 8 : i64, scale = 0.125 : f64}
      : tensor<1x2x128x64xbf16>, tensor<1x2x64x64xbf16>, tensor<1x2x64x64xbf16>, tensor<1x2x128x64xbf16>, tensor<1x2x128x64xbf16>, tensor<1x2x128x1xf32>
      score {
  ^bb0(%s: tensor<f32>, %b: tensor<i64>, %h: tensor<i64>, %qi: tensor<i64>, %ki: tensor<i64>):
    tg.yield %s : tensor<f32>
  } score_grad {
  }
  return %dq, %dk, %dv : tensor<1x2x128x64xbf16>, tensor<1x2x64x64xbf16>, tensor<1x2x64x64xbf16>
}

// CHECK: remark: backend nvrtc: cuDNN cannot run it: cuDNN found no engine config for the backward with a sliding window
func.func @window_long(%q: tensor<1x2x64x64xbf16>, %k: tensor<1x2x2048x64xbf16>, %v: tensor<1x2x2048x64xbf16>, %o: tensor<1x2x64x64xbf16>, %do: tensor<1x2x64x64xbf16>, %lse: tensor<1x2x64x1xf32>) -> (tensor<1x2x64x64xbf16>, tensor<1x2x2048x64xbf16>, tensor<1x2x2048x64xbf16>) {
  %dq, %dk, %dv = tg.attention_grad %q, %k, %v, %o, %do, %lse {window_left = 8 : i64, window_right = 8 : i64, scale = 0.125 : f64}
      : tensor<1x2x64x64xbf16>, tensor<1x2x2048x64xbf16>, tensor<1x2x2048x64xbf16>, tensor<1x2x64x64xbf16>, tensor<1x2x64x64xbf16>, tensor<1x2x64x1xf32>
      score {
  ^bb0(%s: tensor<f32>, %b: tensor<i64>, %h: tensor<i64>, %qi: tensor<i64>, %ki: tensor<i64>):
    tg.yield %s : tensor<f32>
  } score_grad {
  }
  return %dq, %dk, %dv : tensor<1x2x64x64xbf16>, tensor<1x2x2048x64xbf16>, tensor<1x2x2048x64xbf16>
}

// CHECK: remark: backend nvrtc: cuDNN cannot run it: cuDNN's attention backward does not run Sq = Skv = 1 (cudnn-frontend refuses it)
func.func @single(%q: tensor<1x2x1x64xbf16>, %k: tensor<1x2x1x64xbf16>, %v: tensor<1x2x1x64xbf16>, %o: tensor<1x2x1x64xbf16>, %do: tensor<1x2x1x64xbf16>, %lse: tensor<1x2x1x1xf32>) -> (tensor<1x2x1x64xbf16>, tensor<1x2x1x64xbf16>, tensor<1x2x1x64xbf16>) {
  %dq, %dk, %dv = tg.attention_grad %q, %k, %v, %o, %do, %lse {scale = 0.125 : f64}
      : tensor<1x2x1x64xbf16>, tensor<1x2x1x64xbf16>, tensor<1x2x1x64xbf16>, tensor<1x2x1x64xbf16>, tensor<1x2x1x64xbf16>, tensor<1x2x1x1xf32>
      score {
  ^bb0(%s: tensor<f32>, %b: tensor<i64>, %h: tensor<i64>, %qi: tensor<i64>, %ki: tensor<i64>):
    tg.yield %s : tensor<f32>
  } score_grad {
  }
  return %dq, %dk, %dv : tensor<1x2x1x64xbf16>, tensor<1x2x1x64xbf16>, tensor<1x2x1x64xbf16>
}

// CHECK: remark: backend nvrtc: cuDNN cannot run it: q has head-dim stride 64 (tg.strides); cuDNN's attention needs the head dim contiguous (stride 1)
func.func @strided_q(%q: tensor<1x2x64x64xbf16> {tg.strides = array<i64: 8192, 4096, 1, 64>}, %k: tensor<1x2x64x64xbf16>, %v: tensor<1x2x64x64xbf16>, %o: tensor<1x2x64x64xbf16>, %do: tensor<1x2x64x64xbf16>, %lse: tensor<1x2x64x1xf32>) -> (tensor<1x2x64x64xbf16>, tensor<1x2x64x64xbf16>, tensor<1x2x64x64xbf16>) {
  %dq, %dk, %dv = tg.attention_grad %q, %k, %v, %o, %do, %lse {scale = 0.125 : f64}
      : tensor<1x2x64x64xbf16>, tensor<1x2x64x64xbf16>, tensor<1x2x64x64xbf16>, tensor<1x2x64x64xbf16>, tensor<1x2x64x64xbf16>, tensor<1x2x64x1xf32>
      score {
  ^bb0(%s: tensor<f32>, %b: tensor<i64>, %h: tensor<i64>, %qi: tensor<i64>, %ki: tensor<i64>):
    tg.yield %s : tensor<f32>
  } score_grad {
  }
  return %dq, %dk, %dv : tensor<1x2x64x64xbf16>, tensor<1x2x64x64xbf16>, tensor<1x2x64x64xbf16>
}

// CHECK: remark: backend nvrtc: cuDNN cannot run it: cuDNN found no engine config for the backward with a sliding window
// PINNED: remark: backend nvrtc: cudnn was requested but cuDNN found no engine config for the backward with a sliding window
func.func @supported_gqa(%q: tensor<1x8x64x64xbf16>, %k: tensor<1x2x64x64xbf16>, %v: tensor<1x2x64x64xbf16>, %o: tensor<1x8x64x64xbf16>, %do: tensor<1x8x64x64xbf16>, %lse: tensor<1x8x64x1xf32>) -> (tensor<1x8x64x64xbf16>, tensor<1x2x64x64xbf16>, tensor<1x2x64x64xbf16>) {
  %dq, %dk, %dv = tg.attention_grad %q, %k, %v, %o, %do, %lse {causal = #tg<causal top_left>, window_left = 16 : i64, scale = 0.125 : f64}
      : tensor<1x8x64x64xbf16>, tensor<1x2x64x64xbf16>, tensor<1x2x64x64xbf16>, tensor<1x8x64x64xbf16>, tensor<1x8x64x64xbf16>, tensor<1x8x64x1xf32>
      score {
  ^bb0(%s: tensor<f32>, %b: tensor<i64>, %h: tensor<i64>, %qi: tensor<i64>, %ki: tensor<i64>):
    tg.yield %s : tensor<f32>
  } score_grad {
  }
  return %dq, %dk, %dv : tensor<1x8x64x64xbf16>, tensor<1x2x64x64xbf16>, tensor<1x2x64x64xbf16>
}

// A table capture (tg.gather) in the backward's score region.
// CHECK: remark: backend nvrtc: cuDNN cannot run it: capture #0 (tensor<2x127xf32>) is a table read by tg.gather at computed indices; cuDNN's pointwise operation graph cannot gather (its operands are read only at the score's position)
// PINNED: remark: backend nvrtc: cudnn was requested but capture #0 (tensor<2x127xf32>) is a table read by tg.gather
func.func @gather_table(%q: tensor<1x2x64x64xbf16>, %o: tensor<1x2x64x64xbf16>, %lse: tensor<1x2x64x1xf32>, %t: tensor<2x127xf32>) -> (tensor<1x2x64x64xbf16>, tensor<1x2x64x64xbf16>, tensor<1x2x64x64xbf16>) {
  %dq, %dk, %dv = tg.attention_grad %q, %q, %q, %o, %o, %lse captures(%t : tensor<2x127xf32>)
      : tensor<1x2x64x64xbf16>, tensor<1x2x64x64xbf16>, tensor<1x2x64x64xbf16>, tensor<1x2x64x64xbf16>, tensor<1x2x64x64xbf16>, tensor<1x2x64x1xf32>
      score {
  ^bb0(%s: tensor<f32>, %b: tensor<i64>, %h: tensor<i64>, %qi: tensor<i64>, %ki: tensor<i64>, %tt: tensor<2x127xf32>):
    %d = tg.sub %qi, %ki : tensor<i64>, tensor<i64>
    %c = tg.constant dense<63> : tensor<i64>
    %r = tg.add %d, %c : tensor<i64>, tensor<i64>
    %e = tg.gather %tt[%h, %r] : tensor<2x127xf32>[tensor<i64>, tensor<i64>]
    %z = tg.add %s, %e : tensor<f32>, tensor<f32>
    tg.yield %z : tensor<f32>
  } score_grad {
  }
  return %dq, %dk, %dv : tensor<1x2x64x64xbf16>, tensor<1x2x64x64xbf16>, tensor<1x2x64x64xbf16>
}

