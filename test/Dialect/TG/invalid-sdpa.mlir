// Verifier errors of tg.sdpa: shapes (ranks, GQA, head dims), optional
// operands, options and results.
// RUN: tg-opt %s -split-input-file -verify-diagnostics

func.func @q_rank(%q: tensor<4x16x64xbf16>, %k: tensor<1x4x16x64xbf16>) {
  // expected-error @below {{'tg.sdpa' op q must have rank 4 ([B, H, S, D]), got rank 3}}
  %0 = tg.sdpa %q, %k, %k : tensor<4x16x64xbf16>, tensor<1x4x16x64xbf16>, tensor<1x4x16x64xbf16> -> tensor<1x4x16x64xbf16>
  return
}

// -----

func.func @v_rank(%q: tensor<1x4x16x64xbf16>, %v: tensor<4x16x64xbf16>) {
  // expected-error @below {{'tg.sdpa' op v must have rank 4 ([B, H, S, D]), got rank 3}}
  %0 = tg.sdpa %q, %q, %v : tensor<1x4x16x64xbf16>, tensor<1x4x16x64xbf16>, tensor<4x16x64xbf16> -> tensor<1x4x16x64xbf16>
  return
}

// -----

func.func @element_types(%q: tensor<1x4x16x64xbf16>, %k: tensor<1x4x16x64xf16>) {
  // expected-error @below {{'tg.sdpa' op q, k and v must have the same element type, got 'bf16', 'f16', 'bf16'}}
  %0 = tg.sdpa %q, %k, %q : tensor<1x4x16x64xbf16>, tensor<1x4x16x64xf16>, tensor<1x4x16x64xbf16> -> tensor<1x4x16x64xbf16>
  return
}

// -----

// fp8 q, k and v need their scales (invalid-attention-fp8.mlir has the rest).
func.func @fp8(%q: tensor<1x4x16x64xf8E4M3FN>) {
  // expected-error @below {{'tg.sdpa' op with fp8 q, k and v needs fp8_scales}}
  %0 = tg.sdpa %q, %q, %q : tensor<1x4x16x64xf8E4M3FN>, tensor<1x4x16x64xf8E4M3FN>, tensor<1x4x16x64xf8E4M3FN> -> tensor<1x4x16x64xf16>
  return
}

// -----

func.func @batch(%q: tensor<2x4x16x64xbf16>, %k: tensor<1x4x16x64xbf16>) {
  // expected-error @below {{'tg.sdpa' op batch sizes differ: q has 2, k has 1, v has 1}}
  %0 = tg.sdpa %q, %k, %k : tensor<2x4x16x64xbf16>, tensor<1x4x16x64xbf16>, tensor<1x4x16x64xbf16> -> tensor<2x4x16x64xbf16>
  return
}

// -----

func.func @kv_heads(%q: tensor<1x4x16x64xbf16>, %k: tensor<1x2x16x64xbf16>, %v: tensor<1x4x16x64xbf16>) {
  // expected-error @below {{'tg.sdpa' op k has 2 heads but v has 4 (expected equal)}}
  %0 = tg.sdpa %q, %k, %v : tensor<1x4x16x64xbf16>, tensor<1x2x16x64xbf16>, tensor<1x4x16x64xbf16> -> tensor<1x4x16x64xbf16>
  return
}

// -----

func.func @gqa_ratio(%q: tensor<1x6x16x64xbf16>, %k: tensor<1x4x16x64xbf16>) {
  // expected-error @below {{'tg.sdpa' op query heads (6) must be a multiple of key/value heads (4)}}
  %0 = tg.sdpa %q, %k, %k : tensor<1x6x16x64xbf16>, tensor<1x4x16x64xbf16>, tensor<1x4x16x64xbf16> -> tensor<1x6x16x64xbf16>
  return
}

// -----

func.func @zero_kv_heads(%q: tensor<1x6x16x64xbf16>, %k: tensor<1x0x16x64xbf16>) {
  // expected-error @below {{'tg.sdpa' op query heads (6) must be a multiple of key/value heads (0)}}
  %0 = tg.sdpa %q, %k, %k : tensor<1x6x16x64xbf16>, tensor<1x0x16x64xbf16>, tensor<1x0x16x64xbf16> -> tensor<1x6x16x64xbf16>
  return
}

// -----

func.func @kv_seq(%q: tensor<1x4x16x64xbf16>, %k: tensor<1x4x32x64xbf16>, %v: tensor<1x4x16x64xbf16>) {
  // expected-error @below {{'tg.sdpa' op k has sequence length 32 but v has 16 (expected equal)}}
  %0 = tg.sdpa %q, %k, %v : tensor<1x4x16x64xbf16>, tensor<1x4x32x64xbf16>, tensor<1x4x16x64xbf16> -> tensor<1x4x16x64xbf16>
  return
}

// -----

func.func @head_dims(%q: tensor<1x4x16x64xbf16>, %k: tensor<1x4x16x32xbf16>) {
  // expected-error @below {{'tg.sdpa' op head dims of q (64) and k (32) differ}}
  %0 = tg.sdpa %q, %k, %k : tensor<1x4x16x64xbf16>, tensor<1x4x16x32xbf16>, tensor<1x4x16x32xbf16> -> tensor<1x4x16x32xbf16>
  return
}

// -----

func.func @empty_sequence(%q: tensor<1x4x0x64xbf16>, %k: tensor<1x4x16x64xbf16>) {
  // expected-error @below {{'tg.sdpa' op sequence lengths and head dims must be positive}}
  %0 = tg.sdpa %q, %k, %k : tensor<1x4x0x64xbf16>, tensor<1x4x16x64xbf16>, tensor<1x4x16x64xbf16> -> tensor<1x4x0x64xbf16>
  return
}

// -----

func.func @bias_shape(%q: tensor<1x4x16x64xbf16>, %bias: tensor<1x4x16x8xf32>) {
  // expected-error @below {{'tg.sdpa' op bias of shape [1, 4, 16, 8] does not broadcast to the scores [1, 4, 16, 16] (expected rank 4 with each dimension equal or 1)}}
  %0 = tg.sdpa %q, %q, %q bias(%bias : tensor<1x4x16x8xf32>) : tensor<1x4x16x64xbf16>, tensor<1x4x16x64xbf16>, tensor<1x4x16x64xbf16> -> tensor<1x4x16x64xbf16>
  return
}

// -----

func.func @bias_rank(%q: tensor<1x4x16x64xbf16>, %bias: tensor<16x16xf32>) {
  // expected-error @below {{'tg.sdpa' op bias of shape [16, 16] does not broadcast to the scores [1, 4, 16, 16]}}
  %0 = tg.sdpa %q, %q, %q bias(%bias : tensor<16x16xf32>) : tensor<1x4x16x64xbf16>, tensor<1x4x16x64xbf16>, tensor<1x4x16x64xbf16> -> tensor<1x4x16x64xbf16>
  return
}

// -----

func.func @bias_int(%q: tensor<1x4x16x64xbf16>, %bias: tensor<1x1x16x16xi32>) {
  // expected-error @below {{'tg.sdpa' op bias must be floating point, got 'i32'}}
  %0 = tg.sdpa %q, %q, %q bias(%bias : tensor<1x1x16x16xi32>) : tensor<1x4x16x64xbf16>, tensor<1x4x16x64xbf16>, tensor<1x4x16x64xbf16> -> tensor<1x4x16x64xbf16>
  return
}

// -----

func.func @seq_len_entries(%q: tensor<2x4x16x64xbf16>, %l: tensor<3xi32>) {
  // expected-error @below {{'tg.sdpa' op seq_len_kv has 3 entries; expected one per batch (2)}}
  %0 = tg.sdpa %q, %q, %q seq_len_kv(%l : tensor<3xi32>) : tensor<2x4x16x64xbf16>, tensor<2x4x16x64xbf16>, tensor<2x4x16x64xbf16> -> tensor<2x4x16x64xbf16>
  return
}

// -----

func.func @seq_len_type(%q: tensor<2x4x16x64xbf16>, %l: tensor<2xf32>) {
  // expected-error @below {{'tg.sdpa' op operand #3 must be statically shaped 1D tensor of 32-bit signless integer or 64-bit signless integer values, but got 'tensor<2xf32>'}}
  %0 = tg.sdpa %q, %q, %q seq_len_q(%l : tensor<2xf32>) : tensor<2x4x16x64xbf16>, tensor<2x4x16x64xbf16>, tensor<2x4x16x64xbf16> -> tensor<2x4x16x64xbf16>
  return
}

// -----

func.func @dropout_range(%q: tensor<1x4x16x64xbf16>, %s: tensor<i64>) {
  // expected-error @below {{'tg.sdpa' op dropout probability 1.500000e+00 is out of range (expected 0 <= p < 1)}}
  %0 = tg.sdpa %q, %q, %q seed(%s) offset(%s) {dropout = 1.5 : f64} : tensor<1x4x16x64xbf16>, tensor<1x4x16x64xbf16>, tensor<1x4x16x64xbf16> -> tensor<1x4x16x64xbf16>
  return
}

// -----

func.func @seed_without_offset(%q: tensor<1x4x16x64xbf16>, %s: tensor<i64>) {
  // expected-error @below {{'tg.sdpa' op seed and offset must be given together}}
  %0 = tg.sdpa %q, %q, %q seed(%s) {dropout = 0.1 : f64} : tensor<1x4x16x64xbf16>, tensor<1x4x16x64xbf16>, tensor<1x4x16x64xbf16> -> tensor<1x4x16x64xbf16>
  return
}

// -----

func.func @dropout_without_seed(%q: tensor<1x4x16x64xbf16>) {
  // expected-error @below {{'tg.sdpa' op dropout needs seed and offset operands}}
  %0 = tg.sdpa %q, %q, %q {dropout = 0.1 : f64} : tensor<1x4x16x64xbf16>, tensor<1x4x16x64xbf16>, tensor<1x4x16x64xbf16> -> tensor<1x4x16x64xbf16>
  return
}

// -----

func.func @seed_type(%q: tensor<1x4x16x64xbf16>, %s: tensor<i32>) {
  // expected-error @below {{'tg.sdpa' op operand #3 must be 0D tensor of 64-bit signless integer values, but got 'tensor<i32>'}}
  %0 = "tg.sdpa"(%q, %q, %q, %s, %s) <{operandSegmentSizes = array<i32: 1, 1, 1, 0, 0, 0, 0, 0, 0, 1, 1, 0>, resultSegmentSizes = array<i32: 1, 0, 0, 0>, dropout = 0.1 : f64}> : (tensor<1x4x16x64xbf16>, tensor<1x4x16x64xbf16>, tensor<1x4x16x64xbf16>, tensor<i32>, tensor<i32>) -> tensor<1x4x16x64xbf16>
  return
}

// -----

func.func @scale_infinite(%q: tensor<1x4x16x64xbf16>) {
  // expected-error @below {{'tg.sdpa' op scale must be finite}}
  %0 = tg.sdpa %q, %q, %q {scale = 0x7FF0000000000000 : f64} : tensor<1x4x16x64xbf16>, tensor<1x4x16x64xbf16>, tensor<1x4x16x64xbf16> -> tensor<1x4x16x64xbf16>
  return
}

// -----

func.func @softcap_zero(%q: tensor<1x4x16x64xbf16>) {
  // expected-error @below {{'tg.sdpa' op softcap must be positive, got 0.000000e+00}}
  %0 = tg.sdpa %q, %q, %q {softcap = 0.0 : f64} : tensor<1x4x16x64xbf16>, tensor<1x4x16x64xbf16>, tensor<1x4x16x64xbf16> -> tensor<1x4x16x64xbf16>
  return
}

// -----

func.func @window_negative(%q: tensor<1x4x16x64xbf16>) {
  // expected-error @below {{'tg.sdpa' op window_left must be >= 0, got -1}}
  %0 = tg.sdpa %q, %q, %q {window_left = -1 : i64} : tensor<1x4x16x64xbf16>, tensor<1x4x16x64xbf16>, tensor<1x4x16x64xbf16> -> tensor<1x4x16x64xbf16>
  return
}

// -----

func.func @window_right_negative(%q: tensor<1x4x16x64xbf16>) {
  // expected-error @below {{'tg.sdpa' op window_right must be >= 0, got -3}}
  %0 = tg.sdpa %q, %q, %q {window_right = -3 : i64} : tensor<1x4x16x64xbf16>, tensor<1x4x16x64xbf16>, tensor<1x4x16x64xbf16> -> tensor<1x4x16x64xbf16>
  return
}

// -----

func.func @causal_keyword(%q: tensor<1x4x16x64xbf16>) {
  // expected-error @below {{expected ::mlir::tg::CausalMode to be one of: none, top_left, bottom_right}}
  // expected-error @below {{failed to parse TG_CausalModeAttr parameter 'value'}}
  %0 = tg.sdpa %q, %q, %q {causal = #tg<causal diagonal>} : tensor<1x4x16x64xbf16>, tensor<1x4x16x64xbf16>, tensor<1x4x16x64xbf16> -> tensor<1x4x16x64xbf16>
  return
}

// -----

func.func @output_shape(%q: tensor<1x4x16x64xbf16>, %v: tensor<1x4x16x32xbf16>) {
  // expected-error @below {{'tg.sdpa' op output shape [1, 4, 16, 64] does not match; expected [1, 4, 16, 32] ([B, Hq, Sq, Dv])}}
  %0 = tg.sdpa %q, %q, %v : tensor<1x4x16x64xbf16>, tensor<1x4x16x64xbf16>, tensor<1x4x16x32xbf16> -> tensor<1x4x16x64xbf16>
  return
}

// -----

func.func @training_without_stats(%q: tensor<1x4x16x64xbf16>) {
  // expected-error @below {{'tg.sdpa' op in training mode must also return stats}}
  %0 = tg.sdpa %q, %q, %q {training} : tensor<1x4x16x64xbf16>, tensor<1x4x16x64xbf16>, tensor<1x4x16x64xbf16> -> tensor<1x4x16x64xbf16>
  return
}

// -----

func.func @stats_without_training(%q: tensor<1x4x16x64xbf16>) {
  // expected-error @below {{'tg.sdpa' op returns stats only in training mode}}
  %0, %1 = tg.sdpa %q, %q, %q : tensor<1x4x16x64xbf16>, tensor<1x4x16x64xbf16>, tensor<1x4x16x64xbf16> -> tensor<1x4x16x64xbf16>, tensor<1x4x16x1xf32>
  return
}

// -----

func.func @stats_shape(%q: tensor<1x4x16x64xbf16>) {
  // expected-error @below {{'tg.sdpa' op stats shape [1, 4, 16] does not match; expected [1, 4, 16, 1] ([B, Hq, Sq, 1])}}
  %0, %1 = tg.sdpa %q, %q, %q {training} : tensor<1x4x16x64xbf16>, tensor<1x4x16x64xbf16>, tensor<1x4x16x64xbf16> -> tensor<1x4x16x64xbf16>, tensor<1x4x16xf32>
  return
}

// -----

func.func @stats_type(%q: tensor<1x4x16x64xbf16>) {
  // expected-error @below {{'tg.sdpa' op result #1 must be statically shaped tensor of 32-bit float values, but got 'tensor<1x4x16x1xbf16>'}}
  %0, %1 = tg.sdpa %q, %q, %q {training} : tensor<1x4x16x64xbf16>, tensor<1x4x16x64xbf16>, tensor<1x4x16x64xbf16> -> tensor<1x4x16x64xbf16>, tensor<1x4x16x1xbf16>
  return
}
