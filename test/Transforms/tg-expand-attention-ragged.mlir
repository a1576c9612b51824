// Packed sequences (cu_seqlens) run only on the fused NVRTC forward: the
// expansion into tg ops, which builds dense scores, refuses them with the
// reason the fused kernel could not take the op.
// RUN: not tg-compile %s --entry=packed_f32 -o /dev/null 2>&1 | FileCheck %s --check-prefix=F32
// RUN: not tg-opt %s --tg-expand-attention="all=true" 2>&1 | FileCheck %s --check-prefix=ALL

// F32: error: 'tg.attention' op the ragged layout (cu_seqlens) runs only on the fused NVRTC kernel and cannot be expanded into tg ops; the fused kernel cannot run it: the fused kernel takes bf16 or f16 q, k, v and output of one type
func.func @packed_f32(%q: tensor<100x2x16xf32>, %cu_seqlens_q: tensor<3xi32>) -> tensor<100x2x16xf32> {
  %o = tg.sdpa %q, %q, %q cu_seqlens_q(%cu_seqlens_q : tensor<3xi32>) cu_seqlens_kv(%cu_seqlens_q : tensor<3xi32>)
      {max_seqlen_q = 60 : i64, max_seqlen_kv = 60 : i64}
      : tensor<100x2x16xf32>, tensor<100x2x16xf32>, tensor<100x2x16xf32> -> tensor<100x2x16xf32>
  return %o : tensor<100x2x16xf32>
}

// ALL: error: 'tg.attention' op the ragged layout (cu_seqlens) runs only on the fused NVRTC kernel and cannot be expanded into tg ops (all=true asked for it)
func.func @attention(%q: tensor<100x2x16xbf16>, %cu: tensor<3xi32>) -> tensor<100x2x16xbf16> {
  %o = tg.attention %q, %q, %q cu_seqlens_q(%cu : tensor<3xi32>) cu_seqlens_kv(%cu : tensor<3xi32>)
      {max_seqlen_q = 60 : i64, max_seqlen_kv = 60 : i64}
      : tensor<100x2x16xbf16>, tensor<100x2x16xbf16>, tensor<100x2x16xbf16> -> tensor<100x2x16xbf16> score {
  ^bb0(%s: tensor<f32>, %b: tensor<i64>, %h: tensor<i64>, %i: tensor<i64>, %j: tensor<i64>):
    tg.yield %s : tensor<f32>
  }
  return %o : tensor<100x2x16xbf16>
}
