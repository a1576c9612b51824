func.func @matmul_f16_batched(%a: tensor<2x4x128x64xf16>, %b: tensor<1x4x64x96xf16>) -> tensor<2x4x128x96xf16> {
  %c = tg.matmul %a, %b : tensor<2x4x128x64xf16>, tensor<1x4x64x96xf16> -> tensor<2x4x128x96xf16>
  return %c : tensor<2x4x128x96xf16>
}
