// --fast-math: the fused attention kernels' score regions (forward and the
// backward's recomputed scores and derived gradient) use the GPU's
// approximate tanh (and exp, log, sigmoid); without it, the libdevice ones.
// RUN: tg-compile %s --backend=nvrtc --emit=cuda --fast-math | FileCheck %s --check-prefix=FAST
// RUN: tg-compile %s --backend=nvrtc --emit=cuda | FileCheck %s --check-prefix=EXACT
// RUN: tg-compile %s --backend=nvrtc --emit=ptx --fast-math | FileCheck %s --check-prefix=PTX

// FAST: // ===== kernel {{.*}}: tg_attention_fwd_bf16_d64
// FAST: = tg_tanh_approx(
// FAST: // ===== kernel {{.*}}: tg_attention_bwd
// FAST: = tg_tanh_approx(
// EXACT: // ===== kernel {{.*}}: tg_attention_fwd_bf16_d64
// EXACT-NOT: = tg_tanh_approx(
// EXACT: = tanhf(
// PTX: .visible .entry tg_attention_fwd_bf16_d64
// PTX: tanh.approx.f32
func.func @attention_fwd_bwd(%q: tensor<1x4x64x64xbf16> {tg.name = "q"}, %k: tensor<1x4x64x64xbf16> {tg.name = "k"}, %v: tensor<1x4x64x64xbf16> {tg.name = "v"}, %do: tensor<1x4x64x64xbf16> {tg.name = "do"}) -> (tensor<1x4x64x64xbf16> {tg.name = "o"}, tensor<1x4x64x1xf32> {tg.name = "stats"}, tensor<1x4x64x64xbf16> {tg.name = "dq"}, tensor<1x4x64x64xbf16> {tg.name = "dk"}, tensor<1x4x64x64xbf16> {tg.name = "dv"}) {
  %o, %stats = tg.sdpa %q, %k, %v  {causal = #tg<causal top_left>, softcap = 30.0 : f64, training}
      : tensor<1x4x64x64xbf16>, tensor<1x4x64x64xbf16>, tensor<1x4x64x64xbf16> -> tensor<1x4x64x64xbf16>, tensor<1x4x64x1xf32>
  %dq, %dk, %dv = tg.sdpa_grad %q, %k, %v, %o, %do, %stats  {causal = #tg<causal top_left>, softcap = 30.0 : f64}
      : tensor<1x4x64x64xbf16>, tensor<1x4x64x64xbf16>, tensor<1x4x64x64xbf16>, tensor<1x4x64x64xbf16>, tensor<1x4x64x64xbf16>, tensor<1x4x64x1xf32>
  return %o, %stats, %dq, %dk, %dv : tensor<1x4x64x64xbf16>, tensor<1x4x64x1xf32>, tensor<1x4x64x64xbf16>, tensor<1x4x64x64xbf16>, tensor<1x4x64x64xbf16>
}

