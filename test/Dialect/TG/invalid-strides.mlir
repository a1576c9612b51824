// Verifier errors of the tg.strides argument/result attribute: it must be
// consistent with the tensor's shape and never alias two elements.
// RUN: tg-opt %s -split-input-file -verify-diagnostics

// expected-error @below {{'func.func' op argument 0: 'tg.strides' has 3 entries but the tensor has rank 2}}
func.func @rank(%a: tensor<4x8xf32> {tg.strides = array<i64: 8, 1, 1>}) {
  return
}

// -----

// expected-error @below {{'func.func' op argument 0: 'tg.strides' entry 1 must be positive, got 0}}
func.func @zero(%a: tensor<4x8xf32> {tg.strides = array<i64: 8, 0>}) {
  return
}

// -----

// expected-error @below {{'func.func' op argument 0: 'tg.strides' entry 0 must be positive, got -8}}
func.func @negative(%a: tensor<4x8xf32> {tg.strides = array<i64: -8, 1>}) {
  return
}

// -----

// Rows of 8 elements with a row pitch of 4 overlap.
// expected-error @below {{'func.func' op argument 0: 'tg.strides' makes dimension 0 (stride 4) overlap the dimensions inside it (expected a stride of at least 8)}}
func.func @overlap(%a: tensor<4x8xf32> {tg.strides = array<i64: 4, 1>}) {
  return
}

// -----

// [B,S,H,D] with H and S swapped wrongly: H and S both stride 64.
// expected-error @below {{'func.func' op argument 1: 'tg.strides' makes dimension 2 (stride 64) overlap the dimensions inside it (expected a stride of at least 512)}}
func.func @overlap_4d(%a: tensor<2xf32>, %q: tensor<2x8x128x64xbf16> {tg.strides = array<i64: 65536, 64, 64, 1>}) {
  return
}

// -----

// expected-error @below {{'func.func' op argument 0: 'tg.strides' expects an array of i64 (array<i64: ...>)}}
func.func @not_array(%a: tensor<4x8xf32> {tg.strides = [8, 1]}) {
  return
}

// -----

// expected-error @below {{'func.func' op result 0: 'tg.strides' has 1 entries but the tensor has rank 2}}
func.func @result(%a: tensor<4x8xf32>) -> (tensor<4x8xf32> {tg.strides = array<i64: 1>}) {
  return %a : tensor<4x8xf32>
}

// -----

// expected-error @below {{'func.func' op argument 0: 'tg.strides' applies only to statically shaped ranked tensors}}
func.func @not_tensor(%a: i64 {tg.strides = array<i64: 1>}) {
  return
}

// -----

// expected-error @below {{'func.func' op argument 0: 'tg.strides' applies only to statically shaped ranked tensors}}
func.func @dynamic(%a: tensor<?x8xf32> {tg.strides = array<i64: 8, 1>}) {
  return
}

// -----

// expected-error @below {{'func.func' op argument 0: 'tg.strides' addresses overflow 64 bits}}
func.func @overflow(%a: tensor<4x8xf32> {tg.strides = array<i64: 4611686018427387904, 1>}) {
  return
}
