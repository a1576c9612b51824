// The bundled example: causal grouped-query attention as a model would
// call it (8 query heads sharing 2 key/value heads), in bf16.
//
//   tg-opt examples/attention.mlir --tg-decompose-sdpa --tg-fuse-attention
//   tg-run --ref examples/attention.mlir
func.func @attention(
    %q: tensor<2x8x128x64xbf16> {tg.name = "q"},
    %k: tensor<2x2x128x64xbf16> {tg.name = "k"},
    %v: tensor<2x2x128x64xbf16> {tg.name = "v"})
    -> (tensor<2x8x128x64xbf16> {tg.name = "o"}) {
  %o = tg.sdpa %q, %k, %v {causal = #tg<causal top_left>}
      : tensor<2x8x128x64xbf16>, tensor<2x2x128x64xbf16>, tensor<2x2x128x64xbf16>
      -> tensor<2x8x128x64xbf16>
  return %o : tensor<2x8x128x64xbf16>
}
