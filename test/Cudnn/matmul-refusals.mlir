// Matmuls the cuDNN lowering refuses, and why: they stay with the generated
// kernels under --backend=auto (and under --backend=cudnn, with the reason).
// RUN: tg-opt %s --tg-select-backend=explain=true -o /dev/null 2>&1 | FileCheck %s
// RUN: tg-opt %s --tg-select-backend="backend=cudnn explain=true" -o /dev/null 2>&1 | FileCheck %s --check-prefix=PINNED

// CHECK: remark: backend nvrtc: cuDNN cannot run it: an f32 operand (cuDNN may run f32 matmuls on TF32 tensor cores, rounding inputs to 10 mantissa bits; tg multiplies f32 values exactly)
// PINNED: remark: backend nvrtc: cudnn was requested but an f32 operand {{.*}}; using nvrtc
func.func @f32(%a: tensor<16x64xf32>, %b: tensor<64x32xf32>) -> tensor<16x32xf32> {
  %c = tg.matmul %a, %b : tensor<16x64xf32>, tensor<64x32xf32> -> tensor<16x32xf32>
  return %c : tensor<16x32xf32>
}

// CHECK: remark: backend nvrtc: cuDNN cannot run it: integer operands (i8 x i8, i32 accumulation) are not lowered to cuDNN
func.func @int8(%a: tensor<16x64xi8>, %b: tensor<64x32xi8>) -> tensor<16x32xi32> {
  %c = tg.matmul %a, %b acc = i32 : tensor<16x64xi8>, tensor<64x32xi8> -> tensor<16x32xi32>
  return %c : tensor<16x32xi32>
}

// CHECK: remark: backend nvrtc: cuDNN cannot run it: an i32 operand (not exact in a 16-bit matmul type)
func.func @int32(%a: tensor<16x64xi32>, %b: tensor<64x32xf16>) -> tensor<16x32xf32> {
  %c = tg.matmul %a, %b : tensor<16x64xi32>, tensor<64x32xf16> -> tensor<16x32xf32>
  return %c : tensor<16x32xf32>
}

// CHECK: remark: backend nvrtc: cuDNN cannot run it: operands of different 16-bit types (f16 x bf16; neither converts exactly into the other)
func.func @f16_bf16(%a: tensor<16x64xf16>, %b: tensor<64x32xbf16>) -> tensor<16x32xf32> {
  %c = tg.matmul %a, %b : tensor<16x64xf16>, tensor<64x32xbf16> -> tensor<16x32xf32>
  return %c : tensor<16x32xf32>
}

// CHECK: remark: backend nvrtc: cuDNN cannot run it: operand b has a contiguous dimension of 4 elements (8 bytes); cuDNN's matmul kernels need a multiple of 16 bytes
func.func @narrow(%a: tensor<16x64xf16>, %b: tensor<64x4xf16>) -> tensor<16x4xf32> {
  %c = tg.matmul %a, %b : tensor<16x64xf16>, tensor<64x4xf16> -> tensor<16x4xf32>
  return %c : tensor<16x4xf32>
}

// CHECK: remark: backend nvrtc: cuDNN cannot run it: operand a has a leading stride of 100 elements, not a multiple of 16 bytes
func.func @leading(%a: tensor<16x64xf16> {tg.strides = array<i64: 100, 1>}, %b: tensor<64x32xf16>) -> tensor<16x32xf32> {
  %c = tg.matmul %a, %b : tensor<16x64xf16>, tensor<64x32xf16> -> tensor<16x32xf32>
  return %c : tensor<16x32xf32>
}

// CHECK: remark: backend nvrtc: cuDNN cannot run it: operand b has neither of its last two dimensions contiguous (cuDNN matmul tensors are row- or column-major)
func.func @gathered(%a: tensor<16x64xf16>, %b: tensor<64x32xf16> {tg.strides = array<i64: 128, 2>}) -> tensor<16x32xf32> {
  %c = tg.matmul %a, %b : tensor<16x64xf16>, tensor<64x32xf16> -> tensor<16x32xf32>
  return %c : tensor<16x32xf32>
}

// CHECK: remark: backend nvrtc: cuDNN cannot run it: cuDNN's matmul engines found no config for two batch dims
func.func @rank5(%a: tensor<1x2x2x16x64xf16>, %b: tensor<1x2x2x64x32xf16>) -> tensor<1x2x2x16x32xf32> {
  %c = tg.matmul %a, %b : tensor<1x2x2x16x64xf16>, tensor<1x2x2x64x32xf16> -> tensor<1x2x2x16x32xf32>
  return %c : tensor<1x2x2x16x32xf32>
}

// CHECK: remark: backend nvrtc: cuDNN cannot run it: an f8E4M3FN result (cuDNN's conversion of the f32 accumulator is not specified to saturate as tg's does)
func.func @fp8_result(%a: tensor<16x64xf16>, %b: tensor<64x32xf16>) -> tensor<16x32xf8E4M3FN> {
  %c = tg.matmul %a, %b : tensor<16x64xf16>, tensor<64x32xf16> -> tensor<16x32xf8E4M3FN>
  return %c : tensor<16x32xf8E4M3FN>
}

// Integer arithmetic in a prologue wraps in tg; cuDNN computes in float.
// CHECK: remark: backend nvrtc: cuDNN cannot run it: prologue_b: tg.sub: arithmetic on i8 (cuDNN pointwise ops compute in float; tg integers wrap)
func.func @int_prologue(%a: tensor<16x64xf16>, %b: tensor<64x32xi8>, %zp: tensor<1x32xi8>) -> tensor<16x32xf32> {
  %y = tg.fused_matmul %a, %b b_captures(%zp : tensor<1x32xi8>)
      : tensor<16x64xf16>, tensor<64x32xi8> -> tensor<16x32xf32>
    prologue_a {}
    prologue_b {
    ^bb0(%e: tensor<i8>, %z: tensor<i8>):
      %d = tg.sub %e, %z : tensor<i8>, tensor<i8>
      %h = tg.cast %d : tensor<i8> to tensor<f16>
      tg.yield %h : tensor<f16>
    }
    epilogue {}
  return %y : tensor<16x32xf32>
}

// CHECK: remark: backend nvrtc: cuDNN cannot run it: epilogue: tg.cast: a cast to f8E4M3FN (tg saturates or wraps; cuDNN's conversion is not specified to match)
func.func @fp8_epilogue(%a: tensor<16x64xf16>, %b: tensor<64x32xf16>) -> tensor<16x32xf8E4M3FN> {
  %y = tg.fused_matmul %a, %b : tensor<16x64xf16>, tensor<64x32xf16> -> tensor<16x32xf8E4M3FN>
    prologue_a {} prologue_b {}
    epilogue {
    ^bb0(%acc: tensor<f32>):
      %c = tg.cast %acc : tensor<f32> to tensor<f8E4M3FN>
      tg.yield %c : tensor<f8E4M3FN>
    }
  return %y : tensor<16x32xf8E4M3FN>
}

// CHECK: remark: backend nvrtc: cuDNN cannot run it: epilogue: tg.cast: a cast to i32 (tg saturates or wraps; cuDNN's conversion is not specified to match)
func.func @int_epilogue(%a: tensor<16x64xf16>, %b: tensor<64x32xf16>) -> tensor<16x32xi32> {
  %y = tg.fused_matmul %a, %b : tensor<16x64xf16>, tensor<64x32xf16> -> tensor<16x32xi32>
    prologue_a {} prologue_b {}
    epilogue {
    ^bb0(%acc: tensor<f32>):
      %c = tg.cast %acc : tensor<f32> to tensor<i32>
      tg.yield %c : tensor<i32>
    }
  return %y : tensor<16x32xi32>
}

// A broadcast dividend: swapping would change the value.
// CHECK: remark: backend nvrtc: cuDNN cannot run it: epilogue: tg.div: only the second operand has the result's shape, and cuDNN broadcasts only the second operand
func.func @broadcast_dividend(%a: tensor<16x64xf16>, %b: tensor<64x32xf16>, %n: tensor<1x32xf32>) -> tensor<16x32xf32> {
  %y = tg.fused_matmul %a, %b epilogue_captures(%n : tensor<1x32xf32>)
      : tensor<16x64xf16>, tensor<64x32xf16> -> tensor<16x32xf32>
    prologue_a {} prologue_b {}
    epilogue {
    ^bb0(%acc: tensor<f32>, %num: tensor<f32>):
      %q = tg.div %num, %acc : tensor<f32>, tensor<f32>
      tg.yield %q : tensor<f32>
    }
  return %y : tensor<16x32xf32>
}

// CHECK: remark: backend nvrtc: cuDNN cannot run it: epilogue: the region's result does not depend on the accumulator
func.func @ignores_acc(%a: tensor<16x64xf16>, %b: tensor<64x32xf16>, %c: tensor<16x32xf32>) -> tensor<16x32xf32> {
  %y = tg.fused_matmul %a, %b epilogue_captures(%c : tensor<16x32xf32>)
      : tensor<16x64xf16>, tensor<64x32xf16> -> tensor<16x32xf32>
    prologue_a {} prologue_b {}
    epilogue {
    ^bb0(%acc: tensor<f32>, %v: tensor<f32>):
      tg.yield %v : tensor<f32>
    }
  return %y : tensor<16x32xf32>
}

// CHECK: remark: backend nvrtc: cuDNN cannot run it: cuDNN's matmul engines found no config for an epilogue with comparisons or selects (measured on H200, cuDNN 9.19)
// PINNED: remark: backend nvrtc: cudnn was requested but cuDNN's matmul engines found no config for an epilogue with comparisons or selects {{.*}}; using nvrtc
func.func @epilogue_select(%a: tensor<128x64xbf16>, %b: tensor<64x128xbf16>,
    %limit: tensor<1x128xf32>) -> tensor<128x128xf32> {
  %y = tg.fused_matmul %a, %b epilogue_captures(%limit : tensor<1x128xf32>)
      : tensor<128x64xbf16>, tensor<64x128xbf16> -> tensor<128x128xf32>
    prologue_a {} prologue_b {}
    epilogue {
    ^bb0(%acc: tensor<f32>, %l: tensor<f32>):
      %over = tg.cmp lt, %l, %acc : tensor<f32>, tensor<f32>
      %r = tg.select %over, %l, %acc : tensor<i1>, tensor<f32>, tensor<f32>
      tg.yield %r : tensor<f32>
    }
  return %y : tensor<128x128xf32>
}
