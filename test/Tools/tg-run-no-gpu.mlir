// Without a GPU driver the GPU mode fails with a clear message, not a crash.
// UNSUPPORTED: gpu
// RUN: not tg-run %s --check 2>&1 | FileCheck %s
// RUN: not tg-run --ref %s --check 2>&1 | FileCheck %s --check-prefix=MODE

// CHECK: tg-run: error: cannot use the GPU: no CUDA driver
// MODE: tg-run: error: --check, --bench and --repeat apply to the GPU mode (leave out --ref)
func.func @f(%x: tensor<4xf32>) -> tensor<4xf32> {
  %y = tg.exp %x : tensor<4xf32>
  return %y : tensor<4xf32>
}
