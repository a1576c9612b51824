// i4 inputs from .npy files hold one value per byte ('|i1'); a value
// outside [-8, 7] is refused with its index, not wrapped.
// RUN: rm -rf %t.d && tg-run --ref %s --entry=wide --save-inputs=%t.d > /dev/null
// RUN: not tg-run --ref %s --entry=narrow --input=w=%t.d/w.npy 2>&1 | FileCheck %s
// RUN: tg-run --ref %s --entry=narrow --save-inputs=%t.n > /dev/null
// RUN: tg-run --ref %s --entry=narrow --input=w=%t.n/w.npy | FileCheck %s --check-prefix=ROUNDTRIP

// CHECK: error: {{.*}}w.npy{{.*}}value {{-?[0-9]+}} at index {{[0-9]+}} does not fit i4
// ROUNDTRIP: input w: shape [4, 8] dtype i4 min -7 max 7 mean -0.21875

func.func @wide(%w: tensor<4x8xi8> {tg.name = "w"}) -> tensor<4x8xf32> {
  %c = tg.cast %w : tensor<4x8xi8> to tensor<4x8xf32>
  return %c : tensor<4x8xf32>
}
func.func @narrow(%w: tensor<4x8xi4> {tg.name = "w"}) -> tensor<4x8xf32> {
  %c = tg.cast %w : tensor<4x8xi4> to tensor<4x8xf32>
  return %c : tensor<4x8xf32>
}
