func.func @reduce_min_rank2(%x: tensor<128x256xf16>) -> tensor<128xf16> {
  %m = tg.reduce min %x dims = [1] : tensor<128x256xf16> -> tensor<128xf16>
  return %m : tensor<128xf16>
}
