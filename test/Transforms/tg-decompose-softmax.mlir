// RUN: tg-opt %s --tg-decompose-softmax | FileCheck %s
// RUN: tg-opt %s --tg-decompose-softmax | FileCheck %s --check-prefix=GONE

// GONE-NOT: tg.softmax

// exp(x - max) / sum, with the max replaced by 0 for fully masked slices
// (all -inf) and the sum clamped to >= 1, so such slices give zeros.
// CHECK-LABEL: func.func @softmax(
// CHECK-SAME: %[[X:[a-z0-9]+]]: tensor<2x3x5xf32>
// CHECK-NOT: tg.cast
// CHECK-DAG: %[[NINF:.*]] = tg.constant dense<0xFF800000> : tensor<f32>
// CHECK-DAG: %[[ZERO:.*]] = tg.constant dense<0.000000e+00> : tensor<f32>
// CHECK-DAG: %[[ONE:.*]] = tg.constant dense<1.000000e+00> : tensor<f32>
// CHECK: %[[MAX:.*]] = tg.reduce max %[[X]] dims = [1] keepdim : tensor<2x3x5xf32> -> tensor<2x1x5xf32>
// CHECK: %[[EMPTY:.*]] = tg.cmp eq, %[[MAX]], %[[NINF]]
// CHECK: %[[SAFE:.*]] = tg.select %[[EMPTY]], %[[ZERO]], %[[MAX]] : tensor<2x1x5xi1>, tensor<f32>, tensor<2x1x5xf32>
// CHECK: %[[SHIFTED:.*]] = tg.sub %[[X]], %[[SAFE]] : tensor<2x3x5xf32>, tensor<2x1x5xf32>
// CHECK: %[[E:.*]] = tg.exp %[[SHIFTED]]
// CHECK: %[[SUM:.*]] = tg.reduce sum %[[E]] dims = [1] keepdim : tensor<2x3x5xf32> -> tensor<2x1x5xf32>
// CHECK: %[[DEN:.*]] = tg.max %[[SUM]], %[[ONE]]
// CHECK: %[[P:.*]] = tg.div %[[E]], %[[DEN]] : tensor<2x3x5xf32>, tensor<2x1x5xf32>
// CHECK: return %[[P]]
// CHECK-NOT: tg.cast
func.func @softmax(%x: tensor<2x3x5xf32>) -> tensor<2x3x5xf32> {
  %p = tg.softmax %x axis = 1 : tensor<2x3x5xf32>
  return %p : tensor<2x3x5xf32>
}

// Stats: max + log(sum) in f32 (log(0) + 0 = -inf for a fully masked
// slice). bf16 input is widened to f32 and the probabilities rounded once.
// CHECK-LABEL: func.func @stats_bf16(
// CHECK-SAME: %[[X:[a-z0-9]+]]: tensor<4x16xbf16>
// CHECK: %[[X32:.*]] = tg.cast %[[X]] : tensor<4x16xbf16> to tensor<4x16xf32>
// CHECK: %[[MAX:.*]] = tg.reduce max %[[X32]] dims = [1] keepdim : tensor<4x16xf32> -> tensor<4x1xf32>
// CHECK: %[[SAFE:.*]] = tg.select %{{.*}}, %{{.*}}, %[[MAX]]
// CHECK: %[[E:.*]] = tg.exp
// CHECK: %[[SUM:.*]] = tg.reduce sum %[[E]] dims = [1] keepdim : tensor<4x16xf32> -> tensor<4x1xf32>
// CHECK: %[[P32:.*]] = tg.div %[[E]], %{{.*}} : tensor<4x16xf32>, tensor<4x1xf32>
// CHECK: %[[P:.*]] = tg.cast %[[P32]] : tensor<4x16xf32> to tensor<4x16xbf16>
// CHECK: %[[LOG:.*]] = tg.log %[[SUM]] : tensor<4x1xf32>
// CHECK: %[[LSE:.*]] = tg.add %[[LOG]], %[[SAFE]] : tensor<4x1xf32>, tensor<4x1xf32>
// CHECK: return %[[P]], %[[LSE]]
func.func @stats_bf16(%x: tensor<4x16xbf16>) -> (tensor<4x16xbf16>, tensor<4x1xf32>) {
  %p, %lse = tg.softmax %x axis = 1 : tensor<4x16xbf16> stats tensor<4x1xf32>
  return %p, %lse : tensor<4x16xbf16>, tensor<4x1xf32>
}
