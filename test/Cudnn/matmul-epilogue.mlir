// Epilogue regions of tg.fused_matmul as cuDNN pointwise ops: one op per tg
// op, in f32 on the accumulator; the op computing the yielded value writes
// the bound result. cuDNN broadcasts only an op's second operand, so a
// broadcast first operand is swapped to the second place where that is
// exact (commutative ops, comparisons with the predicate mirrored,
// x - b as -b + x, select with the condition negated).
// RUN: tg-compile %s --emit=cudnn --backend=cudnn --entry=activations | FileCheck %s --check-prefix=ACT
// RUN: tg-compile %s --emit=cudnn --backend=cudnn --entry=yield_arg | FileCheck %s --check-prefix=YIELD
// RUN: tg-opt %s --tg-select-backend=explain=true 2>&1 | FileCheck %s --check-prefix=EXPLAIN

// EXPLAIN: remark: backend cudnn: cuDNN matmul is faster than the generic matmul kernel
// ACT-LABEL: graph "tg.fused_matmul f16 x f16 -> f16"
// ACT-DAG: tensor [[ACC:[0-9]+]] f32 [1,16,32] [512,32,1] virtual
// ACT-DAG: tensor [[Y:[0-9]+]] f16 [1,16,32] [512,32,1] buffer "result0"
// ACT-DAG: tensor [[HALF:[0-9]+]] f32 [1,1,1] [1,1,1] value 0.5
// ACT: op matmul compute f32 a {{[0-9]+}} b {{[0-9]+}} c [[ACC]]
// ACT-NEXT: op pointwise tanh_fwd compute f32 x [[ACC]] y [[T:[0-9]+]]
// ACT-NEXT: op pointwise sigmoid_fwd compute f32 x [[ACC]] y [[S:[0-9]+]]
// ACT-NEXT: op pointwise mul compute f32 x [[T]] b [[S]] y [[P:[0-9]+]]
// ACT-NEXT: op pointwise mul compute f32 x [[P]] b [[HALF]] y [[H:[0-9]+]]
// ACT-NEXT: op pointwise identity compute f32 x [[H]] y [[H16:[0-9]+]]
// ACT-NEXT: op pointwise exp compute f32 x [[H16]] y [[Y]]
// ACT-NEXT: end
func.func @activations(%a: tensor<16x64xf16>, %b: tensor<64x32xf16>) -> tensor<16x32xf16> {
  %y = tg.fused_matmul %a, %b : tensor<16x64xf16>, tensor<64x32xf16> -> tensor<16x32xf16>
    prologue_a {} prologue_b {}
    epilogue {
    ^bb0(%acc: tensor<f32>):
      %half = tg.constant dense<0.5> : tensor<f32>
      %t = tg.tanh %acc : tensor<f32>
      %s = tg.sigmoid %acc : tensor<f32>
      %p = tg.mul %t, %s : tensor<f32>, tensor<f32>
      %h = tg.mul %half, %p : tensor<f32>, tensor<f32>
      %h16 = tg.cast %h : tensor<f32> to tensor<f16>
      %e = tg.exp %h16 : tensor<f16>
      tg.yield %e : tensor<f16>
    }
  return %y : tensor<16x32xf16>
}

// The engines found no config for an epilogue with comparisons and selects
// (H200, cuDNN 9.19): it stays on NVRTC. Its translation (mirrored
// comparison, negated condition) is checked on the host by
// CudnnGraphEvalTest.
// EXPLAIN: remark: backend nvrtc: cuDNN cannot run it: cuDNN's matmul engines found no config for an epilogue with comparisons or selects
func.func @swapped(%a: tensor<16x64xbf16>, %b: tensor<64x32xbf16>, %limit: tensor<1x32xf32>) -> tensor<16x32xf32> {
  %y = tg.fused_matmul %a, %b epilogue_captures(%limit : tensor<1x32xf32>)
      : tensor<16x64xbf16>, tensor<64x32xbf16> -> tensor<16x32xf32>
    prologue_a {} prologue_b {}
    epilogue {
    ^bb0(%acc: tensor<f32>, %l: tensor<f32>):
      %d = tg.sub %l, %acc : tensor<f32>, tensor<f32>
      %over = tg.cmp lt, %l, %acc : tensor<f32>, tensor<f32>
      %r = tg.select %over, %l, %d : tensor<i1>, tensor<f32>, tensor<f32>
      tg.yield %r : tensor<f32>
    }
  return %y : tensor<16x32xf32>
}

// An epilogue that yields the accumulator itself: an identity writes it. A
// capture the region never reads is left out of the graph.
// EXPLAIN: remark: backend cudnn: cuDNN matmul is faster than the generic matmul kernel
// YIELD-LABEL: graph "tg.fused_matmul f16 x f16 -> f32"
// YIELD-DAG: tensor [[ACC:[0-9]+]] f32 [1,16,32] [512,32,1] virtual
// YIELD-DAG: tensor [[Y:[0-9]+]] f32 [1,16,32] [512,32,1] buffer "result0"
// YIELD-NOT: buffer "arg2"
// YIELD: op matmul compute f32 a {{[0-9]+}} b {{[0-9]+}} c [[ACC]]
// YIELD-NEXT: op pointwise identity compute f32 x [[ACC]] y [[Y]]
// YIELD-NEXT: end
func.func @yield_arg(%a: tensor<16x64xf16>, %b: tensor<64x32xf16>, %unused: tensor<1x32xf32>) -> tensor<16x32xf32> {
  %y = tg.fused_matmul %a, %b epilogue_captures(%unused : tensor<1x32xf32>)
      : tensor<16x64xf16>, tensor<64x32xf16> -> tensor<16x32xf32>
    prologue_a {} prologue_b {}
    epilogue {
    ^bb0(%acc: tensor<f32>, %u: tensor<f32>):
      tg.yield %acc : tensor<f32>
    }
  return %y : tensor<16x32xf32>
}
