func.func @matmul_fp8_tn(%a: tensor<128x256xf8E4M3FN>,
    %b: tensor<256x64xf8E4M3FN> {tg.strides = array<i64: 1, 256>}) -> tensor<128x64xbf16> {
  %c = tg.matmul %a, %b : tensor<128x256xf8E4M3FN>, tensor<256x64xf8E4M3FN> -> tensor<128x64xbf16>
  return %c : tensor<128x64xbf16>
}
