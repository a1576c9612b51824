// Mixed-input matmuls on cuDNN: the narrow operand (i8, fp8) passes through
// a pointwise identity whose virtual 16-bit output feeds the matmul; in
// tg.fused_matmul the prologue regions become pointwise ops on the operand
// and the epilogue region pointwise ops on the f32 accumulator, the last one
// writing the bound result. --mixed-matmul=fused: these are the graphs of
// the fused plan, whichever plan the measured table would pick.
// RUN: tg-compile %s --emit=cudnn --backend=cudnn --mixed-matmul=fused --entry=plain_i8 | FileCheck %s --check-prefix=PLAIN
// RUN: tg-compile %s --emit=cudnn --backend=cudnn --mixed-matmul=fused --entry=dequant | FileCheck %s --check-prefix=DEQUANT
// RUN: tg-compile %s --emit=cudnn --backend=cudnn --mixed-matmul=fused --entry=fp8_prologue_a | FileCheck %s --check-prefix=FP8A
// RUN: tg-compile %s --emit=cudnn --backend=cudnn --mixed-matmul=fused --entry=colmajor_i8 | FileCheck %s --check-prefix=COLMAJOR
// RUN: tg-opt %s --tg-select-backend=explain=true 2>&1 | FileCheck %s --check-prefix=EXPLAIN

// EXPLAIN: remark: backend cudnn: cuDNN matmul is faster than the generic matmul kernel
// PLAIN-LABEL: graph "tg.matmul i8 x f16 -> f32"
// PLAIN-DAG: tensor [[A:[0-9]+]] i8 [1,16,64] [1024,64,1] buffer "arg0"
// PLAIN-DAG: tensor [[B:[0-9]+]] f16 [1,64,32] [2048,32,1] buffer "arg1"
// PLAIN-DAG: tensor [[A16:[0-9]+]] f16 [1,16,64] [1024,64,1] virtual
// PLAIN-DAG: tensor [[C:[0-9]+]] f32 [1,16,32] [512,32,1] buffer "result0"
// PLAIN: op pointwise identity compute f32 x [[A]] y [[A16]]
// PLAIN-NEXT: op matmul compute f32 a [[A16]] b [[B]] c [[C]]
// PLAIN-NEXT: end
func.func @plain_i8(%a: tensor<16x64xi8>, %b: tensor<64x32xf16>) -> tensor<16x32xf32> {
  %c = tg.matmul %a, %b : tensor<16x64xi8>, tensor<64x32xf16> -> tensor<16x32xf32>
  return %c : tensor<16x32xf32>
}

// int8 weights dequantised per output channel in prologue_b, then bias,
// relu (max with 0) and the cast to bf16 in the epilogue.
// EXPLAIN: remark: backend cudnn: cuDNN matmul is faster than the generic matmul kernel
// DEQUANT-LABEL: graph "tg.fused_matmul bf16 x i8 -> bf16"
// DEQUANT-DAG: tensor [[X:[0-9]+]] bf16 [1,16,64] [1024,64,1] buffer "x"
// DEQUANT-DAG: tensor [[W:[0-9]+]] i8 [1,64,32] [2048,32,1] buffer "w"
// DEQUANT-DAG: tensor [[S:[0-9]+]] bf16 [1,1,32] [32,32,1] buffer "scale"
// DEQUANT-DAG: tensor [[WH:[0-9]+]] bf16 [1,64,32] [2048,32,1] virtual
// DEQUANT-DAG: tensor [[WS:[0-9]+]] bf16 [1,64,32] [2048,32,1] virtual
// DEQUANT-DAG: tensor [[Y:[0-9]+]] bf16 [1,16,32] [512,32,1] buffer "y"
// DEQUANT-DAG: tensor [[ACC:[0-9]+]] f32 [1,16,32] [512,32,1] virtual
// DEQUANT-DAG: tensor [[BIAS:[0-9]+]] f32 [1,1,32] [32,32,1] buffer "bias"
// DEQUANT-DAG: tensor [[ZERO:[0-9]+]] f32 [1,1,1] [1,1,1] value 0
// DEQUANT-DAG: tensor [[SUM:[0-9]+]] f32 [1,16,32] [512,32,1] virtual
// DEQUANT-DAG: tensor [[RELU:[0-9]+]] f32 [1,16,32] [512,32,1] virtual
// DEQUANT: op pointwise identity compute f32 x [[W]] y [[WH]]
// DEQUANT-NEXT: op pointwise mul compute f32 x [[WH]] b [[S]] y [[WS]]
// DEQUANT-NEXT: op matmul compute f32 a [[X]] b [[WS]] c [[ACC]]
// DEQUANT-NEXT: op pointwise add compute f32 x [[ACC]] b [[BIAS]] y [[SUM]]
// DEQUANT-NEXT: op pointwise max compute f32 x [[SUM]] b [[ZERO]] y [[RELU]]
// DEQUANT-NEXT: op pointwise identity compute f32 x [[RELU]] y [[Y]]
// DEQUANT-NEXT: end
func.func @dequant(%x: tensor<16x64xbf16> {tg.name = "x"},
                   %w: tensor<64x32xi8> {tg.name = "w"},
                   %scale: tensor<1x32xbf16> {tg.name = "scale"},
                   %bias: tensor<1x32xf32> {tg.name = "bias"})
    -> (tensor<16x32xbf16> {tg.name = "y"}) {
  %y = tg.fused_matmul %x, %w b_captures(%scale : tensor<1x32xbf16>)
      epilogue_captures(%bias : tensor<1x32xf32>)
      : tensor<16x64xbf16>, tensor<64x32xi8> -> tensor<16x32xbf16>
    prologue_a {}
    prologue_b {
    ^bb0(%e: tensor<i8>, %s: tensor<bf16>):
      %h = tg.cast %e : tensor<i8> to tensor<bf16>
      %d = tg.mul %h, %s : tensor<bf16>, tensor<bf16>
      tg.yield %d : tensor<bf16>
    }
    epilogue {
    ^bb0(%acc: tensor<f32>, %b: tensor<f32>):
      %zero = tg.constant dense<0.0> : tensor<f32>
      %sum = tg.add %acc, %b : tensor<f32>, tensor<f32>
      %relu = tg.max %sum, %zero : tensor<f32>, tensor<f32>
      %out = tg.cast %relu : tensor<f32> to tensor<bf16>
      tg.yield %out : tensor<bf16>
    }
  return %y : tensor<16x32xbf16>
}

// An fp8 operand scaled in its prologue while still f32, then rounded to
// the other operand's type: the prologue ends in the 16-bit type, so no
// extra conversion follows.
// EXPLAIN: remark: backend cudnn: cuDNN matmul is faster than the generic matmul kernel
// FP8A-LABEL: graph "tg.fused_matmul f8E4M3FN x f16 -> f16"
// FP8A-DAG: tensor [[A:[0-9]+]] f8E4M3FN [1,16,64] [1024,64,1] buffer "arg0"
// FP8A-DAG: tensor [[B:[0-9]+]] f16 [1,64,32] [2048,32,1] buffer "arg1"
// FP8A-DAG: tensor [[DESCALE:[0-9]+]] f32 [1,1,1] [1,1,1] buffer "arg2"
// FP8A-DAG: tensor [[A32:[0-9]+]] f32 [1,16,64] [1024,64,1] virtual
// FP8A-DAG: tensor [[AS:[0-9]+]] f32 [1,16,64] [1024,64,1] virtual
// FP8A-DAG: tensor [[A16:[0-9]+]] f16 [1,16,64] [1024,64,1] virtual
// FP8A-DAG: tensor [[C:[0-9]+]] f16 [1,16,32] [512,32,1] buffer "result0"
// FP8A: op pointwise identity compute f32 x [[A]] y [[A32]]
// FP8A-NEXT: op pointwise mul compute f32 x [[A32]] b [[DESCALE]] y [[AS]]
// FP8A-NEXT: op pointwise identity compute f32 x [[AS]] y [[A16]]
// FP8A-NEXT: op matmul compute f32 a [[A16]] b [[B]] c [[C]]
// FP8A-NEXT: end
func.func @fp8_prologue_a(%a: tensor<16x64xf8E4M3FN>, %b: tensor<64x32xf16>,
                          %descale: tensor<f32>) -> tensor<16x32xf16> {
  %y = tg.fused_matmul %a, %b a_captures(%descale : tensor<f32>)
      : tensor<16x64xf8E4M3FN>, tensor<64x32xf16> -> tensor<16x32xf16>
    prologue_a {
    ^bb0(%e: tensor<f8E4M3FN>, %d: tensor<f32>):
      %w = tg.cast %e : tensor<f8E4M3FN> to tensor<f32>
      %s = tg.mul %w, %d : tensor<f32>, tensor<f32>
      %h = tg.cast %s : tensor<f32> to tensor<f16>
      tg.yield %h : tensor<f16>
    }
    prologue_b {}
    epilogue {}
  return %y : tensor<16x32xf16>
}

// A column-major int8 weight (K contiguous): the virtual tensors computed
// from it element by element keep its dimension order.
// EXPLAIN: remark: backend cudnn: cuDNN matmul is faster than the generic matmul kernel
// COLMAJOR-LABEL: graph "tg.fused_matmul f16 x i8 -> f16"
// COLMAJOR-DAG: tensor [[W:[0-9]+]] i8 [1,64,32] [2048,1,64] buffer "arg1"
// COLMAJOR-DAG: tensor [[S:[0-9]+]] f16 [1,1,32] [32,32,1] buffer "arg2"
// COLMAJOR-DAG: tensor [[WH:[0-9]+]] f16 [1,64,32] [2048,1,64] virtual
// COLMAJOR-DAG: tensor [[WS:[0-9]+]] f16 [1,64,32] [2048,1,64] virtual
// COLMAJOR: op pointwise identity compute f32 x [[W]] y [[WH]]
// COLMAJOR-NEXT: op pointwise mul compute f32 x [[WH]] b [[S]] y [[WS]]
// COLMAJOR-NEXT: op matmul compute f32 a {{[0-9]+}} b [[WS]] c {{[0-9]+}}
func.func @colmajor_i8(%a: tensor<16x64xf16>,
                       %w: tensor<64x32xi8> {tg.strides = array<i64: 1, 64>},
                       %s: tensor<1x32xf16>) -> tensor<16x32xf16> {
  %y = tg.fused_matmul %a, %w b_captures(%s : tensor<1x32xf16>)
      : tensor<16x64xf16>, tensor<64x32xi8> -> tensor<16x32xf16>
    prologue_a {}
    prologue_b {
    ^bb0(%e: tensor<i8>, %sc: tensor<f16>):
      %h = tg.cast %e : tensor<i8> to tensor<f16>
      %d = tg.mul %h, %sc : tensor<f16>, tensor<f16>
      tg.yield %d : tensor<f16>
    }
    epilogue {}
  return %y : tensor<16x32xf16>
}
