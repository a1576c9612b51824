// RUN: tg-opt %s --tg-select-backend --tg-lower-to-plan | FileCheck %s
// RUN: tg-opt %s --tg-lower-to-plan="target-sm=80" | FileCheck %s --check-prefix=SM80

// A pointwise chain becomes one kernel; the result buffer is written in place.
// CHECK: tgc-plan 1
// CHECK: plan "chain"
// CHECK: buffer "x" input f32 shape [4,8]
// CHECK: buffer "y" output f32 shape [4,8]
// CHECK: kernel "k0"
// CHECK-NOT: kernel "k1"
// CHECK: launch
// SM80: plan "chain"
// CHECK: func.func @chain
func.func @chain(%x: tensor<4x8xf32> {tg.name = "x"}) -> (tensor<4x8xf32> {tg.name = "y"}) {
  %e = tg.exp %x : tensor<4x8xf32>
  %n = tg.neg %e : tensor<4x8xf32>
  return %n : tensor<4x8xf32>
}
