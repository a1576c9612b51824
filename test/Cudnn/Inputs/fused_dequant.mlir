func.func @fused_dequant(%x: tensor<128x256xbf16>, %w: tensor<256x64xi8>,
    %scale: tensor<1x64xbf16>, %bias: tensor<1x64xf32>) -> tensor<128x64xbf16> {
  %y = tg.fused_matmul %x, %w b_captures(%scale : tensor<1x64xbf16>)
      epilogue_captures(%bias : tensor<1x64xf32>)
      : tensor<128x256xbf16>, tensor<256x64xi8> -> tensor<128x64xbf16>
    prologue_a {}
    prologue_b {
    ^bb0(%e: tensor<i8>, %s: tensor<bf16>):
      %h = tg.cast %e : tensor<i8> to tensor<bf16>
      %d = tg.mul %h, %s : tensor<bf16>, tensor<bf16>
      tg.yield %d : tensor<bf16>
    }
    epilogue {
    ^bb0(%acc: tensor<f32>, %b: tensor<f32>):
      %zero = tg.constant dense<0.0> : tensor<f32>
      %sum = tg.add %acc, %b : tensor<f32>, tensor<f32>
      %relu = tg.max %sum, %zero : tensor<f32>, tensor<f32>
      %out = tg.cast %relu : tensor<f32> to tensor<bf16>
      tg.yield %out : tensor<bf16>
    }
  return %y : tensor<128x64xbf16>
}
