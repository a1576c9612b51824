// Intermediates share workspace bytes when their live ranges (first to last
// step that touches them) do not overlap; a buffer read by a step is never
// reused for that step's output.
// RUN: tg-compile %s --emit=plan | FileCheck %s

// Steps: t0 = sum(x); t1 = x - t0; t2 = max(t1); t3 = t1 - t2; t4 = sum(t3); y = t3 - t4.
// CHECK: workspace 33024 align 256
// CHECK: buffer "t0" intermediate f32 shape [64,1] strides [1,1] align 16 offset 0
// t0 is still read by the step that writes t1.
// CHECK: buffer "t1" intermediate f32 shape [64,64] strides [64,1] align 16 offset 256
// t0 is dead once t2 is written: t2 takes its place.
// CHECK: buffer "t2" intermediate f32 shape [64,1] strides [1,1] align 16 offset 0
// CHECK: buffer "t3" intermediate f32 shape [64,64] strides [64,1] align 16 offset 16640
// CHECK: buffer "t4" intermediate f32 shape [1,64] strides [64,1] align 16 offset 0
func.func @chain(%x: tensor<64x64xf32> {tg.name = "x"}) -> (tensor<64x64xf32> {tg.name = "y"}) {
  %a = tg.reduce sum %x dims = [1] keepdim : tensor<64x64xf32> -> tensor<64x1xf32>
  %b = tg.sub %x, %a : tensor<64x64xf32>, tensor<64x1xf32>
  %c = tg.reduce max %b dims = [1] keepdim : tensor<64x64xf32> -> tensor<64x1xf32>
  %d = tg.sub %b, %c : tensor<64x64xf32>, tensor<64x1xf32>
  %e = tg.reduce sum %d dims = [0] keepdim : tensor<64x64xf32> -> tensor<1x64xf32>
  %f = tg.sub %d, %e : tensor<64x64xf32>, tensor<1x64xf32>
  return %f : tensor<64x64xf32>
}
