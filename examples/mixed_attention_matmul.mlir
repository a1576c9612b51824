// Attention followed by an int8-weight output projection: the pair of ops
// at the heart of a quantised transformer block, with each op on the
// backend that suits it under --backend=auto:
//   - the attention (tg.sdpa, fused to tg.attention) on cuDNN's fused
//     attention,
//   - the projection, a tg.fused_matmul of the bf16 activations with int8
//     weights dequantised per output channel in prologue_b and the bias
//     added in the epilogue, on cuDNN as a mixed-input matmul (the i8 -> bf16
//     conversion is a pointwise identity feeding the matmul) or, where the
//     measured table says it is faster, as a dequantise kernel and a bf16
//     matmul (--mixed-matmul=auto|fused|dequant, docs/cudnn.md),
//   - the residual is added in the epilogue, in f32 before the one rounding
//     to bf16 (adding it after a bf16 projection would round twice and
//     cancel: results no test tolerance can judge),
//   - the glue (the [1,8,256,64] -> [256,512] head merge) on the generated
//     NVRTC kernels.
//
//   tg-compile examples/mixed_attention_matmul.mlir --explain-backend
//   tg-compile examples/mixed_attention_matmul.mlir --emit=cudnn
//   tg-run --check examples/mixed_attention_matmul.mlir
func.func @mixed_attention_matmul(
    %q: tensor<1x8x256x64xbf16> {tg.name = "q"},
    %k: tensor<1x8x256x64xbf16> {tg.name = "k"},
    %v: tensor<1x8x256x64xbf16> {tg.name = "v"},
    %w: tensor<512x512xi8> {tg.name = "w_o"},
    %scale: tensor<1x512xbf16> {tg.name = "w_o_scale"},
    %bias: tensor<1x512xf32> {tg.name = "b_o"},
    %residual: tensor<256x512xbf16> {tg.name = "residual"})
    -> (tensor<256x512xbf16> {tg.name = "y"}) {
  %o = tg.sdpa %q, %k, %v
      : tensor<1x8x256x64xbf16>, tensor<1x8x256x64xbf16>, tensor<1x8x256x64xbf16>
      -> tensor<1x8x256x64xbf16>
  // Heads back next to each other: [1,8,256,64] -> [256, 8*64].
  %t = tg.transpose %o perm = [0, 2, 1, 3]
      : tensor<1x8x256x64xbf16> -> tensor<1x256x8x64xbf16>
  %x = tg.reshape %t : tensor<1x256x8x64xbf16> -> tensor<256x512xbf16>
  %y = tg.fused_matmul %x, %w b_captures(%scale : tensor<1x512xbf16>)
      epilogue_captures(%bias, %residual : tensor<1x512xf32>, tensor<256x512xbf16>)
      : tensor<256x512xbf16>, tensor<512x512xi8> -> tensor<256x512xbf16>
    prologue_a {}
    prologue_b {
    ^bb0(%e: tensor<i8>, %s: tensor<bf16>):
      %h = tg.cast %e : tensor<i8> to tensor<bf16>
      %d = tg.mul %h, %s : tensor<bf16>, tensor<bf16>
      // int8 weights span [-128, 127]: 2^-7 brings them to unit range (exact
      // in bf16), as a real per-channel scale would.
      %unit = tg.constant dense<7.812500e-03> : tensor<bf16>
      %wu = tg.mul %d, %unit : tensor<bf16>, tensor<bf16>
      tg.yield %wu : tensor<bf16>
    }
    epilogue {
    ^bb0(%acc: tensor<f32>, %b: tensor<f32>, %r: tensor<bf16>):
      %biased = tg.add %acc, %b : tensor<f32>, tensor<f32>
      %rf = tg.cast %r : tensor<bf16> to tensor<f32>
      %sum = tg.add %biased, %rf : tensor<f32>, tensor<f32>
      %out = tg.cast %sum : tensor<f32> to tensor<bf16>
      tg.yield %out : tensor<bf16>
    }
  return %y : tensor<256x512xbf16>
}
