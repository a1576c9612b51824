// int4 with per-group scales as PyTorch code writes the dequantisation:
// convert, view the rows as [K / G, G, N], multiply by the [K / G, 1, N]
// scales, view back. It compiles and computes the reference's values, but
// as a dequantise kernel and a 16-bit matmul: the generated mixed-input
// kernel takes per-column scales, not per-group ones (not fused yet).
// RUN: tg-compile %s --explain-backend --emit=mlir 2>&1 | FileCheck %s
// RUN: tg-run --ref --compiled %s | FileCheck %s --check-prefix=REF

// CHECK: tg.cast %{{.*}} : tensor<256x64xi4> to tensor<256x64xbf16>
// CHECK: tg.mul %{{.*}}, %{{.*}} : tensor<2x128x64xbf16>, tensor<2x1x64xbf16>
// CHECK: tg.matmul %{{.*}}, %{{.*}} {tg.backend = #tg<backend {{cudnn|nvrtc}}>} : tensor<16x256xbf16>, tensor<256x64xbf16>
// REF: as-written y: max_abs 0.000000e+00 max_rel 0.000000e+00 mismatches 0/1024
func.func @group(%x: tensor<16x256xbf16> {tg.name = "x"}, %w: tensor<256x64xi4> {tg.name = "w"},
                 %s: tensor<2x1x64xbf16> {tg.name = "scale"}) -> (tensor<16x64xbf16> {tg.name = "y"}) {
  %wf = tg.cast %w : tensor<256x64xi4> to tensor<256x64xbf16>
  %wg = tg.reshape %wf : tensor<256x64xbf16> -> tensor<2x128x64xbf16>
  %ws = tg.mul %wg, %s : tensor<2x128x64xbf16>, tensor<2x1x64xbf16>
  %wd = tg.reshape %ws : tensor<2x128x64xbf16> -> tensor<256x64xbf16>
  %y = tg.matmul %x, %wd : tensor<16x256xbf16>, tensor<256x64xbf16> -> tensor<16x64xbf16>
  return %y : tensor<16x64xbf16>
}
