// RUN: tg-emit-kernels %s | FileCheck %s

// A 16-bit x times an i8/fp8 weight runs on the device library's
// mixed-input kernel (device/mixed_matmul.cuh); the generator writes the
// configuration and the weight's prologue in one of three forms: identity,
// packed (per column or per group of rows) or per element.

// Identity (the weight converted exactly): one CTA (8 warps of 32 columns,
// the decode tile), no split.
// CHECK-LABEL: // ===== @identity: kernels: 1
// CHECK: // ----- kernel 0: tg.matmul 16x128x256 mixed-input i8
// CHECK: // grid: [1, 1, 1] block: [256, 1, 1] shared: 110592
// CHECK: static constexpr tg::device::Narrow kWeight = tg::device::Narrow::I8;
// CHECK: static constexpr int kWarps = 8, kWarpN = 32, kBlockK = 128, kStages = 3;
// CHECK: auto column = [&](long long, long long) { return 0u; };
// CHECK: return tg::device::mixed::narrow_pair<kWeight, kElem>(word, sel);
// CHECK: tg::device::mixed::mixed_matmul<MixedCfg>(
// CHECK-NEXT: reinterpret_cast<const tg::device::u16 *>(in0),
// CHECK-NEXT: reinterpret_cast<const unsigned char *>(in1), nullptr, 256LL, column, prologue, epilogue);
func.func @identity(%x: tensor<16x256xbf16>, %w: tensor<256x128xi8>) -> tensor<16x128xbf16> {
  %y = tg.matmul %x, %w : tensor<16x256xbf16>, tensor<256x128xi8> -> tensor<16x128xbf16>
  return %y : tensor<16x128xbf16>
}

// A per-column scale is loaded once per column and multiplied into packed
// pairs; a grid this small splits K, and a combine kernel adds the splits'
// partial sums (the op's own f32 scratch) in order.
// CHECK-LABEL: // ===== @column_scale: kernels: 2
// CHECK: // ----- kernel 0: tg.fused_matmul 1x1024x4096 mixed-input f8E4M3FN
// CHECK: // grid: [4, 1, 8] block: [256, 1, 1] shared: 110592
// CHECK: K in 8 splits of 512.
// CHECK: static constexpr long long kGroup = 0;
// CHECK: // Per column: the prologue's tensors, each in both halves of a pair
// CHECK-NEXT: auto column = [&](long long n, long long k) {
// CHECK-NEXT: tg::device::mixed::Pairs<1> c{};
// CHECK-NEXT: {
// CHECK-NEXT: const float value = tg_load(in2, n);
// CHECK: unsigned v = tg::device::mixed::narrow_pair<kWeight, kElem>(word, sel);
// CHECK-NEXT: v = tg::device::mul_bf16x2(v, c.v[0]);
// CHECK: partials, 512LL, column, prologue, epilogue);
// CHECK: // ----- kernel 1: tg.fused_matmul 1x1024x4096 mixed-input f8E4M3FN combine
// CHECK: // grid: [4, 1, 1] block: [256, 1, 1] shared: 0
// CHECK: tg::device::mixed::mixed_matmul_combine<MixedCfg>(partials, 8, epilogue);
func.func @column_scale(%x: tensor<1x4096xbf16>, %w: tensor<4096x1024xf8E4M3FN>, %s: tensor<1x1024xbf16>) -> tensor<1x1024xbf16> {
  %y = tg.fused_matmul %x, %w b_captures(%s : tensor<1x1024xbf16>)
      : tensor<1x4096xbf16>, tensor<4096x1024xf8E4M3FN> -> tensor<1x1024xbf16>
    prologue_a {}
    prologue_b {
    ^bb0(%e: tensor<f8E4M3FN>, %c: tensor<bf16>):
      %h = tg.cast %e : tensor<f8E4M3FN> to tensor<bf16>
      %d = tg.mul %h, %c : tensor<bf16>, tensor<bf16>
      tg.yield %d : tensor<bf16>
    }
    epilogue {}
  return %y : tensor<1x1024xbf16>
}

// Any other region runs per element, with its captures at (k, n); an i8
// element used by integer ops enters as tg's i8 compute type.
// CHECK-LABEL: // ===== @zero_point: kernels: 1
// CHECK: 64 rows per CTA
// CHECK: static constexpr int kWarps = 4, kWarpN = 32, kBlockK = 64, kStages = 4;
// CHECK: tg::device::mixed::pair_to_float<kWeight>(word, sel, 0),
// CHECK: const long long b_elem = (long long)values[i];
// CHECK-NEXT: const long long b_cap0 = tg_load(in2, n);
// CHECK: tg_wrap_i8(tg_isub(b_elem, b_cap0)); // tg.sub
// CHECK: return tg::device::pack2<kElem>(converted[0], converted[1]);
func.func @zero_point(%x: tensor<40x256xf16>, %w: tensor<256x64xi8>, %z: tensor<1x64xi8>) -> tensor<40x64xf16> {
  %y = tg.fused_matmul %x, %w b_captures(%z : tensor<1x64xi8>)
      : tensor<40x256xf16>, tensor<256x64xi8> -> tensor<40x64xf16>
    prologue_a {}
    prologue_b {
    ^bb0(%e: tensor<i8>, %c: tensor<i8>):
      %d = tg.sub %e, %c : tensor<i8>, tensor<i8>
      %h = tg.cast %d : tensor<i8> to tensor<f16>
      tg.yield %h : tensor<f16>
    }
    epilogue {}
  return %y : tensor<40x64xf16>
}

// A transposed x (an intermediate's folded view) is copied into a buffer
// first; N = 40 is no multiple of 16: the generic tiled kernel.
// CHECK-LABEL: // ===== @transposed_x: kernels: 3
// CHECK: // ----- kernel 1: copy mixed-input matmul operand 16x64
// CHECK: // ----- kernel 2: tg.matmul 16x32x64 mixed-input i8
// CHECK-LABEL: // ===== @odd_n: kernels: 1
// CHECK: // ----- kernel 0: tg.matmul 16x40x64 wmma bf16
func.func @transposed_x(%xt: tensor<64x16xbf16>, %w: tensor<64x32xi8>) -> tensor<16x32xbf16> {
  %e = tg.exp %xt : tensor<64x16xbf16>
  %x = tg.transpose %e perm = [1, 0] : tensor<64x16xbf16> -> tensor<16x64xbf16>
  %y = tg.matmul %x, %w : tensor<16x64xbf16>, tensor<64x32xi8> -> tensor<16x32xbf16>
  return %y : tensor<16x32xbf16>
}
func.func @odd_n(%x: tensor<16x64xbf16>, %w: tensor<64x40xi8>) -> tensor<16x40xbf16> {
  %y = tg.matmul %x, %w : tensor<16x64xbf16>, tensor<64x40xi8> -> tensor<16x40xbf16>
  return %y : tensor<16x40xbf16>
}

// i4 weights (two per byte): 4 warps of 64 columns (128-byte rows of
// nibbles), the packed identity; N = 48 is no multiple of 32: the generic
// tiled kernel, which reads i4 through tg_load.
// CHECK-LABEL: // ===== @i4_plain: kernels: 1
// CHECK: // ----- kernel 0: tg.matmul 16x256x512 mixed-input i4
// CHECK: static constexpr tg::device::Narrow kWeight = tg::device::Narrow::I4;
// CHECK: static constexpr int kWarps = 4, kWarpN = 64, kBlockK = 128, kStages = 3;
// CHECK: tg::device::mixed::weight_bits(MixedCfg::kWeight)) == 61440
// CHECK: return tg::device::mixed::narrow_pair<kWeight, kElem>(word, sel);
// CHECK-LABEL: // ===== @i4_odd_n: kernels: 1
// CHECK: // ----- kernel 0: tg.matmul 16x48x64 wmma bf16
// CHECK: const tg_i4x2 *__restrict__ in1
func.func @i4_plain(%x: tensor<16x512xbf16>, %w: tensor<512x256xi4>) -> tensor<16x256xbf16> {
  %y = tg.matmul %x, %w : tensor<16x512xbf16>, tensor<512x256xi4> -> tensor<16x256xbf16>
  return %y : tensor<16x256xbf16>
}
func.func @i4_odd_n(%x: tensor<16x64xbf16>, %w: tensor<64x48xi4>) -> tensor<16x48xbf16> {
  %y = tg.matmul %x, %w : tensor<16x64xbf16>, tensor<64x48xi4> -> tensor<16x48xbf16>
  return %y : tensor<16x48xbf16>
}

// Group-wise scales and zero points (the [K / G, 1, N] tensors of model
// code, which tg-fuse-matmul turns into [K, N] views of themselves): read
// once per column and group of 128 rows (kGroup), at row / 128, with no
// copy of the tensors; a splat constant is a literal; the zero point comes
// first, as written.
// CHECK-LABEL: // ===== @group_scale_zero_point: kernels: 1
// CHECK: // ----- kernel 0: tg.fused_matmul 16x256x512 mixed-input i4
// CHECK: static constexpr long long kGroup = 128;
// CHECK: // Per column and group of 128 rows: the prologue's tensors, each in both halves of a pair
// CHECK-NEXT: auto column = [&](long long n, long long k) {
// CHECK-NEXT: tg::device::mixed::Pairs<2> c{};
// CHECK-NEXT: {
// CHECK-NEXT: const float value = tg_load(in2, (k / 128) * 256 + n);
// CHECK: const float value = tg_load(in3, (k / 128) * 256 + n);
// CHECK: unsigned v = tg::device::mixed::narrow_pair<kWeight, kElem>(word, sel);
// CHECK-NEXT: v = tg::device::sub_bf16x2(v, c.v[0]);
// CHECK-NEXT: v = tg::device::mul_bf16x2(v, c.v[1]);
// CHECK-NEXT: v = tg::device::mul_bf16x2(v, tg::device::pack2<kElem>(2.0f, 2.0f));
func.func @group_scale_zero_point(%x: tensor<16x512xbf16>, %w: tensor<512x256xi4>, %z: tensor<4x1x256xbf16>,
                                  %s: tensor<4x1x256xbf16>) -> tensor<16x256xbf16> {
  %zb = tg.broadcast %z : tensor<4x1x256xbf16> -> tensor<4x128x256xbf16>
  %zv = tg.reshape %zb : tensor<4x128x256xbf16> -> tensor<512x256xbf16>
  %sb = tg.broadcast %s : tensor<4x1x256xbf16> -> tensor<4x128x256xbf16>
  %sv = tg.reshape %sb : tensor<4x128x256xbf16> -> tensor<512x256xbf16>
  %y = tg.fused_matmul %x, %w b_captures(%zv, %sv : tensor<512x256xbf16>, tensor<512x256xbf16>)
      : tensor<16x512xbf16>, tensor<512x256xi4> -> tensor<16x256xbf16>
    prologue_a {}
    prologue_b {
    ^bb0(%e: tensor<i4>, %cz: tensor<bf16>, %cs: tensor<bf16>):
      %two = tg.constant dense<2.0> : tensor<bf16>
      %h = tg.cast %e : tensor<i4> to tensor<bf16>
      %d = tg.sub %h, %cz : tensor<bf16>, tensor<bf16>
      %m = tg.mul %d, %cs : tensor<bf16>, tensor<bf16>
      %t = tg.mul %m, %two : tensor<bf16>, tensor<bf16>
      tg.yield %t : tensor<bf16>
    }
    epilogue {}
  return %y : tensor<16x256xbf16>
}

// Groups of 8 rows split a k16 step: the per-element prologue, which reads
// the view at row / 8 for each element.
// CHECK-LABEL: // ===== @group_of_eight: kernels: 1
// CHECK: static constexpr long long kGroup = 0;
// CHECK: // prologue_b per element
// CHECK: const float b_cap0 = tg_load(in2, (k / 8) * 64 + n);
func.func @group_of_eight(%x: tensor<16x64xbf16>, %w: tensor<64x64xi8>, %s: tensor<8x1x64xbf16>) -> tensor<16x64xbf16> {
  %sb = tg.broadcast %s : tensor<8x1x64xbf16> -> tensor<8x8x64xbf16>
  %sv = tg.reshape %sb : tensor<8x8x64xbf16> -> tensor<64x64xbf16>
  %y = tg.fused_matmul %x, %w b_captures(%sv : tensor<64x64xbf16>)
      : tensor<16x64xbf16>, tensor<64x64xi8> -> tensor<16x64xbf16>
    prologue_a {}
    prologue_b {
    ^bb0(%e: tensor<i8>, %c: tensor<bf16>):
      %h = tg.cast %e : tensor<i8> to tensor<bf16>
      %d = tg.mul %h, %c : tensor<bf16>, tensor<bf16>
      tg.yield %d : tensor<bf16>
    }
    epilogue {}
  return %y : tensor<16x64xbf16>
}
