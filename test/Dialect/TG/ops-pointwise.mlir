// Pointwise ops over every element type family, every comparison predicate,
// and the broadcasting forms (rank 0, size-1 dimensions on either side).
// RUN: tg-opt %s | tg-opt | FileCheck %s
// RUN: tg-opt %s --mlir-print-op-generic | tg-opt | FileCheck %s

// CHECK-LABEL: func.func @predicates
// CHECK-SAME: (%[[A:.*]]: tensor<4x1xi32>, %[[B:.*]]: tensor<1x4xi32>)
func.func @predicates(%a: tensor<4x1xi32>, %b: tensor<1x4xi32>) -> tensor<4x4xi1> {
  // CHECK: tg.cmp lt, %[[A]], %[[B]] : tensor<4x1xi32>, tensor<1x4xi32>
  %lt = tg.cmp lt, %a, %b : tensor<4x1xi32>, tensor<1x4xi32>
  // CHECK: tg.cmp le, %[[A]], %[[B]]
  %le = tg.cmp le, %a, %b : tensor<4x1xi32>, tensor<1x4xi32>
  // CHECK: tg.cmp gt, %[[A]], %[[B]]
  %gt = tg.cmp gt, %a, %b : tensor<4x1xi32>, tensor<1x4xi32>
  // CHECK: tg.cmp ge, %[[A]], %[[B]]
  %ge = tg.cmp ge, %a, %b : tensor<4x1xi32>, tensor<1x4xi32>
  // CHECK: tg.cmp eq, %[[A]], %[[B]]
  %eq = tg.cmp eq, %a, %b : tensor<4x1xi32>, tensor<1x4xi32>
  // CHECK: %[[NE:.*]] = tg.cmp ne, %[[A]], %[[B]]
  %ne = tg.cmp ne, %a, %b : tensor<4x1xi32>, tensor<1x4xi32>
  // Booleans compare too.
  // CHECK: %[[BB:.*]] = tg.cmp eq, %{{.*}}, %[[NE]] : tensor<4x4xi1>, tensor<4x4xi1>
  %bb = tg.cmp eq, %lt, %ne : tensor<4x4xi1>, tensor<4x4xi1>
  return %bb : tensor<4x4xi1>
}

// CHECK-LABEL: func.func @element_types
func.func @element_types(%bf: tensor<8xbf16>, %h: tensor<8xf16>, %e4: tensor<8xf8E4M3FN>,
                         %e5: tensor<8xf8E5M2>, %i8: tensor<8xi8>, %i64: tensor<8xi64>) {
  // CHECK: tg.mul %{{.*}}, %{{.*}} : tensor<8xbf16>, tensor<8xbf16>
  %0 = tg.mul %bf, %bf : tensor<8xbf16>, tensor<8xbf16>
  // CHECK: tg.exp %{{.*}} : tensor<8xf16>
  %1 = tg.exp %h : tensor<8xf16>
  // CHECK: tg.abs %{{.*}} : tensor<8xf8E4M3FN>
  %2 = tg.abs %e4 : tensor<8xf8E4M3FN>
  // CHECK: tg.max %{{.*}}, %{{.*}} : tensor<8xf8E5M2>, tensor<8xf8E5M2>
  %3 = tg.max %e5, %e5 : tensor<8xf8E5M2>, tensor<8xf8E5M2>
  // CHECK: tg.neg %{{.*}} : tensor<8xi8>
  %4 = tg.neg %i8 : tensor<8xi8>
  // CHECK: tg.div %{{.*}}, %{{.*}} : tensor<8xi64>, tensor<8xi64>
  %5 = tg.div %i64, %i64 : tensor<8xi64>, tensor<8xi64>
  // CHECK: tg.sub %{{.*}}, %{{.*}} : tensor<8xi8>, tensor<8xi8>
  %6 = tg.sub %i8, %i8 : tensor<8xi8>, tensor<8xi8>
  return
}

// CHECK-LABEL: func.func @casts
func.func @casts(%x: tensor<2x3xf32>, %m: tensor<2x3xi1>) {
  // CHECK: tg.cast %{{.*}} : tensor<2x3xf32> to tensor<2x3xf8E4M3FN>
  %0 = tg.cast %x : tensor<2x3xf32> to tensor<2x3xf8E4M3FN>
  // CHECK: tg.cast %{{.*}} : tensor<2x3xf8E4M3FN> to tensor<2x3xf8E5M2>
  %1 = tg.cast %0 : tensor<2x3xf8E4M3FN> to tensor<2x3xf8E5M2>
  // CHECK: tg.cast %{{.*}} : tensor<2x3xf32> to tensor<2x3xi8>
  %2 = tg.cast %x : tensor<2x3xf32> to tensor<2x3xi8>
  // CHECK: tg.cast %{{.*}} : tensor<2x3xi1> to tensor<2x3xf16>
  %3 = tg.cast %m : tensor<2x3xi1> to tensor<2x3xf16>
  // CHECK: tg.cast %{{.*}} : tensor<2x3xf32> to tensor<2x3xi1>
  %4 = tg.cast %x : tensor<2x3xf32> to tensor<2x3xi1>
  return
}

// Rank-0 operands are scalars; size-1 dimensions broadcast on either side.
// CHECK-LABEL: func.func @broadcasting
// CHECK-SAME: (%[[A:.*]]: tensor<3x1xf32>, %[[B:.*]]: tensor<1x5xf32>, %[[S:.*]]: tensor<f32>, %[[C:.*]]: tensor<3x5xi1>)
func.func @broadcasting(%a: tensor<3x1xf32>, %b: tensor<1x5xf32>, %s: tensor<f32>, %c: tensor<3x5xi1>) -> tensor<3x5xf32> {
  // CHECK: %[[AB:.*]] = tg.add %[[A]], %[[B]] : tensor<3x1xf32>, tensor<1x5xf32>
  %ab = tg.add %a, %b : tensor<3x1xf32>, tensor<1x5xf32>
  // CHECK: %[[SS:.*]] = tg.pow %[[S]], %[[S]] : tensor<f32>, tensor<f32>
  %ss = tg.pow %s, %s : tensor<f32>, tensor<f32>
  // CHECK: %[[X:.*]] = tg.min %[[SS]], %[[AB]] : tensor<f32>, tensor<3x5xf32>
  %x = tg.min %ss, %ab : tensor<f32>, tensor<3x5xf32>
  // CHECK: %[[Y:.*]] = tg.select %[[C]], %[[S]], %[[A]] : tensor<3x5xi1>, tensor<f32>, tensor<3x1xf32>
  %y = tg.select %c, %s, %a : tensor<3x5xi1>, tensor<f32>, tensor<3x1xf32>
  // CHECK: tg.max %[[X]], %[[Y]] : tensor<3x5xf32>, tensor<3x5xf32>
  %z = tg.max %x, %y : tensor<3x5xf32>, tensor<3x5xf32>
  return %z : tensor<3x5xf32>
}

// CHECK-LABEL: func.func @constants
func.func @constants() {
  // CHECK: tg.constant dense<[1, 2, 3]> : tensor<3xi32>
  %0 = tg.constant dense<[1, 2, 3]> : tensor<3xi32>
  // CHECK: tg.constant dense<true> : tensor<2x2xi1>
  %1 = tg.constant dense<true> : tensor<2x2xi1>
  // CHECK: tg.constant dense<1.500000e+00> : tensor<1x1xbf16>
  %2 = tg.constant dense<1.5> : tensor<1x1xbf16>
  // CHECK: tg.constant dense<-7> : tensor<i64>
  %3 = tg.constant dense<-7> : tensor<i64>
  return
}
