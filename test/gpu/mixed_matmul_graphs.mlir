// Mixed-input matmuls for the generated kernel (device/mixed_matmul.cuh),
// run on the GPU by run_all.sh's `mixed` stage:
//   tg-run test/gpu/mixed_matmul_graphs.mlir --entry=NAME --check --mixed-matmul=generated
// Each prologue form (identity, per-column scale, a generic region), every
// weight type (i4 included), split K with a K tail, several CTAs of rows, a batched x,
// an epilogue, and decode/prefill sizes; the last four are group-wise
// quantisation as model code writes it (the weight viewed as [K / G, G, N],
// scaled and shifted by [K / G, 1, N] tensors, viewed back), which the
// compile pipeline fuses into the kernel's per-group prologue. The first five are also
// test/unit/Lowering/KernelGraphs.cpp's "mixed_matmul" graphs (NVRTC
// compile in CI).
// RUN: tg-emit-kernels %s | FileCheck %s
// CHECK-COUNT-13: // ----- kernel 0: {{.*}} mixed-input
func.func @i8_plain(%x: tensor<16x256xbf16>, %w: tensor<256x128xi8>) -> tensor<16x128xbf16> {
  %y = tg.matmul %x, %w : tensor<16x256xbf16>, tensor<256x128xi8> -> tensor<16x128xbf16>
  return %y : tensor<16x128xbf16>
}
func.func @i8_column_scale_split(%x: tensor<3x5x1024xbf16>, %w: tensor<1x1024x48xi8>, %scale: tensor<1x1x48xbf16>) -> tensor<3x5x48xf32> {
  %y = tg.fused_matmul %x, %w b_captures(%scale : tensor<1x1x48xbf16>)
      : tensor<3x5x1024xbf16>, tensor<1x1024x48xi8> -> tensor<3x5x48xf32>
    prologue_a {}
    prologue_b {
    ^bb0(%e: tensor<i8>, %s: tensor<bf16>):
      %h = tg.cast %e : tensor<i8> to tensor<bf16>
      %d = tg.mul %s, %h : tensor<bf16>, tensor<bf16>
      tg.yield %d : tensor<bf16>
    }
    epilogue {}
  return %y : tensor<3x5x48xf32>
}
func.func @i8_zero_point_generic(%x: tensor<40x200xf16>, %w: tensor<200x64xi8>, %zero: tensor<1x64xi8>, %scale: tensor<200x1xf16>) -> tensor<40x64xf16> {
  %y = tg.fused_matmul %x, %w b_captures(%zero, %scale : tensor<1x64xi8>, tensor<200x1xf16>)
      : tensor<40x200xf16>, tensor<200x64xi8> -> tensor<40x64xf16>
    prologue_a {}
    prologue_b {
    ^bb0(%e: tensor<i8>, %z: tensor<i8>, %s: tensor<f16>):
      %d = tg.sub %e, %z : tensor<i8>, tensor<i8>
      %h = tg.cast %d : tensor<i8> to tensor<f16>
      %r = tg.mul %h, %s : tensor<f16>, tensor<f16>
      tg.yield %r : tensor<f16>
    }
    epilogue {}
  return %y : tensor<40x64xf16>
}
func.func @e4m3_scale_epilogue(%x: tensor<100x512xbf16>, %w: tensor<512x96xf8E4M3FN>, %scale: tensor<bf16>, %bias: tensor<1x96xf32>) -> tensor<100x96xbf16> {
  %y = tg.fused_matmul %x, %w b_captures(%scale : tensor<bf16>) epilogue_captures(%bias : tensor<1x96xf32>)
      : tensor<100x512xbf16>, tensor<512x96xf8E4M3FN> -> tensor<100x96xbf16>
    prologue_a {}
    prologue_b {
    ^bb0(%e: tensor<f8E4M3FN>, %s: tensor<bf16>):
      %h = tg.cast %e : tensor<f8E4M3FN> to tensor<bf16>
      %d = tg.mul %h, %s : tensor<bf16>, tensor<bf16>
      tg.yield %d : tensor<bf16>
    }
    epilogue {
    ^bb0(%acc: tensor<f32>, %b: tensor<f32>):
      %a = tg.add %acc, %b : tensor<f32>, tensor<f32>
      %c = tg.cast %a : tensor<f32> to tensor<bf16>
      tg.yield %c : tensor<bf16>
    }
  return %y : tensor<100x96xbf16>
}
func.func @e5m2_identity_tail(%x: tensor<1x72xf16>, %w: tensor<72x32xf8E5M2>) -> tensor<1x32xf16> {
  %y = tg.matmul %x, %w : tensor<1x72xf16>, tensor<72x32xf8E5M2> -> tensor<1x32xf16>
  return %y : tensor<1x32xf16>
}
func.func @decode_i8_scaled(%x: tensor<1x4096xbf16>, %w: tensor<4096x4096xi8>, %scale: tensor<1x4096xbf16>) -> tensor<1x4096xbf16> {
  %y = tg.fused_matmul %x, %w b_captures(%scale : tensor<1x4096xbf16>)
      : tensor<1x4096xbf16>, tensor<4096x4096xi8> -> tensor<1x4096xbf16>
    prologue_a {}
    prologue_b {
    ^bb0(%e: tensor<i8>, %s: tensor<bf16>):
      %h = tg.cast %e : tensor<i8> to tensor<bf16>
      %d = tg.mul %h, %s : tensor<bf16>, tensor<bf16>
      tg.yield %d : tensor<bf16>
    }
    epilogue {}
  return %y : tensor<1x4096xbf16>
}
func.func @decode16_e4m3_scaled(%x: tensor<16x2048xbf16>, %w: tensor<2048x6144xf8E4M3FN>, %scale: tensor<1x6144xbf16>) -> tensor<16x6144xbf16> {
  %y = tg.fused_matmul %x, %w b_captures(%scale : tensor<1x6144xbf16>)
      : tensor<16x2048xbf16>, tensor<2048x6144xf8E4M3FN> -> tensor<16x6144xbf16>
    prologue_a {}
    prologue_b {
    ^bb0(%e: tensor<f8E4M3FN>, %s: tensor<bf16>):
      %h = tg.cast %e : tensor<f8E4M3FN> to tensor<bf16>
      %d = tg.mul %h, %s : tensor<bf16>, tensor<bf16>
      tg.yield %d : tensor<bf16>
    }
    epilogue {}
  return %y : tensor<16x6144xbf16>
}
func.func @prefill_i8(%x: tensor<4x128x1024xbf16>, %w: tensor<1x1024x1024xi8>) -> tensor<4x128x1024xbf16> {
  %y = tg.matmul %x, %w : tensor<4x128x1024xbf16>, tensor<1x1024x1024xi8> -> tensor<4x128x1024xbf16>
  return %y : tensor<4x128x1024xbf16>
}
func.func @i4_scaled_tail(%x: tensor<5x200xbf16>, %w: tensor<200x96xi4>, %scale: tensor<1x96xbf16>) -> tensor<5x96xbf16> {
  %y = tg.fused_matmul %x, %w b_captures(%scale : tensor<1x96xbf16>)
      : tensor<5x200xbf16>, tensor<200x96xi4> -> tensor<5x96xbf16>
    prologue_a {}
    prologue_b {
    ^bb0(%e: tensor<i4>, %s: tensor<bf16>):
      %h = tg.cast %e : tensor<i4> to tensor<bf16>
      %d = tg.mul %h, %s : tensor<bf16>, tensor<bf16>
      tg.yield %d : tensor<bf16>
    }
    epilogue {}
  return %y : tensor<5x96xbf16>
}
func.func @i4_zero_point_row_scale_generic(%x: tensor<40x256xf16>, %w: tensor<256x64xi4>, %zero: tensor<1x64xf16>, %scale: tensor<256x1xf16>) -> tensor<40x64xf16> {
  %y = tg.fused_matmul %x, %w b_captures(%zero, %scale : tensor<1x64xf16>, tensor<256x1xf16>)
      : tensor<40x256xf16>, tensor<256x64xi4> -> tensor<40x64xf16>
    prologue_a {}
    prologue_b {
    ^bb0(%e: tensor<i4>, %z: tensor<f16>, %s: tensor<f16>):
      %h = tg.cast %e : tensor<i4> to tensor<f16>
      %d = tg.sub %h, %z : tensor<f16>, tensor<f16>
      %r = tg.mul %d, %s : tensor<f16>, tensor<f16>
      tg.yield %r : tensor<f16>
    }
    epilogue {}
  return %y : tensor<40x64xf16>
}
func.func @decode_i4_scaled(%x: tensor<1x4096xbf16>, %w: tensor<4096x4096xi4>, %scale: tensor<1x4096xbf16>) -> tensor<1x4096xbf16> {
  %y = tg.fused_matmul %x, %w b_captures(%scale : tensor<1x4096xbf16>)
      : tensor<1x4096xbf16>, tensor<4096x4096xi4> -> tensor<1x4096xbf16>
    prologue_a {}
    prologue_b {
    ^bb0(%e: tensor<i4>, %s: tensor<bf16>):
      %h = tg.cast %e : tensor<i4> to tensor<bf16>
      %d = tg.mul %h, %s : tensor<bf16>, tensor<bf16>
      tg.yield %d : tensor<bf16>
    }
    epilogue {}
  return %y : tensor<1x4096xbf16>
}
func.func @decode16_i4(%x: tensor<16x2048xbf16>, %w: tensor<2048x6144xi4>) -> tensor<16x6144xbf16> {
  %y = tg.matmul %x, %w : tensor<16x2048xbf16>, tensor<2048x6144xi4> -> tensor<16x6144xbf16>
  return %y : tensor<16x6144xbf16>
}
func.func @prefill_i4(%x: tensor<4x128x1024xbf16>, %w: tensor<1x1024x1024xi4>) -> tensor<4x128x1024xbf16> {
  %y = tg.matmul %x, %w : tensor<4x128x1024xbf16>, tensor<1x1024x1024xi4> -> tensor<4x128x1024xbf16>
  return %y : tensor<4x128x1024xbf16>
}
func.func @i4_group128_as_written(%x: tensor<16x2048xbf16>, %w: tensor<2048x512xi4>, %s: tensor<16x1x512xbf16>) -> tensor<16x512xbf16> {
  %wf = tg.cast %w : tensor<2048x512xi4> to tensor<2048x512xbf16>
  %wg = tg.reshape %wf : tensor<2048x512xbf16> -> tensor<16x128x512xbf16>
  %ws = tg.mul %wg, %s : tensor<16x128x512xbf16>, tensor<16x1x512xbf16>
  %wd = tg.reshape %ws : tensor<16x128x512xbf16> -> tensor<2048x512xbf16>
  %y = tg.matmul %x, %wd : tensor<16x2048xbf16>, tensor<2048x512xbf16> -> tensor<16x512xbf16>
  return %y : tensor<16x512xbf16>
}
func.func @i4_group32_zero_point(%x: tensor<5x512xf16>, %w: tensor<512x256xi4>, %z: tensor<16x1x256xf16>, %s: tensor<16x1x256xf16>) -> tensor<5x256xf16> {
  %wf = tg.cast %w : tensor<512x256xi4> to tensor<512x256xf16>
  %wg = tg.reshape %wf : tensor<512x256xf16> -> tensor<16x32x256xf16>
  %wz = tg.sub %wg, %z : tensor<16x32x256xf16>, tensor<16x1x256xf16>
  %ws = tg.mul %wz, %s : tensor<16x32x256xf16>, tensor<16x1x256xf16>
  %wd = tg.reshape %ws : tensor<16x32x256xf16> -> tensor<512x256xf16>
  %y = tg.matmul %x, %wd : tensor<5x512xf16>, tensor<512x256xf16> -> tensor<5x256xf16>
  return %y : tensor<5x256xf16>
}
func.func @i8_group64_viewed_first(%x: tensor<33x384xbf16>, %w: tensor<384x96xi8>, %s: tensor<6x1x96xbf16>) -> tensor<33x96xbf16> {
  %wg = tg.reshape %w : tensor<384x96xi8> -> tensor<6x64x96xi8>
  %wf = tg.cast %wg : tensor<6x64x96xi8> to tensor<6x64x96xbf16>
  %ws = tg.mul %wf, %s : tensor<6x64x96xbf16>, tensor<6x1x96xbf16>
  %wd = tg.reshape %ws : tensor<6x64x96xbf16> -> tensor<384x96xbf16>
  %y = tg.matmul %x, %wd : tensor<33x384xbf16>, tensor<384x96xbf16> -> tensor<33x96xbf16>
  return %y : tensor<33x96xbf16>
}
func.func @decode_i4_group128(%x: tensor<1x4096xbf16>, %w: tensor<4096x4096xi4>, %s: tensor<32x1x4096xbf16>) -> tensor<1x4096xbf16> {
  %wf = tg.cast %w : tensor<4096x4096xi4> to tensor<4096x4096xbf16>
  %wg = tg.reshape %wf : tensor<4096x4096xbf16> -> tensor<32x128x4096xbf16>
  %ws = tg.mul %wg, %s : tensor<32x128x4096xbf16>, tensor<32x1x4096xbf16>
  %wd = tg.reshape %ws : tensor<32x128x4096xbf16> -> tensor<4096x4096xbf16>
  %y = tg.matmul %x, %wd : tensor<1x4096xbf16>, tensor<4096x4096xbf16> -> tensor<1x4096xbf16>
  return %y : tensor<1x4096xbf16>
}
