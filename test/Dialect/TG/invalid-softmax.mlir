// Verifier errors of tg.softmax.
// RUN: tg-opt %s -split-input-file -verify-diagnostics

func.func @softmax_axis(%a: tensor<2x8xf32>) {
  // expected-error @below {{'tg.softmax' op axis 2 is out of range (expected 0 <= axis < 2)}}
  %0 = tg.softmax %a axis = 2 : tensor<2x8xf32>
  return
}

// -----

func.func @softmax_negative_axis(%a: tensor<2x8xf32>) {
  // expected-error @below {{'tg.softmax' op axis -1 is out of range (expected 0 <= axis < 2)}}
  %0 = tg.softmax %a axis = -1 : tensor<2x8xf32>
  return
}

// -----

func.func @softmax_stats_shape(%a: tensor<2x8xf32>) {
  // expected-error @below {{'tg.softmax' op stats shape [2] does not match; expected [2, 1]}}
  %0, %1 = tg.softmax %a axis = 1 : tensor<2x8xf32> stats tensor<2xf32>
  return
}

// -----

func.func @softmax_stats_type(%a: tensor<2x8xbf16>) {
  // expected-error @below {{'tg.softmax' op result #1 must be statically shaped tensor of 32-bit float values}}
  %0, %1 = tg.softmax %a axis = 1 : tensor<2x8xbf16> stats tensor<2x1xbf16>
  return
}

// -----

// fp8 has no infinity to mask with.
func.func @softmax_fp8(%a: tensor<2x8xf8E4M3FN>) {
  // expected-error @below {{'tg.softmax' op operand #0 must be statically shaped tensor of bfloat16 type or 16-bit float or 32-bit float values}}
  %0 = tg.softmax %a axis = 1 : tensor<2x8xf8E4M3FN>
  return
}

// -----

func.func @softmax_result_type(%a: tensor<2x8xf32>) {
  // expected-error @below {{'tg.softmax' op failed to verify that all of {input, output} have same type}}
  %0 = "tg.softmax"(%a) <{axis = 1 : i64}> : (tensor<2x8xf32>) -> tensor<2x8xf16>
  return
}
