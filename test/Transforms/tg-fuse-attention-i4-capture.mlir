// An i4 tensor (packed weights) read through a cast: the score region does
// not inline the cast (no region op but a matmul prologue's takes i4), so the
// converted tensor is the capture; the compiled graph computes what the
// written one does (within bf16 tolerance: fusion rounds P once, not twice).
// RUN: tg-opt %s --tg-fuse-attention | FileCheck %s
// RUN: tg-run --ref --compiled %s | FileCheck %s --check-prefix=REF

// REF: as-written result0: {{.*}} mismatches 0/256

// CHECK: %[[B:.*]] = tg.cast %{{.*}} : tensor<1x2x8x8xi4> to tensor<1x2x8x8xf32>
// CHECK: tg.attention %{{.*}}, %{{.*}}, %{{.*}} captures(%[[B]] : tensor<1x2x8x8xf32>)
func.func @i4_bias(%q: tensor<1x2x8x16xbf16>, %k: tensor<1x2x8x16xbf16>, %v: tensor<1x2x8x16xbf16>,
                   %b4: tensor<1x2x8x8xi4>) -> tensor<1x2x8x16xbf16> {
  %b = tg.cast %b4 : tensor<1x2x8x8xi4> to tensor<1x2x8x8xf32>
  %kt = tg.transpose %k perm = [0, 1, 3, 2] : tensor<1x2x8x16xbf16> -> tensor<1x2x16x8xbf16>
  %s = tg.matmul %q, %kt : tensor<1x2x8x16xbf16>, tensor<1x2x16x8xbf16> -> tensor<1x2x8x8xf32>
  %c = tg.constant dense<0.25> : tensor<f32>
  %ss = tg.mul %s, %c : tensor<1x2x8x8xf32>, tensor<f32>
  %sb = tg.add %ss, %b : tensor<1x2x8x8xf32>, tensor<1x2x8x8xf32>
  %p = tg.softmax %sb axis = 3 : tensor<1x2x8x8xf32>
  %pb = tg.cast %p : tensor<1x2x8x8xf32> to tensor<1x2x8x8xbf16>
  %o = tg.matmul %pb, %v : tensor<1x2x8x8xbf16>, tensor<1x2x8x16xbf16> -> tensor<1x2x8x16xbf16>
  return %o : tensor<1x2x8x16xbf16>
}
