// tg.reduce, tg.gen_index, tg.transpose, tg.reshape and tg.broadcast on
// x = [[[0, 1, 2], [3, 4, 5]], [[6, 7, 8], [9, 10, 11]]] (shape [2, 2, 3]).
//
// RUN: tg-run --ref %s --print-values | FileCheck %s

// CHECK-LABEL: output sum_d2:
// CHECK-NEXT: values: [3, 12, 21, 30]
// CHECK-LABEL: output max_d02:
// CHECK-NEXT: values: [8, 11]
// CHECK-LABEL: output min_d1_keep:
// CHECK-SAME: shape [2, 1, 3]
// CHECK-NEXT: values: [0, 1, 2, 6, 7, 8]
// CHECK-LABEL: output sum_i8:
// CHECK-NEXT: values: [-56]
// CHECK-LABEL: output index_d1:
// CHECK-NEXT: values: [0, 0, 0, 1, 1, 1, 0, 0, 0, 1, 1, 1]
// CHECK-LABEL: output index_d2:
// CHECK-NEXT: values: [0, 1, 2, 0, 1, 2, 0, 1, 2, 0, 1, 2]
// perm [2, 0, 1]: result[c][a][b] = x[a][b][c].
// CHECK-LABEL: output transpose:
// CHECK-SAME: shape [3, 2, 2]
// CHECK-NEXT: values: [0, 3, 6, 9, 1, 4, 7, 10, 2, 5, 8, 11]
// CHECK-LABEL: output reshape:
// CHECK-SAME: shape [3, 4]
// CHECK-NEXT: values: [0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11]
// CHECK-LABEL: output broadcast:
// CHECK-SAME: shape [2, 2, 3]
// CHECK-NEXT: values: [0, 1, 2, 0, 1, 2, 10, 11, 12, 10, 11, 12]
// CHECK-LABEL: output scalar_broadcast:
// CHECK-NEXT: values: [7, 7]
func.func @layout() -> (tensor<2x2xf32> {tg.name = "sum_d2"}, tensor<2xf32> {tg.name = "max_d02"},
                        tensor<2x1x3xf32> {tg.name = "min_d1_keep"}, tensor<1xi8> {tg.name = "sum_i8"},
                        tensor<2x2x3xi32> {tg.name = "index_d1"}, tensor<2x2x3xi64> {tg.name = "index_d2"},
                        tensor<3x2x2xf32> {tg.name = "transpose"}, tensor<3x4xf32> {tg.name = "reshape"},
                        tensor<2x2x3xf32> {tg.name = "broadcast"}, tensor<2xf32> {tg.name = "scalar_broadcast"}) {
  %x = tg.constant dense<[[[0.0, 1.0, 2.0], [3.0, 4.0, 5.0]], [[6.0, 7.0, 8.0], [9.0, 10.0, 11.0]]]> : tensor<2x2x3xf32>
  %sum = tg.reduce sum %x dims = [2] : tensor<2x2x3xf32> -> tensor<2x2xf32>
  %max = tg.reduce max %x dims = [0, 2] : tensor<2x2x3xf32> -> tensor<2xf32>
  %min = tg.reduce min %x dims = [1] keepdim : tensor<2x2x3xf32> -> tensor<2x1x3xf32>
  // 100 + 100 = 200 wraps to -56 in i8.
  %hundreds = tg.constant dense<[100, 100]> : tensor<2xi8>
  %sum8 = tg.reduce sum %hundreds dims = [0] keepdim : tensor<2xi8> -> tensor<1xi8>
  %i1 = tg.gen_index axis = 1 : tensor<2x2x3xi32>
  %i2 = tg.gen_index axis = 2 : tensor<2x2x3xi64>
  %t = tg.transpose %x perm = [2, 0, 1] : tensor<2x2x3xf32> -> tensor<3x2x2xf32>
  %r = tg.reshape %x : tensor<2x2x3xf32> -> tensor<3x4xf32>
  %small = tg.constant dense<[[[0.0, 1.0, 2.0]], [[10.0, 11.0, 12.0]]]> : tensor<2x1x3xf32>
  %b = tg.broadcast %small : tensor<2x1x3xf32> -> tensor<2x2x3xf32>
  %seven = tg.constant dense<7.0> : tensor<f32>
  %sb = tg.broadcast %seven : tensor<f32> -> tensor<2xf32>
  return %sum, %max, %min, %sum8, %i1, %i2, %t, %r, %b, %sb : tensor<2x2xf32>, tensor<2xf32>, tensor<2x1x3xf32>, tensor<1xi8>, tensor<2x2x3xi32>, tensor<2x2x3xi64>, tensor<3x2x2xf32>, tensor<3x4xf32>, tensor<2x2x3xf32>, tensor<2xf32>
}
