// Prefill attention goes to the faster backend of the committed H200 rows
// (AttentionBackendTable.cpp) nearest to its head dim, mask and key length;
// the remark gives both figures, and says when the op has a score region
// (the rows are of plain attention).
// RUN: tg-opt %s --tg-select-backend=explain=true 2>&1 | FileCheck %s

// CHECK: remark: backend cudnn: measured on H200 (plain attention forward): cuDNN 621.6 TFLOP/s, the generated kernel 600.7 (nearest measured: hd 256, causal, S 8192; bench/results/2026-12-02_ws/forward); this op has a score region, the figures are of plain attention
// CHECK: remark: backend cudnn: measured on H200 (plain attention forward): cuDNN 453.9 TFLOP/s, the generated kernel 448.3 (nearest measured: hd 64, no mask, S 2048;
// CHECK-NOT: score region
// CHECK: remark: backend nvrtc: measured on H200 (plain attention forward): cuDNN 483.8 TFLOP/s, the generated kernel 517.5 (nearest measured: hd 64, no mask, S 8192;
// CHECK: remark: backend cudnn: measured on H200 (plain attention forward): cuDNN 483.8 TFLOP/s, the generated kernel 517.5 (nearest measured: hd 64, no mask, S 8192;
// CHECK-SAME: the figures are of the warp-specialised kernel, which takes head dims that are multiples of 64

func.func @softcap_hd256(%q: tensor<1x8x6000x256xbf16>, %k: tensor<1x8x6000x256xbf16>, %v: tensor<1x8x6000x256xbf16>) -> tensor<1x8x6000x256xbf16> {
  %o = tg.attention %q, %k, %v {causal = #tg<causal top_left>, scale = 0.0625 : f64}
      : tensor<1x8x6000x256xbf16>, tensor<1x8x6000x256xbf16>, tensor<1x8x6000x256xbf16> -> tensor<1x8x6000x256xbf16>
      score {
  ^bb0(%s: tensor<f32>, %b: tensor<i64>, %h: tensor<i64>, %qi: tensor<i64>, %ki: tensor<i64>):
    %c = tg.constant dense<30.0> : tensor<f32>
    %d = tg.div %s, %c : tensor<f32>, tensor<f32>
    %t = tg.tanh %d : tensor<f32>
    %m = tg.mul %t, %c : tensor<f32>, tensor<f32>
    tg.yield %m : tensor<f32>
  }
  return %o : tensor<1x8x6000x256xbf16>
}

// hd 80 is nearest to hd 64 (log2); 1500 keys nearest to 2048.
func.func @plain_hd80(%q: tensor<2x16x1500x80xf16>, %k: tensor<2x16x1500x80xf16>, %v: tensor<2x16x1500x80xf16>) -> tensor<2x16x1500x80xf16> {
  %o = tg.attention %q, %k, %v {scale = 0.11 : f64}
      : tensor<2x16x1500x80xf16>, tensor<2x16x1500x80xf16>, tensor<2x16x1500x80xf16> -> tensor<2x16x1500x80xf16>
      score {
  ^bb0(%s: tensor<f32>, %b: tensor<i64>, %h: tensor<i64>, %qi: tensor<i64>, %ki: tensor<i64>):
    tg.yield %s : tensor<f32>
  }
  return %o : tensor<2x16x1500x80xf16>
}

// hd 64 at 8192 keys: the generated kernel is 7% faster; hd 80 is nearest to
// that row too, but runs the portable kernel, which the row does not time.
func.func @plain_hd64_long(%q: tensor<1x32x8192x64xbf16>, %k: tensor<1x32x8192x64xbf16>, %v: tensor<1x32x8192x64xbf16>) -> tensor<1x32x8192x64xbf16> {
  %o = tg.attention %q, %k, %v {scale = 0.125 : f64}
      : tensor<1x32x8192x64xbf16>, tensor<1x32x8192x64xbf16>, tensor<1x32x8192x64xbf16> -> tensor<1x32x8192x64xbf16>
      score {
  ^bb0(%s: tensor<f32>, %b: tensor<i64>, %h: tensor<i64>, %qi: tensor<i64>, %ki: tensor<i64>):
    tg.yield %s : tensor<f32>
  }
  return %o : tensor<1x32x8192x64xbf16>
}

func.func @plain_hd80_long(%q: tensor<1x32x8192x80xbf16>, %k: tensor<1x32x8192x80xbf16>, %v: tensor<1x32x8192x80xbf16>) -> tensor<1x32x8192x80xbf16> {
  %o = tg.attention %q, %k, %v {scale = 0.11 : f64}
      : tensor<1x32x8192x80xbf16>, tensor<1x32x8192x80xbf16>, tensor<1x32x8192x80xbf16> -> tensor<1x32x8192x80xbf16>
      score {
  ^bb0(%s: tensor<f32>, %b: tensor<i64>, %h: tensor<i64>, %qi: tensor<i64>, %ki: tensor<i64>):
    tg.yield %s : tensor<f32>
  }
  return %o : tensor<1x32x8192x80xbf16>
}
