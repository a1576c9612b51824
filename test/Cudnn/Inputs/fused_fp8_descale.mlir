func.func @fused_fp8_descale(%a: tensor<128x256xf8E4M3FN>, %b: tensor<256x64xf16>,
    %descale: tensor<f32>) -> tensor<128x64xf16> {
  %y = tg.fused_matmul %a, %b a_captures(%descale : tensor<f32>)
      : tensor<128x256xf8E4M3FN>, tensor<256x64xf16> -> tensor<128x64xf16>
    prologue_a {
    ^bb0(%e: tensor<f8E4M3FN>, %d: tensor<f32>):
      %w = tg.cast %e : tensor<f8E4M3FN> to tensor<f32>
      %s = tg.mul %w, %d : tensor<f32>, tensor<f32>
      %h = tg.cast %s : tensor<f32> to tensor<f16>
      tg.yield %h : tensor<f16>
    }
    prologue_b {}
    epilogue {}
  return %y : tensor<128x64xf16>
}
