// FP8 attention that both backends can run goes to the faster one by the
// committed FP8 rows (AttentionBackendTable.cpp); where the fused FP8 kernel
// cannot run it for the target (or no target is given), cuDNN.
// RUN: tg-opt %s --tg-select-backend="explain=true target=sm_90a" 2>&1 | FileCheck %s
// RUN: tg-opt %s --tg-select-backend="explain=true target=sm_80" 2>&1 | FileCheck %s --check-prefix=SM80

// CHECK: remark: backend nvrtc: measured on H200 (FP8 attention forward): cuDNN 982.9 TFLOP/s, the fused FP8 kernel 1114.9 (nearest measured: hd 256, causal, S 16384; bench/results/2026-12-03_fp8/bench_fp8); fused kernel
// CHECK: remark: backend cudnn: measured on H200 (FP8 attention forward): cuDNN 1136.0 TFLOP/s, the fused FP8 kernel 1136.3 (nearest measured: hd 256, no mask, S 16384; bench/results/2026-12-03_fp8/bench_fp8); within the 5% margin that a move off cuDNN needs
// CHECK: remark: backend cudnn: measured on H200 (FP8 attention forward): cuDNN 783.8 TFLOP/s, the fused FP8 kernel 575.5 (nearest measured: hd 128, causal, S 4096;
// SM80: remark: backend cudnn: FP8: the fused NVRTC kernel cannot run it (FP8 attention has a fused kernel for target sm_90a only (target sm_80)), the expansion into generic kernels is far slower
// SM80: remark: backend cudnn: FP8: the fused NVRTC kernel cannot run it
// SM80: remark: backend cudnn: FP8: the fused NVRTC kernel cannot run it

func.func @causal_hd256_s16k(%q: tensor<1x8x16384x256xf8E4M3FN>, %s: tensor<f32>) -> tensor<1x8x16384x256xf8E4M3FN> {
  %o = tg.attention %q, %q, %q fp8_scales(%s, %s, %s, %s, %s, %s : tensor<f32>, tensor<f32>, tensor<f32>, tensor<f32>, tensor<f32>, tensor<f32>)
      {causal = #tg<causal top_left>, scale = 0.0625 : f64}
      : tensor<1x8x16384x256xf8E4M3FN>, tensor<1x8x16384x256xf8E4M3FN>, tensor<1x8x16384x256xf8E4M3FN> -> tensor<1x8x16384x256xf8E4M3FN> score {
  ^bb0(%x: tensor<f32>, %b: tensor<i64>, %h: tensor<i64>, %qi: tensor<i64>, %ki: tensor<i64>):
    tg.yield %x : tensor<f32>
  }
  return %o : tensor<1x8x16384x256xf8E4M3FN>
}

func.func @plain_hd256_s16k(%q: tensor<1x8x16384x256xf8E4M3FN>, %s: tensor<f32>) -> tensor<1x8x16384x256xf8E4M3FN> {
  %o = tg.attention %q, %q, %q fp8_scales(%s, %s, %s, %s, %s, %s : tensor<f32>, tensor<f32>, tensor<f32>, tensor<f32>, tensor<f32>, tensor<f32>)
      {scale = 0.0625 : f64}
      : tensor<1x8x16384x256xf8E4M3FN>, tensor<1x8x16384x256xf8E4M3FN>, tensor<1x8x16384x256xf8E4M3FN> -> tensor<1x8x16384x256xf8E4M3FN> score {
  ^bb0(%x: tensor<f32>, %b: tensor<i64>, %h: tensor<i64>, %qi: tensor<i64>, %ki: tensor<i64>):
    tg.yield %x : tensor<f32>
  }
  return %o : tensor<1x8x16384x256xf8E4M3FN>
}

// 2000 keys are nearest the S 4096 row.
func.func @causal_hd128_s2000(%q: tensor<2x4x2000x128xf8E4M3FN>, %s: tensor<f32>) -> tensor<2x4x2000x128xf8E4M3FN> {
  %o = tg.attention %q, %q, %q fp8_scales(%s, %s, %s, %s, %s, %s : tensor<f32>, tensor<f32>, tensor<f32>, tensor<f32>, tensor<f32>, tensor<f32>)
      {causal = #tg<causal top_left>, scale = 0.088 : f64}
      : tensor<2x4x2000x128xf8E4M3FN>, tensor<2x4x2000x128xf8E4M3FN>, tensor<2x4x2000x128xf8E4M3FN> -> tensor<2x4x2000x128xf8E4M3FN> score {
  ^bb0(%x: tensor<f32>, %b: tensor<i64>, %h: tensor<i64>, %qi: tensor<i64>, %ki: tensor<i64>):
    tg.yield %x : tensor<f32>
  }
  return %o : tensor<2x4x2000x128xf8E4M3FN>
}
