// tg.softmax on cuDNN (--backend=cudnn): the max-reduce, sub, exp,
// add-reduce, div composite of cuDNN's attention graphs, made safe as tg
// requires: a slice that is all -inf has max -inf, replaced by 0 so that
// exp gives zeros, and a zero sum is replaced by 1 so the output is 0; the
// stats log(sum) + max are then -inf. Intermediates are virtual f32.
// RUN: tg-compile %s --emit=cudnn --backend=cudnn --entry=softmax | FileCheck %s --check-prefix=SOFTMAX
// RUN: tg-compile %s --emit=cudnn --backend=cudnn --entry=stats | FileCheck %s --check-prefix=STATS
// RUN: tg-opt %s --tg-select-backend="backend=cudnn explain=true" -o /dev/null 2>&1 | FileCheck %s --check-prefix=PINNED

// PINNED: remark: backend cudnn: requested (cudnn)
// SOFTMAX-LABEL: graph "tg.softmax tensor<16x32xbf16>"
// SOFTMAX-DAG: tensor [[X:[0-9]+]] bf16 [1,16,32] [512,32,1] buffer "arg0"
// SOFTMAX-DAG: tensor [[Y:[0-9]+]] bf16 [1,16,32] [512,32,1] buffer "result0"
// SOFTMAX-DAG: tensor [[ZERO:[0-9]+]] f32 [1,1,1] [1,1,1] value 0
// SOFTMAX-DAG: tensor [[NINF:[0-9]+]] f32 [1,1,1] [1,1,1] value -inf
// SOFTMAX-DAG: tensor [[ONE:[0-9]+]] f32 [1,1,1] [1,1,1] value 1
// SOFTMAX-DAG: tensor [[MAX:[0-9]+]] f32 [1,16,1] [16,1,1] virtual
// SOFTMAX: op reduction max compute f32 x [[X]] y [[MAX]]
// SOFTMAX-NEXT: op pointwise cmp_neq compute f32 x [[MAX]] b [[NINF]] y [[FINITE:[0-9]+]]
// SOFTMAX-NEXT: op pointwise binary_select compute f32 x [[MAX]] b [[ZERO]] t [[FINITE]] y [[SAFEMAX:[0-9]+]]
// SOFTMAX-NEXT: op pointwise sub compute f32 x [[X]] b [[SAFEMAX]] y [[SHIFTED:[0-9]+]]
// SOFTMAX-NEXT: op pointwise exp compute f32 x [[SHIFTED]] y [[E:[0-9]+]]
// SOFTMAX-NEXT: op reduction add compute f32 x [[E]] y [[SUM:[0-9]+]]
// SOFTMAX-NEXT: op pointwise cmp_neq compute f32 x [[SUM]] b [[ZERO]] y [[NONZERO:[0-9]+]]
// SOFTMAX-NEXT: op pointwise binary_select compute f32 x [[SUM]] b [[ONE]] t [[NONZERO]] y [[SAFESUM:[0-9]+]]
// SOFTMAX-NEXT: op pointwise div compute f32 x [[E]] b [[SAFESUM]] y [[Y]]
// SOFTMAX-NEXT: end
func.func @softmax(%x: tensor<16x32xbf16>) -> tensor<16x32xbf16> {
  %p = tg.softmax %x axis = 1 : tensor<16x32xbf16>
  return %p : tensor<16x32xbf16>
}

// Softmax over a middle axis, with the log-sum-exp stats as a second
// bound output.
// PINNED: remark: backend cudnn: requested (cudnn)
// STATS-LABEL: graph "tg.softmax tensor<2x8x128x64xf32>"
// STATS-DAG: tensor [[X:[0-9]+]] f32 [2,8,128,64] [65536,8192,64,1] buffer "arg0"
// STATS-DAG: tensor [[Y:[0-9]+]] f32 [2,8,128,64] [65536,8192,64,1] buffer "result0"
// STATS-DAG: tensor [[LSE:[0-9]+]] f32 [2,8,1,64] [512,64,64,1] buffer "result1"
// STATS-DAG: tensor [[MAX:[0-9]+]] f32 [2,8,1,64] [512,64,64,1] virtual
// STATS: op reduction max compute f32 x [[X]] y [[MAX]]
// STATS: op pointwise binary_select compute f32 x [[MAX]] b {{[0-9]+}} t {{[0-9]+}} y [[SAFEMAX:[0-9]+]]
// STATS: op reduction add compute f32 x {{[0-9]+}} y [[SUM:[0-9]+]]
// STATS: op pointwise div compute f32 x {{[0-9]+}} b {{[0-9]+}} y [[Y]]
// STATS-NEXT: op pointwise log compute f32 x [[SUM]] y [[LOG:[0-9]+]]
// STATS-NEXT: op pointwise add compute f32 x [[LOG]] b [[SAFEMAX]] y [[LSE]]
// STATS-NEXT: end
func.func @stats(%x: tensor<2x8x128x64xf32>) -> (tensor<2x8x128x64xf32>, tensor<2x8x1x64xf32>) {
  %p, %lse = tg.softmax %x axis = 2 : tensor<2x8x128x64xf32> stats tensor<2x8x1x64xf32>
  return %p, %lse : tensor<2x8x128x64xf32>, tensor<2x8x1x64xf32>
}
