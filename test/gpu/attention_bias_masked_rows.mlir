// Attention whose bias (a plain tensor: the reduction keeps fusion from
// folding it into the score region) is -inf on whole rows, about a quarter
// of them for random x. tg defines those rows: zero output, stats -inf.
// The GPU suite (--graphs) runs both functions on cuDNN; measured on the
// H200 with cuDNN 9.14 and 9.19: cuDNN writes exactly that (docs/cudnn.md).
// RUN: tg-compile %s --entry=bias_rows --emit=cudnn | FileCheck %s
// CHECK: graph "attention fwd (composite)"
// CHECK: buffer "o"
// CHECK: end
func.func @bias_rows(%q: tensor<1x2x64x64xbf16> {tg.name = "q"}, %k: tensor<1x2x64x64xbf16> {tg.name = "k"}, %v: tensor<1x2x64x64xbf16> {tg.name = "v"}, %x: tensor<1x1x64x2xf32> {tg.name = "x"}) -> (tensor<1x2x64x64xbf16> {tg.name = "o"}) {
  %zero = tg.constant dense<0.0> : tensor<f32>
  %ninf = tg.constant dense<0xFF800000> : tensor<f32>
  %c = tg.cmp gt, %x, %zero : tensor<1x1x64x2xf32>, tensor<f32>
  %b0 = tg.select %c, %zero, %ninf : tensor<1x1x64x2xi1>, tensor<f32>, tensor<f32>
  // A reduction is no pointwise op: fusion leaves the bias a plain tensor.
  %b1 = tg.reduce max %b0 dims = [3] keepdim : tensor<1x1x64x2xf32> -> tensor<1x1x64x1xf32>
  %b = tg.broadcast %b1 : tensor<1x1x64x1xf32> -> tensor<1x1x64x64xf32>
  %o = tg.sdpa %q, %k, %v bias(%b : tensor<1x1x64x64xf32>) {scale = 0.125 : f64}
      : tensor<1x2x64x64xbf16>, tensor<1x2x64x64xbf16>, tensor<1x2x64x64xbf16> -> tensor<1x2x64x64xbf16>
  return %o : tensor<1x2x64x64xbf16>
}

func.func @bias_rows_training(%q: tensor<1x2x64x64xbf16> {tg.name = "q"}, %k: tensor<1x2x64x64xbf16> {tg.name = "k"}, %v: tensor<1x2x64x64xbf16> {tg.name = "v"}, %x: tensor<1x1x64x2xf32> {tg.name = "x"}) -> (tensor<1x2x64x64xbf16> {tg.name = "o"}, tensor<1x2x64x1xf32> {tg.name = "stats"}) {
  %zero = tg.constant dense<0.0> : tensor<f32>
  %ninf = tg.constant dense<0xFF800000> : tensor<f32>
  %c = tg.cmp gt, %x, %zero : tensor<1x1x64x2xf32>, tensor<f32>
  %b0 = tg.select %c, %zero, %ninf : tensor<1x1x64x2xi1>, tensor<f32>, tensor<f32>
  // A reduction is no pointwise op: fusion leaves the bias a plain tensor.
  %b1 = tg.reduce max %b0 dims = [3] keepdim : tensor<1x1x64x2xf32> -> tensor<1x1x64x1xf32>
  %b = tg.broadcast %b1 : tensor<1x1x64x1xf32> -> tensor<1x1x64x64xf32>
  %o, %st = tg.sdpa %q, %k, %v bias(%b : tensor<1x1x64x64xf32>) {scale = 0.125 : f64, training}
      : tensor<1x2x64x64xbf16>, tensor<1x2x64x64xbf16>, tensor<1x2x64x64xbf16> -> tensor<1x2x64x64xbf16>, tensor<1x2x64x1xf32>
  return %o, %st : tensor<1x2x64x64xbf16>, tensor<1x2x64x1xf32>
}
