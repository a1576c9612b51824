// Plain tg.matmul on cuDNN: one matmul op (f32 compute) between bound
// buffers; rank 2 gains a leading unit dim, batch dims broadcast, buffers
// are described with their own strides, equal fp8 types multiply natively
// when both operands are K-contiguous and widen to f16 otherwise.
// RUN: tg-compile %s --emit=cudnn --backend=cudnn --entry=rank2 | FileCheck %s --check-prefix=RANK2
// RUN: tg-compile %s --backend=cudnn --entry=batched --explain-backend -o /dev/null 2>&1 | FileCheck %s --check-prefix=BATCHED
// RUN: tg-compile %s --emit=cudnn --backend=cudnn --entry=strided | FileCheck %s --check-prefix=STRIDED
// RUN: tg-compile %s --emit=cudnn --backend=cudnn --entry=fp8_tn | FileCheck %s --check-prefix=FP8TN
// RUN: tg-compile %s --emit=cudnn --backend=cudnn --entry=fp8_nn | FileCheck %s --check-prefix=FP8NN
// RUN: tg-opt %s --tg-select-backend=explain=true 2>&1 | FileCheck %s --check-prefix=EXPLAIN

// EXPLAIN: remark: backend cudnn: cuDNN matmul is faster than the generic matmul kernel
// RANK2-LABEL: graph "tg.matmul f16 x f16 -> f16"
// RANK2-DAG: tensor [[A:[0-9]+]] f16 [1,16,64] [1024,64,1] buffer "arg0"
// RANK2-DAG: tensor [[B:[0-9]+]] f16 [1,64,32] [2048,32,1] buffer "arg1"
// RANK2-DAG: tensor [[C:[0-9]+]] f16 [1,16,32] [512,32,1] buffer "result0"
// RANK2: op matmul compute f32 a [[A]] b [[B]] c [[C]]
// RANK2-NEXT: end
func.func @rank2(%a: tensor<16x64xf16>, %b: tensor<64x32xf16>) -> tensor<16x32xf16> {
  %c = tg.matmul %a, %b : tensor<16x64xf16>, tensor<64x32xf16> -> tensor<16x32xf16>
  return %c : tensor<16x32xf16>
}

// EXPLAIN: remark: backend nvrtc: cuDNN cannot run it: cuDNN's matmul engines found no config for two batch dims
// Two batch dims: no engine config on the H200 (cuDNN 9.19), so refused.
// BATCHED: remark: backend nvrtc: cudnn was requested but cuDNN's matmul engines found no config for two batch dims
func.func @batched(%a: tensor<2x4x16x64xbf16>, %b: tensor<1x4x64x32xbf16>) -> tensor<2x4x16x32xf32> {
  %c = tg.matmul %a, %b : tensor<2x4x16x64xbf16>, tensor<1x4x64x32xbf16> -> tensor<2x4x16x32xf32>
  return %c : tensor<2x4x16x32xf32>
}

// A column-major B (tg.strides) is described as it lies.
// EXPLAIN: remark: backend cudnn: cuDNN matmul is faster than the generic matmul kernel
// STRIDED-LABEL: graph "tg.matmul bf16 x bf16 -> bf16"
// STRIDED-DAG: tensor [[A:[0-9]+]] bf16 [1,16,64] [1024,64,1] buffer "x"
// STRIDED-DAG: tensor [[B:[0-9]+]] bf16 [1,64,32] [2048,1,64] buffer "w"
// STRIDED-DAG: tensor [[C:[0-9]+]] bf16 [1,16,32] [512,32,1] buffer "y"
// STRIDED: op matmul compute f32 a [[A]] b [[B]] c [[C]]
func.func @strided(%a: tensor<16x64xbf16> {tg.name = "x"},
                   %b: tensor<64x32xbf16> {tg.name = "w", tg.strides = array<i64: 1, 64>})
    -> (tensor<16x32xbf16> {tg.name = "y"}) {
  %c = tg.matmul %a, %b : tensor<16x64xbf16>, tensor<64x32xbf16> -> tensor<16x32xbf16>
  return %c : tensor<16x32xbf16>
}

// fp8 x fp8 with both operands K-contiguous ("TN"): native fp8 matmul.
// EXPLAIN: remark: backend cudnn: cuDNN matmul is faster than the generic matmul kernel
// FP8TN-LABEL: graph "tg.matmul f8E4M3FN x f8E4M3FN -> bf16"
// FP8TN-DAG: tensor [[A:[0-9]+]] f8E4M3FN [1,16,64] [1024,64,1] buffer "arg0"
// FP8TN-DAG: tensor [[B:[0-9]+]] f8E4M3FN [1,64,32] [2048,1,64] buffer "arg1"
// FP8TN-DAG: tensor [[C:[0-9]+]] bf16 [1,16,32] [512,32,1] buffer "result0"
// FP8TN-NOT: identity
// FP8TN: op matmul compute f32 a [[A]] b [[B]] c [[C]]
func.func @fp8_tn(%a: tensor<16x64xf8E4M3FN>,
                  %b: tensor<64x32xf8E4M3FN> {tg.strides = array<i64: 1, 64>})
    -> tensor<16x32xbf16> {
  %c = tg.matmul %a, %b : tensor<16x64xf8E4M3FN>, tensor<64x32xf8E4M3FN> -> tensor<16x32xbf16>
  return %c : tensor<16x32xbf16>
}

// Row-major fp8 B: both operands widen exactly to f16 first.
// EXPLAIN: remark: backend cudnn: cuDNN matmul is faster than the generic matmul kernel
// FP8NN-LABEL: graph "tg.matmul f8E5M2 x f8E5M2 -> f16"
// FP8NN-DAG: tensor [[A:[0-9]+]] f8E5M2 [1,16,64] [1024,64,1] buffer "arg0"
// FP8NN-DAG: tensor [[B:[0-9]+]] f8E5M2 [1,64,32] [2048,32,1] buffer "arg1"
// FP8NN-DAG: tensor [[A16:[0-9]+]] f16 [1,16,64] [1024,64,1] virtual
// FP8NN-DAG: tensor [[B16:[0-9]+]] f16 [1,64,32] [2048,32,1] virtual
// FP8NN-DAG: tensor [[C:[0-9]+]] f16 [1,16,32] [512,32,1] buffer "result0"
// FP8NN: op pointwise identity compute f32 x [[A]] y [[A16]]
// FP8NN-NEXT: op pointwise identity compute f32 x [[B]] y [[B16]]
// FP8NN-NEXT: op matmul compute f32 a [[A16]] b [[B16]] c [[C]]
func.func @fp8_nn(%a: tensor<16x64xf8E5M2>, %b: tensor<64x32xf8E5M2>) -> tensor<16x32xf16> {
  %c = tg.matmul %a, %b : tensor<16x64xf8E5M2>, tensor<64x32xf8E5M2> -> tensor<16x32xf16>
  return %c : tensor<16x32xf16>
}
