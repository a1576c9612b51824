func.func @matmul_fp8_nn(%a: tensor<128x256xf8E5M2>, %b: tensor<256x64xf8E5M2>) -> tensor<128x64xf16> {
  %c = tg.matmul %a, %b : tensor<128x256xf8E5M2>, tensor<256x64xf8E5M2> -> tensor<128x64xf16>
  return %c : tensor<128x64xf16>
}
