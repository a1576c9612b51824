// The graphs test/Cudnn/run-gpu-checks.sh runs on the GPU still compile to
// one cuDNN graph each under --backend=cudnn (the masked softmax's masking
// stays on NVRTC).
// RUN: for f in %S/Inputs/*.mlir; do tg-compile $f --backend=cudnn --emit=cudnn; done | FileCheck %s
// CHECK-COUNT-14: {{^}}graph "
// CHECK-NOT: {{^}}graph "
