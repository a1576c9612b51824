// Verifier errors of tg.attention: shared attention rules, captures, and the
// score region's signature and contents.
// RUN: tg-opt %s -split-input-file -verify-diagnostics -allow-unregistered-dialect

func.func @head_dims(%q: tensor<1x4x8x16xf16>, %k: tensor<1x4x8x32xf16>) {
  // expected-error @below {{'tg.attention' op head dims of q (16) and k (32) differ}}
  %0 = tg.attention %q, %k, %k : tensor<1x4x8x16xf16>, tensor<1x4x8x32xf16>, tensor<1x4x8x32xf16> -> tensor<1x4x8x32xf16> score {
  ^bb0(%s: tensor<f32>, %b: tensor<i64>, %h: tensor<i64>, %qi: tensor<i64>, %ki: tensor<i64>):
    tg.yield %s : tensor<f32>
  }
  return
}

// -----

func.func @k_rank(%q: tensor<1x4x8x16xf16>, %k: tensor<4x8x16xf16>) {
  // expected-error @below {{'tg.attention' op k must have rank 4 ([B, H, S, D]), got rank 3}}
  %0 = tg.attention %q, %k, %q : tensor<1x4x8x16xf16>, tensor<4x8x16xf16>, tensor<1x4x8x16xf16> -> tensor<1x4x8x16xf16> score {
  ^bb0(%s: tensor<f32>, %b: tensor<i64>, %h: tensor<i64>, %qi: tensor<i64>, %ki: tensor<i64>):
    tg.yield %s : tensor<f32>
  }
  return
}

// -----

func.func @scale_nan(%q: tensor<1x4x8x16xf16>) {
  // expected-error @below {{'tg.attention' op scale must be finite}}
  %0 = tg.attention %q, %q, %q {scale = 0x7FF8000000000000 : f64} : tensor<1x4x8x16xf16>, tensor<1x4x8x16xf16>, tensor<1x4x8x16xf16> -> tensor<1x4x8x16xf16> score {
  ^bb0(%s: tensor<f32>, %b: tensor<i64>, %h: tensor<i64>, %qi: tensor<i64>, %ki: tensor<i64>):
    tg.yield %s : tensor<f32>
  }
  return
}

// -----

func.func @dropout_without_seed(%q: tensor<1x4x8x16xf16>) {
  // expected-error @below {{'tg.attention' op dropout needs seed and offset operands}}
  %0 = tg.attention %q, %q, %q {dropout = 0.3 : f64} : tensor<1x4x8x16xf16>, tensor<1x4x8x16xf16>, tensor<1x4x8x16xf16> -> tensor<1x4x8x16xf16> score {
  ^bb0(%s: tensor<f32>, %b: tensor<i64>, %h: tensor<i64>, %qi: tensor<i64>, %ki: tensor<i64>):
    tg.yield %s : tensor<f32>
  }
  return
}

// -----

func.func @capture_rank(%q: tensor<1x4x8x16xf16>, %c: tensor<8x8xf32>) {
  // expected-error @below {{'tg.attention' op capture of shape [8, 8] does not broadcast to the scores [1, 4, 8, 8] (expected rank 4 with each dimension equal or 1, or a table capture read by tg.gather)}}
  %0 = tg.attention %q, %q, %q captures(%c : tensor<8x8xf32>) : tensor<1x4x8x16xf16>, tensor<1x4x8x16xf16>, tensor<1x4x8x16xf16> -> tensor<1x4x8x16xf16> score {
  ^bb0(%s: tensor<f32>, %b: tensor<i64>, %h: tensor<i64>, %qi: tensor<i64>, %ki: tensor<i64>, %ce: tensor<f32>):
    tg.yield %s : tensor<f32>
  }
  return
}

// -----

func.func @capture_shape(%q: tensor<1x4x8x16xf16>, %c: tensor<1x2x8x8xf32>) {
  // expected-error @below {{'tg.attention' op capture of shape [1, 2, 8, 8] does not broadcast to the scores [1, 4, 8, 8]}}
  %0 = tg.attention %q, %q, %q captures(%c : tensor<1x2x8x8xf32>) : tensor<1x4x8x16xf16>, tensor<1x4x8x16xf16>, tensor<1x4x8x16xf16> -> tensor<1x4x8x16xf16> score {
  ^bb0(%s: tensor<f32>, %b: tensor<i64>, %h: tensor<i64>, %qi: tensor<i64>, %ki: tensor<i64>, %ce: tensor<f32>):
    tg.yield %s : tensor<f32>
  }
  return
}

// -----

func.func @training_stats(%q: tensor<1x4x8x16xf16>) {
  // expected-error @below {{'tg.attention' op in training mode must also return stats}}
  %0 = tg.attention %q, %q, %q {training} : tensor<1x4x8x16xf16>, tensor<1x4x8x16xf16>, tensor<1x4x8x16xf16> -> tensor<1x4x8x16xf16> score {
  ^bb0(%s: tensor<f32>, %b: tensor<i64>, %h: tensor<i64>, %qi: tensor<i64>, %ki: tensor<i64>):
    tg.yield %s : tensor<f32>
  }
  return
}

// -----

func.func @region_missing_capture(%q: tensor<1x4x8x16xf16>, %c: tensor<1x1x8x8xf32>) {
  // expected-error @below {{'tg.attention' op region 'score' has 5 arguments; expected 6}}
  %0 = tg.attention %q, %q, %q captures(%c : tensor<1x1x8x8xf32>) : tensor<1x4x8x16xf16>, tensor<1x4x8x16xf16>, tensor<1x4x8x16xf16> -> tensor<1x4x8x16xf16> score {
  ^bb0(%s: tensor<f32>, %b: tensor<i64>, %h: tensor<i64>, %qi: tensor<i64>, %ki: tensor<i64>):
    tg.yield %s : tensor<f32>
  }
  return
}

// -----

func.func @region_score_type(%q: tensor<1x4x8x16xf16>) {
  // expected-error @below {{'tg.attention' op region 'score' argument 0 has type 'tensor<f16>'; expected 'tensor<f32>'}}
  %0 = tg.attention %q, %q, %q : tensor<1x4x8x16xf16>, tensor<1x4x8x16xf16>, tensor<1x4x8x16xf16> -> tensor<1x4x8x16xf16> score {
  ^bb0(%s: tensor<f16>, %b: tensor<i64>, %h: tensor<i64>, %qi: tensor<i64>, %ki: tensor<i64>):
    %f = tg.cast %s : tensor<f16> to tensor<f32>
    tg.yield %f : tensor<f32>
  }
  return
}

// -----

func.func @region_index_type(%q: tensor<1x4x8x16xf16>) {
  // expected-error @below {{'tg.attention' op region 'score' argument 3 has type 'tensor<i32>'; expected 'tensor<i64>'}}
  %0 = tg.attention %q, %q, %q : tensor<1x4x8x16xf16>, tensor<1x4x8x16xf16>, tensor<1x4x8x16xf16> -> tensor<1x4x8x16xf16> score {
  ^bb0(%s: tensor<f32>, %b: tensor<i64>, %h: tensor<i64>, %qi: tensor<i32>, %ki: tensor<i64>):
    tg.yield %s : tensor<f32>
  }
  return
}

// -----

func.func @region_capture_type(%q: tensor<1x4x8x16xf16>, %c: tensor<1x1x8x8xi1>) {
  // expected-error @below {{'tg.attention' op region 'score' argument 5 has type 'tensor<f32>'; expected 'tensor<i1>'}}
  %0 = tg.attention %q, %q, %q captures(%c : tensor<1x1x8x8xi1>) : tensor<1x4x8x16xf16>, tensor<1x4x8x16xf16>, tensor<1x4x8x16xf16> -> tensor<1x4x8x16xf16> score {
  ^bb0(%s: tensor<f32>, %b: tensor<i64>, %h: tensor<i64>, %qi: tensor<i64>, %ki: tensor<i64>, %m: tensor<f32>):
    tg.yield %s : tensor<f32>
  }
  return
}

// -----

func.func @region_yield_type(%q: tensor<1x4x8x16xf16>) {
  %0 = tg.attention %q, %q, %q : tensor<1x4x8x16xf16>, tensor<1x4x8x16xf16>, tensor<1x4x8x16xf16> -> tensor<1x4x8x16xf16> score {
  ^bb0(%s: tensor<f32>, %b: tensor<i64>, %h: tensor<i64>, %qi: tensor<i64>, %ki: tensor<i64>):
    %t = tg.cast %s : tensor<f32> to tensor<bf16>
    // expected-error @below {{'tg.yield' op yields 'bf16' in region 'score'; expected 'f32'}}
    tg.yield %t : tensor<bf16>
  }
  return
}

// -----

func.func @region_yield_nothing(%q: tensor<1x4x8x16xf16>) {
  %0 = tg.attention %q, %q, %q : tensor<1x4x8x16xf16>, tensor<1x4x8x16xf16>, tensor<1x4x8x16xf16> -> tensor<1x4x8x16xf16> score {
  ^bb0(%s: tensor<f32>, %b: tensor<i64>, %h: tensor<i64>, %qi: tensor<i64>, %ki: tensor<i64>):
    // expected-error @below {{'tg.yield' op must yield exactly one value in region 'score'}}
    tg.yield
  }
  return
}

// -----

func.func @region_not_pointwise(%q: tensor<1x4x8x16xf16>) {
  %0 = tg.attention %q, %q, %q : tensor<1x4x8x16xf16>, tensor<1x4x8x16xf16>, tensor<1x4x8x16xf16> -> tensor<1x4x8x16xf16> score {
  ^bb0(%s: tensor<f32>, %b: tensor<i64>, %h: tensor<i64>, %qi: tensor<i64>, %ki: tensor<i64>):
    // expected-error @below {{'tg.gen_index' op is not allowed in region 'score' of tg.attention (expected pointwise tg ops and tg.gather)}}
    %i = tg.gen_index axis = 0 : tensor<4xi64>
    tg.yield %s : tensor<f32>
  }
  return
}

// -----

func.func @region_not_rank0(%q: tensor<1x4x8x16xf16>) {
  %0 = tg.attention %q, %q, %q : tensor<1x4x8x16xf16>, tensor<1x4x8x16xf16>, tensor<1x4x8x16xf16> -> tensor<1x4x8x16xf16> score {
  ^bb0(%s: tensor<f32>, %b: tensor<i64>, %h: tensor<i64>, %qi: tensor<i64>, %ki: tensor<i64>):
    // expected-error @below {{'tg.constant' op in region 'score' must produce rank-0 tensors, got 'tensor<2xf32>'}}
    %c = tg.constant dense<[1.0, 2.0]> : tensor<2xf32>
    tg.yield %s : tensor<f32>
  }
  return
}

// -----

// A foreign terminator (an unregistered op may be one) instead of tg.yield.
func.func @region_ends_without_yield(%q: tensor<1x4x8x16xf16>) {
  // expected-error @below {{'tg.attention' op region 'score' must end in tg.yield}}
  %0 = tg.attention %q, %q, %q : tensor<1x4x8x16xf16>, tensor<1x4x8x16xf16>, tensor<1x4x8x16xf16> -> tensor<1x4x8x16xf16> score {
  ^bb0(%s: tensor<f32>, %b: tensor<i64>, %h: tensor<i64>, %qi: tensor<i64>, %ki: tensor<i64>):
    "test.terminator"(%s) : (tensor<f32>) -> ()
  }
  return
}

// -----

func.func @region_two_blocks(%q: tensor<1x4x8x16xf16>) {
  // expected-error @below {{'tg.attention' op region #0 ('score') failed to verify constraint: region with 1 blocks}}
  %0 = tg.attention %q, %q, %q : tensor<1x4x8x16xf16>, tensor<1x4x8x16xf16>, tensor<1x4x8x16xf16> -> tensor<1x4x8x16xf16> score {
  ^bb0(%s: tensor<f32>, %b: tensor<i64>, %h: tensor<i64>, %qi: tensor<i64>, %ki: tensor<i64>):
    tg.yield %s : tensor<f32>
  ^bb1:
    tg.yield %s : tensor<f32>
  }
  return
}
