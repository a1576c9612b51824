// Verifier errors of tg.sdpa_grad: the forward's rules plus o, d_o, stats
// and the gradient types.
// RUN: tg-opt %s -split-input-file -verify-diagnostics

func.func @gqa_ratio(%q: tensor<1x3x8x16xf16>, %k: tensor<1x2x8x16xf16>, %lse: tensor<1x3x8x1xf32>) {
  // expected-error @below {{'tg.sdpa_grad' op query heads (3) must be a multiple of key/value heads (2)}}
  %0:3 = tg.sdpa_grad %q, %k, %k, %q, %q, %lse : tensor<1x3x8x16xf16>, tensor<1x2x8x16xf16>, tensor<1x2x8x16xf16>, tensor<1x3x8x16xf16>, tensor<1x3x8x16xf16>, tensor<1x3x8x1xf32>
  return
}

// -----

func.func @o_shape(%q: tensor<1x4x8x16xf16>, %o: tensor<1x4x8x8xf16>, %lse: tensor<1x4x8x1xf32>) {
  // expected-error @below {{'tg.sdpa_grad' op output shape [1, 4, 8, 8] does not match; expected [1, 4, 8, 16] ([B, Hq, Sq, Dv])}}
  %0:3 = tg.sdpa_grad %q, %q, %q, %o, %o, %lse : tensor<1x4x8x16xf16>, tensor<1x4x8x16xf16>, tensor<1x4x8x16xf16>, tensor<1x4x8x8xf16>, tensor<1x4x8x8xf16>, tensor<1x4x8x1xf32>
  return
}

// -----

func.func @d_o_type(%q: tensor<1x4x8x16xf16>, %do: tensor<1x4x8x16xf32>, %lse: tensor<1x4x8x1xf32>) {
  // expected-error @below {{'tg.sdpa_grad' op d_o type 'tensor<1x4x8x16xf32>' differs from o's 'tensor<1x4x8x16xf16>'}}
  %0:3 = tg.sdpa_grad %q, %q, %q, %q, %do, %lse : tensor<1x4x8x16xf16>, tensor<1x4x8x16xf16>, tensor<1x4x8x16xf16>, tensor<1x4x8x16xf16>, tensor<1x4x8x16xf32>, tensor<1x4x8x1xf32>
  return
}

// -----

func.func @stats_shape(%q: tensor<1x4x8x16xf16>, %lse: tensor<1x4x8x16xf32>) {
  // expected-error @below {{'tg.sdpa_grad' op stats shape [1, 4, 8, 16] does not match; expected [1, 4, 8, 1] ([B, Hq, Sq, 1])}}
  %0:3 = tg.sdpa_grad %q, %q, %q, %q, %q, %lse : tensor<1x4x8x16xf16>, tensor<1x4x8x16xf16>, tensor<1x4x8x16xf16>, tensor<1x4x8x16xf16>, tensor<1x4x8x16xf16>, tensor<1x4x8x16xf32>
  return
}

// -----

func.func @stats_type(%q: tensor<1x4x8x16xf16>, %lse: tensor<1x4x8x1xf16>) {
  // expected-error @below {{'tg.sdpa_grad' op operand #5 must be statically shaped tensor of 32-bit float values, but got 'tensor<1x4x8x1xf16>'}}
  %0:3 = tg.sdpa_grad %q, %q, %q, %q, %q, %lse : tensor<1x4x8x16xf16>, tensor<1x4x8x16xf16>, tensor<1x4x8x16xf16>, tensor<1x4x8x16xf16>, tensor<1x4x8x16xf16>, tensor<1x4x8x1xf16>
  return
}

// -----

func.func @dq_type(%q: tensor<1x4x8x16xf16>, %lse: tensor<1x4x8x1xf32>) {
  // expected-error @below {{'tg.sdpa_grad' op failed to verify that all of {q, dq} have same type}}
  %0:3 = "tg.sdpa_grad"(%q, %q, %q, %q, %q, %lse) <{operandSegmentSizes = array<i32: 1, 1, 1, 1, 1, 1, 0, 0, 0, 0, 0, 0, 0>}> : (tensor<1x4x8x16xf16>, tensor<1x4x8x16xf16>, tensor<1x4x8x16xf16>, tensor<1x4x8x16xf16>, tensor<1x4x8x16xf16>, tensor<1x4x8x1xf32>) -> (tensor<1x4x8x16xf32>, tensor<1x4x8x16xf16>, tensor<1x4x8x16xf16>)
  return
}

// -----

func.func @dropout_without_seed(%q: tensor<1x4x8x16xf16>, %lse: tensor<1x4x8x1xf32>) {
  // expected-error @below {{'tg.sdpa_grad' op dropout needs seed and offset operands}}
  %0:3 = tg.sdpa_grad %q, %q, %q, %q, %q, %lse {dropout = 0.2 : f64} : tensor<1x4x8x16xf16>, tensor<1x4x8x16xf16>, tensor<1x4x8x16xf16>, tensor<1x4x8x16xf16>, tensor<1x4x8x16xf16>, tensor<1x4x8x1xf32>
  return
}

// -----

func.func @window_negative(%q: tensor<1x4x8x16xf16>, %lse: tensor<1x4x8x1xf32>) {
  // expected-error @below {{'tg.sdpa_grad' op window_right must be >= 0, got -2}}
  %0:3 = tg.sdpa_grad %q, %q, %q, %q, %q, %lse {window_right = -2 : i64} : tensor<1x4x8x16xf16>, tensor<1x4x8x16xf16>, tensor<1x4x8x16xf16>, tensor<1x4x8x16xf16>, tensor<1x4x8x16xf16>, tensor<1x4x8x1xf32>
  return
}

// -----

func.func @bias_shape(%q: tensor<1x4x8x16xf16>, %lse: tensor<1x4x8x1xf32>, %bias: tensor<2x4x8x8xf32>) {
  // expected-error @below {{'tg.sdpa_grad' op bias of shape [2, 4, 8, 8] does not broadcast to the scores [1, 4, 8, 8]}}
  %0:3 = tg.sdpa_grad %q, %q, %q, %q, %q, %lse bias(%bias : tensor<2x4x8x8xf32>) : tensor<1x4x8x16xf16>, tensor<1x4x8x16xf16>, tensor<1x4x8x16xf16>, tensor<1x4x8x16xf16>, tensor<1x4x8x16xf16>, tensor<1x4x8x1xf32>
  return
}

// -----

func.func @seq_len_entries(%q: tensor<1x4x8x16xf16>, %lse: tensor<1x4x8x1xf32>, %l: tensor<2xi32>) {
  // expected-error @below {{'tg.sdpa_grad' op seq_len_q has 2 entries; expected one per batch (1)}}
  %0:3 = tg.sdpa_grad %q, %q, %q, %q, %q, %lse seq_len_q(%l : tensor<2xi32>) : tensor<1x4x8x16xf16>, tensor<1x4x8x16xf16>, tensor<1x4x8x16xf16>, tensor<1x4x8x16xf16>, tensor<1x4x8x16xf16>, tensor<1x4x8x1xf32>
  return
}

// -----

func.func @softcap_negative(%q: tensor<1x4x8x16xf16>, %lse: tensor<1x4x8x1xf32>) {
  // expected-error @below {{'tg.sdpa_grad' op softcap must be positive, got -1.000000e+00}}
  %0:3 = tg.sdpa_grad %q, %q, %q, %q, %q, %lse {softcap = -1.0 : f64} : tensor<1x4x8x16xf16>, tensor<1x4x8x16xf16>, tensor<1x4x8x16xf16>, tensor<1x4x8x16xf16>, tensor<1x4x8x16xf16>, tensor<1x4x8x1xf32>
  return
}

// -----

func.func @dbias_without_bias(%q: tensor<1x2x16x8xf32>, %lse: tensor<1x2x16x1xf32>) {
  // expected-error @below {{'tg.sdpa_grad' op returns dbias but has no bias}}
  %dq, %dk, %dv, %db = tg.sdpa_grad %q, %q, %q, %q, %q, %lse : tensor<1x2x16x8xf32>, tensor<1x2x16x8xf32>, tensor<1x2x16x8xf32>, tensor<1x2x16x8xf32>, tensor<1x2x16x8xf32>, tensor<1x2x16x1xf32> -> dbias tensor<1x2x16x16xf32>
  return
}

// -----

func.func @dbias_type(%q: tensor<1x2x16x8xf32>, %lse: tensor<1x2x16x1xf32>, %bias: tensor<1x2x16x16xf32>) {
  // expected-error @below {{'tg.sdpa_grad' op dbias type 'tensor<1x1x16x16xf32>' differs from the bias's 'tensor<1x2x16x16xf32>'}}
  %dq, %dk, %dv, %db = tg.sdpa_grad %q, %q, %q, %q, %q, %lse bias(%bias : tensor<1x2x16x16xf32>) : tensor<1x2x16x8xf32>, tensor<1x2x16x8xf32>, tensor<1x2x16x8xf32>, tensor<1x2x16x8xf32>, tensor<1x2x16x8xf32>, tensor<1x2x16x1xf32> -> dbias tensor<1x1x16x16xf32>
  return
}
