// i4 is weight storage: no op computes on it or produces it.
// RUN: tg-opt %s --split-input-file --verify-diagnostics

func.func @add(%w: tensor<4x4xi4>) -> tensor<4x4xi4> {
  // expected-error @+1 {{operand #0 must be statically shaped tensor of}}
  %s = tg.add %w, %w : tensor<4x4xi4>, tensor<4x4xi4>
  return %s : tensor<4x4xi4>
}

// -----

func.func @cast_to_i4(%x: tensor<4x4xf32>) -> tensor<4x4xi4> {
  // expected-error @+1 {{result #0 must be statically shaped tensor of}}
  %w = tg.cast %x : tensor<4x4xf32> to tensor<4x4xi4>
  return %w : tensor<4x4xi4>
}

// -----

func.func @transpose(%w: tensor<4x8xi4>) -> tensor<8x4xi4> {
  // expected-error @+1 {{operand #0 must be statically shaped tensor of}}
  %t = tg.transpose %w perm = [1, 0] : tensor<4x8xi4> -> tensor<8x4xi4>
  return %t : tensor<8x4xi4>
}
