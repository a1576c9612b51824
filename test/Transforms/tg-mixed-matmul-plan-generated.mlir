// plan=generated pins every mixed-input matmul to NVRTC as it is (the
// lowering gives it the mixed-input kernel); an op that kernel cannot run
// is an error that says why.
// RUN: tg-opt %s --split-input-file --verify-diagnostics --tg-mixed-matmul-plan="plan=generated" | FileCheck %s

// CHECK-LABEL: func.func @scaled
// CHECK: tg.fused_matmul {{.*}} {tg.backend = #tg<backend nvrtc>}
func.func @scaled(%x: tensor<16x4096xbf16>, %w: tensor<4096x4096xi8>, %s: tensor<1x4096xbf16>) -> tensor<16x4096xbf16> {
  %y = tg.fused_matmul %x, %w b_captures(%s : tensor<1x4096xbf16>)
      : tensor<16x4096xbf16>, tensor<4096x4096xi8> -> tensor<16x4096xbf16>
    prologue_a {}
    prologue_b {
    ^bb0(%e: tensor<i8>, %c: tensor<bf16>):
      %h = tg.cast %e : tensor<i8> to tensor<bf16>
      %d = tg.mul %h, %c : tensor<bf16>, tensor<bf16>
      tg.yield %d : tensor<bf16>
    }
    epilogue {}
  return %y : tensor<16x4096xbf16>
}

// -----

func.func @odd_n(%x: tensor<16x4096xbf16>, %w: tensor<4096x1000xi8>) -> tensor<16x1000xbf16> {
  // expected-error @+1 {{--mixed-matmul=generated: the generated mixed-input kernel cannot run this matmul (N is not a multiple of 16)}}
  %y = tg.matmul %x, %w : tensor<16x4096xbf16>, tensor<4096x1000xi8> -> tensor<16x1000xbf16>
  return %y : tensor<16x1000xbf16>
}

// -----

func.func @strided(%x: tensor<16x4096xbf16>, %w: tensor<4096x1024xf8E4M3FN> {tg.strides = array<i64: 1, 4096>}) -> tensor<16x1024xbf16> {
  // expected-error @+1 {{cannot run this matmul (an operand has tg.strides)}}
  %y = tg.matmul %x, %w : tensor<16x4096xbf16>, tensor<4096x1024xf8E4M3FN> -> tensor<16x1024xbf16>
  return %y : tensor<16x1024xbf16>
}

// -----

func.func @f32_x(%x: tensor<16x4096xf32>, %w: tensor<4096x1024xi8>) -> tensor<16x1024xf32> {
  // A matmul that is not mixed-input (x is not 16-bit) is left alone.
  %y = tg.matmul %x, %w : tensor<16x4096xf32>, tensor<4096x1024xi8> -> tensor<16x1024xf32>
  return %y : tensor<16x1024xf32>
}
