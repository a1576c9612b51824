// RUN: tg-opt %s --tg-select-backend | FileCheck %s
// RUN: tg-opt %s --tg-select-backend="backend=cudnn explain=true" 2>&1 | FileCheck %s --check-prefix=EXPLAIN
// RUN: not tg-opt %s --tg-select-backend="backend=cublas" 2>&1 | FileCheck %s --check-prefix=BAD

// auto: the matmul goes to cuDNN, the softmax stays with the generated
// kernels; cudnn: the softmax too would, but cuDNN has no engine for it.
// CHECK-LABEL: func.func @mixed
// CHECK: tg.matmul {{.*}} {tg.backend = #tg<backend cudnn>}
// CHECK: tg.softmax {{.*}} {tg.backend = #tg<backend nvrtc>}
// CHECK-NOT: tg.backend
// CHECK: return
// EXPLAIN: remark: backend cudnn: requested (cudnn)
// EXPLAIN: remark: backend nvrtc: cudnn was requested but cuDNN has no engine for a reduction or softmax
// EXPLAIN: remark: backend nvrtc: requested (nvrtc)
// BAD: error: unknown backend 'cublas' (expected auto, nvrtc or cudnn)
func.func @mixed(%a: tensor<4x8xf16>, %b: tensor<8x8xf16>) -> tensor<4x8xf32> {
  %m = tg.matmul %a, %b : tensor<4x8xf16>, tensor<8x8xf16> -> tensor<4x8xf32>
  %p = tg.softmax %m axis = 1 : tensor<4x8xf32>
  %e = tg.exp %p : tensor<4x8xf32>
  return %e : tensor<4x8xf32>
}

// A tg.backend written on an op wins over the pass option.
// CHECK-LABEL: func.func @pinned
// CHECK: tg.matmul {{.*}} {tg.backend = #tg<backend nvrtc>}
// NVRTC-LABEL: func.func @pinned
func.func @pinned(%a: tensor<4x8xf16>, %b: tensor<8x4xf16>) -> tensor<4x4xf32> {
  %m = tg.matmul %a, %b {tg.backend = #tg<backend nvrtc>} : tensor<4x8xf16>, tensor<8x4xf16> -> tensor<4x4xf32>
  return %m : tensor<4x4xf32>
}
