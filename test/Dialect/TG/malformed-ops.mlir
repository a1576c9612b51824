// Unknown ops, missing pieces and wrong kinds of values: each chunk gives a
// located diagnostic, and tg-opt exits with 1 (never a crash).
// RUN: not tg-opt %s -split-input-file 2>&1 | FileCheck %s

// CHECK: malformed-ops.mlir:[[@LINE+2]]:8: error: custom op 'tg.frobnicate' is unknown
func.func @unknown_tg_op(%a: tensor<4xf32>) {
  %0 = tg.frobnicate %a : tensor<4xf32>
  return
}

// -----

// CHECK: malformed-ops.mlir:[[@LINE+2]]:8: error: Dialect `torch' not found for custom op 'torch.add'
func.func @unknown_dialect(%a: tensor<4xf32>) {
  %0 = torch.add %a, %a : tensor<4xf32>
  return
}

// -----

// CHECK: malformed-ops.mlir:[[@LINE+2]]:17: error: expected ','
func.func @missing_operand(%a: tensor<4xf32>) {
  %0 = tg.add %a : tensor<4xf32>, tensor<4xf32>
  return
}

// -----

// CHECK: malformed-ops.mlir:[[@LINE+2]]:37: error: expected ','
func.func @missing_type(%a: tensor<4xf32>) {
  %0 = tg.add %a, %a : tensor<4xf32>
  return
}

// -----

// CHECK: malformed-ops.mlir:[[@LINE+2]]:15: error: use of undeclared SSA value name
func.func @undefined_value(%a: tensor<4xf32>) {
  %0 = tg.exp %b : tensor<4xf32>
  return
}

// -----

// CHECK: malformed-ops.mlir:[[@LINE+2]]:24: error: custom op 'tg.add' invalid kind of type specified: expected builtin.tensor, but found 'f32'
func.func @scalar_not_tensor(%a: f32) {
  %0 = tg.add %a, %a : f32, f32
  return
}

// -----

// CHECK: malformed-ops.mlir:[[@LINE+2]]:20: error: custom op 'tg.exp' invalid kind of type specified: expected builtin.tensor, but found 'tensor<*xf32>'
func.func @unranked(%a: tensor<*xf32>) {
  %0 = tg.exp %a : tensor<*xf32>
  return
}

// -----

// CHECK: malformed-ops.mlir:[[@LINE+2]]:20: error: custom op 'tg.neg' invalid kind of type specified: expected builtin.tensor, but found 'memref<4xf32>'
func.func @memref(%a: memref<4xf32>) {
  %0 = tg.neg %a : memref<4xf32>
  return
}

// -----

// CHECK: malformed-ops.mlir:[[@LINE+2]]:8: error: 'tg.matmul' op operand #0 must be statically shaped tensor of {{.*}}, but got 'tensor<?x8xf32>'
func.func @dynamic_dims(%a: tensor<?x8xf32>, %b: tensor<8x4xf32>) {
  %0 = tg.matmul %a, %b : tensor<?x8xf32>, tensor<8x4xf32> -> tensor<?x4xf32>
  return
}

// -----

// CHECK: malformed-ops.mlir:[[@LINE+2]]:37: error: custom op 'tg.dropout' invalid kind of attribute specified
func.func @prob_not_float(%a: tensor<4xf32>, %s: tensor<i64>) {
  %0 = tg.dropout %a, %s, %s prob = "half" : tensor<4xf32>
  return
}

// -----

// CHECK: malformed-ops.mlir:[[@LINE+2]]:30: error: expected '['
func.func @perm_not_array(%a: tensor<2x3xf32>) {
  %0 = tg.transpose %a perm = 3 : tensor<2x3xf32> -> tensor<3x2xf32>
  return
}

// -----

// CHECK: malformed-ops.mlir:[[@LINE+2]]:32: error: floating point value not valid for specified type
func.func @axis_not_integer() {
  %0 = tg.gen_index axis = 1.5 : tensor<4xi32>
  return
}

// -----

// CHECK: malformed-ops.mlir:[[@LINE+2]]:15: error: use of value '%a' expects different type than prior uses: 'tensor<4xf16>' vs 'tensor<4xf32>'
func.func @wrong_operand_type(%a: tensor<4xf32>) {
  %0 = tg.exp %a : tensor<4xf16>
  return
}

// -----

// CHECK: malformed-ops.mlir:[[@LINE+3]]:3: error: custom op 'tg.attention' expected 'score'
func.func @attention_without_region(%q: tensor<1x1x4x4xf32>) {
  %0 = tg.attention %q, %q, %q : tensor<1x1x4x4xf32>, tensor<1x1x4x4xf32>, tensor<1x1x4x4xf32> -> tensor<1x1x4x4xf32>
  return
}

// -----

// CHECK: malformed-ops.mlir:[[@LINE+2]]:99: error: custom op 'tg.fused_matmul' expected 'prologue_b'
func.func @fused_matmul_missing_region(%a: tensor<4x4xf32>) {
  %0 = tg.fused_matmul %a, %a : tensor<4x4xf32>, tensor<4x4xf32> -> tensor<4x4xf32> prologue_a {} epilogue {}
  return
}

// -----

// CHECK: malformed-ops.mlir:[[@LINE+2]]:8: error: 'tg.softmax' op requires attribute 'axis'
func.func @generic_missing_attribute(%a: tensor<4xf32>) {
  %0 = "tg.softmax"(%a) : (tensor<4xf32>) -> tensor<4xf32>
  return
}

// -----

// CHECK: malformed-ops.mlir:[[@LINE+2]]:8: error: 'tg.sdpa' op expected 3 or more operands, but found 2
func.func @generic_bad_segments(%q: tensor<1x1x4x4xf32>) {
  %0 = "tg.sdpa"(%q, %q) <{operandSegmentSizes = array<i32: 1, 1, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0>, resultSegmentSizes = array<i32: 1, 0, 0, 0>}> : (tensor<1x1x4x4xf32>, tensor<1x1x4x4xf32>) -> tensor<1x1x4x4xf32>
  return
}
