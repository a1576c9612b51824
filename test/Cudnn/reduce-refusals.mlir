// Reductions the cuDNN lowering refuses, and why (they run on the
// generated kernels even under --backend=cudnn).
// RUN: tg-opt %s --tg-select-backend="backend=cudnn explain=true" -o /dev/null 2>&1 | FileCheck %s

// CHECK: remark: backend nvrtc: cudnn was requested but an i32 input (cuDNN reduces in f32: integer sums would not wrap as tg's do, fp8 results would not saturate); using nvrtc
func.func @int_sum(%x: tensor<16x32xi32>) -> tensor<16xi32> {
  %s = tg.reduce sum %x dims = [1] : tensor<16x32xi32> -> tensor<16xi32>
  return %s : tensor<16xi32>
}

// CHECK: remark: backend nvrtc: cudnn was requested but an f8E5M2 input (cuDNN reduces in f32: integer sums would not wrap as tg's do, fp8 results would not saturate); using nvrtc
func.func @fp8_max(%x: tensor<16x32xf8E5M2>) -> tensor<16x1xf8E5M2> {
  %m = tg.reduce max %x dims = [1] keepdim : tensor<16x32xf8E5M2> -> tensor<16x1xf8E5M2>
  return %m : tensor<16x1xf8E5M2>
}

// CHECK: remark: backend nvrtc: cudnn was requested but a tensor of type tensor<0x32xf32> is empty (cuDNN dimensions must be positive); using nvrtc
func.func @empty(%x: tensor<0x32xf32>) -> tensor<0x1xf32> {
  %m = tg.reduce max %x dims = [1] keepdim : tensor<0x32xf32> -> tensor<0x1xf32>
  return %m : tensor<0x1xf32>
}
