func.func @reduce_max_dims(%x: tensor<2x8x128x64xbf16>) -> tensor<8x64xbf16> {
  %m = tg.reduce max %x dims = [0, 2] : tensor<2x8x128x64xbf16> -> tensor<8x64xbf16>
  return %m : tensor<8x64xbf16>
}
