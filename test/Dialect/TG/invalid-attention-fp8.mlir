// Verifier errors of the fp8 forms of tg.sdpa and tg.attention: the six
// fp8_scales, their types, the amax results and the element types.
// RUN: tg-opt %s -split-input-file -verify-diagnostics

func.func @mixed_fp8_and_bf16(%q: tensor<1x2x16x16xf8E4M3FN>, %k: tensor<1x2x16x16xbf16>, %s: tensor<f32>) {
  // expected-error @below {{'tg.sdpa' op q, k and v must have the same element type, got 'f8E4M3FN', 'bf16', 'f8E4M3FN'}}
  %0 = tg.sdpa %q, %k, %q fp8_scales(%s, %s, %s, %s, %s, %s : tensor<f32>, tensor<f32>, tensor<f32>, tensor<f32>, tensor<f32>, tensor<f32>) : tensor<1x2x16x16xf8E4M3FN>, tensor<1x2x16x16xbf16>, tensor<1x2x16x16xf8E4M3FN> -> tensor<1x2x16x16xf8E4M3FN>
  return
}

// -----

func.func @mixed_fp8_formats(%q: tensor<1x2x16x16xf8E4M3FN>, %v: tensor<1x2x16x16xf8E5M2>, %s: tensor<f32>) {
  // expected-error @below {{'tg.sdpa' op q, k and v must have the same element type, got 'f8E4M3FN', 'f8E4M3FN', 'f8E5M2'}}
  %0 = tg.sdpa %q, %q, %v fp8_scales(%s, %s, %s, %s, %s, %s : tensor<f32>, tensor<f32>, tensor<f32>, tensor<f32>, tensor<f32>, tensor<f32>) : tensor<1x2x16x16xf8E4M3FN>, tensor<1x2x16x16xf8E4M3FN>, tensor<1x2x16x16xf8E5M2> -> tensor<1x2x16x16xf8E4M3FN>
  return
}

// -----

func.func @fp8_without_scales(%q: tensor<1x2x16x16xf8E4M3FN>) {
  // expected-error @below {{'tg.sdpa' op with fp8 q, k and v needs fp8_scales (descale_q, descale_k, descale_v, descale_s, scale_s, scale_o)}}
  %0 = tg.sdpa %q, %q, %q : tensor<1x2x16x16xf8E4M3FN>, tensor<1x2x16x16xf8E4M3FN>, tensor<1x2x16x16xf8E4M3FN> -> tensor<1x2x16x16xf8E4M3FN>
  return
}

// -----

func.func @some_scales_missing(%q: tensor<1x2x16x16xf8E4M3FN>, %s: tensor<f32>) {
  // expected-error @below {{'tg.sdpa' op expects six fp8_scales (descale_q, descale_k, descale_v, descale_s, scale_s, scale_o), got 3}}
  %0 = tg.sdpa %q, %q, %q fp8_scales(%s, %s, %s : tensor<f32>, tensor<f32>, tensor<f32>) : tensor<1x2x16x16xf8E4M3FN>, tensor<1x2x16x16xf8E4M3FN>, tensor<1x2x16x16xf8E4M3FN> -> tensor<1x2x16x16xf8E4M3FN>
  return
}

// -----

func.func @scales_on_bf16(%q: tensor<1x2x16x16xbf16>, %s: tensor<f32>) {
  // expected-error @below {{'tg.sdpa' op takes fp8_scales only with fp8 q, k and v, got 'bf16'}}
  %0 = tg.sdpa %q, %q, %q fp8_scales(%s, %s, %s, %s, %s, %s : tensor<f32>, tensor<f32>, tensor<f32>, tensor<f32>, tensor<f32>, tensor<f32>) : tensor<1x2x16x16xbf16>, tensor<1x2x16x16xbf16>, tensor<1x2x16x16xbf16> -> tensor<1x2x16x16xbf16>
  return
}

// -----

func.func @scale_rank(%q: tensor<1x2x16x16xf8E4M3FN>, %s: tensor<f32>, %bad: tensor<1xf32>) {
  // expected-error @below {{'tg.sdpa' op fp8 scale descale_v must be a rank-0 f32 tensor, got 'tensor<1xf32>'}}
  %0 = tg.sdpa %q, %q, %q fp8_scales(%s, %s, %bad, %s, %s, %s : tensor<f32>, tensor<f32>, tensor<1xf32>, tensor<f32>, tensor<f32>, tensor<f32>) : tensor<1x2x16x16xf8E4M3FN>, tensor<1x2x16x16xf8E4M3FN>, tensor<1x2x16x16xf8E4M3FN> -> tensor<1x2x16x16xf8E4M3FN>
  return
}

// -----

func.func @scale_type(%q: tensor<1x2x16x16xf8E4M3FN>, %s: tensor<f32>, %bad: tensor<f16>) {
  // expected-error @below {{'tg.sdpa' op fp8 scale scale_o must be a rank-0 f32 tensor, got 'tensor<f16>'}}
  %0 = tg.sdpa %q, %q, %q fp8_scales(%s, %s, %s, %s, %s, %bad : tensor<f32>, tensor<f32>, tensor<f32>, tensor<f32>, tensor<f32>, tensor<f16>) : tensor<1x2x16x16xf8E4M3FN>, tensor<1x2x16x16xf8E4M3FN>, tensor<1x2x16x16xf8E4M3FN> -> tensor<1x2x16x16xf8E4M3FN>
  return
}

// -----

func.func @f32_output(%q: tensor<1x2x16x16xf8E4M3FN>, %s: tensor<f32>) {
  // expected-error @below {{'tg.sdpa' op fp8 attention gives an f8E4M3FN, f8E5M2, bf16 or f16 output, got f32}}
  %0 = tg.sdpa %q, %q, %q fp8_scales(%s, %s, %s, %s, %s, %s : tensor<f32>, tensor<f32>, tensor<f32>, tensor<f32>, tensor<f32>, tensor<f32>) : tensor<1x2x16x16xf8E4M3FN>, tensor<1x2x16x16xf8E4M3FN>, tensor<1x2x16x16xf8E4M3FN> -> tensor<1x2x16x16xf32>
  return
}

// -----

func.func @fp8_output_of_bf16(%q: tensor<1x2x16x16xbf16>) {
  // expected-error @below {{'tg.sdpa' op gives an fp8 output only with fp8 q, k and v}}
  %0 = tg.sdpa %q, %q, %q : tensor<1x2x16x16xbf16>, tensor<1x2x16x16xbf16>, tensor<1x2x16x16xbf16> -> tensor<1x2x16x16xf8E4M3FN>
  return
}

// -----

func.func @amax_without_scales(%q: tensor<1x2x16x16xbf16>) {
  // expected-error @below {{'tg.sdpa' op returns amax_s and amax_o only with fp8_scales}}
  %0:3 = tg.sdpa %q, %q, %q : tensor<1x2x16x16xbf16>, tensor<1x2x16x16xbf16>, tensor<1x2x16x16xbf16> -> tensor<1x2x16x16xbf16> amax(tensor<f32>, tensor<f32>)
  return
}

// -----

func.func @amax_type(%q: tensor<1x2x16x16xf8E4M3FN>, %s: tensor<f32>) {
  // expected-error @below {{'tg.sdpa' op amax_o must be a rank-0 f32 tensor, got 'tensor<1x1x1x1xf32>'}}
  %0:3 = tg.sdpa %q, %q, %q fp8_scales(%s, %s, %s, %s, %s, %s : tensor<f32>, tensor<f32>, tensor<f32>, tensor<f32>, tensor<f32>, tensor<f32>) : tensor<1x2x16x16xf8E4M3FN>, tensor<1x2x16x16xf8E4M3FN>, tensor<1x2x16x16xf8E4M3FN> -> tensor<1x2x16x16xf8E4M3FN> amax(tensor<f32>, tensor<1x1x1x1xf32>)
  return
}

// -----

// Only the generic form can give one amax without the other.
func.func @amax_alone(%q: tensor<1x2x16x16xf8E4M3FN>, %s: tensor<f32>) {
  // expected-error @below {{'tg.sdpa' op returns amax_s and amax_o together}}
  %0:2 = "tg.sdpa"(%q, %q, %q, %s, %s, %s, %s, %s, %s) <{operandSegmentSizes = array<i32: 1, 1, 1, 0, 0, 0, 0, 0, 0, 0, 0, 6>, resultSegmentSizes = array<i32: 1, 0, 1, 0>}> : (tensor<1x2x16x16xf8E4M3FN>, tensor<1x2x16x16xf8E4M3FN>, tensor<1x2x16x16xf8E4M3FN>, tensor<f32>, tensor<f32>, tensor<f32>, tensor<f32>, tensor<f32>, tensor<f32>) -> (tensor<1x2x16x16xf8E4M3FN>, tensor<f32>)
  return
}

// -----

func.func @attention_fp8_without_scales(%q: tensor<1x2x16x16xf8E5M2>) {
  // expected-error @below {{'tg.attention' op with fp8 q, k and v needs fp8_scales}}
  %0 = tg.attention %q, %q, %q : tensor<1x2x16x16xf8E5M2>, tensor<1x2x16x16xf8E5M2>, tensor<1x2x16x16xf8E5M2> -> tensor<1x2x16x16xbf16> score {
  ^bb0(%sc: tensor<f32>, %b: tensor<i64>, %h: tensor<i64>, %qi: tensor<i64>, %ki: tensor<i64>):
    tg.yield %sc : tensor<f32>
  }
  return
}

// -----

func.func @attention_amax_without_scales(%q: tensor<1x2x16x16xf16>) {
  // expected-error @below {{'tg.attention' op returns amax_s and amax_o only with fp8_scales}}
  %0:3 = tg.attention %q, %q, %q : tensor<1x2x16x16xf16>, tensor<1x2x16x16xf16>, tensor<1x2x16x16xf16> -> tensor<1x2x16x16xf16> amax(tensor<f32>, tensor<f32>) score {
  ^bb0(%sc: tensor<f32>, %b: tensor<i64>, %h: tensor<i64>, %qi: tensor<i64>, %ki: tensor<i64>):
    tg.yield %sc : tensor<f32>
  }
  return
}

// -----

// The backward has no fp8 form.
func.func @sdpa_grad_fp8(%q: tensor<1x2x16x16xf8E4M3FN>, %lse: tensor<1x2x16x1xf32>) {
  // expected-error @below {{'tg.sdpa_grad' op operand #0 must be statically shaped tensor of bfloat16 type or 16-bit float or 32-bit float values}}
  %0:3 = tg.sdpa_grad %q, %q, %q, %q, %q, %lse : tensor<1x2x16x16xf8E4M3FN>, tensor<1x2x16x16xf8E4M3FN>, tensor<1x2x16x16xf8E4M3FN>, tensor<1x2x16x16xf8E4M3FN>, tensor<1x2x16x16xf8E4M3FN>, tensor<1x2x16x1xf32>
  return
}
