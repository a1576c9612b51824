// RUN: tg-emit-kernels %s -split-input-file -verify-diagnostics

func.func @sdpa(%q: tensor<1x2x16x64xbf16>, %k: tensor<1x2x16x64xbf16>, %v: tensor<1x2x16x64xbf16>) -> tensor<1x2x16x64xbf16> {
  // expected-error @below {{'tg.sdpa' op cannot be lowered to CUDA kernels directly; run tg-decompose-sdpa or tg-fuse-attention first}}
  %o = tg.sdpa %q, %k, %v : tensor<1x2x16x64xbf16>, tensor<1x2x16x64xbf16>, tensor<1x2x16x64xbf16> -> tensor<1x2x16x64xbf16>
  return %o : tensor<1x2x16x64xbf16>
}

// -----

func.func @sdpa_grad(%q: tensor<1x4x64x64xbf16>, %do: tensor<1x4x64x64xbf16>, %lse: tensor<1x4x64x1xf32>) -> tensor<1x4x64x64xbf16> {
  // expected-error @below {{'tg.sdpa_grad' op cannot be lowered to CUDA kernels directly; run tg-decompose-sdpa or tg-fuse-attention first}}
  %dq, %dk, %dv = tg.sdpa_grad %q, %q, %q, %q, %do, %lse
      : tensor<1x4x64x64xbf16>, tensor<1x4x64x64xbf16>, tensor<1x4x64x64xbf16>,
        tensor<1x4x64x64xbf16>, tensor<1x4x64x64xbf16>, tensor<1x4x64x1xf32>
  return %dq : tensor<1x4x64x64xbf16>
}

// -----

// tg-emit-kernels has no attention generator; the partitioner hands the op
// to it and reports its failure.
func.func @attention(%q: tensor<1x2x16x64xbf16>) -> tensor<1x2x16x64xbf16> {
  // expected-error @below {{'tg.attention' op has no kernel generator in tg-emit-kernels}}
  %o = tg.attention %q, %q, %q : tensor<1x2x16x64xbf16>, tensor<1x2x16x64xbf16>, tensor<1x2x16x64xbf16> -> tensor<1x2x16x64xbf16>
      score {
  ^bb0(%s: tensor<f32>, %b: tensor<i64>, %h: tensor<i64>, %qi: tensor<i64>, %ki: tensor<i64>):
    tg.yield %s : tensor<f32>
  }
  return %o : tensor<1x2x16x64xbf16>
}

// -----

// tg ops only take static shapes, but a function may still have dynamic ones.
// expected-error @below {{cannot be lowered to CUDA: argument 0 has type 'tensor<?x4xf32>'; expected a statically shaped tensor}}
func.func @dynamic(%x: tensor<?x4xf32>) -> tensor<?x4xf32> {
  return %x : tensor<?x4xf32>
}
