func.func @matmul_bf16_colmajor(%a: tensor<256x128xbf16>,
    %b: tensor<128x64xbf16> {tg.strides = array<i64: 1, 128>}) -> tensor<256x64xf32> {
  %c = tg.matmul %a, %b : tensor<256x128xbf16>, tensor<128x64xbf16> -> tensor<256x64xf32>
  return %c : tensor<256x64xf32>
}
