// A speculative-decoding step (3 new tokens, GQA 4) with ALiBi and a
// softcap still compiles to the split-KV decode kernel: its score modifier
// maps each packed row back to its own query head and query.
// RUN: tg-compile %s --backend=nvrtc --emit=cuda | FileCheck %s
// RUN: tg-compile %s --backend=nvrtc --emit=plan -o - | FileCheck %s --check-prefix=PLAN

// CHECK: decode (12 packed rows, split KV)
// CHECK: score modifier yes
// CHECK: h = h_tile + row / seq_len_q;
// CHECK: q_idx = row % seq_len_q;
// PLAN: entry "tg_attention_decode_combine_bf16_dv128"
// PLAN: variant "{{k[0-9]+}}" grid [{{[0-9]+}},2,3] block [64,1,1]
func.func @decode(%q: tensor<3x8x3x128xbf16>, %k: tensor<3x2x900x128xbf16>, %v: tensor<3x2x900x128xbf16>, %l: tensor<3xi32>) -> tensor<3x8x3x128xbf16> {
  %o = tg.sdpa %q, %k, %v seq_len_kv(%l : tensor<3xi32>) {causal = #tg<causal bottom_right>, alibi, softcap = 20.0 : f64}
      : tensor<3x8x3x128xbf16>, tensor<3x2x900x128xbf16>, tensor<3x2x900x128xbf16> -> tensor<3x8x3x128xbf16>
  return %o : tensor<3x8x3x128xbf16>
}
