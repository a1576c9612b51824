// Element-wise kernels of 2^20 elements, which take 8 consecutive elements
// per thread through vector loads and stores (PointwiseKernel.cpp): every
// storage type read and written that way, run on the GPU by run_all.sh's
// `mixed` stage:
//   tg-run test/gpu/vector_pointwise_graphs.mlir --entry=NAME --check --backend=nvrtc
// (also test/unit/Lowering/KernelGraphs.cpp's "vector_pointwise" graphs:
// NVRTC compile in CI).
// RUN: tg-emit-kernels %s | FileCheck %s
// CHECK-COUNT-2: 8 per thread)
func.func @floats(%a: tensor<1024x1024xf32>, %b: tensor<1024x1024xf16>, %c: tensor<1024x1024xbf16>,
                  %d: tensor<1024x1024xf8E4M3FN>, %e: tensor<1024x1024xf8E5M2>, %bias: tensor<1x1024xf32>)
    -> (tensor<1024x1024xf32>, tensor<1024x1024xf16>, tensor<1024x1024xbf16>, tensor<1024x1024xf8E4M3FN>, tensor<1024x1024xf8E5M2>) {
  %bf = tg.cast %b : tensor<1024x1024xf16> to tensor<1024x1024xf32>
  %cf = tg.cast %c : tensor<1024x1024xbf16> to tensor<1024x1024xf32>
  %df = tg.cast %d : tensor<1024x1024xf8E4M3FN> to tensor<1024x1024xf32>
  %ef = tg.cast %e : tensor<1024x1024xf8E5M2> to tensor<1024x1024xf32>
  %s1 = tg.add %a, %bf : tensor<1024x1024xf32>, tensor<1024x1024xf32>
  %s2 = tg.add %cf, %df : tensor<1024x1024xf32>, tensor<1024x1024xf32>
  %s3 = tg.add %s1, %s2 : tensor<1024x1024xf32>, tensor<1024x1024xf32>
  %s4 = tg.add %s3, %ef : tensor<1024x1024xf32>, tensor<1024x1024xf32>
  %s = tg.add %s4, %bias : tensor<1024x1024xf32>, tensor<1x1024xf32>
  %h = tg.cast %s : tensor<1024x1024xf32> to tensor<1024x1024xf16>
  %g = tg.cast %s : tensor<1024x1024xf32> to tensor<1024x1024xbf16>
  %p = tg.cast %s : tensor<1024x1024xf32> to tensor<1024x1024xf8E4M3FN>
  %q = tg.cast %s : tensor<1024x1024xf32> to tensor<1024x1024xf8E5M2>
  return %s, %h, %g, %p, %q : tensor<1024x1024xf32>, tensor<1024x1024xf16>, tensor<1024x1024xbf16>, tensor<1024x1024xf8E4M3FN>, tensor<1024x1024xf8E5M2>
}
func.func @integers(%a: tensor<1024x1024xi8>, %b: tensor<1024x1024xi32>, %c: tensor<1024x1024xi64>,
                    %d: tensor<1024x1024xi4>, %m: tensor<1024x1024xi1>)
    -> (tensor<1024x1024xi8>, tensor<1024x1024xi32>, tensor<1024x1024xi64>, tensor<1024x1024xi1>) {
  %a64 = tg.cast %a : tensor<1024x1024xi8> to tensor<1024x1024xi64>
  %b64 = tg.cast %b : tensor<1024x1024xi32> to tensor<1024x1024xi64>
  %d64 = tg.cast %d : tensor<1024x1024xi4> to tensor<1024x1024xi64>
  %s1 = tg.add %a64, %b64 : tensor<1024x1024xi64>, tensor<1024x1024xi64>
  %s2 = tg.add %c, %d64 : tensor<1024x1024xi64>, tensor<1024x1024xi64>
  %s3 = tg.add %s1, %s2 : tensor<1024x1024xi64>, tensor<1024x1024xi64>
  %z = tg.constant dense<0> : tensor<1024x1024xi64>
  %s = tg.select %m, %s3, %z : tensor<1024x1024xi1>, tensor<1024x1024xi64>, tensor<1024x1024xi64>
  %s8 = tg.cast %s : tensor<1024x1024xi64> to tensor<1024x1024xi8>
  %s32 = tg.cast %s : tensor<1024x1024xi64> to tensor<1024x1024xi32>
  %pos = tg.cmp gt, %s, %z : tensor<1024x1024xi64>, tensor<1024x1024xi64>
  return %s8, %s32, %s, %pos : tensor<1024x1024xi8>, tensor<1024x1024xi32>, tensor<1024x1024xi64>, tensor<1024x1024xi1>
}
