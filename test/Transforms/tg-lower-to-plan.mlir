// RUN: tg-opt %s --tg-select-backend --tg-lower-to-plan | FileCheck %s
// RUN: tg-opt %s --tg-lower-to-plan="target=sm_80" | FileCheck %s --check-prefix=SM80

// A pointwise chain becomes one kernel; the result buffer is written in place.
// CHECK: tgc-plan 2
// CHECK: plan "chain"
// CHECK: target sm_90a
// CHECK: buffer "x" input f32 shape [4,8]
// CHECK: buffer "y" output f32 shape [4,8]
// CHECK: kernel "k0"
// CHECK-NOT: kernel "k1"
// CHECK: launch
// SM80: plan "chain"
// SM80: target sm_80
// Then every other function's plan, in module order, with threading on (the
// pass used to run one instance per function in parallel, all writing the
// same output: crashes and lost plans).
// CHECK: plan "second"
// CHECK: buffer "a" input f32 shape [3]
// CHECK: plan "third"
// CHECK: buffer "b" input f16 shape [2,2]
// CHECK-NOT: tgc-plan
// CHECK: func.func @chain
func.func @chain(%x: tensor<4x8xf32> {tg.name = "x"}) -> (tensor<4x8xf32> {tg.name = "y"}) {
  %e = tg.exp %x : tensor<4x8xf32>
  %n = tg.neg %e : tensor<4x8xf32>
  return %n : tensor<4x8xf32>
}

// CHECK: func.func @second
func.func @second(%a: tensor<3xf32> {tg.name = "a"}) -> (tensor<3xf32> {tg.name = "r"}) {
  %e = tg.exp %a : tensor<3xf32>
  return %e : tensor<3xf32>
}
func.func @third(%b: tensor<2x2xf16> {tg.name = "b"}) -> (tensor<2x2xf16> {tg.name = "r"}) {
  %n = tg.neg %b : tensor<2x2xf16>
  return %n : tensor<2x2xf16>
}
// A declaration has no plan.
func.func private @external(tensor<2xf32>) -> tensor<2xf32>

// 64 functions at once, run 10 times: all 64 plans every time.
// RUN: python3 -c "print(''.join('func.func @f%%d(%%%%x: tensor<%%dx16xf32>) -> tensor<%%dx16xf32> {\n  %%%%s = tg.softmax %%%%x axis = 1 : tensor<%%dx16xf32>\n  return %%%%s : tensor<%%dx16xf32>\n}\n' %% (i, i + 1, i + 1, i + 1, i + 1) for i in range(64)))" > %t.many.mlir
// RUN: for i in 1 2 3 4 5 6 7 8 9 10; do tg-opt %t.many.mlir --tg-select-backend --tg-lower-to-plan -o /dev/null | grep -c '^plan "f' ; done | FileCheck %s --check-prefix=MANY
// MANY-COUNT-10: {{^}}64{{$}}
// MANY-NOT: {{.}}
