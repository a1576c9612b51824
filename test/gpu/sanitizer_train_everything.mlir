// The fused NVRTC backward under compute-sanitizer (test/gpu/sanitizer_check.sh): the
// suite's train_everything configuration (GQA, padding, a learnable bias, dropout, causal).
// RUN: tg-compile %s --explain-backend --emit=plan -o /dev/null 2>&1 | FileCheck %s
// CHECK: :[[@LINE+3]]:{{[0-9]+}}: remark: backend nvrtc: {{.*}}; fused kernel
// CHECK: :[[@LINE+4]]:{{[0-9]+}}: remark: backend nvrtc: {{.*}}; fused kernel
func.func @attention_fwd_bwd(%q: tensor<2x4x150x64xbf16> {tg.name = "q"}, %k: tensor<2x2x190x64xbf16> {tg.name = "k"}, %v: tensor<2x2x190x64xbf16> {tg.name = "v"}, %do: tensor<2x4x150x64xbf16> {tg.name = "do"}, %bias: tensor<1x4x150x190xf32> {tg.name = "bias"}, %seq_len_q: tensor<2xi32> {tg.name = "seq_len_q"}, %seq_len_kv: tensor<2xi32> {tg.name = "seq_len_kv"}, %seed: tensor<i64> {tg.name = "seed"}, %offset: tensor<i64> {tg.name = "offset"}) -> (tensor<2x4x150x64xbf16> {tg.name = "o"}, tensor<2x4x150x1xf32> {tg.name = "stats"}, tensor<2x4x150x64xbf16> {tg.name = "dq"}, tensor<2x2x190x64xbf16> {tg.name = "dk"}, tensor<2x2x190x64xbf16> {tg.name = "dv"}) {
  %o, %stats = tg.sdpa %q, %k, %v bias(%bias : tensor<1x4x150x190xf32>) seq_len_q(%seq_len_q : tensor<2xi32>) seq_len_kv(%seq_len_kv : tensor<2xi32>) seed(%seed) offset(%offset) {causal = #tg<causal bottom_right>, softcap = 20.0 : f64, alibi, dropout = 0.1 : f64, training}
      : tensor<2x4x150x64xbf16>, tensor<2x2x190x64xbf16>, tensor<2x2x190x64xbf16> -> tensor<2x4x150x64xbf16>, tensor<2x4x150x1xf32>
  %dq, %dk, %dv = tg.sdpa_grad %q, %k, %v, %o, %do, %stats bias(%bias : tensor<1x4x150x190xf32>) seq_len_q(%seq_len_q : tensor<2xi32>) seq_len_kv(%seq_len_kv : tensor<2xi32>) seed(%seed) offset(%offset) {causal = #tg<causal bottom_right>, softcap = 20.0 : f64, alibi, dropout = 0.1 : f64}
      : tensor<2x4x150x64xbf16>, tensor<2x2x190x64xbf16>, tensor<2x2x190x64xbf16>, tensor<2x4x150x64xbf16>, tensor<2x4x150x64xbf16>, tensor<2x4x150x1xf32>
  return %o, %stats, %dq, %dk, %dv : tensor<2x4x150x64xbf16>, tensor<2x4x150x1xf32>, tensor<2x4x150x64xbf16>, tensor<2x2x190x64xbf16>, tensor<2x2x190x64xbf16>
}
