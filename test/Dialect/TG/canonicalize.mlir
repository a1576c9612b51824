// Canonicalisation of casts and layout ops: identities, chains that compose,
// constants that fold, and the look-alikes that must stay.
// RUN: tg-opt %s -canonicalize -split-input-file | FileCheck %s

// CHECK-LABEL: func.func @cast_same_type
// CHECK-SAME: (%[[X:.*]]: tensor<4xbf16>)
// CHECK-NEXT: return %[[X]]
func.func @cast_same_type(%x: tensor<4xbf16>) -> tensor<4xbf16> {
  %0 = tg.cast %x : tensor<4xbf16> to tensor<4xbf16>
  return %0 : tensor<4xbf16>
}

// -----

// Round trips through a type that holds every value exactly cancel.
// CHECK-LABEL: func.func @cast_round_trips
// CHECK-SAME: (%[[B:.*]]: tensor<4xbf16>, %[[I:.*]]: tensor<4xi8>, %[[E:.*]]: tensor<4xf8E4M3FN>, %[[M:.*]]: tensor<4xi1>)
// CHECK-NEXT: return %[[B]], %[[I]], %[[I]], %[[E]], %[[M]]
func.func @cast_round_trips(%b: tensor<4xbf16>, %i: tensor<4xi8>, %e: tensor<4xf8E4M3FN>, %m: tensor<4xi1>)
    -> (tensor<4xbf16>, tensor<4xi8>, tensor<4xi8>, tensor<4xf8E4M3FN>, tensor<4xi1>) {
  %0 = tg.cast %b : tensor<4xbf16> to tensor<4xf32>
  %1 = tg.cast %0 : tensor<4xf32> to tensor<4xbf16>
  %2 = tg.cast %i : tensor<4xi8> to tensor<4xi32>
  %3 = tg.cast %2 : tensor<4xi32> to tensor<4xi8>
  %4 = tg.cast %i : tensor<4xi8> to tensor<4xf16>
  %5 = tg.cast %4 : tensor<4xf16> to tensor<4xi8>
  %6 = tg.cast %e : tensor<4xf8E4M3FN> to tensor<4xf16>
  %7 = tg.cast %6 : tensor<4xf16> to tensor<4xf8E4M3FN>
  %8 = tg.cast %m : tensor<4xi1> to tensor<4xf8E5M2>
  %9 = tg.cast %8 : tensor<4xf8E5M2> to tensor<4xi1>
  return %1, %3, %5, %7, %9 : tensor<4xbf16>, tensor<4xi8>, tensor<4xi8>, tensor<4xf8E4M3FN>, tensor<4xi1>
}

// -----

// Through an exact intermediate, two casts become one.
// CHECK-LABEL: func.func @cast_chain_composes
// CHECK-SAME: (%[[B:.*]]: tensor<4xbf16>, %[[I:.*]]: tensor<4xi8>)
// CHECK-NEXT: %[[H:.*]] = tg.cast %[[B]] : tensor<4xbf16> to tensor<4xf16>
// CHECK-NEXT: %[[F:.*]] = tg.cast %[[I]] : tensor<4xi8> to tensor<4xf32>
// CHECK-NEXT: return %[[H]], %[[F]]
func.func @cast_chain_composes(%b: tensor<4xbf16>, %i: tensor<4xi8>) -> (tensor<4xf16>, tensor<4xf32>) {
  %0 = tg.cast %b : tensor<4xbf16> to tensor<4xf32>
  %1 = tg.cast %0 : tensor<4xf32> to tensor<4xf16>
  %2 = tg.cast %i : tensor<4xi8> to tensor<4xi64>
  %3 = tg.cast %2 : tensor<4xi64> to tensor<4xf32>
  return %1, %3 : tensor<4xf16>, tensor<4xf32>
}

// -----

// Lossy intermediates must stay: rounding, narrowing, or i1.
// CHECK-LABEL: func.func @cast_lossy_chains
// CHECK-COUNT-10: tg.cast
// CHECK-NOT: tg.cast
func.func @cast_lossy_chains(%f: tensor<4xf32>, %i: tensor<4xi32>, %h: tensor<4xf16>)
    -> (tensor<4xf32>, tensor<4xi32>, tensor<4xi32>, tensor<4xf32>, tensor<4xf16>) {
  %0 = tg.cast %f : tensor<4xf32> to tensor<4xbf16>
  %1 = tg.cast %0 : tensor<4xbf16> to tensor<4xf32>
  %2 = tg.cast %i : tensor<4xi32> to tensor<4xi8>
  %3 = tg.cast %2 : tensor<4xi8> to tensor<4xi32>
  %4 = tg.cast %i : tensor<4xi32> to tensor<4xf32>
  %5 = tg.cast %4 : tensor<4xf32> to tensor<4xi32>
  %6 = tg.cast %f : tensor<4xf32> to tensor<4xi1>
  %7 = tg.cast %6 : tensor<4xi1> to tensor<4xf32>
  // bf16 has the range of f32 but not f16's precision, and the reverse.
  %8 = tg.cast %h : tensor<4xf16> to tensor<4xbf16>
  %9 = tg.cast %8 : tensor<4xbf16> to tensor<4xf16>
  return %1, %3, %5, %7, %9 : tensor<4xf32>, tensor<4xi32>, tensor<4xi32>, tensor<4xf32>, tensor<4xf16>
}

// -----

// CHECK-LABEL: func.func @transpose_identity
// CHECK-SAME: (%[[X:.*]]: tensor<2x3xf32>)
// CHECK-NEXT: return %[[X]]
func.func @transpose_identity(%x: tensor<2x3xf32>) -> tensor<2x3xf32> {
  %0 = tg.transpose %x perm = [0, 1] : tensor<2x3xf32> -> tensor<2x3xf32>
  return %0 : tensor<2x3xf32>
}

// -----

// A transpose and its inverse cancel.
// CHECK-LABEL: func.func @transpose_inverse
// CHECK-SAME: (%[[X:.*]]: tensor<2x3x4xf32>)
// CHECK-NEXT: return %[[X]]
func.func @transpose_inverse(%x: tensor<2x3x4xf32>) -> tensor<2x3x4xf32> {
  %0 = tg.transpose %x perm = [1, 2, 0] : tensor<2x3x4xf32> -> tensor<3x4x2xf32>
  %1 = tg.transpose %0 perm = [2, 0, 1] : tensor<3x4x2xf32> -> tensor<2x3x4xf32>
  return %1 : tensor<2x3x4xf32>
}

// -----

// Two transposes compose into one.
// CHECK-LABEL: func.func @transpose_chain
// CHECK-SAME: (%[[X:.*]]: tensor<2x3x4xf32>)
// CHECK-NEXT: %[[T:.*]] = tg.transpose %[[X]] perm = [1, 0, 2] : tensor<2x3x4xf32> -> tensor<3x2x4xf32>
// CHECK-NEXT: return %[[T]]
func.func @transpose_chain(%x: tensor<2x3x4xf32>) -> tensor<3x2x4xf32> {
  %0 = tg.transpose %x perm = [1, 2, 0] : tensor<2x3x4xf32> -> tensor<3x4x2xf32>
  %1 = tg.transpose %0 perm = [0, 2, 1] : tensor<3x4x2xf32> -> tensor<3x2x4xf32>
  return %1 : tensor<3x2x4xf32>
}

// -----

// A transpose between equal dimensions is not an identity.
// CHECK-LABEL: func.func @transpose_square
// CHECK: tg.transpose
func.func @transpose_square(%x: tensor<3x3xf32>) -> tensor<3x3xf32> {
  %0 = tg.transpose %x perm = [1, 0] : tensor<3x3xf32> -> tensor<3x3xf32>
  return %0 : tensor<3x3xf32>
}

// -----

// CHECK-LABEL: func.func @reshape_chain
// CHECK-SAME: (%[[X:.*]]: tensor<2x3x4xf32>)
// CHECK-NEXT: %[[R:.*]] = tg.reshape %[[X]] : tensor<2x3x4xf32> -> tensor<6x4xf32>
// CHECK-NEXT: return %[[X]], %[[R]]
func.func @reshape_chain(%x: tensor<2x3x4xf32>) -> (tensor<2x3x4xf32>, tensor<6x4xf32>) {
  %0 = tg.reshape %x : tensor<2x3x4xf32> -> tensor<24xf32>
  %1 = tg.reshape %0 : tensor<24xf32> -> tensor<2x3x4xf32>
  %2 = tg.reshape %0 : tensor<24xf32> -> tensor<4x6xf32>
  %3 = tg.reshape %2 : tensor<4x6xf32> -> tensor<6x4xf32>
  return %1, %3 : tensor<2x3x4xf32>, tensor<6x4xf32>
}

// -----

// CHECK-LABEL: func.func @broadcast_same_and_chain
// CHECK-SAME: (%[[X:.*]]: tensor<1x3xf32>)
// CHECK-NEXT: %[[B:.*]] = tg.broadcast %[[X]] : tensor<1x3xf32> -> tensor<5x3xf32>
// CHECK-NEXT: return %[[X]], %[[B]]
func.func @broadcast_same_and_chain(%x: tensor<1x3xf32>) -> (tensor<1x3xf32>, tensor<5x3xf32>) {
  %0 = tg.broadcast %x : tensor<1x3xf32> -> tensor<1x3xf32>
  %1 = tg.broadcast %x : tensor<1x3xf32> -> tensor<5x3xf32>
  %2 = tg.broadcast %1 : tensor<5x3xf32> -> tensor<5x3xf32>
  return %0, %2 : tensor<1x3xf32>, tensor<5x3xf32>
}

// -----

// CHECK-LABEL: func.func @broadcast_scalar_chain
// CHECK-SAME: (%[[S:.*]]: tensor<f16>)
// CHECK-NEXT: %[[B:.*]] = tg.broadcast %[[S]] : tensor<f16> -> tensor<2x4xf16>
// CHECK-NEXT: return %[[B]]
func.func @broadcast_scalar_chain(%s: tensor<f16>) -> tensor<2x4xf16> {
  %0 = tg.broadcast %s : tensor<f16> -> tensor<1x4xf16>
  %1 = tg.broadcast %0 : tensor<1x4xf16> -> tensor<2x4xf16>
  return %1 : tensor<2x4xf16>
}

// -----

// Layout ops of constants become constants.
// CHECK-LABEL: func.func @layout_of_constants
// CHECK-DAG: %[[NINF:.*]] = tg.constant dense<0xFF800000> : tensor<2x8x16x16xf32>
// CHECK-DAG: %[[T:.*]] = tg.constant dense<5> : tensor<3x2xi32>
// CHECK-DAG: %[[R:.*]] = tg.constant dense<{{\[}}[1.000000e+00, 2.000000e+00], [3.000000e+00, 4.000000e+00]]> : tensor<2x2xf32>
// CHECK-NOT: tg.broadcast
// CHECK-NOT: tg.transpose
// CHECK-NOT: tg.reshape
// CHECK: return %[[NINF]], %[[T]], %[[R]]
func.func @layout_of_constants() -> (tensor<2x8x16x16xf32>, tensor<3x2xi32>, tensor<2x2xf32>) {
  %ninf = tg.constant dense<0xFF800000> : tensor<1x1x1x1xf32>
  %0 = tg.broadcast %ninf : tensor<1x1x1x1xf32> -> tensor<2x8x16x16xf32>
  %five = tg.constant dense<5> : tensor<2x3xi32>
  %1 = tg.transpose %five perm = [1, 0] : tensor<2x3xi32> -> tensor<3x2xi32>
  %v = tg.constant dense<[1.0, 2.0, 3.0, 4.0]> : tensor<4xf32>
  %2 = tg.reshape %v : tensor<4xf32> -> tensor<2x2xf32>
  return %0, %1, %2 : tensor<2x8x16x16xf32>, tensor<3x2xi32>, tensor<2x2xf32>
}

// -----

// A transpose of a constant that is not a splat would need its elements
// permuted: it stays.
// CHECK-LABEL: func.func @transpose_dense_constant
// CHECK: tg.transpose
func.func @transpose_dense_constant() -> tensor<2x1xf32> {
  %c = tg.constant dense<[[1.0, 2.0]]> : tensor<1x2xf32>
  %0 = tg.transpose %c perm = [1, 0] : tensor<1x2xf32> -> tensor<2x1xf32>
  return %0 : tensor<2x1xf32>
}
