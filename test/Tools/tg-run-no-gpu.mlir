// Without a GPU driver the GPU mode fails with a clear message, not a crash;
// options of one mode given in the other are errors, not ignored.
// UNSUPPORTED: gpu
// RUN: not tg-run %s --check 2>&1 | FileCheck %s
// RUN: not tg-run %s --check --output-dir=%t.out --save-inputs=%t.in 2>&1 | FileCheck %s
// RUN: not tg-run --ref %s --check 2>&1 | FileCheck %s --check-prefix=CHECK-MODE
// RUN: not tg-run --ref %s --bench=5 2>&1 | FileCheck %s --check-prefix=BENCH
// RUN: not tg-run --ref %s --backend=cudnn 2>&1 | FileCheck %s --check-prefix=BACKEND
// RUN: not tg-run --ref %s --print-plan 2>&1 | FileCheck %s --check-prefix=PLAN
// RUN: not tg-run %s --bench=-1 2>&1 | FileCheck %s --check-prefix=NEGATIVE
// RUN: not tg-run --ref %s --repeat=2 2>&1 | FileCheck %s --check-prefix=REPEAT
// RUN: not tg-run %s --repeat=-3 2>&1 | FileCheck %s --check-prefix=NEGREPEAT

// CHECK: tg-run: error: cannot use the GPU: no CUDA driver
// CHECK-MODE: tg-run: error: --check applies to the GPU mode (leave out --ref)
// BENCH: tg-run: error: --bench applies to the GPU mode (leave out --ref)
// BACKEND: tg-run: error: --backend applies to the GPU mode (leave out --ref)
// PLAN: tg-run: error: --print-plan applies to the GPU mode (leave out --ref)
// NEGATIVE: tg-run: error: --bench expects a positive number of runs, got -1
// REPEAT: tg-run: error: --repeat applies to the GPU mode (leave out --ref)
// NEGREPEAT: tg-run: error: --repeat expects a non-negative number of runs, got -3
func.func @f(%x: tensor<4xf32>) -> tensor<4xf32> {
  %y = tg.exp %x : tensor<4xf32>
  return %y : tensor<4xf32>
}
