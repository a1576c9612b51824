// tg.sdpa on tiny hand-computed cases. Throughout, D = 1, scale = 1,
// k = [0, ln 3] and v = [4, 8], so an unmasked row has scores [0, ln 3],
// p = [1/4, 3/4], o = 7 and log-sum-exp ln 4 = 1.38629; a row that sees
// only kv 0 gives o = 4 and lse 0, only kv 1 gives o = 8.
//
// RUN: tg-run --ref %s --entry=masks --print-values | FileCheck %s --check-prefix=MASK
// RUN: tg-run --ref %s --entry=modifiers --print-values | FileCheck %s --check-prefix=MOD
// RUN: tg-run --ref %s --entry=gqa --print-values | FileCheck %s --check-prefix=GQA
// RUN: tg-run --ref %s --entry=dropout --print-values | FileCheck %s --check-prefix=DROP

// MASK-LABEL: output none:
// MASK-NEXT: values: [7, 7]
// MASK-LABEL: output none_lse:
// MASK-NEXT: values: [1.38629, 1.38629]
// MASK-LABEL: output causal:
// MASK-NEXT: values: [4, 7]
// MASK-LABEL: output causal_lse:
// MASK-NEXT: values: [0, 1.38629]
// One query row against two kv: top-left sees kv 0, bottom-right both.
// MASK-LABEL: output one_row_top_left:
// MASK-NEXT: values: [4]
// MASK-LABEL: output one_row_bottom_right:
// MASK-NEXT: values: [7]
// window_left = 0 with causal: only the diagonal.
// MASK-LABEL: output diagonal:
// MASK-NEXT: values: [4, 8]
// window_right = 0 alone: kv <= q_idx, like causal.
// MASK-LABEL: output window_right:
// MASK-NEXT: values: [4, 7]
// seq_len_kv = 1: every row sees kv 0 only.
// MASK-LABEL: output pad_kv:
// MASK-NEXT: values: [4, 4]
// seq_len_q = 1: row 1 is padding, fully masked: zero output, -inf stats.
// MASK-LABEL: output pad_q:
// MASK-NEXT: values: [7, 0]
// MASK-LABEL: output pad_q_lse:
// MASK-NEXT: values: [1.38629, -inf]
func.func @masks() -> (tensor<1x1x2x1xf32> {tg.name = "none"}, tensor<1x1x2x1xf32> {tg.name = "none_lse"},
                       tensor<1x1x2x1xf32> {tg.name = "causal"}, tensor<1x1x2x1xf32> {tg.name = "causal_lse"},
                       tensor<1x1x1x1xf32> {tg.name = "one_row_top_left"}, tensor<1x1x1x1xf32> {tg.name = "one_row_bottom_right"},
                       tensor<1x1x2x1xf32> {tg.name = "diagonal"}, tensor<1x1x2x1xf32> {tg.name = "window_right"},
                       tensor<1x1x2x1xf32> {tg.name = "pad_kv"},
                       tensor<1x1x2x1xf32> {tg.name = "pad_q"}, tensor<1x1x2x1xf32> {tg.name = "pad_q_lse"}) {
  %q = tg.constant dense<1.0> : tensor<1x1x2x1xf32>
  %q1 = tg.constant dense<1.0> : tensor<1x1x1x1xf32>
  %k = tg.constant dense<[[[[0.0], [1.09861229]]]]> : tensor<1x1x2x1xf32>
  %v = tg.constant dense<[[[[4.0], [8.0]]]]> : tensor<1x1x2x1xf32>
  %one = tg.constant dense<1> : tensor<1xi32>
  %o0, %l0 = tg.sdpa %q, %k, %v {training, scale = 1.0 : f64}
      : tensor<1x1x2x1xf32>, tensor<1x1x2x1xf32>, tensor<1x1x2x1xf32> -> tensor<1x1x2x1xf32>, tensor<1x1x2x1xf32>
  %o1, %l1 = tg.sdpa %q, %k, %v {causal = #tg<causal top_left>, training}
      : tensor<1x1x2x1xf32>, tensor<1x1x2x1xf32>, tensor<1x1x2x1xf32> -> tensor<1x1x2x1xf32>, tensor<1x1x2x1xf32>
  %o2 = tg.sdpa %q1, %k, %v {causal = #tg<causal top_left>}
      : tensor<1x1x1x1xf32>, tensor<1x1x2x1xf32>, tensor<1x1x2x1xf32> -> tensor<1x1x1x1xf32>
  %o3 = tg.sdpa %q1, %k, %v {causal = #tg<causal bottom_right>}
      : tensor<1x1x1x1xf32>, tensor<1x1x2x1xf32>, tensor<1x1x2x1xf32> -> tensor<1x1x1x1xf32>
  %o4 = tg.sdpa %q, %k, %v {causal = #tg<causal top_left>, window_left = 0 : i64}
      : tensor<1x1x2x1xf32>, tensor<1x1x2x1xf32>, tensor<1x1x2x1xf32> -> tensor<1x1x2x1xf32>
  %o5 = tg.sdpa %q, %k, %v {window_right = 0 : i64}
      : tensor<1x1x2x1xf32>, tensor<1x1x2x1xf32>, tensor<1x1x2x1xf32> -> tensor<1x1x2x1xf32>
  %o6 = tg.sdpa %q, %k, %v seq_len_kv(%one : tensor<1xi32>)
      : tensor<1x1x2x1xf32>, tensor<1x1x2x1xf32>, tensor<1x1x2x1xf32> -> tensor<1x1x2x1xf32>
  %o7, %l7 = tg.sdpa %q, %k, %v seq_len_q(%one : tensor<1xi32>) {training}
      : tensor<1x1x2x1xf32>, tensor<1x1x2x1xf32>, tensor<1x1x2x1xf32> -> tensor<1x1x2x1xf32>, tensor<1x1x2x1xf32>
  return %o0, %l0, %o1, %l1, %o2, %o3, %o4, %o5, %o6, %o7, %l7 : tensor<1x1x2x1xf32>, tensor<1x1x2x1xf32>, tensor<1x1x2x1xf32>, tensor<1x1x2x1xf32>, tensor<1x1x1x1xf32>, tensor<1x1x1x1xf32>, tensor<1x1x2x1xf32>, tensor<1x1x2x1xf32>, tensor<1x1x2x1xf32>, tensor<1x1x2x1xf32>, tensor<1x1x2x1xf32>
}

// Bias [ln 3, 0]: scores [ln 3, ln 3], p = [1/2, 1/2], o = 6.
// MOD-LABEL: output bias:
// MOD-NEXT: values: [6, 6]
// Softcap 1: scores [0, tanh(ln 3)] = [0, 0.8]; o = 4 + 4 e^0.8 / (1 + e^0.8).
// MOD-LABEL: output softcap:
// MOD-NEXT: values: [6.7599, 6.7599]
// ALiBi with one head: slope 2^-8, scores += 2^-8 (kv - q):
// row 0 [0, ln 3 + 2^-8], row 1 [-2^-8, ln 3].
// MOD-LABEL: output alibi:
// MOD-NEXT: values: [7.00293, 7.00293]
// MOD-LABEL: output alibi_lse:
// MOD-NEXT: values: [1.38923, 1.38532]
// A scale of 0 makes every row uniform: o = 6.
// MOD-LABEL: output zero_scale:
// MOD-NEXT: values: [6, 6]
func.func @modifiers() -> (tensor<1x1x2x1xf32> {tg.name = "bias"}, tensor<1x1x2x1xf32> {tg.name = "softcap"},
                           tensor<1x1x2x1xf32> {tg.name = "alibi"}, tensor<1x1x2x1xf32> {tg.name = "alibi_lse"},
                           tensor<1x1x2x1xf32> {tg.name = "zero_scale"}) {
  %q = tg.constant dense<1.0> : tensor<1x1x2x1xf32>
  %k = tg.constant dense<[[[[0.0], [1.09861229]]]]> : tensor<1x1x2x1xf32>
  %v = tg.constant dense<[[[[4.0], [8.0]]]]> : tensor<1x1x2x1xf32>
  %bias = tg.constant dense<[[[[1.09861229, 0.0]]]]> : tensor<1x1x1x2xf32>
  %o0 = tg.sdpa %q, %k, %v bias(%bias : tensor<1x1x1x2xf32>)
      : tensor<1x1x2x1xf32>, tensor<1x1x2x1xf32>, tensor<1x1x2x1xf32> -> tensor<1x1x2x1xf32>
  %o1 = tg.sdpa %q, %k, %v {softcap = 1.0 : f64}
      : tensor<1x1x2x1xf32>, tensor<1x1x2x1xf32>, tensor<1x1x2x1xf32> -> tensor<1x1x2x1xf32>
  %o2, %l2 = tg.sdpa %q, %k, %v {alibi, training}
      : tensor<1x1x2x1xf32>, tensor<1x1x2x1xf32>, tensor<1x1x2x1xf32> -> tensor<1x1x2x1xf32>, tensor<1x1x2x1xf32>
  %o3 = tg.sdpa %q, %k, %v {scale = 0.0 : f64}
      : tensor<1x1x2x1xf32>, tensor<1x1x2x1xf32>, tensor<1x1x2x1xf32> -> tensor<1x1x2x1xf32>
  return %o0, %o1, %o2, %l2, %o3 : tensor<1x1x2x1xf32>, tensor<1x1x2x1xf32>, tensor<1x1x2x1xf32>, tensor<1x1x2x1xf32>, tensor<1x1x2x1xf32>
}

// Two query heads share one kv head. Without ALiBi both heads give 7; with
// it head 0 has slope 2^-4 and head 1 slope 2^-8 (2^(-8 (h+1) / Hq)).
// GQA-LABEL: output shared:
// GQA-NEXT: values: [7, 7, 7, 7]
// GQA-LABEL: output alibi:
// GQA-NEXT: values: [7.04614, 7.04614, 7.00293, 7.00293]
// GQA-LABEL: output alibi_lse:
// GQA-NEXT: values: [1.43353, 1.37103, 1.38923, 1.38532]
func.func @gqa() -> (tensor<1x2x2x1xf32> {tg.name = "shared"}, tensor<1x2x2x1xf32> {tg.name = "alibi"},
                     tensor<1x2x2x1xf32> {tg.name = "alibi_lse"}) {
  %q = tg.constant dense<1.0> : tensor<1x2x2x1xf32>
  %k = tg.constant dense<[[[[0.0], [1.09861229]]]]> : tensor<1x1x2x1xf32>
  %v = tg.constant dense<[[[[4.0], [8.0]]]]> : tensor<1x1x2x1xf32>
  %o0 = tg.sdpa %q, %k, %v
      : tensor<1x2x2x1xf32>, tensor<1x1x2x1xf32>, tensor<1x1x2x1xf32> -> tensor<1x2x2x1xf32>
  %o1, %l1 = tg.sdpa %q, %k, %v {alibi, training}
      : tensor<1x2x2x1xf32>, tensor<1x1x2x1xf32>, tensor<1x1x2x1xf32> -> tensor<1x2x2x1xf32>, tensor<1x2x2x1xf32>
  return %o0, %o1, %l1 : tensor<1x2x2x1xf32>, tensor<1x2x2x1xf32>, tensor<1x2x2x1xf32>
}

// Dropout p = 0.5 with seed = offset = 0: the keep bits of linear indices
// 0..3 of [1, 1, 2, 2] come from Philox4x32-10 of counter 0, key 0 (the
// Random123 known answer 6627e8d5 e169c58d bc57ac4c 9b00dbd8) compared with
// 2^31: drop, keep, keep, keep. Row 0: p = [0, 3/4 * 2] -> o = 12;
// row 1: [1/4 * 2, 3/4 * 2] -> o = 2 + 12 = 14. Stats ignore dropout.
// DROP-LABEL: output o:
// DROP-NEXT: values: [12, 14]
// DROP-LABEL: output lse:
// DROP-NEXT: values: [1.38629, 1.38629]
func.func @dropout() -> (tensor<1x1x2x1xf32> {tg.name = "o"}, tensor<1x1x2x1xf32> {tg.name = "lse"}) {
  %q = tg.constant dense<1.0> : tensor<1x1x2x1xf32>
  %k = tg.constant dense<[[[[0.0], [1.09861229]]]]> : tensor<1x1x2x1xf32>
  %v = tg.constant dense<[[[[4.0], [8.0]]]]> : tensor<1x1x2x1xf32>
  %zero = tg.constant dense<0> : tensor<i64>
  %o, %l = tg.sdpa %q, %k, %v seed(%zero) offset(%zero) {dropout = 0.5 : f64, training, scale = 1.0 : f64}
      : tensor<1x1x2x1xf32>, tensor<1x1x2x1xf32>, tensor<1x1x2x1xf32> -> tensor<1x1x2x1xf32>, tensor<1x1x2x1xf32>
  return %o, %l : tensor<1x1x2x1xf32>, tensor<1x1x2x1xf32>
}
