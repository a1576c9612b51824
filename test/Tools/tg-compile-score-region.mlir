// A score region (softcap, bias, ALiBi) reaches the attention kernel as C++
// over the generic kernels' helpers; the result must compile with NVRTC.
// RUN: tg-compile %s --emit=cuda | FileCheck %s --check-prefix=CUDA
// RUN: tg-compile %s --emit=ptx --arch=sm_90 | FileCheck %s --check-prefix=PTX

// CUDA: // ===== kernel {{.*}}: tg_attention_fwd_bf16_d64
// CUDA: tanhf
// CUDA: tg.sub
// PTX: .visible .entry tg_attention_fwd_bf16_d64
func.func @attention(%q: tensor<1x4x40x64xbf16> {tg.name = "q"}, %k: tensor<1x2x50x64xbf16> {tg.name = "k"},
                     %v: tensor<1x2x50x64xbf16> {tg.name = "v"}, %bias: tensor<1x4x40x50xf32> {tg.name = "bias"})
    -> (tensor<1x4x40x64xbf16> {tg.name = "o"}) {
  %o = tg.sdpa %q, %k, %v bias(%bias : tensor<1x4x40x50xf32>) {softcap = 20.0 : f64, alibi, causal = #tg<causal bottom_right>}
      : tensor<1x4x40x64xbf16>, tensor<1x2x50x64xbf16>, tensor<1x2x50x64xbf16> -> tensor<1x4x40x64xbf16>
  return %o : tensor<1x4x40x64xbf16>
}
