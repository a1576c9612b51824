// Rows 0-3 of every head are fully masked (-inf): safe softmax gives zeros
// and stats -inf there. The masking runs on NVRTC, the softmax on cuDNN.
func.func @softmax_masked_stats(%x: tensor<2x4x64x128xf32>)
    -> (tensor<2x4x64x128xf32>, tensor<2x4x64x1xf32>) {
  %row = tg.gen_index axis = 2 : tensor<1x1x64x1xi32>
  %four = tg.constant dense<4> : tensor<i32>
  %masked = tg.cmp lt, %row, %four : tensor<1x1x64x1xi32>, tensor<i32>
  %ninf = tg.constant dense<0xFF800000> : tensor<f32>
  %s = tg.select %masked, %ninf, %x : tensor<1x1x64x1xi1>, tensor<f32>, tensor<2x4x64x128xf32>
  %p, %lse = tg.softmax %s axis = 3 : tensor<2x4x64x128xf32> stats tensor<2x4x64x1xf32>
  return %p, %lse : tensor<2x4x64x128xf32>, tensor<2x4x64x1xf32>
}
