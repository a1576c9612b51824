// The graphs test/Cudnn/run-gpu-checks.sh runs on the GPU still compile to
// one cuDNN graph each under --backend=cudnn, except the rank-4 batched matmul, the 5 reductions and
// softmaxes and the epilogue with comparisons and selects, which cuDNN has no engine for (they run on NVRTC).
// RUN: for f in %S/Inputs/*.mlir; do tg-compile $f --backend=cudnn --emit=cudnn; done | FileCheck %s
// CHECK-COUNT-7: {{^}}graph "
// CHECK-NOT: {{^}}graph "
