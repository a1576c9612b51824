// Verifier errors of tg.gather (graph level and in score regions), of table
// captures, and of tg.attention_grad's table gradients.
// RUN: tg-opt %s -split-input-file -verify-diagnostics

func.func @rank0_table(%t: tensor<f32>, %i: tensor<i64>) {
  // expected-error @below {{'tg.gather' op needs a table of rank >= 1, got 'tensor<f32>'}}
  %0 = "tg.gather"(%t) : (tensor<f32>) -> tensor<f32>
  return
}

// -----

func.func @empty_table(%t: tensor<4x0xf32>, %i: tensor<i64>) {
  // expected-error @below {{'tg.gather' op cannot gather from the empty table 'tensor<4x0xf32>' (every dimension must have at least one element)}}
  %0 = tg.gather %t[%i, %i] : tensor<4x0xf32>[tensor<i64>, tensor<i64>]
  return
}

// -----

func.func @index_count(%t: tensor<4x8xf32>, %i: tensor<i64>) {
  // expected-error @below {{'tg.gather' op indexes a rank-2 table with 1 indices; expected one index per dimension (2)}}
  %0 = tg.gather %t[%i] : tensor<4x8xf32>[tensor<i64>]
  return
}

// -----

func.func @index_type(%t: tensor<4xf32>, %i: tensor<3xi32>) {
  // expected-error @below {{operand #1 must be variadic of statically shaped tensor of 64-bit signless integer values}}
  %0 = tg.gather %t[%i] : tensor<4xf32>[tensor<3xi32>]
  return
}

// -----

func.func @index_broadcast(%t: tensor<4x4xf32>, %i: tensor<3xi64>, %j: tensor<2xi64>) {
  // expected-error @below {{operand shapes do not broadcast: [3] [2]}}
  %0 = tg.gather %t[%i, %j] : tensor<4x4xf32>[tensor<3xi64>, tensor<2xi64>]
  return
}

// -----

func.func @fill_inexact(%t: tensor<4xbf16>, %i: tensor<3xi64>) {
  // expected-error @below {{'tg.gather' op fill value 0.1 is not exactly representable in bf16}}
  %0 = tg.gather %t[%i] fill(0.1) : tensor<4xbf16>[tensor<3xi64>]
  return
}

// -----

func.func @fill_int_range(%t: tensor<4xi8>, %i: tensor<3xi64>) {
  // expected-error @below {{'tg.gather' op fill value 300 is not a value of i8}}
  %0 = tg.gather %t[%i] fill(300) : tensor<4xi8>[tensor<3xi64>]
  return
}

// -----

func.func @fill_int_fraction(%t: tensor<4xi32>, %i: tensor<3xi64>) {
  // expected-error @below {{'tg.gather' op fill value 1.5 is not a value of i32}}
  %0 = tg.gather %t[%i] fill(1.5) : tensor<4xi32>[tensor<3xi64>]
  return
}

// -----

func.func @fill_overflow(%t: tensor<4xf16>, %i: tensor<3xi64>) {
  // expected-error @below {{'tg.gather' op fill value 1e+06 is not exactly representable in f16}}
  %0 = tg.gather %t[%i] fill(1.0e6) : tensor<4xf16>[tensor<3xi64>]
  return
}

// -----

func.func @fill_nan(%t: tensor<4xf32>, %i: tensor<3xi64>) {
  // expected-error @below {{'tg.gather' op fill value must not be NaN}}
  %0 = "tg.gather"(%t, %i) <{mode = #tg<gather_mode fill>, fill_value = 0x7FF8000000000000 : f64}> : (tensor<4xf32>, tensor<3xi64>) -> tensor<3xf32>
  return
}

// -----

func.func @fill_without_value(%t: tensor<4xf32>, %i: tensor<3xi64>) {
  // expected-error @below {{'tg.gather' op in fill mode needs a fill value}}
  %0 = "tg.gather"(%t, %i) <{mode = #tg<gather_mode fill>}> : (tensor<4xf32>, tensor<3xi64>) -> tensor<3xf32>
  return
}

// -----

func.func @value_without_fill(%t: tensor<4xf32>, %i: tensor<3xi64>) {
  // expected-error @below {{'tg.gather' op has a fill value but is not in fill mode}}
  %0 = "tg.gather"(%t, %i) <{fill_value = 0.0 : f64}> : (tensor<4xf32>, tensor<3xi64>) -> tensor<3xf32>
  return
}

// -----

func.func @result_type(%t: tensor<4xf32>, %i: tensor<3xi64>) {
  // expected-error @below {{'tg.gather' op inferred type(s) 'tensor<3xf32>' are incompatible with return type(s) of operation 'tensor<3xf16>'}}
  // expected-error @below {{'tg.gather' op failed to infer returned types}}
  %0 = "tg.gather"(%t, %i) : (tensor<4xf32>, tensor<3xi64>) -> tensor<3xf16>
  return
}

// -----

func.func @region_index_rank(%q: tensor<1x2x8x16xf16>, %t: tensor<2x15xf32>, %r: tensor<1xi64>) {
  %0 = tg.attention %q, %q, %q captures(%t : tensor<2x15xf32>) : tensor<1x2x8x16xf16>, tensor<1x2x8x16xf16>, tensor<1x2x8x16xf16> -> tensor<1x2x8x16xf16> score {
  ^bb0(%s: tensor<f32>, %b: tensor<i64>, %h: tensor<i64>, %qi: tensor<i64>, %ki: tensor<i64>, %tt: tensor<2x15xf32>):
    %c = tg.constant dense<1> : tensor<1xi64>
    // expected-error @below {{'tg.gather' op in a score region takes rank-0 indices, got 'tensor<1xi64>'}}
    %e = tg.gather %tt[%h, %c] : tensor<2x15xf32>[tensor<i64>, tensor<1xi64>]
    tg.yield %s : tensor<f32>
  }
  return
}

// -----

func.func @region_table_not_capture(%q: tensor<1x2x8x16xf16>) {
  %0 = tg.attention %q, %q, %q : tensor<1x2x8x16xf16>, tensor<1x2x8x16xf16>, tensor<1x2x8x16xf16> -> tensor<1x2x8x16xf16> score {
  ^bb0(%s: tensor<f32>, %b: tensor<i64>, %h: tensor<i64>, %qi: tensor<i64>, %ki: tensor<i64>):
    %t = tg.constant dense<1.0> : tensor<4xf32>
    // expected-error @below {{'tg.gather' op in a score region reads a table capture (a region argument with the captured tensor's own type)}}
    %e = tg.gather %t[%h] : tensor<4xf32>[tensor<i64>]
    tg.yield %s : tensor<f32>
  }
  return
}

// -----

func.func @table_used_directly(%q: tensor<1x2x8x16xf16>, %t: tensor<1x1x8x8xf32>) {
  %0 = tg.attention %q, %q, %q captures(%t : tensor<1x1x8x8xf32>) : tensor<1x2x8x16xf16>, tensor<1x2x8x16xf16>, tensor<1x2x8x16xf16> -> tensor<1x2x8x16xf16> score {
  ^bb0(%s: tensor<f32>, %b: tensor<i64>, %h: tensor<i64>, %qi: tensor<i64>, %ki: tensor<i64>, %tt: tensor<1x1x8x8xf32>):
    // expected-error @below {{'tg.yield' op uses table capture 0 of type 'tensor<1x1x8x8xf32>' in region 'score' (a table capture is read only as the table of tg.gather)}}
    tg.yield %tt : tensor<1x1x8x8xf32>
  }
  return
}

// -----

func.func @table_arg_type(%q: tensor<1x2x8x16xf16>, %t: tensor<2x15xf32>) {
  // expected-error @below {{'tg.attention' op capture of shape [2, 15] does not broadcast to the scores [1, 2, 8, 8] (expected rank 4 with each dimension equal or 1, or a table capture read by tg.gather)}}
  %0 = tg.attention %q, %q, %q captures(%t : tensor<2x15xf32>) : tensor<1x2x8x16xf16>, tensor<1x2x8x16xf16>, tensor<1x2x8x16xf16> -> tensor<1x2x8x16xf16> score {
  ^bb0(%s: tensor<f32>, %b: tensor<i64>, %h: tensor<i64>, %qi: tensor<i64>, %ki: tensor<i64>, %tt: tensor<2x15xf16>):
    tg.yield %s : tensor<f32>
  }
  return
}

// -----

func.func @gather_in_fused_matmul(%x: tensor<4x8xf16>, %w: tensor<8x4xf16>) {
  %0 = tg.fused_matmul %x, %w : tensor<4x8xf16>, tensor<8x4xf16> -> tensor<4x4xf16>
    prologue_a {
    ^bb0(%e: tensor<f16>):
      %t = tg.constant dense<1.0> : tensor<4xf16>
      %i = tg.constant dense<1> : tensor<i64>
      // expected-error @below {{'tg.gather' op is not allowed in the regions of tg.fused_matmul}}
      %g = tg.gather %t[%i] : tensor<4xf16>[tensor<i64>]
      tg.yield %g : tensor<f16>
    }
    prologue_b {}
    epilogue {}
  return
}

// -----

func.func @grad_int_table(%q: tensor<1x2x8x16xf32>, %lse: tensor<1x2x8x1xf32>, %t: tensor<2x15xi32>) {
  // expected-error @below {{'tg.attention_grad' op capture 0 of type 'tensor<2x15xi32>' has no gradient (expected a float tensor)}}
  %dq, %dk, %dv, %dt = "tg.attention_grad"(%q, %q, %q, %q, %q, %lse, %t) <{operandSegmentSizes = array<i32: 1, 1, 1, 1, 1, 1, 0, 0, 0, 0, 0, 0, 1>, grad_captures = array<i64: 0>}> ({
  ^bb0(%s: tensor<f32>, %b: tensor<i64>, %h: tensor<i64>, %qi: tensor<i64>, %ki: tensor<i64>, %tt: tensor<2x15xi32>):
    tg.yield %s : tensor<f32>
  }, {
  }) : (tensor<1x2x8x16xf32>, tensor<1x2x8x16xf32>, tensor<1x2x8x16xf32>, tensor<1x2x8x16xf32>, tensor<1x2x8x16xf32>, tensor<1x2x8x1xf32>, tensor<2x15xi32>) -> (tensor<1x2x8x16xf32>, tensor<1x2x8x16xf32>, tensor<1x2x8x16xf32>, tensor<2x15xi32>)
  return
}

// -----

func.func @grad_type(%q: tensor<1x2x8x16xf32>, %lse: tensor<1x2x8x1xf32>, %t: tensor<2x15xf32>) {
  // expected-error @below {{'tg.attention_grad' op capture_grads result 0 has type 'tensor<2x15xf16>'; expected its capture's type 'tensor<2x15xf32>'}}
  %dq, %dk, %dv, %dt = tg.attention_grad %q, %q, %q, %q, %q, %lse captures(%t : tensor<2x15xf32>) {grad_captures = array<i64: 0>} : tensor<1x2x8x16xf32>, tensor<1x2x8x16xf32>, tensor<1x2x8x16xf32>, tensor<1x2x8x16xf32>, tensor<1x2x8x16xf32>, tensor<1x2x8x1xf32> score {
  ^bb0(%s: tensor<f32>, %b: tensor<i64>, %h: tensor<i64>, %qi: tensor<i64>, %ki: tensor<i64>, %tt: tensor<2x15xf32>):
    tg.yield %s : tensor<f32>
  } score_grad {
  } capture_grads(tensor<2x15xf16>)
  return
}
