// A decode step goes to the faster of the split-KV decode kernel and cuDNN
// by the measurements committed in AttentionBackendTable.cpp (H200): cuDNN at
// Sq 1, the decode kernel at Sq 2-8; where the decode kernel does not apply
// (a GQA group of 8 x 16 rows, training), the prefill rows (cuDNN).
// A backend the user asks for still wins.
// RUN: tg-opt %s --tg-select-backend=explain=true 2>&1 | FileCheck %s
// RUN: tg-opt %s --tg-select-backend="backend=cudnn explain=true" 2>&1 | FileCheck %s --check-prefix=CUDNN
// RUN: tg-opt %s --tg-select-backend --mlir-disable-threading=false 2>&1 | FileCheck %s --check-prefix=IR

// CHECK: remark: backend cudnn: measured per decode step: the NVRTC decode kernel 77.8 us, cuDNN 71.6 us (nearest measured: B 8, Sq 1; bench/results/2026-12-02_issue10/decode_backends
// CHECK: remark: backend nvrtc: measured per decode step: the NVRTC decode kernel 79.1 us, cuDNN 399.4 us (nearest measured: B 8, Sq 4;
// CHECK-SAME: fused kernel
// CHECK: remark: backend nvrtc: measured per decode step: the NVRTC decode kernel 19.3 us, cuDNN 102.8 us (nearest measured: B 1, Sq 2;
// CHECK: remark: backend cudnn: measured on H200 (plain attention forward): cuDNN 600.3 TFLOP/s, the generated kernel 617.3 (nearest measured: hd 128, causal, S 8192;
// CHECK-SAME: within the 5% margin that a move off cuDNN needs
// CHECK: remark: backend cudnn: measured on H200 (plain attention forward): cuDNN 600.3 TFLOP/s
// CUDNN-COUNT-5: remark: backend cudnn: requested (cudnn)
// IR-LABEL: func.func @sq1
// IR: tg.backend = #tg<backend cudnn>
// IR-LABEL: func.func @sq4
// IR: tg.backend = #tg<backend nvrtc>

func.func @sq1(%q: tensor<8x64x1x128xbf16>, %k: tensor<8x8x8192x128xbf16>, %v: tensor<8x8x8192x128xbf16>) -> tensor<8x64x1x128xbf16> {
  %o = tg.attention %q, %k, %v {causal = #tg<causal bottom_right>, scale = 0.088 : f64}
      : tensor<8x64x1x128xbf16>, tensor<8x8x8192x128xbf16>, tensor<8x8x8192x128xbf16> -> tensor<8x64x1x128xbf16>
      score {
  ^bb0(%s: tensor<f32>, %b: tensor<i64>, %h: tensor<i64>, %qi: tensor<i64>, %ki: tensor<i64>):
    tg.yield %s : tensor<f32>
  }
  return %o : tensor<8x64x1x128xbf16>
}

func.func @sq4(%q: tensor<8x64x4x128xbf16>, %k: tensor<8x8x8192x128xbf16>, %v: tensor<8x8x8192x128xbf16>) -> tensor<8x64x4x128xbf16> {
  %o = tg.attention %q, %k, %v {causal = #tg<causal bottom_right>, scale = 0.088 : f64}
      : tensor<8x64x4x128xbf16>, tensor<8x8x8192x128xbf16>, tensor<8x8x8192x128xbf16> -> tensor<8x64x4x128xbf16>
      score {
  ^bb0(%s: tensor<f32>, %b: tensor<i64>, %h: tensor<i64>, %qi: tensor<i64>, %ki: tensor<i64>):
    tg.yield %s : tensor<f32>
  }
  return %o : tensor<8x64x4x128xbf16>
}

// A softcap (no mask: cuDNN has no bottom-right causal mask with a score
// modifier), one sequence, 2 new tokens, 4096 keys: the nearest row is B 1,
// Sq 2.
func.func @sq2_softcap(%q: tensor<1x32x2x128xf16>, %k: tensor<1x4x4096x128xf16>, %v: tensor<1x4x4096x128xf16>) -> tensor<1x32x2x128xf16> {
  %o = tg.attention %q, %k, %v {scale = 0.088 : f64}
      : tensor<1x32x2x128xf16>, tensor<1x4x4096x128xf16>, tensor<1x4x4096x128xf16> -> tensor<1x32x2x128xf16>
      score {
  ^bb0(%s: tensor<f32>, %b: tensor<i64>, %h: tensor<i64>, %qi: tensor<i64>, %ki: tensor<i64>):
    %c = tg.constant dense<30.0> : tensor<f32>
    %d = tg.div %s, %c : tensor<f32>, tensor<f32>
    %t = tg.tanh %d : tensor<f32>
    %m = tg.mul %t, %c : tensor<f32>, tensor<f32>
    tg.yield %m : tensor<f32>
  }
  return %o : tensor<1x32x2x128xf16>
}

// 8 x 16 = 128 packed rows: more than the decode kernel holds.
func.func @sq16(%q: tensor<8x64x16x128xbf16>, %k: tensor<8x8x8192x128xbf16>, %v: tensor<8x8x8192x128xbf16>) -> tensor<8x64x16x128xbf16> {
  %o = tg.attention %q, %k, %v {causal = #tg<causal bottom_right>, scale = 0.088 : f64}
      : tensor<8x64x16x128xbf16>, tensor<8x8x8192x128xbf16>, tensor<8x8x8192x128xbf16> -> tensor<8x64x16x128xbf16>
      score {
  ^bb0(%s: tensor<f32>, %b: tensor<i64>, %h: tensor<i64>, %qi: tensor<i64>, %ki: tensor<i64>):
    tg.yield %s : tensor<f32>
  }
  return %o : tensor<8x64x16x128xbf16>
}

// Training stats: the prefill kernel.
func.func @sq4_training(%q: tensor<8x64x4x128xbf16>, %k: tensor<8x8x8192x128xbf16>, %v: tensor<8x8x8192x128xbf16>) -> (tensor<8x64x4x128xbf16>, tensor<8x64x4x1xf32>) {
  %o, %lse = tg.attention %q, %k, %v {causal = #tg<causal bottom_right>, scale = 0.088 : f64, training}
      : tensor<8x64x4x128xbf16>, tensor<8x8x8192x128xbf16>, tensor<8x8x8192x128xbf16> -> tensor<8x64x4x128xbf16>, tensor<8x64x4x1xf32>
      score {
  ^bb0(%s: tensor<f32>, %b: tensor<i64>, %h: tensor<i64>, %qi: tensor<i64>, %ki: tensor<i64>):
    tg.yield %s : tensor<f32>
  }
  return %o, %lse : tensor<8x64x4x128xbf16>, tensor<8x64x4x1xf32>
}
