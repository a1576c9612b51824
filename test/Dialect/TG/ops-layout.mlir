// Reductions, index generation and layout ops in all their forms.
// RUN: tg-opt %s | tg-opt | FileCheck %s
// RUN: tg-opt %s --mlir-print-op-generic | tg-opt | FileCheck %s

// CHECK-LABEL: func.func @reductions
// CHECK-SAME: (%[[X:.*]]: tensor<2x3x4xf32>, %[[I:.*]]: tensor<5xi64>)
func.func @reductions(%x: tensor<2x3x4xf32>, %i: tensor<5xi64>) {
  // CHECK: tg.reduce sum %[[X]] dims = [2] keepdim : tensor<2x3x4xf32> -> tensor<2x3x1xf32>
  %0 = tg.reduce sum %x dims = [2] keepdim : tensor<2x3x4xf32> -> tensor<2x3x1xf32>
  // CHECK: tg.reduce max %[[X]] dims = [0, 2] : tensor<2x3x4xf32> -> tensor<3xf32>
  %1 = tg.reduce max %x dims = [0, 2] : tensor<2x3x4xf32> -> tensor<3xf32>
  // Dimensions may be listed in any order.
  // CHECK: tg.reduce min %[[X]] dims = [2, 0, 1] keepdim : tensor<2x3x4xf32> -> tensor<1x1x1xf32>
  %2 = tg.reduce min %x dims = [2, 0, 1] keepdim : tensor<2x3x4xf32> -> tensor<1x1x1xf32>
  // Reducing every dimension without keepdim gives a scalar.
  // CHECK: tg.reduce sum %[[I]] dims = [0] : tensor<5xi64> -> tensor<i64>
  %3 = tg.reduce sum %i dims = [0] : tensor<5xi64> -> tensor<i64>
  return
}

// CHECK-LABEL: func.func @indices
func.func @indices() {
  // CHECK: tg.gen_index axis = 0 : tensor<128xi8>
  %0 = tg.gen_index axis = 0 : tensor<128xi8>
  // CHECK: tg.gen_index axis = 3 : tensor<1x1x1x4096xi64>
  %1 = tg.gen_index axis = 3 : tensor<1x1x1x4096xi64>
  // CHECK: tg.gen_index axis = 1 : tensor<2x3xi32>
  %2 = tg.gen_index axis = 1 : tensor<2x3xi32>
  return
}

// CHECK-LABEL: func.func @layout
// CHECK-SAME: (%[[K:.*]]: tensor<1x2x16x8xbf16>, %[[S:.*]]: tensor<i1>)
func.func @layout(%k: tensor<1x2x16x8xbf16>, %s: tensor<i1>) {
  // CHECK: tg.transpose %[[K]] perm = [0, 2, 1, 3] : tensor<1x2x16x8xbf16> -> tensor<1x16x2x8xbf16>
  %0 = tg.transpose %k perm = [0, 2, 1, 3] : tensor<1x2x16x8xbf16> -> tensor<1x16x2x8xbf16>
  // CHECK: %[[K5:.*]] = tg.reshape %[[K]] : tensor<1x2x16x8xbf16> -> tensor<1x2x1x16x8xbf16>
  %k5 = tg.reshape %k : tensor<1x2x16x8xbf16> -> tensor<1x2x1x16x8xbf16>
  // GQA: repeat each kv head for 3 query heads.
  // CHECK: tg.broadcast %[[K5]] : tensor<1x2x1x16x8xbf16> -> tensor<1x2x3x16x8xbf16>
  %1 = tg.broadcast %k5 : tensor<1x2x1x16x8xbf16> -> tensor<1x2x3x16x8xbf16>
  // A scalar broadcasts to any shape; a one-element tensor reshapes to rank 0.
  // CHECK: tg.broadcast %[[S]] : tensor<i1> -> tensor<4x4xi1>
  %2 = tg.broadcast %s : tensor<i1> -> tensor<4x4xi1>
  // CHECK: tg.reshape %{{.*}} : tensor<1x1xi1> -> tensor<i1>
  %3 = tg.reshape %2 : tensor<4x4xi1> -> tensor<16xi1>
  %4 = tg.reshape %s : tensor<i1> -> tensor<1x1xi1>
  %5 = tg.reshape %4 : tensor<1x1xi1> -> tensor<i1>
  return
}
