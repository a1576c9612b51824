// Folders of the pointwise ops: identities that remove an op, and the cases
// that look alike but must stay (a broadcast would be lost, the constant is
// not the identity, or the operand is on the wrong side).
// RUN: tg-opt %s -canonicalize -split-input-file | FileCheck %s

// CHECK-LABEL: func.func @mul_by_one
// CHECK-SAME: (%[[X:.*]]: tensor<2x3xf32>)
// CHECK-NEXT: return %[[X]], %[[X]]
func.func @mul_by_one(%x: tensor<2x3xf32>) -> (tensor<2x3xf32>, tensor<2x3xf32>) {
  %one = tg.constant dense<1.0> : tensor<f32>
  %a = tg.mul %x, %one : tensor<2x3xf32>, tensor<f32>
  %b = tg.mul %one, %x : tensor<f32>, tensor<2x3xf32>
  return %a, %b : tensor<2x3xf32>, tensor<2x3xf32>
}

// -----

// The splat 1 has the larger shape: the result is not %x's type, so the
// multiply (a broadcast) must stay.
// CHECK-LABEL: func.func @mul_by_one_broadcasts
// CHECK: %[[M:.*]] = tg.mul
// CHECK: return %[[M]]
func.func @mul_by_one_broadcasts(%x: tensor<1x3xf32>) -> tensor<2x3xf32> {
  %one = tg.constant dense<1.0> : tensor<2x3xf32>
  %a = tg.mul %x, %one : tensor<1x3xf32>, tensor<2x3xf32>
  return %a : tensor<2x3xf32>
}

// -----

// CHECK-LABEL: func.func @mul_by_two
// CHECK: tg.mul
func.func @mul_by_two(%x: tensor<4xf32>) -> tensor<4xf32> {
  %two = tg.constant dense<2.0> : tensor<f32>
  %a = tg.mul %x, %two : tensor<4xf32>, tensor<f32>
  return %a : tensor<4xf32>
}

// -----

// A constant that is not a splat is not the identity even if it holds ones
// somewhere.
// CHECK-LABEL: func.func @mul_by_non_splat
// CHECK: tg.mul
func.func @mul_by_non_splat(%x: tensor<2xf32>) -> tensor<2xf32> {
  %c = tg.constant dense<[1.0, 2.0]> : tensor<2xf32>
  %a = tg.mul %x, %c : tensor<2xf32>, tensor<2xf32>
  return %a : tensor<2xf32>
}

// -----

// CHECK-LABEL: func.func @int_identities
// CHECK-SAME: (%[[X:.*]]: tensor<4xi32>)
// CHECK-NEXT: return %[[X]], %[[X]], %[[X]], %[[X]]
func.func @int_identities(%x: tensor<4xi32>) -> (tensor<4xi32>, tensor<4xi32>, tensor<4xi32>, tensor<4xi32>) {
  %one = tg.constant dense<1> : tensor<i32>
  %zero = tg.constant dense<0> : tensor<4xi32>
  %a = tg.mul %x, %one : tensor<4xi32>, tensor<i32>
  %b = tg.div %x, %one : tensor<4xi32>, tensor<i32>
  %c = tg.add %zero, %x : tensor<4xi32>, tensor<4xi32>
  %d = tg.sub %x, %zero : tensor<4xi32>, tensor<4xi32>
  return %a, %b, %c, %d : tensor<4xi32>, tensor<4xi32>, tensor<4xi32>, tensor<4xi32>
}

// -----

// CHECK-LABEL: func.func @add_zero
// CHECK-SAME: (%[[X:.*]]: tensor<2x2xbf16>)
// CHECK-NEXT: return %[[X]], %[[X]]
func.func @add_zero(%x: tensor<2x2xbf16>) -> (tensor<2x2xbf16>, tensor<2x2xbf16>) {
  %zero = tg.constant dense<0.0> : tensor<1x1xbf16>
  %nzero = tg.constant dense<-0.0> : tensor<bf16>
  %a = tg.add %x, %zero : tensor<2x2xbf16>, tensor<1x1xbf16>
  %b = tg.add %nzero, %x : tensor<bf16>, tensor<2x2xbf16>
  return %a, %b : tensor<2x2xbf16>, tensor<2x2xbf16>
}

// -----

// 0 - x is a negation, 1 / x a reciprocal: neither folds to x.
// CHECK-LABEL: func.func @wrong_side
// CHECK: tg.sub
// CHECK: tg.div
func.func @wrong_side(%x: tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>) {
  %zero = tg.constant dense<0.0> : tensor<f32>
  %one = tg.constant dense<1.0> : tensor<f32>
  %a = tg.sub %zero, %x : tensor<f32>, tensor<4xf32>
  %b = tg.div %one, %x : tensor<f32>, tensor<4xf32>
  return %a, %b : tensor<4xf32>, tensor<4xf32>
}

// -----

// CHECK-LABEL: func.func @add_zero_broadcasts
// CHECK: tg.add
func.func @add_zero_broadcasts(%x: tensor<f32>) -> tensor<4xf32> {
  %zero = tg.constant dense<0.0> : tensor<4xf32>
  %a = tg.add %x, %zero : tensor<f32>, tensor<4xf32>
  return %a : tensor<4xf32>
}

// -----

// CHECK-LABEL: func.func @double_negation
// CHECK-SAME: (%[[X:.*]]: tensor<4xf32>)
// CHECK-NEXT: %[[N:.*]] = tg.neg %[[X]]
// CHECK-NEXT: return %[[X]], %[[N]]
func.func @double_negation(%x: tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>) {
  %a = tg.neg %x : tensor<4xf32>
  %b = tg.neg %a : tensor<4xf32>
  %c = tg.neg %b : tensor<4xf32>
  return %b, %c : tensor<4xf32>, tensor<4xf32>
}

// -----

// CHECK-LABEL: func.func @select_constant_condition
// CHECK-SAME: (%[[A:.*]]: tensor<4xf32>, %[[B:.*]]: tensor<4xf32>)
// CHECK-NEXT: return %[[A]], %[[B]]
func.func @select_constant_condition(%a: tensor<4xf32>, %b: tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>) {
  %t = tg.constant dense<true> : tensor<i1>
  %f = tg.constant dense<false> : tensor<4xi1>
  %x = tg.select %t, %a, %b : tensor<i1>, tensor<4xf32>, tensor<4xf32>
  %y = tg.select %f, %a, %b : tensor<4xi1>, tensor<4xf32>, tensor<4xf32>
  return %x, %y : tensor<4xf32>, tensor<4xf32>
}

// -----

// CHECK-LABEL: func.func @select_same_sides
// CHECK-SAME: (%[[C:.*]]: tensor<4xi1>, %[[A:.*]]: tensor<4xf32>)
// CHECK-NEXT: return %[[A]]
func.func @select_same_sides(%c: tensor<4xi1>, %a: tensor<4xf32>) -> tensor<4xf32> {
  %x = tg.select %c, %a, %a : tensor<4xi1>, tensor<4xf32>, tensor<4xf32>
  return %x : tensor<4xf32>
}

// -----

// The chosen side is a scalar but the result is a tensor: must stay.
// CHECK-LABEL: func.func @select_chosen_broadcasts
// CHECK: tg.select
func.func @select_chosen_broadcasts(%a: tensor<f32>, %b: tensor<4xf32>) -> tensor<4xf32> {
  %t = tg.constant dense<true> : tensor<i1>
  %x = tg.select %t, %a, %b : tensor<i1>, tensor<f32>, tensor<4xf32>
  return %x : tensor<4xf32>
}

// -----

// A condition that varies per element does not fold.
// CHECK-LABEL: func.func @select_mixed_condition
// CHECK: tg.select
func.func @select_mixed_condition(%a: tensor<2xf32>, %b: tensor<2xf32>) -> tensor<2xf32> {
  %c = tg.constant dense<[true, false]> : tensor<2xi1>
  %x = tg.select %c, %a, %b : tensor<2xi1>, tensor<2xf32>, tensor<2xf32>
  return %x : tensor<2xf32>
}
