// tg-compile --mixed-matmul=generated: every mixed-input matmul stays as it
// is, on NVRTC, where it runs on the generated mixed-input kernel
// (device/mixed_matmul.cuh); one that kernel cannot run is an error with
// the reason, not a silent other plan (tg-mixed-matmul-plan-generated.mlir).
// RUN: tg-compile %s --entry=decode --mixed-matmul=generated --explain-backend -o /dev/null 2>&1 | FileCheck %s --check-prefix=EXPLAIN
// RUN: tg-compile %s --entry=decode --mixed-matmul=generated --emit=cuda | FileCheck %s --check-prefix=KERNEL

// EXPLAIN: remark: mixed-input matmul plan generated: requested (the NVRTC mixed-input kernel)
// EXPLAIN: remark: backend nvrtc

// KERNEL: ===== kernel k{{[0-9]+}}: tg_mixed_matmul_0
// KERNEL: static constexpr tg::device::Narrow kWeight = tg::device::Narrow::I8;
// KERNEL: tg::device::mixed::mixed_matmul<MixedCfg>(
// KERNEL: ===== kernel k{{[0-9]+}}: tg_mixed_matmul_0_combine

func.func @decode(%x: tensor<1x4096xbf16> {tg.name = "x"},
                  %w: tensor<4096x4096xi8> {tg.name = "w"},
                  %s: tensor<1x4096xbf16> {tg.name = "scale"})
    -> (tensor<1x4096xbf16> {tg.name = "y"}) {
  %y = tg.fused_matmul %x, %w b_captures(%s : tensor<1x4096xbf16>)
      : tensor<1x4096xbf16>, tensor<4096x4096xi8> -> tensor<1x4096xbf16>
    prologue_a {}
    prologue_b {
    ^bb0(%e: tensor<i8>, %c: tensor<bf16>):
      %h = tg.cast %e : tensor<i8> to tensor<bf16>
      %d = tg.mul %h, %c : tensor<bf16>, tensor<bf16>
      tg.yield %d : tensor<bf16>
    }
    epilogue {}
  return %y : tensor<1x4096xbf16>
}
