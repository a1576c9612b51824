// FP8 attention forward as cuDNN's FP8 SDPA computes it (tg.sdpa's FP8
// semantics, docs/dialect.md): e4m3 q, k, v with per-tensor descales, P
// quantized to e4m3 with scale_s, an e4m3 output with scale_o, and the amax
// of P and of the unscaled output (for the next step's scaling).
// B = 1, H = 4, S = 256, D = 128; on an H200 it runs as one cuDNN graph.
//
//   tg-opt examples/fp8_attention.mlir --tg-decompose-sdpa      (-> tg.attention)
//   tg-compile examples/fp8_attention.mlir --entry=fp8_attention --backend=cudnn --emit=cudnn
//   tg-run --check --backend=cudnn --entry=fp8_attention_output examples/fp8_attention.mlir
//   tg-run --check --backend=cudnn --entry=fp8_attention --print-values examples/fp8_attention.mlir
//
// Tolerance for o: tg-run's fp8 tolerance, atol = rtol = 0.125. The output
// is e4m3 (3 mantissa bits: neighbours differ by 2^-3 relative at the
// bottom of a binade) and so is P. cuDNN's kernel quantizes exp(s - running
// max) per kv tile and normalises at the end, where the reference quantizes
// the normalised P (cudnn-frontend's own reference does the former, and its
// tests compare with atol 0.08, rtol 0.2), so an element may land one e4m3
// step away: rtol 0.125; atol 0.125 covers outputs near zero, where the
// sum of many quantized terms cancels.
// amax results are f32 and tg-run compares them at 1e-3: amax_o should
// agree to a few percent (it is max |o| before scale_o, moved only by the
// P rounding above); amax_s is max |P| of the normalised P here, while the
// kernel computes it on its tiles, so it may differ: read both with
// --print-values (the @fp8_attention_output entry checks o alone).
// Random inputs (docs/reference.md) give normal q, k, v rounded to e4m3,
// descales 1, scale_s = 448, descale_s = 1/448 and scale_o = 1.
func.func @fp8_attention(
    %q: tensor<1x4x256x128xf8E4M3FN> {tg.name = "q"},
    %k: tensor<1x4x256x128xf8E4M3FN> {tg.name = "k"},
    %v: tensor<1x4x256x128xf8E4M3FN> {tg.name = "v"},
    %descale_q: tensor<f32> {tg.name = "descale_q"},
    %descale_k: tensor<f32> {tg.name = "descale_k"},
    %descale_v: tensor<f32> {tg.name = "descale_v"},
    %descale_s: tensor<f32> {tg.name = "descale_s"},
    %scale_s: tensor<f32> {tg.name = "scale_s"},
    %scale_o: tensor<f32> {tg.name = "scale_o"})
    -> (tensor<1x4x256x128xf8E4M3FN> {tg.name = "o"},
        tensor<f32> {tg.name = "amax_s"},
        tensor<f32> {tg.name = "amax_o"}) {
  %o, %amax_s, %amax_o = tg.sdpa %q, %k, %v
      fp8_scales(%descale_q, %descale_k, %descale_v, %descale_s, %scale_s, %scale_o
                 : tensor<f32>, tensor<f32>, tensor<f32>, tensor<f32>, tensor<f32>, tensor<f32>)
      {causal = #tg<causal top_left>}
      : tensor<1x4x256x128xf8E4M3FN>, tensor<1x4x256x128xf8E4M3FN>, tensor<1x4x256x128xf8E4M3FN>
      -> tensor<1x4x256x128xf8E4M3FN> amax(tensor<f32>, tensor<f32>)
  return %o, %amax_s, %amax_o : tensor<1x4x256x128xf8E4M3FN>, tensor<f32>, tensor<f32>
}

// The same attention returning only o, for a clean `tg-run --check`.
func.func @fp8_attention_output(
    %q: tensor<1x4x256x128xf8E4M3FN> {tg.name = "q"},
    %k: tensor<1x4x256x128xf8E4M3FN> {tg.name = "k"},
    %v: tensor<1x4x256x128xf8E4M3FN> {tg.name = "v"},
    %descale_q: tensor<f32> {tg.name = "descale_q"},
    %descale_k: tensor<f32> {tg.name = "descale_k"},
    %descale_v: tensor<f32> {tg.name = "descale_v"},
    %descale_s: tensor<f32> {tg.name = "descale_s"},
    %scale_s: tensor<f32> {tg.name = "scale_s"},
    %scale_o: tensor<f32> {tg.name = "scale_o"})
    -> (tensor<1x4x256x128xf8E4M3FN> {tg.name = "o"}) {
  %o = tg.sdpa %q, %k, %v
      fp8_scales(%descale_q, %descale_k, %descale_v, %descale_s, %scale_s, %scale_o
                 : tensor<f32>, tensor<f32>, tensor<f32>, tensor<f32>, tensor<f32>, tensor<f32>)
      {causal = #tg<causal top_left>}
      : tensor<1x4x256x128xf8E4M3FN>, tensor<1x4x256x128xf8E4M3FN>, tensor<1x4x256x128xf8E4M3FN>
      -> tensor<1x4x256x128xf8E4M3FN>
  return %o : tensor<1x4x256x128xf8E4M3FN>
}
