// int4 with per-group scales as PyTorch code writes the dequantisation:
// convert, view the rows as [K / G, G, N], multiply by the [K / G, 1, N]
// scales, view back. tg-fuse-matmul makes it the weight's prologue (the
// scales seen as [K, N], read at row / G); the plan choice puts it on the
// generated mixed-input kernel (cuDNN reads no i4), which reads each scale
// once per column and group; it computes the reference's values, fused or
// dequantised (no copy of the scales either way).
// RUN: tg-compile %s --explain-backend --emit=mlir 2>&1 | FileCheck %s
// RUN: tg-compile %s --emit=cuda | FileCheck %s --check-prefix=CUDA
// RUN: tg-compile %s --emit=cuda --mixed-matmul=dequant | FileCheck %s --check-prefix=DEQUANT
// RUN: tg-run --ref --compiled %s | FileCheck %s --check-prefix=REF

// CHECK: remark: mixed-input matmul plan generated
// CHECK: %[[B:.*]] = tg.broadcast %{{.*}} : tensor<2x1x64xbf16> -> tensor<2x128x64xbf16>
// CHECK: %[[V:.*]] = tg.reshape %[[B]] : tensor<2x128x64xbf16> -> tensor<256x64xbf16>
// CHECK: tg.fused_matmul %{{.*}}, %{{.*}} b_captures(%[[V]] : tensor<256x64xbf16>) {tg.backend = #tg<backend nvrtc>} : tensor<16x256xbf16>, tensor<256x64xi4> -> tensor<16x64xbf16>
// CHECK: tg.cast %{{.*}} : tensor<i4> to tensor<bf16>
// CUDA-NOT: extern "C" __global__
// CUDA: static constexpr long long kGroup = 128;
// CUDA: extern "C" __global__
// CUDA: const float value = tg_load(in2, (k / 128) * 64 + n);
// CUDA-NOT: extern "C" __global__
// DEQUANT: const float x1 = tg_load(in1, (c0 / 128) * 64 + c1);
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
