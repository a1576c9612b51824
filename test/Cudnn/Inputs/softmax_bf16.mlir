func.func @softmax_bf16(%x: tensor<256x512xbf16>) -> tensor<256x512xbf16> {
  %p = tg.softmax %x axis = 1 : tensor<256x512xbf16>
  return %p : tensor<256x512xbf16>
}
