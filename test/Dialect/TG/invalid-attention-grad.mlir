// Verifier errors of tg.attention_grad.
// RUN: tg-opt %s -split-input-file -verify-diagnostics

func.func @stats_shape(%q: tensor<1x4x16x8xf32>, %lse: tensor<1x4x16xf32>) {
  // expected-error @below {{'tg.attention_grad' op stats shape [1, 4, 16] does not match; expected [1, 4, 16, 1] ([B, Hq, Sq, 1])}}
  %dq, %dk, %dv = tg.attention_grad %q, %q, %q, %q, %q, %lse : tensor<1x4x16x8xf32>, tensor<1x4x16x8xf32>, tensor<1x4x16x8xf32>, tensor<1x4x16x8xf32>, tensor<1x4x16x8xf32>, tensor<1x4x16xf32> score {
  ^bb0(%s: tensor<f32>, %b: tensor<i64>, %h: tensor<i64>, %qi: tensor<i64>, %ki: tensor<i64>):
    tg.yield %s : tensor<f32>
  } score_grad {
  }
  return
}

// -----

func.func @heads(%q: tensor<1x4x16x8xf32>, %k: tensor<1x3x16x8xf32>, %lse: tensor<1x4x16x1xf32>) {
  // expected-error @below {{'tg.attention_grad' op q [1, 4, 16, 8], k [1, 3, 16, 8] and v [1, 3, 16, 8] do not line up}}
  %dq, %dk, %dv = tg.attention_grad %q, %k, %k, %q, %q, %lse : tensor<1x4x16x8xf32>, tensor<1x3x16x8xf32>, tensor<1x3x16x8xf32>, tensor<1x4x16x8xf32>, tensor<1x4x16x8xf32>, tensor<1x4x16x1xf32> score {
  ^bb0(%s: tensor<f32>, %b: tensor<i64>, %h: tensor<i64>, %qi: tensor<i64>, %ki: tensor<i64>):
    tg.yield %s : tensor<f32>
  } score_grad {
  }
  return
}

// -----

func.func @dropout_without_seed(%q: tensor<1x4x16x8xf32>, %lse: tensor<1x4x16x1xf32>) {
  // expected-error @below {{'tg.attention_grad' op dropout needs seed and offset operands}}
  %dq, %dk, %dv = tg.attention_grad %q, %q, %q, %q, %q, %lse {dropout = 0.5 : f64} : tensor<1x4x16x8xf32>, tensor<1x4x16x8xf32>, tensor<1x4x16x8xf32>, tensor<1x4x16x8xf32>, tensor<1x4x16x8xf32>, tensor<1x4x16x1xf32> score {
  ^bb0(%s: tensor<f32>, %b: tensor<i64>, %h: tensor<i64>, %qi: tensor<i64>, %ki: tensor<i64>):
    tg.yield %s : tensor<f32>
  } score_grad {
  }
  return
}

// -----

func.func @grad_region_args(%q: tensor<1x4x16x8xf32>, %lse: tensor<1x4x16x1xf32>) {
  // expected-error @below {{'tg.attention_grad' op region 'score_grad' has 5 arguments; expected 6}}
  %dq, %dk, %dv = tg.attention_grad %q, %q, %q, %q, %q, %lse : tensor<1x4x16x8xf32>, tensor<1x4x16x8xf32>, tensor<1x4x16x8xf32>, tensor<1x4x16x8xf32>, tensor<1x4x16x8xf32>, tensor<1x4x16x1xf32> score {
  ^bb0(%s: tensor<f32>, %b: tensor<i64>, %h: tensor<i64>, %qi: tensor<i64>, %ki: tensor<i64>):
    tg.yield %s : tensor<f32>
  } score_grad {
  ^bb0(%s: tensor<f32>, %b: tensor<i64>, %h: tensor<i64>, %qi: tensor<i64>, %ki: tensor<i64>):
    tg.yield %s : tensor<f32>
  }
  return
}

// -----

func.func @grad_region_op(%q: tensor<1x4x16x8xf32>, %lse: tensor<1x4x16x1xf32>) {
  %dq, %dk, %dv = tg.attention_grad %q, %q, %q, %q, %q, %lse : tensor<1x4x16x8xf32>, tensor<1x4x16x8xf32>, tensor<1x4x16x8xf32>, tensor<1x4x16x8xf32>, tensor<1x4x16x8xf32>, tensor<1x4x16x1xf32> score {
  ^bb0(%s: tensor<f32>, %b: tensor<i64>, %h: tensor<i64>, %qi: tensor<i64>, %ki: tensor<i64>):
    tg.yield %s : tensor<f32>
  } score_grad {
  ^bb0(%s: tensor<f32>, %b: tensor<i64>, %h: tensor<i64>, %qi: tensor<i64>, %ki: tensor<i64>, %dz: tensor<f32>):
    // expected-error @below {{'tg.reshape' op is not allowed in region 'score_grad' of tg.attention_grad (expected pointwise tg ops and tg.gather)}}
    %r = tg.reshape %dz : tensor<f32> -> tensor<f32>
    tg.yield %r : tensor<f32>
  }
  return
}

// -----

func.func @types(%q: tensor<1x4x16x8xf32>, %lse: tensor<1x4x16x1xf32>) {
  // expected-error @below {{'tg.attention_grad' op failed to verify that all of {q, dq} have same type}}
  %dq, %dk, %dv = "tg.attention_grad"(%q, %q, %q, %q, %q, %lse) <{operandSegmentSizes = array<i32: 1, 1, 1, 1, 1, 1, 0, 0, 0, 0, 0, 0, 0>}> ({
  ^bb0(%s: tensor<f32>, %b: tensor<i64>, %h: tensor<i64>, %qi: tensor<i64>, %ki: tensor<i64>):
    tg.yield %s : tensor<f32>
  }, {
  }) : (tensor<1x4x16x8xf32>, tensor<1x4x16x8xf32>, tensor<1x4x16x8xf32>, tensor<1x4x16x8xf32>, tensor<1x4x16x8xf32>, tensor<1x4x16x1xf32>) -> (tensor<1x4x16x8xbf16>, tensor<1x4x16x8xf32>, tensor<1x4x16x8xf32>)
  return
}

// -----

func.func @grad_captures_count(%q: tensor<1x4x16x8xf32>, %lse: tensor<1x4x16x1xf32>, %bias: tensor<1x4x16x16xf32>) {
  // expected-error @below {{'tg.attention_grad' op grad_captures lists 1 captures but the op has 0 capture_grads results}}
  %dq, %dk, %dv = tg.attention_grad %q, %q, %q, %q, %q, %lse captures(%bias : tensor<1x4x16x16xf32>) {grad_captures = array<i64: 0>} : tensor<1x4x16x8xf32>, tensor<1x4x16x8xf32>, tensor<1x4x16x8xf32>, tensor<1x4x16x8xf32>, tensor<1x4x16x8xf32>, tensor<1x4x16x1xf32> score {
  ^bb0(%s: tensor<f32>, %b: tensor<i64>, %h: tensor<i64>, %qi: tensor<i64>, %ki: tensor<i64>, %e: tensor<f32>):
    %r = tg.add %s, %e : tensor<f32>, tensor<f32>
    tg.yield %r : tensor<f32>
  } score_grad {
  }
  return
}

// -----

func.func @grad_captures_index(%q: tensor<1x4x16x8xf32>, %lse: tensor<1x4x16x1xf32>, %bias: tensor<1x4x16x16xf32>) {
  // expected-error @below {{'tg.attention_grad' op grad_captures entry 1 is not a capture index (there are 1 captures)}}
  %dq, %dk, %dv, %db = tg.attention_grad %q, %q, %q, %q, %q, %lse captures(%bias : tensor<1x4x16x16xf32>) {grad_captures = array<i64: 1>} : tensor<1x4x16x8xf32>, tensor<1x4x16x8xf32>, tensor<1x4x16x8xf32>, tensor<1x4x16x8xf32>, tensor<1x4x16x8xf32>, tensor<1x4x16x1xf32> score {
  ^bb0(%s: tensor<f32>, %b: tensor<i64>, %h: tensor<i64>, %qi: tensor<i64>, %ki: tensor<i64>, %e: tensor<f32>):
    %r = tg.add %s, %e : tensor<f32>, tensor<f32>
    tg.yield %r : tensor<f32>
  } score_grad {
  } capture_grads(tensor<1x4x16x16xf32>)
  return
}

// -----

func.func @grad_captures_type(%q: tensor<1x4x16x8xf32>, %lse: tensor<1x4x16x1xf32>, %bias: tensor<1x4x16x16xf32>) {
  // expected-error @below {{'tg.attention_grad' op capture_grads result 0 has type 'tensor<1x4x16x16xbf16>'; expected its capture's type 'tensor<1x4x16x16xf32>'}}
  %dq, %dk, %dv, %db = tg.attention_grad %q, %q, %q, %q, %q, %lse captures(%bias : tensor<1x4x16x16xf32>) {grad_captures = array<i64: 0>} : tensor<1x4x16x8xf32>, tensor<1x4x16x8xf32>, tensor<1x4x16x8xf32>, tensor<1x4x16x8xf32>, tensor<1x4x16x8xf32>, tensor<1x4x16x1xf32> score {
  ^bb0(%s: tensor<f32>, %b: tensor<i64>, %h: tensor<i64>, %qi: tensor<i64>, %ki: tensor<i64>, %e: tensor<f32>):
    %r = tg.add %s, %e : tensor<f32>, tensor<f32>
    tg.yield %r : tensor<f32>
  } score_grad {
  } capture_grads(tensor<1x4x16x16xbf16>)
  return
}

// -----

func.func @grad_of_integer_capture(%q: tensor<1x4x16x8xf32>, %lse: tensor<1x4x16x1xf32>, %ids: tensor<1x1x16x16xi32>) {
  // expected-error @below {{'tg.attention_grad' op capture 0 of type 'tensor<1x1x16x16xi32>' has no gradient (expected a float tensor)}}
  %dq, %dk, %dv, %db = tg.attention_grad %q, %q, %q, %q, %q, %lse captures(%ids : tensor<1x1x16x16xi32>) {grad_captures = array<i64: 0>} : tensor<1x4x16x8xf32>, tensor<1x4x16x8xf32>, tensor<1x4x16x8xf32>, tensor<1x4x16x8xf32>, tensor<1x4x16x8xf32>, tensor<1x4x16x1xf32> score {
  ^bb0(%s: tensor<f32>, %b: tensor<i64>, %h: tensor<i64>, %qi: tensor<i64>, %ki: tensor<i64>, %e: tensor<i32>):
    tg.yield %s : tensor<f32>
  } score_grad {
  } capture_grads(tensor<1x1x16x16xi32>)
  return
}
