// Verifier errors of tg.dropout: probability range and seed/offset types.
// RUN: tg-opt %s -split-input-file -verify-diagnostics

func.func @dropout_prob_one(%a: tensor<8xf32>, %seed: tensor<i64>, %offset: tensor<i64>) {
  // expected-error @below {{'tg.dropout' op dropout probability 1.000000e+00 is out of range (expected 0 <= p < 1)}}
  %0 = tg.dropout %a, %seed, %offset prob = 1.0 : tensor<8xf32>
  return
}

// -----

func.func @dropout_prob_negative(%a: tensor<8xf32>, %seed: tensor<i64>, %offset: tensor<i64>) {
  // expected-error @below {{'tg.dropout' op dropout probability -5.000000e-01 is out of range (expected 0 <= p < 1)}}
  %0 = tg.dropout %a, %seed, %offset prob = -0.5 : tensor<8xf32>
  return
}

// -----

func.func @dropout_prob_nan(%a: tensor<8xf32>, %seed: tensor<i64>, %offset: tensor<i64>) {
  // expected-error @below {{'tg.dropout' op dropout probability nan is out of range (expected 0 <= p < 1)}}
  %0 = tg.dropout %a, %seed, %offset prob = 0x7FF8000000000000 : tensor<8xf32>
  return
}

// -----

// expected-note @below {{prior use here}}
func.func @dropout_seed_i32(%a: tensor<8xf32>, %seed: tensor<i32>, %offset: tensor<i64>) {
  // expected-error @below {{use of value '%seed' expects different type than prior uses: 'tensor<i64>' vs 'tensor<i32>'}}
  %0 = tg.dropout %a, %seed, %offset prob = 0.5 : tensor<8xf32>
  return
}

// -----

func.func @dropout_seed_generic(%a: tensor<8xf32>, %seed: tensor<1xi64>, %offset: tensor<i64>) {
  // expected-error @below {{'tg.dropout' op operand #1 must be 0D tensor of 64-bit signless integer values, but got 'tensor<1xi64>'}}
  %0 = "tg.dropout"(%a, %seed, %offset) <{prob = 0.5 : f64}> : (tensor<8xf32>, tensor<1xi64>, tensor<i64>) -> tensor<8xf32>
  return
}

// -----

func.func @dropout_offset_generic(%a: tensor<8xf32>, %seed: tensor<i64>, %offset: tensor<i32>) {
  // expected-error @below {{'tg.dropout' op operand #2 must be 0D tensor of 64-bit signless integer values, but got 'tensor<i32>'}}
  %0 = "tg.dropout"(%a, %seed, %offset) <{prob = 0.5 : f64}> : (tensor<8xf32>, tensor<i64>, tensor<i32>) -> tensor<8xf32>
  return
}

// -----

func.func @dropout_int(%a: tensor<8xi32>, %seed: tensor<i64>, %offset: tensor<i64>) {
  // expected-error @below {{'tg.dropout' op operand #0 must be statically shaped tensor of bfloat16 type}}
  %0 = tg.dropout %a, %seed, %offset prob = 0.5 : tensor<8xi32>
  return
}
