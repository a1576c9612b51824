// The ragged layout (cu_seqlens) compiles to one launch of the fused NVRTC
// forward with the packed configuration; cuDNN is refused with the reason
// (tg-expand-attention-ragged.mlir: what the fused kernel cannot run is an
// error).
// RUN: tg-compile %s --explain-backend --emit=cuda 2>&1 | FileCheck %s
// RUN: tg-compile %s --backend=cudnn --explain-backend -o /dev/null 2>&1 | FileCheck %s --check-prefix=CUDNN

// CHECK: remark: backend nvrtc: cuDNN cannot run it: the ragged layout (cu_seqlens) is not lowered to cuDNN's ragged offsets; the fused NVRTC kernel runs it
// CHECK: padding q no kv no, ragged (cu_seqlens)
// CHECK: static constexpr bool kRagged = true;
// CHECK: long long tokens_q, long long tokens_kv,
// CUDNN: remark: backend nvrtc: cudnn was requested but the ragged layout (cu_seqlens) is not lowered to cuDNN's ragged offsets
func.func @packed(%q: tensor<1000x8x64xbf16>, %k: tensor<1200x2x64xbf16>, %v: tensor<1200x2x64xbf16>,
                  %cu_seqlens_q: tensor<4xi32>, %cu_seqlens_kv: tensor<4xi32>) -> (tensor<1000x8x64xbf16>, tensor<1000x8x1xf32>) {
  %o, %lse = tg.sdpa %q, %k, %v cu_seqlens_q(%cu_seqlens_q : tensor<4xi32>) cu_seqlens_kv(%cu_seqlens_kv : tensor<4xi32>)
      {causal = #tg<causal bottom_right>, training, max_seqlen_q = 512 : i64, max_seqlen_kv = 600 : i64}
      : tensor<1000x8x64xbf16>, tensor<1200x2x64xbf16>, tensor<1200x2x64xbf16> -> tensor<1000x8x64xbf16>, tensor<1000x8x1xf32>
  return %o, %lse : tensor<1000x8x64xbf16>, tensor<1000x8x1xf32>
}
