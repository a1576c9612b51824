// i4 weights (weight-only int4, two per byte): the plan is format 4 with an
// i4 input buffer; cuDNN cannot read them (the reason is given), so the
// choice is between the generated mixed-input kernel and dequantising into
// a bf16 weight for a 16-bit matmul; --mixed-matmul=dequant gives the latter
// (the cast is a generic kernel reading tg_i4x2).
// RUN: tg-compile %s --explain-backend -o /dev/null 2>&1 | FileCheck %s --check-prefix=EXPLAIN
// RUN: tg-compile %s | FileCheck %s --check-prefix=PLAN
// RUN: tg-compile %s --mixed-matmul=dequant --emit=mlir 2>&1 | FileCheck %s --check-prefix=DEQUANT
// RUN: tg-compile %s --backend=cudnn --mixed-matmul=fused --explain-backend -o /dev/null 2>&1 | FileCheck %s --check-prefix=CUDNN

// EXPLAIN: remark: mixed-input matmul plan {{generated|dequant}}: i4 weights, scaled, M=16 K=4096 N=4096:
// EXPLAIN-SAME: cuDNN cannot read
// EXPLAIN: remark: backend nvrtc

// PLAN: tgc-plan 4
// PLAN: buffer "w" input i4 shape [4096,4096] strides [4096,1] align 16

// DEQUANT: tg.cast %{{.*}} : tensor<4096x4096xi4> to tensor<4096x4096xbf16>
// DEQUANT-NEXT: tg.mul
// DEQUANT-NEXT: tg.fused_matmul %{{.*}}, %{{.*}} {tg.backend = #tg<backend cudnn>} : tensor<16x4096xbf16>, tensor<4096x4096xbf16>

// CUDNN: remark: backend nvrtc: cudnn was requested but an i4 operand (packed 4-bit weights run on the generated kernels; the cuDNN lowering binds no 4-bit tensors); using nvrtc

func.func @decode(%x: tensor<16x4096xbf16> {tg.name = "x"},
                  %w: tensor<4096x4096xi4> {tg.name = "w"},
                  %s: tensor<1x4096xbf16> {tg.name = "scale"})
    -> (tensor<16x4096xbf16> {tg.name = "y"}) {
  %y = tg.fused_matmul %x, %w b_captures(%s : tensor<1x4096xbf16>)
      : tensor<16x4096xbf16>, tensor<4096x4096xi4> -> tensor<16x4096xbf16>
    prologue_a {}
    prologue_b {
    ^bb0(%e: tensor<i4>, %c: tensor<bf16>):
      %h = tg.cast %e : tensor<i4> to tensor<bf16>
      %d = tg.mul %h, %c : tensor<bf16>, tensor<bf16>
      tg.yield %d : tensor<bf16>
    }
    epilogue {}
  return %y : tensor<16x4096xbf16>
}
