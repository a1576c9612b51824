// tg-run --ref --compiled runs the reference on the fused graph and reports
// each output's deviation from the graph as written; fusion's remark names
// the bf16 roundings of the scores that the fused op keeps in f32.
// RUN: tg-run --ref --compiled %s --seed=3 2>&1 | FileCheck %s
// RUN: not tg-run --compiled %s 2>&1 | FileCheck %s --check-prefix=MODE

// CHECK: remark: fused with the scores in f32; the graph as written rounds them 3 time(s), which the fused op does not: bf16 after tg.matmul at [[@LINE+11]]:8, bf16 after tg.mul at [[@LINE+13]]:9, bf16 after tg.add at [[@LINE+14]]:9
// CHECK: tg-run: @bf16_scores on the CPU reference (float64), seed 3
// CHECK: output o: shape [1, 2, 32, 16] dtype bf16
// CHECK: as-written o: max_abs {{[0-9.e+-]+}} max_rel {{[0-9.e+-]+}} mismatches {{[0-9]+}}/1024 (atol 2.000000e-02, rtol 2.000000e-02)
// MODE: tg-run: error: --compiled applies to the reference mode (--ref)
func.func @bf16_scores(%q: tensor<1x2x32x16xbf16> {tg.name = "q"},
                       %k: tensor<1x2x32x16xbf16> {tg.name = "k"},
                       %v: tensor<1x2x32x16xbf16> {tg.name = "v"},
                       %mask: tensor<1x1x32x32xbf16> {tg.name = "mask"})
    -> (tensor<1x2x32x16xbf16> {tg.name = "o"}) {
  %kt = tg.transpose %k perm = [0, 1, 3, 2] : tensor<1x2x32x16xbf16> -> tensor<1x2x16x32xbf16>
  %s = tg.matmul %q, %kt : tensor<1x2x32x16xbf16>, tensor<1x2x16x32xbf16> -> tensor<1x2x32x32xbf16>
  %c = tg.constant dense<0.25> : tensor<bf16>
  %ss = tg.mul %s, %c : tensor<1x2x32x32xbf16>, tensor<bf16>
  %sm = tg.add %ss, %mask : tensor<1x2x32x32xbf16>, tensor<1x1x32x32xbf16>
  %s32 = tg.cast %sm : tensor<1x2x32x32xbf16> to tensor<1x2x32x32xf32>
  %p32 = tg.softmax %s32 axis = 3 : tensor<1x2x32x32xf32>
  %p = tg.cast %p32 : tensor<1x2x32x32xf32> to tensor<1x2x32x32xbf16>
  %o = tg.matmul %p, %v : tensor<1x2x32x32xbf16>, tensor<1x2x32x16xbf16> -> tensor<1x2x32x16xbf16>
  return %o : tensor<1x2x32x16xbf16>
}
