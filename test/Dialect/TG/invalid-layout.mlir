// Verifier errors of tg.reduce, tg.gen_index, tg.transpose, tg.reshape and
// tg.broadcast.
// RUN: tg-opt %s -split-input-file -verify-diagnostics

func.func @reduce_no_dims(%a: tensor<4xf32>) {
  // expected-error @below {{'tg.reduce' op expects at least one dimension to reduce}}
  %0 = tg.reduce sum %a dims = [] : tensor<4xf32> -> tensor<4xf32>
  return
}

// -----

func.func @reduce_dim_range(%a: tensor<4x2xf32>) {
  // expected-error @below {{'tg.reduce' op dimension 2 is out of range (expected 0 <= dim < 2)}}
  %0 = tg.reduce max %a dims = [2] : tensor<4x2xf32> -> tensor<4xf32>
  return
}

// -----

func.func @reduce_dim_negative(%a: tensor<4x2xf32>) {
  // expected-error @below {{'tg.reduce' op dimension -1 is out of range (expected 0 <= dim < 2)}}
  %0 = tg.reduce max %a dims = [-1] : tensor<4x2xf32> -> tensor<4xf32>
  return
}

// -----

func.func @reduce_dim_twice(%a: tensor<4x2xf32>) {
  // expected-error @below {{'tg.reduce' op dimension 1 is listed twice}}
  %0 = tg.reduce min %a dims = [1, 1] : tensor<4x2xf32> -> tensor<4xf32>
  return
}

// -----

func.func @reduce_element_type(%a: tensor<4x2xf16>) {
  // expected-error @below {{'tg.reduce' op result element type 'f32' differs from the input's 'f16'}}
  %0 = tg.reduce sum %a dims = [1] : tensor<4x2xf16> -> tensor<4xf32>
  return
}

// -----

func.func @reduce_shape(%a: tensor<4x2xf32>) {
  // expected-error @below {{'tg.reduce' op result shape [4] does not match; expected [4, 1]}}
  %0 = tg.reduce sum %a dims = [1] keepdim : tensor<4x2xf32> -> tensor<4xf32>
  return
}

// -----

func.func @reduce_bool(%a: tensor<4xi1>) {
  // expected-error @below {{'tg.reduce' op operand #0 must be statically shaped tensor of}}
  %0 = tg.reduce sum %a dims = [0] : tensor<4xi1> -> tensor<i1>
  return
}

// -----

func.func @reduce_bad_kind(%a: tensor<4xf32>) {
  // expected-error @below {{expected one of 'sum', 'max', 'min'}}
  %0 = tg.reduce mean %a dims = [0] : tensor<4xf32> -> tensor<f32>
  return
}

// -----

func.func @gen_index_axis() {
  // expected-error @below {{'tg.gen_index' op axis 4 is out of range (expected 0 <= axis < 4)}}
  %0 = tg.gen_index axis = 4 : tensor<1x1x8x8xi32>
  return
}

// -----

func.func @gen_index_negative_axis() {
  // expected-error @below {{'tg.gen_index' op axis -1 is out of range (expected 0 <= axis < 2)}}
  %0 = tg.gen_index axis = -1 : tensor<8x8xi32>
  return
}

// -----

func.func @gen_index_rank0() {
  // expected-error @below {{'tg.gen_index' op axis 0 is out of range (expected 0 <= axis < 0)}}
  %0 = tg.gen_index axis = 0 : tensor<i64>
  return
}

// -----

func.func @gen_index_overflow() {
  // expected-error @below {{'tg.gen_index' op indices up to 128 do not fit in i8 (expected a wider element type)}}
  %0 = tg.gen_index axis = 0 : tensor<129xi8>
  return
}

// -----

func.func @gen_index_float() {
  // expected-error @below {{'tg.gen_index' op result #0 must be statically shaped tensor of 8-bit signless integer or 32-bit signless integer or 64-bit signless integer values}}
  %0 = tg.gen_index axis = 0 : tensor<8xf32>
  return
}

// -----

func.func @transpose_perm_size(%a: tensor<2x3xf32>) {
  // expected-error @below {{'tg.transpose' op permutation has 3 entries but the input has rank 2}}
  %0 = tg.transpose %a perm = [0, 1, 2] : tensor<2x3xf32> -> tensor<2x3xf32>
  return
}

// -----

func.func @transpose_not_permutation(%a: tensor<2x3xf32>) {
  // expected-error @below {{'tg.transpose' op expects a permutation of [0, 2)}}
  %0 = tg.transpose %a perm = [1, 1] : tensor<2x3xf32> -> tensor<3x3xf32>
  return
}

// -----

func.func @transpose_perm_range(%a: tensor<2x3xf32>) {
  // expected-error @below {{'tg.transpose' op expects a permutation of [0, 2)}}
  %0 = tg.transpose %a perm = [0, 5] : tensor<2x3xf32> -> tensor<2x3xf32>
  return
}

// -----

func.func @transpose_element_type(%a: tensor<2x3xf32>) {
  // expected-error @below {{'tg.transpose' op changes the element type}}
  %0 = tg.transpose %a perm = [1, 0] : tensor<2x3xf32> -> tensor<3x2xf16>
  return
}

// -----

func.func @transpose_shape(%a: tensor<2x3xf32>) {
  // expected-error @below {{'tg.transpose' op result shape [2, 3] does not match; expected [3, 2]}}
  %0 = tg.transpose %a perm = [1, 0] : tensor<2x3xf32> -> tensor<2x3xf32>
  return
}

// -----

func.func @reshape_element_type(%a: tensor<2x3xf32>) {
  // expected-error @below {{'tg.reshape' op changes the element type}}
  %0 = tg.reshape %a : tensor<2x3xf32> -> tensor<6xi32>
  return
}

// -----

func.func @reshape_count(%a: tensor<2x3xf32>) {
  // expected-error @below {{'tg.reshape' op changes the element count from 6 [2, 3] to 8 [2, 4] (expected equal counts)}}
  %0 = tg.reshape %a : tensor<2x3xf32> -> tensor<2x4xf32>
  return
}

// -----

func.func @reshape_dynamic(%a: tensor<2x3xf32>) {
  // expected-error @below {{'tg.reshape' op result #0 must be statically shaped tensor}}
  %0 = tg.reshape %a : tensor<2x3xf32> -> tensor<?xf32>
  return
}

// -----

func.func @broadcast_element_type(%a: tensor<1x3xf32>) {
  // expected-error @below {{'tg.broadcast' op changes the element type}}
  %0 = tg.broadcast %a : tensor<1x3xf32> -> tensor<2x3xbf16>
  return
}

// -----

func.func @broadcast_shape(%a: tensor<2x3xf32>) {
  // expected-error @below {{'tg.broadcast' op cannot broadcast [2, 3] to [4, 3] (expected equal rank, or rank 0, and each input dimension equal to the result's or 1)}}
  %0 = tg.broadcast %a : tensor<2x3xf32> -> tensor<4x3xf32>
  return
}

// -----

func.func @broadcast_rank(%a: tensor<3xf32>) {
  // expected-error @below {{'tg.broadcast' op cannot broadcast [3] to [2, 3]}}
  %0 = tg.broadcast %a : tensor<3xf32> -> tensor<2x3xf32>
  return
}
