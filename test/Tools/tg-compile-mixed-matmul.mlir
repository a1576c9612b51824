// tg-compile --mixed-matmul: a bf16 x int8 matmul with a per-channel scale
// and a bias, as one fused cuDNN graph or as a dequantise kernel (NVRTC)
// and a bf16 x bf16 cuDNN matmul, or on the generated mixed-input kernel;
// auto picks by the committed table (decode M = 16: generated; M = 8192:
// dequant) and --explain-backend says which figures
// decided, then where each op of the chosen plan runs.
// RUN: tg-compile %s --entry=m16 --mixed-matmul=fused --emit=cudnn | FileCheck %s --check-prefix=FUSED
// RUN: tg-compile %s --entry=m16 --mixed-matmul=dequant --emit=cudnn | FileCheck %s --check-prefix=DEQUANT
// RUN: tg-compile %s --entry=m16 --mixed-matmul=dequant --emit=cuda | FileCheck %s --check-prefix=KERNEL
// RUN: tg-compile %s --emit=mlir --explain-backend -o /dev/null 2>&1 | FileCheck %s --check-prefix=AUTO
// RUN: tg-compile %s --emit=mlir --explain-backend --mixed-matmul=fused -o /dev/null 2>&1 | FileCheck %s --check-prefix=FORCED
// RUN: not tg-compile %s --entry=m16 --mixed-matmul=fast -o /dev/null 2>&1 | FileCheck %s --check-prefix=BAD

// FUSED: graph "tg.fused_matmul bf16 x i8 -> bf16"
// FUSED: op pointwise identity compute f32 x {{[0-9]+}} y [[WH:[0-9]+]]
// FUSED-NEXT: op pointwise mul compute f32 x [[WH]] b {{[0-9]+}} y [[WS:[0-9]+]]
// FUSED-NEXT: op matmul compute f32 a {{[0-9]+}} b [[WS]] c

// DEQUANT: graph "tg.fused_matmul bf16 x bf16 -> bf16"
// DEQUANT-DAG: tensor [[W:[0-9]+]] bf16 [1,8192,8192] [67108864,8192,1] buffer
// DEQUANT-DAG: tensor [[X:[0-9]+]] bf16 [1,16,8192] [131072,8192,1] buffer "x"
// DEQUANT: op matmul compute f32 a [[X]] b [[W]] c
// DEQUANT-NOT: i8
// DEQUANT: end

// The dequantising kernel reads the int8 weight (8 bytes at a time) and the
// scale and rounds to bf16 after each op, as the reference does; the second
// kernel is the matmul's NVRTC fallback.
// KERNEL: ===== kernel k{{[0-9]+}}: tg_pointwise_0
// KERNEL: tg_pointwise_0(const signed char *__restrict__ in0,
// KERNEL-NEXT: const __nv_bfloat16 *__restrict__ in1,
// KERNEL-NEXT: __nv_bfloat16 *__restrict__ out0) {
// KERNEL: tg_load_vec<8>(in0, i0, x0_v);
// KERNEL: // tg.cast
// KERNEL-NEXT: const float [[C:t[0-9]+]] = tg_round_bf16((float)(x0));
// KERNEL-NEXT: // tg.mul
// KERNEL-NEXT: const float [[M:t[0-9]+]] = tg_round_bf16([[C]] * x1);
// KERNEL: r[v] = [[M]];
// KERNEL: tg_store_vec<8>(out0, i0, r);
// KERNEL: ===== kernel k{{[0-9]+}}: tg_matmul

// Each remark comes with a note that prints the op; the op's location is
// its tg.matmul, the line of %acc in each function.
// AUTO: mixed-matmul.mlir:[[#M16:]]:10: remark: mixed-input matmul plan generated: i8 weights, scaled, M=16 K=8192 N=8192: rows at K=8192 N=8192: M=16 (fused {{[0-9.]+}}, dequant {{[0-9.]+}}, generated {{[0-9.]+}} TFLOP/s), fused/dequant {{[0-9.]+}}, generated/fused 1.{{[0-9]+}} ({{.+}})
// AUTO: mixed-matmul.mlir:[[#M16]]:10: remark: backend nvrtc: requested (nvrtc)
// AUTO: mixed-matmul.mlir:[[#M8192:]]:10: remark: mixed-input matmul plan dequant: i8 weights, scaled, M=8192 K=8192 N=8192: rows at K=8192 N=8192: M=8192 (fused {{[0-9.]+}}, dequant {{[0-9.]+}}, generated {{[0-9.]+}} TFLOP/s), fused/dequant 0.{{[0-9]+}}, generated/dequant 0.{{[0-9]+}} ({{.+}})
// AUTO: mixed-matmul.mlir:[[#M8192]]:10: remark: backend cudnn: cuDNN matmul is faster than the generic matmul kernel
// AUTO-NOT: remark:

// FORCED: remark: mixed-input matmul plan fused: requested (fused)
// FORCED: remark: backend cudnn
// FORCED: remark: mixed-input matmul plan fused: requested (fused)
// FORCED: remark: backend cudnn

// BAD: error: unknown mixed-matmul plan 'fast' (expected auto, fused, dequant or generated)

func.func @m16(%x: tensor<16x8192xbf16> {tg.name = "x"},
               %w: tensor<8192x8192xi8> {tg.name = "w"},
               %s: tensor<1x8192xbf16> {tg.name = "scale"},
               %bias: tensor<1x8192xf32> {tg.name = "bias"})
    -> (tensor<16x8192xbf16> {tg.name = "y"}) {
  %wf = tg.cast %w : tensor<8192x8192xi8> to tensor<8192x8192xbf16>
  %ws = tg.mul %wf, %s : tensor<8192x8192xbf16>, tensor<1x8192xbf16>
  %acc = tg.matmul %x, %ws : tensor<16x8192xbf16>, tensor<8192x8192xbf16> -> tensor<16x8192xf32>
  %sum = tg.add %acc, %bias : tensor<16x8192xf32>, tensor<1x8192xf32>
  %y = tg.cast %sum : tensor<16x8192xf32> to tensor<16x8192xbf16>
  return %y : tensor<16x8192xbf16>
}

func.func @m8192(%x: tensor<8192x8192xbf16> {tg.name = "x"},
                 %w: tensor<8192x8192xi8> {tg.name = "w"},
                 %s: tensor<1x8192xbf16> {tg.name = "scale"},
                 %bias: tensor<1x8192xf32> {tg.name = "bias"})
    -> (tensor<8192x8192xbf16> {tg.name = "y"}) {
  %wf = tg.cast %w : tensor<8192x8192xi8> to tensor<8192x8192xbf16>
  %ws = tg.mul %wf, %s : tensor<8192x8192xbf16>, tensor<1x8192xbf16>
  %acc = tg.matmul %x, %ws : tensor<8192x8192xbf16>, tensor<8192x8192xbf16> -> tensor<8192x8192xf32>
  %sum = tg.add %acc, %bias : tensor<8192x8192xf32>, tensor<1x8192xf32>
  %y = tg.cast %sum : tensor<8192x8192xf32> to tensor<8192x8192xbf16>
  return %y : tensor<8192x8192xbf16>
}
