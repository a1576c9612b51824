// RUN: tg-opt %s --tg-mixed-matmul-plan="plan=fused explain=true" 2>&1 | FileCheck %s --check-prefix=FUSED
// RUN: tg-opt %s --tg-mixed-matmul-plan="plan=dequant" | FileCheck %s --check-prefix=DEQUANT
// RUN: tg-opt %s --tg-mixed-matmul-plan="explain=true" 2>&1 | FileCheck %s --check-prefix=AUTO
// RUN: tg-opt %s --tg-mixed-matmul-plan="backend=nvrtc explain=true" 2>&1 | FileCheck %s --check-prefix=NVRTC
// RUN: not tg-opt %s --tg-mixed-matmul-plan="plan=split" 2>&1 | FileCheck %s --check-prefix=BAD

// BAD: error: unknown mixed-matmul plan 'split' (expected auto, fused, dequant or generated)

// Decode-sized M: the generated mixed-input kernel reads half the weight
// bytes and is measured faster than cuDNN's mixed-input graph (itself several
// times faster than the dequant plan); prefill-sized M: the 16-bit GEMM wins.
// FUSED: remark: mixed-input matmul plan fused: requested (fused)
// FUSED-LABEL: func.func @m16
// FUSED: tg.fused_matmul %{{.*}}, %{{.*}} b_captures
// FUSED: prologue_b {
// FUSED-NEXT: ^bb0
// FUSED-NEXT: tg.cast
// AUTO: remark: mixed-input matmul plan generated: i8 weights, scaled, M=16 K=8192 N=8192: rows at K=8192 N=8192: M=16 (fused {{[0-9.]+}}, dequant {{[0-9.]+}}, generated {{[0-9.]+}} TFLOP/s), fused/dequant {{[0-9.]+}}, generated/fused {{[0-9.]+}} ({{.*}})
// NVRTC: remark: mixed-input matmul plan fused: bound for nvrtc; the op stays as it is (the NVRTC lowering gives it the mixed-input kernel where that kernel runs it)
func.func @m16(%x: tensor<16x8192xbf16>, %w: tensor<8192x8192xi8>,
               %s: tensor<1x8192xbf16>, %bias: tensor<1x8192xf32>)
    -> tensor<16x8192xbf16> {
  %y = tg.fused_matmul %x, %w b_captures(%s : tensor<1x8192xbf16>)
      epilogue_captures(%bias : tensor<1x8192xf32>)
      : tensor<16x8192xbf16>, tensor<8192x8192xi8> -> tensor<16x8192xbf16>
    prologue_a {}
    prologue_b {
    ^bb0(%e: tensor<i8>, %c: tensor<bf16>):
      %h = tg.cast %e : tensor<i8> to tensor<bf16>
      %d = tg.mul %h, %c : tensor<bf16>, tensor<bf16>
      tg.yield %d : tensor<bf16>
    }
    epilogue {
    ^bb0(%acc: tensor<f32>, %b: tensor<f32>):
      %sum = tg.add %acc, %b : tensor<f32>, tensor<f32>
      %out = tg.cast %sum : tensor<f32> to tensor<bf16>
      tg.yield %out : tensor<bf16>
    }
  return %y : tensor<16x8192xbf16>
}

// The dequant plan: prologue_b on the whole weight (the scale broadcast
// along K), then the op on the bf16 weight with the same epilogue.
// AUTO: remark: mixed-input matmul plan dequant: i8 weights, scaled, M=8192 K=8192 N=8192: rows at K=8192 N=8192: M=8192 (fused {{[0-9.]+}}, dequant {{[0-9.]+}}, generated {{[0-9.]+}} TFLOP/s), fused/dequant 0.{{[0-9]+}}, generated/dequant 0.{{[0-9]+}} ({{.*}})
// DEQUANT-LABEL: func.func @m8192
// DEQUANT-SAME: (%[[X:.*]]: tensor<8192x8192xbf16>, %[[W:.*]]: tensor<8192x8192xi8>, %[[S:.*]]: tensor<1x8192xbf16>, %[[B:.*]]: tensor<1x8192xf32>)
// DEQUANT: %[[H:.*]] = tg.cast %[[W]] : tensor<8192x8192xi8> to tensor<8192x8192xbf16>
// DEQUANT: %[[D:.*]] = tg.mul %[[H]], %[[S]] : tensor<8192x8192xbf16>, tensor<1x8192xbf16>
// DEQUANT: tg.fused_matmul %[[X]], %[[D]] epilogue_captures(%[[B]] : tensor<1x8192xf32>) : tensor<8192x8192xbf16>, tensor<8192x8192xbf16> -> tensor<8192x8192xbf16> prologue_a {
// DEQUANT-NEXT: } prologue_b {
// DEQUANT-NEXT: } epilogue {
// DEQUANT: tg.add
func.func @m8192(%x: tensor<8192x8192xbf16>, %w: tensor<8192x8192xi8>,
                 %s: tensor<1x8192xbf16>, %bias: tensor<1x8192xf32>)
    -> tensor<8192x8192xbf16> {
  %y = tg.fused_matmul %x, %w b_captures(%s : tensor<1x8192xbf16>)
      epilogue_captures(%bias : tensor<1x8192xf32>)
      : tensor<8192x8192xbf16>, tensor<8192x8192xi8> -> tensor<8192x8192xbf16>
    prologue_a {}
    prologue_b {
    ^bb0(%e: tensor<i8>, %c: tensor<bf16>):
      %h = tg.cast %e : tensor<i8> to tensor<bf16>
      %d = tg.mul %h, %c : tensor<bf16>, tensor<bf16>
      tg.yield %d : tensor<bf16>
    }
    epilogue {
    ^bb0(%acc: tensor<f32>, %b: tensor<f32>):
      %sum = tg.add %acc, %b : tensor<f32>, tensor<f32>
      %out = tg.cast %sum : tensor<f32> to tensor<bf16>
      tg.yield %out : tensor<bf16>
    }
  return %y : tensor<8192x8192xbf16>
}

// Between two measured M the ratio is interpolated in log M (M = 512 is
// between measured rows in the provisional table and in the bench's grid);
// a plain tg.matmul with an i8 weight dequantises by a cast to the
// activation type.
// AUTO: remark: mixed-input matmul plan {{fused|dequant}}: i8 weights, M=512 K=4096 N=4096: rows at K={{[0-9]+}} N={{[0-9]+}}: M={{[0-9]+}} (fused {{[0-9.]+}}, dequant {{[0-9.]+}}, generated {{[0-9.]+}} TFLOP/s) and M={{[0-9]+}} (fused {{[0-9.]+}}, dequant {{[0-9.]+}}, generated {{[0-9.]+}} TFLOP/s), fused/dequant {{[0-9.]+}} interpolated at M=512
// DEQUANT-LABEL: func.func @plain
// DEQUANT: %[[C:.*]] = tg.cast %{{.*}} : tensor<4096x4096xi8> to tensor<4096x4096xf16>
// DEQUANT: tg.matmul %{{.*}}, %[[C]] : tensor<512x4096xf16>, tensor<4096x4096xf16> -> tensor<512x4096xf32>
func.func @plain(%x: tensor<512x4096xf16>, %w: tensor<4096x4096xi8>) -> tensor<512x4096xf32> {
  %y = tg.matmul %x, %w : tensor<512x4096xf16>, tensor<4096x4096xi8> -> tensor<512x4096xf32>
  return %y : tensor<512x4096xf32>
}

// fp8 weights have rows of their own (the nearest K, N bucket here).
// AUTO: remark: mixed-input matmul plan {{fused|dequant|generated}}: f8E4M3FN weights, M=64 K=256 N=128: rows at K=4096 N=4096: M=64
// DEQUANT-LABEL: func.func @fp8
// DEQUANT: tg.cast %{{.*}} : tensor<256x128xf8E4M3FN> to tensor<256x128xbf16>
// DEQUANT: tg.matmul
func.func @fp8(%x: tensor<64x256xbf16>, %w: tensor<256x128xf8E4M3FN>) -> tensor<64x128xf32> {
  %y = tg.matmul %x, %w : tensor<64x256xbf16>, tensor<256x128xf8E4M3FN> -> tensor<64x128xf32>
  return %y : tensor<64x128xf32>
}

// A tg.backend = #tg<backend nvrtc> on the op keeps auto from deciding it (a forced
// plan still applies, the pin stays); 16-bit and narrow-activation matmuls
// are not mixed-input weight matmuls (no remark, no rewrite).
// AUTO: remark: mixed-input matmul plan fused: bound for nvrtc
// AUTO-NOT: remark
// DEQUANT-LABEL: func.func @not_mixed
// DEQUANT: %[[C:.*]] = tg.cast %{{.*}} : tensor<64x32xi8> to tensor<64x32xbf16>
// DEQUANT: tg.matmul %{{.*}}, %[[C]] {tg.backend = #tg<backend nvrtc>} : tensor<16x64xbf16>, tensor<64x32xbf16>
// DEQUANT-NOT: tg.cast
// DEQUANT: return
func.func @not_mixed(%x: tensor<16x64xbf16>, %w: tensor<64x32xi8>,
                     %h: tensor<64x32xbf16>, %q: tensor<16x64xi8>)
    -> (tensor<16x32xf32>, tensor<16x32xf32>, tensor<16x32xf32>) {
  %a = tg.matmul %x, %w {tg.backend = #tg<backend nvrtc>} : tensor<16x64xbf16>, tensor<64x32xi8> -> tensor<16x32xf32>
  %b = tg.matmul %x, %h : tensor<16x64xbf16>, tensor<64x32xbf16> -> tensor<16x32xf32>
  %c = tg.matmul %q, %h : tensor<16x64xi8>, tensor<64x32xbf16> -> tensor<16x32xf32>
  return %a, %b, %c : tensor<16x32xf32>, tensor<16x32xf32>, tensor<16x32xf32>
}
