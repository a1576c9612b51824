// Verifier errors of tg.constant and the elementwise ops.
// RUN: tg-opt %s -split-input-file -verify-diagnostics

func.func @binary_no_broadcast(%a: tensor<2x3xf32>, %b: tensor<3x2xf32>) {
  // expected-error @below {{operand shapes do not broadcast: [2, 3] [3, 2] (expected equal ranks, or rank 0, and each dimension equal or 1)}}
  %0 = tg.add %a, %b : tensor<2x3xf32>, tensor<3x2xf32>
  return
}

// -----

func.func @binary_rank_mismatch(%a: tensor<2x3xf32>, %b: tensor<3xf32>) {
  // expected-error @below {{operand shapes do not broadcast: [2, 3] [3]}}
  %0 = tg.mul %a, %b : tensor<2x3xf32>, tensor<3xf32>
  return
}

// -----

func.func @binary_element_types(%a: tensor<4xf32>, %b: tensor<4xf16>) {
  // expected-error @below {{'tg.sub' op failed to verify that all of {lhs, rhs, result} have same element type}}
  %0 = tg.sub %a, %b : tensor<4xf32>, tensor<4xf16>
  return
}

// -----

func.func @binary_wrong_result(%a: tensor<4xf32>) {
  // expected-error @below {{'tg.div' op inferred type(s) 'tensor<4xf32>' are incompatible with return type(s) of operation 'tensor<1xf32>'}}
  // expected-error @below {{'tg.div' op failed to infer returned types}}
  %0 = "tg.div"(%a, %a) : (tensor<4xf32>, tensor<4xf32>) -> tensor<1xf32>
  return
}

// -----

func.func @binary_bool(%a: tensor<4xi1>) {
  // expected-error @below {{'tg.max' op operand #0 must be statically shaped tensor of}}
  %0 = tg.max %a, %a : tensor<4xi1>, tensor<4xi1>
  return
}

// -----

func.func @min_dynamic(%a: tensor<?xf32>) {
  // expected-error @below {{'tg.min' op operand #0 must be statically shaped tensor}}
  %0 = tg.min %a, %a : tensor<?xf32>, tensor<?xf32>
  return
}

// -----

func.func @pow_int(%a: tensor<4xi32>) {
  // expected-error @below {{'tg.pow' op operand #0 must be statically shaped tensor of bfloat16 type or 16-bit float or 32-bit float or f8E4M3FN type or f8E5M2 type values}}
  %0 = tg.pow %a, %a : tensor<4xi32>, tensor<4xi32>
  return
}

// -----

func.func @exp_int(%a: tensor<4xi32>) {
  // expected-error @below {{'tg.exp' op operand #0 must be statically shaped tensor of bfloat16 type}}
  %0 = tg.exp %a : tensor<4xi32>
  return
}

// -----

func.func @log_f64(%a: tensor<4xf64>) {
  // expected-error @below {{'tg.log' op operand #0 must be statically shaped tensor of bfloat16 type}}
  %0 = tg.log %a : tensor<4xf64>
  return
}

// -----

func.func @tanh_int(%a: tensor<4xi8>) {
  // expected-error @below {{'tg.tanh' op operand #0 must be statically shaped tensor of bfloat16 type}}
  %0 = tg.tanh %a : tensor<4xi8>
  return
}

// -----

func.func @sqrt_int(%a: tensor<4xi64>) {
  // expected-error @below {{'tg.sqrt' op operand #0 must be statically shaped tensor of bfloat16 type}}
  %0 = tg.sqrt %a : tensor<4xi64>
  return
}

// -----

func.func @rsqrt_int(%a: tensor<4xi32>) {
  // expected-error @below {{'tg.rsqrt' op operand #0 must be statically shaped tensor of bfloat16 type}}
  %0 = tg.rsqrt %a : tensor<4xi32>
  return
}

// -----

func.func @recip_int(%a: tensor<4xi32>) {
  // expected-error @below {{'tg.recip' op operand #0 must be statically shaped tensor of bfloat16 type}}
  %0 = tg.recip %a : tensor<4xi32>
  return
}

// -----

func.func @sigmoid_bool(%a: tensor<4xi1>) {
  // expected-error @below {{'tg.sigmoid' op operand #0 must be statically shaped tensor of bfloat16 type}}
  %0 = tg.sigmoid %a : tensor<4xi1>
  return
}

// -----

func.func @neg_bool(%a: tensor<4xi1>) {
  // expected-error @below {{'tg.neg' op operand #0 must be statically shaped tensor of bfloat16 type or 16-bit float or 32-bit float or f8E4M3FN type or f8E5M2 type or 8-bit signless integer or 32-bit signless integer or 64-bit signless integer values}}
  %0 = tg.neg %a : tensor<4xi1>
  return
}

// -----

func.func @abs_changes_type(%a: tensor<4xf32>) {
  // expected-error @below {{'tg.abs' op requires the same type for all operands and results}}
  %0 = "tg.abs"(%a) : (tensor<4xf32>) -> tensor<4xf16>
  return
}

// -----

func.func @unsupported_element(%a: tensor<4xi16>) {
  // expected-error @below {{'tg.add' op operand #0 must be statically shaped tensor of}}
  %0 = tg.add %a, %a : tensor<4xi16>, tensor<4xi16>
  return
}

// -----

func.func @cmp_element_types(%a: tensor<4xf32>, %b: tensor<4xi32>) {
  // expected-error @below {{'tg.cmp' op failed to verify that all of {lhs, rhs} have same element type}}
  %0 = tg.cmp lt, %a, %b : tensor<4xf32>, tensor<4xi32>
  return
}

// -----

func.func @cmp_no_broadcast(%a: tensor<4xf32>, %b: tensor<5xf32>) {
  // expected-error @below {{operand shapes do not broadcast: [4] [5]}}
  %0 = tg.cmp ge, %a, %b : tensor<4xf32>, tensor<5xf32>
  return
}

// -----

func.func @cmp_bad_predicate(%a: tensor<4xf32>) {
  // expected-error @below {{expected one of 'lt', 'le', 'gt', 'ge', 'eq', 'ne'}}
  %0 = tg.cmp less, %a, %a : tensor<4xf32>, tensor<4xf32>
  return
}

// -----

func.func @select_cond_not_bool(%c: tensor<4xi32>, %a: tensor<4xf32>) {
  // expected-error @below {{'tg.select' op operand #0 must be statically shaped tensor of 1-bit signless integer values}}
  %0 = tg.select %c, %a, %a : tensor<4xi32>, tensor<4xf32>, tensor<4xf32>
  return
}

// -----

func.func @select_element_types(%c: tensor<4xi1>, %a: tensor<4xf32>, %b: tensor<4xbf16>) {
  // expected-error @below {{'tg.select' op failed to verify that all of {on_true, on_false, result} have same element type}}
  %0 = tg.select %c, %a, %b : tensor<4xi1>, tensor<4xf32>, tensor<4xbf16>
  return
}

// -----

func.func @select_no_broadcast(%c: tensor<3xi1>, %a: tensor<4xf32>) {
  // expected-error @below {{operand shapes do not broadcast: [3] [4] [4]}}
  %0 = tg.select %c, %a, %a : tensor<3xi1>, tensor<4xf32>, tensor<4xf32>
  return
}

// -----

func.func @cast_shape(%a: tensor<4x2xf32>) {
  // expected-error @below {{'tg.cast' op changes the shape from [4, 2] to [8] (expected equal shapes; use tg.reshape or tg.broadcast)}}
  %0 = tg.cast %a : tensor<4x2xf32> to tensor<8xbf16>
  return
}

// -----

func.func @cast_unsupported(%a: tensor<4xf32>) {
  // expected-error @below {{'tg.cast' op result #0 must be statically shaped tensor of}}
  %0 = tg.cast %a : tensor<4xf32> to tensor<4xf64>
  return
}

// -----

func.func @constant_unsupported() {
  // expected-error @below {{'tg.constant' op result #0 must be statically shaped tensor of}}
  %0 = tg.constant dense<1.0> : tensor<4xf64>
  return
}

// -----

func.func @constant_type_mismatch() {
  // expected-error @below {{'tg.constant' op inferred type(s) 'tensor<4xf32>' are incompatible with return type(s) of operation 'tensor<2xf32>'}}
  // expected-error @below {{'tg.constant' op failed to infer returned types}}
  %0 = "tg.constant"() <{value = dense<1.0> : tensor<4xf32>}> : () -> tensor<2xf32>
  return
}

// -----

func.func @constant_not_tensor() {
  // expected-error @below {{'tg.constant' op expects a ranked tensor value}}
  %0 = "tg.constant"() <{value = dense<1.0> : vector<4xf32>}> : () -> tensor<4xf32>
  return
}
