// Reductions and softmax stay on the generated kernels even under
// --backend=cudnn: on the H200 (cuDNN 9.14 and 9.19) runtime fusion found no
// engine config for any graph without a matmul, so tg-select-backend refuses
// them before the lowering's own checks (integer/fp8 inputs, empty
// tensors), which the host evaluation tests cover (CudnnGraphEvalTest).
// RUN: tg-opt %s --tg-select-backend="backend=cudnn explain=true" -o /dev/null 2>&1 | FileCheck %s

// CHECK: remark: backend nvrtc: cudnn was requested but cuDNN has no engine for a reduction or softmax without a matmul in its graph (no engine config on H200, cuDNN 9.19); using nvrtc
func.func @int_sum(%x: tensor<16x32xi32>) -> tensor<16xi32> {
  %s = tg.reduce sum %x dims = [1] : tensor<16x32xi32> -> tensor<16xi32>
  return %s : tensor<16xi32>
}

// CHECK: remark: backend nvrtc: cudnn was requested but cuDNN has no engine for a reduction or softmax without a matmul in its graph (no engine config on H200, cuDNN 9.19); using nvrtc
func.func @fp8_max(%x: tensor<16x32xf8E5M2>) -> tensor<16x1xf8E5M2> {
  %m = tg.reduce max %x dims = [1] keepdim : tensor<16x32xf8E5M2> -> tensor<16x1xf8E5M2>
  return %m : tensor<16x1xf8E5M2>
}

// CHECK: remark: backend nvrtc: cudnn was requested but cuDNN has no engine for a reduction or softmax without a matmul in its graph (no engine config on H200, cuDNN 9.19); using nvrtc
func.func @empty(%x: tensor<0x32xf32>) -> tensor<0x1xf32> {
  %m = tg.reduce max %x dims = [1] keepdim : tensor<0x32xf32> -> tensor<0x1xf32>
  return %m : tensor<0x1xf32>
}

// CHECK: remark: backend nvrtc: cudnn was requested but cuDNN has no engine for a reduction or softmax without a matmul in its graph
func.func @softmax(%x: tensor<4x64xf32>) -> tensor<4x64xf32> {
  %p = tg.softmax %x axis = 1 : tensor<4x64xf32>
  return %p : tensor<4x64xf32>
}
