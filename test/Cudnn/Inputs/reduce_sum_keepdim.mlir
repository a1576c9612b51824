func.func @reduce_sum_keepdim(%x: tensor<2x8x128x64xf32>) -> tensor<2x8x128x1xf32> {
  %s = tg.reduce sum %x dims = [3] keepdim : tensor<2x8x128x64xf32> -> tensor<2x8x128x1xf32>
  return %s : tensor<2x8x128x1xf32>
}
