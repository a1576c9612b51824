// FP8 attention that cuDNN's FP8 graph cannot run stays on NVRTC, where
// tg-expand-attention expands it; --explain-backend says why.
// RUN: tg-compile %s --backend=cudnn --explain-backend --emit=mlir 2>&1 >/dev/null | FileCheck %s
// RUN: tg-compile %s --backend=cudnn --emit=mlir | FileCheck %s --check-prefix=MLIR

// CHECK-DAG: remark: backend nvrtc: cudnn was requested but FP8 attention needs head dims that are multiples of 16 and at most 256; q has 72; using nvrtc
func.func @head_dim(%q: tensor<1x2x16x72xf8E4M3FN>, %s: tensor<f32>) -> tensor<1x2x16x72xf8E4M3FN> {
  %o = tg.sdpa %q, %q, %q fp8_scales(%s, %s, %s, %s, %s, %s : tensor<f32>, tensor<f32>, tensor<f32>, tensor<f32>, tensor<f32>, tensor<f32>)
      : tensor<1x2x16x72xf8E4M3FN>, tensor<1x2x16x72xf8E4M3FN>, tensor<1x2x16x72xf8E4M3FN> -> tensor<1x2x16x72xf8E4M3FN>
  return %o : tensor<1x2x16x72xf8E4M3FN>
}

// CHECK-DAG: remark: backend nvrtc: cudnn was requested but FP8 attention needs head dims that are multiples of 16 and at most 256; v has 288; using nvrtc
func.func @head_dim_v(%q: tensor<1x2x16x64xf8E4M3FN>, %v: tensor<1x2x16x288xf8E4M3FN>, %s: tensor<f32>) -> tensor<1x2x16x288xf8E4M3FN> {
  %o = tg.sdpa %q, %q, %v fp8_scales(%s, %s, %s, %s, %s, %s : tensor<f32>, tensor<f32>, tensor<f32>, tensor<f32>, tensor<f32>, tensor<f32>)
      : tensor<1x2x16x64xf8E4M3FN>, tensor<1x2x16x64xf8E4M3FN>, tensor<1x2x16x288xf8E4M3FN> -> tensor<1x2x16x288xf8E4M3FN>
  return %o : tensor<1x2x16x288xf8E4M3FN>
}

// CHECK-DAG: remark: backend nvrtc: cudnn was requested but FP8 attention with a bf16/f16 output needs Blackwell and cuDNN 9.13 (Hopper writes fp8 only), and an FP8 cuDNN step has no NVRTC fallback; using nvrtc
func.func @bf16_output(%q: tensor<1x2x16x64xf8E4M3FN>, %s: tensor<f32>) -> tensor<1x2x16x64xbf16> {
  %o = tg.sdpa %q, %q, %q fp8_scales(%s, %s, %s, %s, %s, %s : tensor<f32>, tensor<f32>, tensor<f32>, tensor<f32>, tensor<f32>, tensor<f32>)
      : tensor<1x2x16x64xf8E4M3FN>, tensor<1x2x16x64xf8E4M3FN>, tensor<1x2x16x64xf8E4M3FN> -> tensor<1x2x16x64xbf16>
  return %o : tensor<1x2x16x64xbf16>
}

// CHECK-DAG: remark: backend nvrtc: cudnn was requested but cuDNN's FP8 attention graph takes no score modifiers (bias, ALiBi, soft-capping, score-region math); using nvrtc
func.func @bias(%q: tensor<1x2x16x64xf8E4M3FN>, %s: tensor<f32>, %bias: tensor<1x1x16x16xf32>) -> tensor<1x2x16x64xf8E4M3FN> {
  %o = tg.sdpa %q, %q, %q bias(%bias : tensor<1x1x16x16xf32>) fp8_scales(%s, %s, %s, %s, %s, %s : tensor<f32>, tensor<f32>, tensor<f32>, tensor<f32>, tensor<f32>, tensor<f32>)
      : tensor<1x2x16x64xf8E4M3FN>, tensor<1x2x16x64xf8E4M3FN>, tensor<1x2x16x64xf8E4M3FN> -> tensor<1x2x16x64xf8E4M3FN>
  return %o : tensor<1x2x16x64xf8E4M3FN>
}

// CHECK-DAG: remark: backend nvrtc: cudnn was requested but dropout with FP8 attention is not lowered to cuDNN; using nvrtc
func.func @dropout(%q: tensor<1x2x16x64xf8E4M3FN>, %s: tensor<f32>, %seed: tensor<i64>, %offset: tensor<i64>) -> tensor<1x2x16x64xf8E4M3FN> {
  %o = tg.sdpa %q, %q, %q seed(%seed) offset(%offset) fp8_scales(%s, %s, %s, %s, %s, %s : tensor<f32>, tensor<f32>, tensor<f32>, tensor<f32>, tensor<f32>, tensor<f32>)
      {dropout = 0.1 : f64}
      : tensor<1x2x16x64xf8E4M3FN>, tensor<1x2x16x64xf8E4M3FN>, tensor<1x2x16x64xf8E4M3FN> -> tensor<1x2x16x64xf8E4M3FN>
  return %o : tensor<1x2x16x64xf8E4M3FN>
}

// CHECK-DAG: remark: backend nvrtc: cudnn was requested but bottom-right causal FP8 attention needs Blackwell in cuDNN (Hopper has top-left only); using nvrtc
func.func @bottom_right(%q: tensor<1x2x16x64xf8E4M3FN>, %s: tensor<f32>) -> tensor<1x2x16x64xf8E4M3FN> {
  %o = tg.sdpa %q, %q, %q fp8_scales(%s, %s, %s, %s, %s, %s : tensor<f32>, tensor<f32>, tensor<f32>, tensor<f32>, tensor<f32>, tensor<f32>)
      {causal = #tg<causal bottom_right>}
      : tensor<1x2x16x64xf8E4M3FN>, tensor<1x2x16x64xf8E4M3FN>, tensor<1x2x16x64xf8E4M3FN> -> tensor<1x2x16x64xf8E4M3FN>
  return %o : tensor<1x2x16x64xf8E4M3FN>
}

// CHECK-DAG: remark: backend nvrtc: cudnn was requested but sliding windows with FP8 attention are not lowered to cuDNN; using nvrtc
func.func @window(%q: tensor<1x2x16x64xf8E4M3FN>, %s: tensor<f32>) -> tensor<1x2x16x64xf8E4M3FN> {
  %o = tg.sdpa %q, %q, %q fp8_scales(%s, %s, %s, %s, %s, %s : tensor<f32>, tensor<f32>, tensor<f32>, tensor<f32>, tensor<f32>, tensor<f32>)
      {window_left = 4 : i64}
      : tensor<1x2x16x64xf8E4M3FN>, tensor<1x2x16x64xf8E4M3FN>, tensor<1x2x16x64xf8E4M3FN> -> tensor<1x2x16x64xf8E4M3FN>
  return %o : tensor<1x2x16x64xf8E4M3FN>
}

// CHECK-DAG: remark: backend nvrtc: cudnn was requested but padding masks with FP8 attention are not lowered to cuDNN; using nvrtc
func.func @padding(%q: tensor<1x2x16x64xf8E4M3FN>, %s: tensor<f32>, %len: tensor<1xi32>) -> tensor<1x2x16x64xf8E4M3FN> {
  %o = tg.sdpa %q, %q, %q seq_len_kv(%len : tensor<1xi32>) fp8_scales(%s, %s, %s, %s, %s, %s : tensor<f32>, tensor<f32>, tensor<f32>, tensor<f32>, tensor<f32>, tensor<f32>)
      : tensor<1x2x16x64xf8E4M3FN>, tensor<1x2x16x64xf8E4M3FN>, tensor<1x2x16x64xf8E4M3FN> -> tensor<1x2x16x64xf8E4M3FN>
  return %o : tensor<1x2x16x64xf8E4M3FN>
}

// Everything above ends as generic ops: no tg.attention is left.
// MLIR-LABEL: func.func @head_dim
// MLIR-NOT: tg.attention
// MLIR: tg.matmul {{.*}} : tensor<1x2x16x72xf8E4M3FN>, tensor<1x2x72x16xf8E4M3FN> -> tensor<1x2x16x16xf32>
// MLIR-NOT: tg.attention
