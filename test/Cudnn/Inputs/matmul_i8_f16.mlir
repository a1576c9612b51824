func.func @matmul_i8_f16(%a: tensor<128x256xi8>, %b: tensor<256x64xf16>) -> tensor<128x64xf32> {
  %c = tg.matmul %a, %b : tensor<128x256xi8>, tensor<256x64xf16> -> tensor<128x64xf32>
  return %c : tensor<128x64xf32>
}
