// tg.attention that cuDNN cannot run exactly as tg defines it stays on the
// NVRTC kernel, with the reason in the explain remarks.
// RUN: tg-opt %s --tg-select-backend=explain=true 2>&1 | FileCheck %s
// RUN: tg-opt %s --tg-select-backend="backend=cudnn explain=true" 2>&1 | FileCheck %s --check-prefix=PINNED
// RUN: tg-compile %s --entry=dropout --explain-backend --emit=mlir 2>&1 | FileCheck %s --check-prefix=COMPILE

// COMPILE: remark: backend nvrtc: cuDNN cannot run it: cuDNN's dropout mask (its own Philox stream) differs from tg.dropout's documented keep-bit mapping, so results would not match the graph
// COMPILE: tg.backend = #tg<backend nvrtc>
// PINNED: remark: backend nvrtc: cudnn was requested but cuDNN's dropout mask
// PINNED: remark: backend nvrtc: cudnn was requested but q/k/v are f32

// CHECK: remark: backend nvrtc: cuDNN cannot run it: cuDNN's dropout mask (its own Philox stream) differs from tg.dropout's documented keep-bit mapping, so results would not match the graph
func.func @dropout(%q: tensor<1x2x64x64xbf16>, %k: tensor<1x2x64x64xbf16>, %v: tensor<1x2x64x64xbf16>, %seed: tensor<i64>, %off: tensor<i64>) -> tensor<1x2x64x64xbf16> {
  %o = tg.attention %q, %k, %v seed(%seed) offset(%off) {dropout = 1.000000e-01 : f64}
      : tensor<1x2x64x64xbf16>, tensor<1x2x64x64xbf16>, tensor<1x2x64x64xbf16> -> tensor<1x2x64x64xbf16>
      score {
  ^bb0(%s: tensor<f32>, %b: tensor<i64>, %h: tensor<i64>, %qi: tensor<i64>, %ki: tensor<i64>):
    tg.yield %s : tensor<f32>
  }
  return %o : tensor<1x2x64x64xbf16>
}

// CHECK: remark: backend nvrtc: cuDNN cannot run it: q/k/v are f32; cuDNN's fused attention takes only bf16 or f16
func.func @f32(%q: tensor<1x2x64x64xf32>, %k: tensor<1x2x64x64xf32>, %v: tensor<1x2x64x64xf32>) -> tensor<1x2x64x64xf32> {
  %o = tg.attention %q, %k, %v : tensor<1x2x64x64xf32>, tensor<1x2x64x64xf32>, tensor<1x2x64x64xf32> -> tensor<1x2x64x64xf32>
      score {
  ^bb0(%s: tensor<f32>, %b: tensor<i64>, %h: tensor<i64>, %qi: tensor<i64>, %ki: tensor<i64>):
    tg.yield %s : tensor<f32>
  }
  return %o : tensor<1x2x64x64xf32>
}

// CHECK: remark: backend nvrtc: cuDNN cannot run it: head dim D = 60; cuDNN needs a multiple of 8 and at most 256
func.func @hd60(%q: tensor<1x2x64x60xf16>, %k: tensor<1x2x64x60xf16>, %v: tensor<1x2x64x64xf16>) -> tensor<1x2x64x64xf16> {
  %o = tg.attention %q, %k, %v : tensor<1x2x64x60xf16>, tensor<1x2x64x60xf16>, tensor<1x2x64x64xf16> -> tensor<1x2x64x64xf16>
      score {
  ^bb0(%s: tensor<f32>, %b: tensor<i64>, %h: tensor<i64>, %qi: tensor<i64>, %ki: tensor<i64>):
    tg.yield %s : tensor<f32>
  }
  return %o : tensor<1x2x64x64xf16>
}

// CHECK: remark: backend nvrtc: cuDNN cannot run it: head dim Dv = 512; cuDNN needs a multiple of 8 and at most 256
func.func @dv512(%q: tensor<1x2x64x64xf16>, %k: tensor<1x2x64x64xf16>, %v: tensor<1x2x64x512xf16>) -> tensor<1x2x64x512xf16> {
  %o = tg.attention %q, %k, %v : tensor<1x2x64x64xf16>, tensor<1x2x64x64xf16>, tensor<1x2x64x512xf16> -> tensor<1x2x64x512xf16>
      score {
  ^bb0(%s: tensor<f32>, %b: tensor<i64>, %h: tensor<i64>, %qi: tensor<i64>, %ki: tensor<i64>):
    tg.yield %s : tensor<f32>
  }
  return %o : tensor<1x2x64x512xf16>
}

// CHECK: remark: backend nvrtc: cuDNN cannot run it: sequence lengths are i64; cuDNN's padding masks take int32
func.func @i64_lengths(%q: tensor<2x2x64x64xbf16>, %k: tensor<2x2x64x64xbf16>, %v: tensor<2x2x64x64xbf16>, %lq: tensor<2xi64>) -> tensor<2x2x64x64xbf16> {
  %o = tg.attention %q, %k, %v seq_len_q(%lq : tensor<2xi64>) : tensor<2x2x64x64xbf16>, tensor<2x2x64x64xbf16>, tensor<2x2x64x64xbf16> -> tensor<2x2x64x64xbf16>
      score {
  ^bb0(%s: tensor<f32>, %b: tensor<i64>, %h: tensor<i64>, %qi: tensor<i64>, %ki: tensor<i64>):
    tg.yield %s : tensor<f32>
  }
  return %o : tensor<2x2x64x64xbf16>
}

// CHECK: remark: backend nvrtc: cuDNN cannot run it: q has head-dim stride 128 (tg.strides); cuDNN's attention needs the head dim contiguous (stride 1)
func.func @strided_head_dim(%q: tensor<1x2x64x64xbf16> {tg.strides = array<i64: 8192, 64, 1, 128>}, %k: tensor<1x2x64x64xbf16>, %v: tensor<1x2x64x64xbf16>) -> tensor<1x2x64x64xbf16> {
  %o = tg.attention %q, %k, %v : tensor<1x2x64x64xbf16>, tensor<1x2x64x64xbf16>, tensor<1x2x64x64xbf16> -> tensor<1x2x64x64xbf16>
      score {
  ^bb0(%s: tensor<f32>, %b: tensor<i64>, %h: tensor<i64>, %qi: tensor<i64>, %ki: tensor<i64>):
    tg.yield %s : tensor<f32>
  }
  return %o : tensor<1x2x64x64xbf16>
}

// CHECK: remark: backend nvrtc: cuDNN cannot run it: score region: tg.div on integers has no cuDNN pointwise equivalent with tg's rounding
func.func @int_div(%q: tensor<1x2x64x64xbf16>, %k: tensor<1x2x64x64xbf16>, %v: tensor<1x2x64x64xbf16>) -> tensor<1x2x64x64xbf16> {
  %o = tg.attention %q, %k, %v : tensor<1x2x64x64xbf16>, tensor<1x2x64x64xbf16>, tensor<1x2x64x64xbf16> -> tensor<1x2x64x64xbf16>
      score {
  ^bb0(%s: tensor<f32>, %b: tensor<i64>, %h: tensor<i64>, %qi: tensor<i64>, %ki: tensor<i64>):
    %c = tg.constant dense<3> : tensor<i64>
    %d = tg.div %ki, %c : tensor<i64>, tensor<i64>
    %f = tg.cast %d : tensor<i64> to tensor<f32>
    %r = tg.add %s, %f : tensor<f32>, tensor<f32>
    tg.yield %r : tensor<f32>
  }
  return %o : tensor<1x2x64x64xbf16>
}

// CHECK: remark: backend nvrtc: cuDNN cannot run it: score region: tg.cast from f32 to i64 truncates toward zero; cuDNN's identity conversion does not promise that rounding
func.func @float_to_int(%q: tensor<1x2x64x64xbf16>, %k: tensor<1x2x64x64xbf16>, %v: tensor<1x2x64x64xbf16>) -> tensor<1x2x64x64xbf16> {
  %o = tg.attention %q, %k, %v : tensor<1x2x64x64xbf16>, tensor<1x2x64x64xbf16>, tensor<1x2x64x64xbf16> -> tensor<1x2x64x64xbf16>
      score {
  ^bb0(%s: tensor<f32>, %b: tensor<i64>, %h: tensor<i64>, %qi: tensor<i64>, %ki: tensor<i64>):
    %i = tg.cast %s : tensor<f32> to tensor<i64>
    %f = tg.cast %i : tensor<i64> to tensor<f32>
    tg.yield %f : tensor<f32>
  }
  return %o : tensor<1x2x64x64xbf16>
}

// CHECK: remark: backend nvrtc: cuDNN cannot run it: score region: tg.mul may leave the int32 range that cuDNN's index math uses (tg computes it in i64)
func.func @int_range(%q: tensor<1x2x64x64xbf16>, %k: tensor<1x2x64x64xbf16>, %v: tensor<1x2x64x64xbf16>) -> tensor<1x2x64x64xbf16> {
  %o = tg.attention %q, %k, %v : tensor<1x2x64x64xbf16>, tensor<1x2x64x64xbf16>, tensor<1x2x64x64xbf16> -> tensor<1x2x64x64xbf16>
      score {
  ^bb0(%s: tensor<f32>, %b: tensor<i64>, %h: tensor<i64>, %qi: tensor<i64>, %ki: tensor<i64>):
    %c = tg.constant dense<1073741824> : tensor<i64>
    %m = tg.mul %ki, %c : tensor<i64>, tensor<i64>
    %f = tg.cast %m : tensor<i64> to tensor<f32>
    %r = tg.add %s, %f : tensor<f32>, tensor<f32>
    tg.yield %r : tensor<f32>
  }
  return %o : tensor<1x2x64x64xbf16>
}

// CHECK: remark: backend nvrtc: cuDNN cannot run it: score region: tg.mul yields bf16: cuDNN does not round virtual intermediates to 16-bit or 8-bit types, so only f32 arithmetic is translated
func.func @bf16_math(%q: tensor<1x2x64x64xbf16>, %k: tensor<1x2x64x64xbf16>, %v: tensor<1x2x64x64xbf16>, %c: tensor<1x1x64x64xbf16>) -> tensor<1x2x64x64xbf16> {
  %o = tg.attention %q, %k, %v captures(%c : tensor<1x1x64x64xbf16>) : tensor<1x2x64x64xbf16>, tensor<1x2x64x64xbf16>, tensor<1x2x64x64xbf16> -> tensor<1x2x64x64xbf16>
      score {
  ^bb0(%s: tensor<f32>, %b: tensor<i64>, %h: tensor<i64>, %qi: tensor<i64>, %ki: tensor<i64>, %ce: tensor<bf16>):
    %sq = tg.mul %ce, %ce : tensor<bf16>, tensor<bf16>
    %f = tg.cast %sq : tensor<bf16> to tensor<f32>
    %r = tg.add %s, %f : tensor<f32>, tensor<f32>
    tg.yield %r : tensor<f32>
  }
  return %o : tensor<1x2x64x64xbf16>
}

// CHECK: remark: backend nvrtc: cuDNN cannot run it: capture #0 has element type i1; cuDNN takes only f32, bf16 or f16 score operands
func.func @bool_capture(%q: tensor<1x2x64x64xbf16>, %k: tensor<1x2x64x64xbf16>, %v: tensor<1x2x64x64xbf16>, %m: tensor<1x1x64x64xi1>) -> tensor<1x2x64x64xbf16> {
  %o = tg.attention %q, %k, %v captures(%m : tensor<1x1x64x64xi1>) : tensor<1x2x64x64xbf16>, tensor<1x2x64x64xbf16>, tensor<1x2x64x64xbf16> -> tensor<1x2x64x64xbf16>
      score {
  ^bb0(%s: tensor<f32>, %b: tensor<i64>, %h: tensor<i64>, %qi: tensor<i64>, %ki: tensor<i64>, %me: tensor<i1>):
    %ninf = tg.constant dense<0xFF800000> : tensor<f32>
    %r = tg.select %me, %s, %ninf : tensor<i1>, tensor<f32>, tensor<f32>
    tg.yield %r : tensor<f32>
  }
  return %o : tensor<1x2x64x64xbf16>
}

// CHECK: remark: backend nvrtc: cuDNN cannot run it: the masks leave query row 0 without any kv position (Sq = 128, Skv = 64); tg gives zero output and -inf stats there, which cuDNN's fused attention does not promise
func.func @bottom_right_sq_gt_skv(%q: tensor<1x2x128x64xbf16>, %k: tensor<1x2x64x64xbf16>, %v: tensor<1x2x64x64xbf16>) -> tensor<1x2x128x64xbf16> {
  %o = tg.attention %q, %k, %v {causal = #tg<causal bottom_right>} : tensor<1x2x128x64xbf16>, tensor<1x2x64x64xbf16>, tensor<1x2x64x64xbf16> -> tensor<1x2x128x64xbf16>
      score {
  ^bb0(%s: tensor<f32>, %b: tensor<i64>, %h: tensor<i64>, %qi: tensor<i64>, %ki: tensor<i64>):
    tg.yield %s : tensor<f32>
  }
  return %o : tensor<1x2x128x64xbf16>
}

// CHECK: remark: backend nvrtc: cuDNN cannot run it: the masks leave query row 81 without any kv position (Sq = 128, Skv = 64)
func.func @window_past_keys(%q: tensor<1x2x128x64xbf16>, %k: tensor<1x2x64x64xbf16>, %v: tensor<1x2x64x64xbf16>) -> tensor<1x2x128x64xbf16> {
  %o = tg.attention %q, %k, %v {causal = #tg<causal top_left>, window_left = 17 : i64} : tensor<1x2x128x64xbf16>, tensor<1x2x64x64xbf16>, tensor<1x2x64x64xbf16> -> tensor<1x2x128x64xbf16>
      score {
  ^bb0(%s: tensor<f32>, %b: tensor<i64>, %h: tensor<i64>, %qi: tensor<i64>, %ki: tensor<i64>):
    tg.yield %s : tensor<f32>
  }
  return %o : tensor<1x2x128x64xbf16>
}

// CHECK: remark: backend nvrtc: cuDNN cannot run it: cuDNN's fused attention has no bottom-right causal mask together with a bias or score modifier (cudnn-frontend refuses it)
func.func @bottom_right_bias(%q: tensor<1x2x64x64xbf16>, %k: tensor<1x2x64x64xbf16>, %v: tensor<1x2x64x64xbf16>, %c: tensor<1x1x64x64xf32>) -> tensor<1x2x64x64xbf16> {
  %o = tg.attention %q, %k, %v captures(%c : tensor<1x1x64x64xf32>) {causal = #tg<causal bottom_right>} : tensor<1x2x64x64xbf16>, tensor<1x2x64x64xbf16>, tensor<1x2x64x64xbf16> -> tensor<1x2x64x64xbf16>
      score {
  ^bb0(%s: tensor<f32>, %b: tensor<i64>, %h: tensor<i64>, %qi: tensor<i64>, %ki: tensor<i64>, %ce: tensor<f32>):
    %r = tg.add %s, %ce : tensor<f32>, tensor<f32>
    tg.yield %r : tensor<f32>
  }
  return %o : tensor<1x2x64x64xbf16>
}

// CHECK: remark: backend nvrtc: cuDNN cannot run it: cuDNN's sliding window needs Sq <= Skv without padding (Sq = 128, Skv = 64; cudnn-frontend refuses it)
func.func @window_sq_gt_skv(%q: tensor<1x2x128x64xbf16>, %k: tensor<1x2x64x64xbf16>, %v: tensor<1x2x64x64xbf16>) -> tensor<1x2x128x64xbf16> {
  %o = tg.attention %q, %k, %v {causal = #tg<causal top_left>, window_left = 100 : i64} : tensor<1x2x128x64xbf16>, tensor<1x2x64x64xbf16>, tensor<1x2x64x64xbf16> -> tensor<1x2x128x64xbf16>
      score {
  ^bb0(%s: tensor<f32>, %b: tensor<i64>, %h: tensor<i64>, %qi: tensor<i64>, %ki: tensor<i64>):
    tg.yield %s : tensor<f32>
  }
  return %o : tensor<1x2x128x64xbf16>
}

// A table capture read by tg.gather (a relative-position table): cuDNN's
// pointwise graph reads operands only at the score's position.
// CHECK: remark: backend nvrtc: cuDNN cannot run it: capture #0 (tensor<2x127xf32>) is a table read by tg.gather at computed indices; cuDNN's pointwise operation graph cannot gather (its operands are read only at the score's position)
// PINNED: remark: backend nvrtc: cudnn was requested but capture #0 (tensor<2x127xf32>) is a table read by tg.gather
func.func @gather_table(%q: tensor<1x2x64x64xbf16>, %k: tensor<1x2x64x64xbf16>, %v: tensor<1x2x64x64xbf16>, %t: tensor<2x127xf32>) -> tensor<1x2x64x64xbf16> {
  %o = tg.attention %q, %k, %v captures(%t : tensor<2x127xf32>)
      : tensor<1x2x64x64xbf16>, tensor<1x2x64x64xbf16>, tensor<1x2x64x64xbf16> -> tensor<1x2x64x64xbf16>
      score {
  ^bb0(%s: tensor<f32>, %b: tensor<i64>, %h: tensor<i64>, %qi: tensor<i64>, %ki: tensor<i64>, %tt: tensor<2x127xf32>):
    %d = tg.sub %qi, %ki : tensor<i64>, tensor<i64>
    %c = tg.constant dense<63> : tensor<i64>
    %r = tg.add %d, %c : tensor<i64>, tensor<i64>
    %e = tg.gather %tt[%h, %r] : tensor<2x127xf32>[tensor<i64>, tensor<i64>]
    %z = tg.add %s, %e : tensor<f32>, tensor<f32>
    tg.yield %z : tensor<f32>
  }
  return %o : tensor<1x2x64x64xbf16>
}
