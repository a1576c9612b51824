// Verifier errors of tg.matmul and tg.fused_matmul (shapes, element types,
// accumulators, captures and regions).
// RUN: tg-opt %s -split-input-file -verify-diagnostics

func.func @matmul_rank(%a: tensor<4xf32>, %b: tensor<4x4xf32>) {
  // expected-error @below {{'tg.matmul' op operands must have rank >= 2, got 1 and 2}}
  %0 = tg.matmul %a, %b : tensor<4xf32>, tensor<4x4xf32> -> tensor<4xf32>
  return
}

// -----

func.func @matmul_ranks_differ(%a: tensor<2x4x4xf32>, %b: tensor<4x4xf32>) {
  // expected-error @below {{'tg.matmul' op operand ranks differ (3 vs 2); expected equal ranks with broadcastable batch dimensions}}
  %0 = tg.matmul %a, %b : tensor<2x4x4xf32>, tensor<4x4xf32> -> tensor<2x4x4xf32>
  return
}

// -----

func.func @matmul_contraction(%a: tensor<4x8xf32>, %b: tensor<4x4xf32>) {
  // expected-error @below {{'tg.matmul' op contraction dimensions differ: lhs has 8 columns but rhs has 4 rows (expected equal)}}
  %0 = tg.matmul %a, %b : tensor<4x8xf32>, tensor<4x4xf32> -> tensor<4x4xf32>
  return
}

// -----

func.func @matmul_batch(%a: tensor<2x3x4x8xf32>, %b: tensor<3x3x8x4xf32>) {
  // expected-error @below {{'tg.matmul' op batch dimensions [2, 3] and [3, 3] do not broadcast (expected each pair equal or 1)}}
  %0 = tg.matmul %a, %b : tensor<2x3x4x8xf32>, tensor<3x3x8x4xf32> -> tensor<2x3x4x4xf32>
  return
}

// -----

func.func @matmul_result_shape(%a: tensor<1x4x8xf32>, %b: tensor<3x8x5xf32>) {
  // expected-error @below {{'tg.matmul' op result shape [1, 4, 5] does not match; expected [3, 4, 5]}}
  %0 = tg.matmul %a, %b : tensor<1x4x8xf32>, tensor<3x8x5xf32> -> tensor<1x4x5xf32>
  return
}

// -----

func.func @matmul_int_acc(%a: tensor<4x4xi8>, %b: tensor<4x4xi8>) {
  // expected-error @below {{'tg.matmul' op integer operands accumulate in i32, got 'f32'}}
  %0 = tg.matmul %a, %b acc = f32 : tensor<4x4xi8>, tensor<4x4xi8> -> tensor<4x4xf32>
  return
}

// -----

func.func @matmul_float_acc(%a: tensor<4x4xi8>, %b: tensor<4x4xf16>) {
  // expected-error @below {{'tg.matmul' op floating-point products accumulate in f32, got 'f16'}}
  %0 = tg.matmul %a, %b acc = f16 : tensor<4x4xi8>, tensor<4x4xf16> -> tensor<4x4xf16>
  return
}

// -----

func.func @matmul_float_to_int(%a: tensor<4x4xf16>, %b: tensor<4x4xf16>) {
  // expected-error @below {{'tg.matmul' op an f32 accumulator rounds to a floating-point result, got 'i32'}}
  %0 = tg.matmul %a, %b : tensor<4x4xf16>, tensor<4x4xf16> -> tensor<4x4xi32>
  return
}

// -----

func.func @matmul_bool(%a: tensor<4x4xi1>, %b: tensor<4x4xf16>) {
  // expected-error @below {{'tg.matmul' op operand #0 must be statically shaped tensor of}}
  %0 = tg.matmul %a, %b : tensor<4x4xi1>, tensor<4x4xf16> -> tensor<4x4xf16>
  return
}

// -----

func.func @fused_contraction(%a: tensor<4x8xf16>, %b: tensor<4x4xf16>) {
  // expected-error @below {{'tg.fused_matmul' op contraction dimensions differ: lhs has 8 columns but rhs has 4 rows (expected equal)}}
  %0 = tg.fused_matmul %a, %b : tensor<4x8xf16>, tensor<4x4xf16> -> tensor<4x4xf16>
    prologue_a {} prologue_b {} epilogue {}
  return
}

// -----

func.func @fused_capture_shape(%a: tensor<4x8xf16>, %b: tensor<8x4xi8>, %s: tensor<4x1xf16>) {
  // expected-error @below {{'tg.fused_matmul' op capture of shape [4, 1] does not broadcast to operand b shape [8, 4] (expected equal rank, or rank 0, and each dimension equal or 1)}}
  %0 = tg.fused_matmul %a, %b b_captures(%s : tensor<4x1xf16>) : tensor<4x8xf16>, tensor<8x4xi8> -> tensor<4x4xf16>
    prologue_a {}
    prologue_b {
    ^bb0(%e: tensor<i8>, %c: tensor<f16>):
      %h = tg.cast %e : tensor<i8> to tensor<f16>
      tg.yield %h : tensor<f16>
    }
    epilogue {}
  return
}

// -----

func.func @fused_epilogue_capture_shape(%a: tensor<4x8xf16>, %b: tensor<8x4xf16>, %bias: tensor<8xf32>) {
  // expected-error @below {{'tg.fused_matmul' op capture of shape [8] does not broadcast to result shape [4, 4]}}
  %0 = tg.fused_matmul %a, %b epilogue_captures(%bias : tensor<8xf32>) : tensor<4x8xf16>, tensor<8x4xf16> -> tensor<4x4xf32>
    prologue_a {} prologue_b {}
    epilogue {
    ^bb0(%acc: tensor<f32>, %be: tensor<f32>):
      tg.yield %acc : tensor<f32>
    }
  return
}

// -----

func.func @fused_orphan_captures(%a: tensor<4x8xf16>, %b: tensor<8x4xf16>, %s: tensor<f16>) {
  // expected-error @below {{'tg.fused_matmul' op has captures for the empty region 'prologue_a' (expected a region that takes them)}}
  %0 = tg.fused_matmul %a, %b a_captures(%s : tensor<f16>) : tensor<4x8xf16>, tensor<8x4xf16> -> tensor<4x4xf16>
    prologue_a {} prologue_b {} epilogue {}
  return
}

// -----

func.func @fused_region_arity(%a: tensor<4x8xf16>, %b: tensor<8x4xf16>) {
  // expected-error @below {{'tg.fused_matmul' op region 'prologue_a' has 2 arguments; expected 1}}
  %0 = tg.fused_matmul %a, %b : tensor<4x8xf16>, tensor<8x4xf16> -> tensor<4x4xf16>
    prologue_a {
    ^bb0(%e: tensor<f16>, %x: tensor<f16>):
      tg.yield %e : tensor<f16>
    }
    prologue_b {} epilogue {}
  return
}

// -----

func.func @fused_region_arg_type(%a: tensor<4x8xf16>, %b: tensor<8x4xi8>) {
  // expected-error @below {{'tg.fused_matmul' op region 'prologue_b' argument 0 has type 'tensor<f16>'; expected 'tensor<i8>'}}
  %0 = tg.fused_matmul %a, %b : tensor<4x8xf16>, tensor<8x4xi8> -> tensor<4x4xf16>
    prologue_a {}
    prologue_b {
    ^bb0(%e: tensor<f16>):
      tg.yield %e : tensor<f16>
    }
    epilogue {}
  return
}

// -----

func.func @fused_not_pointwise(%a: tensor<4x8xf16>, %b: tensor<8x4xf16>) {
  %0 = tg.fused_matmul %a, %b : tensor<4x8xf16>, tensor<8x4xf16> -> tensor<4x4xf32>
    prologue_a {} prologue_b {}
    epilogue {
    ^bb0(%acc: tensor<f32>):
      // expected-error @below {{'tg.transpose' op is not allowed in region 'epilogue' of tg.fused_matmul (expected pointwise tg ops only)}}
      %r = tg.transpose %acc perm = [] : tensor<f32> -> tensor<f32>
      tg.yield %r : tensor<f32>
    }
  return
}

// -----

func.func @fused_not_rank0(%a: tensor<4x8xf16>, %b: tensor<8x4xf16>) {
  %0 = tg.fused_matmul %a, %b : tensor<4x8xf16>, tensor<8x4xf16> -> tensor<4x4xf32>
    prologue_a {} prologue_b {}
    epilogue {
    ^bb0(%acc: tensor<f32>):
      // expected-error @below {{'tg.constant' op in region 'epilogue' must produce rank-0 tensors, got 'tensor<2xf32>'}}
      %c = tg.constant dense<1.0> : tensor<2xf32>
      tg.yield %acc : tensor<f32>
    }
  return
}

// -----

func.func @fused_yield_count(%a: tensor<4x8xf16>, %b: tensor<8x4xf16>) {
  %0 = tg.fused_matmul %a, %b : tensor<4x8xf16>, tensor<8x4xf16> -> tensor<4x4xf16>
    prologue_a {
    ^bb0(%e: tensor<f16>):
      // expected-error @below {{'tg.yield' op must yield exactly one value in region 'prologue_a'}}
      tg.yield %e, %e : tensor<f16>, tensor<f16>
    }
    prologue_b {} epilogue {}
  return
}

// -----

func.func @fused_epilogue_type(%a: tensor<4x8xf16>, %b: tensor<8x4xf16>) {
  %0 = tg.fused_matmul %a, %b : tensor<4x8xf16>, tensor<8x4xf16> -> tensor<4x4xf16>
    prologue_a {} prologue_b {}
    epilogue {
    ^bb0(%acc: tensor<f32>):
      // expected-error @below {{'tg.yield' op yields 'f32' in region 'epilogue'; expected 'f16'}}
      tg.yield %acc : tensor<f32>
    }
  return
}

// -----

func.func @fused_prologue_bool(%a: tensor<4x8xf16>, %b: tensor<8x4xf16>) {
  // expected-error @below {{'tg.fused_matmul' op operands cannot be i1 (expected numeric element types)}}
  %0 = tg.fused_matmul %a, %b : tensor<4x8xf16>, tensor<8x4xf16> -> tensor<4x4xf16>
    prologue_a {
    ^bb0(%e: tensor<f16>):
      %z = tg.cast %e : tensor<f16> to tensor<i1>
      tg.yield %z : tensor<i1>
    }
    prologue_b {} epilogue {}
  return
}

// -----

// The accumulator follows what the prologues yield: two i8 prologue results
// accumulate in i32, so acc = f32 is wrong.
func.func @fused_prologue_acc(%a: tensor<4x8xf16>, %b: tensor<8x4xi8>) {
  // expected-error @below {{'tg.fused_matmul' op integer operands accumulate in i32, got 'f32'}}
  %0 = tg.fused_matmul %a, %b acc = f32 : tensor<4x8xf16>, tensor<8x4xi8> -> tensor<4x4xi32>
    prologue_a {
    ^bb0(%e: tensor<f16>):
      %q = tg.cast %e : tensor<f16> to tensor<i8>
      tg.yield %q : tensor<i8>
    }
    prologue_b {} epilogue {}
  return
}

// -----

func.func @fused_float_to_int(%a: tensor<4x8xf16>, %b: tensor<8x4xf16>) {
  // expected-error @below {{'tg.fused_matmul' op an f32 accumulator rounds to a floating-point result, got 'i8'}}
  %0 = tg.fused_matmul %a, %b : tensor<4x8xf16>, tensor<8x4xf16> -> tensor<4x4xi8>
    prologue_a {} prologue_b {} epilogue {}
  return
}

// -----

func.func @fused_no_yield(%a: tensor<4x8xf16>, %b: tensor<8x4xf16>) {
  // expected-error @below {{empty block: expect at least a terminator}}
  %0 = tg.fused_matmul %a, %b : tensor<4x8xf16>, tensor<8x4xf16> -> tensor<4x4xf16>
    prologue_a {
    ^bb0(%e: tensor<f16>):
    }
    prologue_b {} epilogue {}
  return
}

// -----

func.func @yield_outside(%a: tensor<f32>) {
  // expected-error @below {{'tg.yield' op expects parent op to be one of 'tg.attention, tg.attention_grad, tg.fused_matmul'}}
  tg.yield %a : tensor<f32>
}
