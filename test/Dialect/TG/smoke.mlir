// RUN: tg-opt %s | tg-opt | FileCheck %s

// CHECK-LABEL: func.func @scale
func.func @scale(%x: tensor<2x3xf32>) -> tensor<2x3xf32> {
  %c = tg.constant dense<2.0> : tensor<f32>
  // CHECK: tg.mul %{{.*}}, %{{.*}} : tensor<2x3xf32>, tensor<f32>
  %y = tg.mul %x, %c : tensor<2x3xf32>, tensor<f32>
  return %y : tensor<2x3xf32>
}
