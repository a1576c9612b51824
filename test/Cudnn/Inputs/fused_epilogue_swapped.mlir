func.func @fused_epilogue_swapped(%a: tensor<128x64xbf16>, %b: tensor<64x128xbf16>,
    %limit: tensor<1x128xf32>) -> tensor<128x128xf32> {
  %y = tg.fused_matmul %a, %b epilogue_captures(%limit : tensor<1x128xf32>)
      : tensor<128x64xbf16>, tensor<64x128xbf16> -> tensor<128x128xf32>
    prologue_a {} prologue_b {}
    epilogue {
    ^bb0(%acc: tensor<f32>, %l: tensor<f32>):
      %t = tg.tanh %acc : tensor<f32>
      %s = tg.sigmoid %acc : tensor<f32>
      %ts = tg.mul %t, %s : tensor<f32>, tensor<f32>
      %d = tg.sub %l, %ts : tensor<f32>, tensor<f32>
      %over = tg.cmp lt, %l, %acc : tensor<f32>, tensor<f32>
      %r = tg.select %over, %l, %d : tensor<i1>, tensor<f32>, tensor<f32>
      tg.yield %r : tensor<f32>
    }
  return %y : tensor<128x128xf32>
}
