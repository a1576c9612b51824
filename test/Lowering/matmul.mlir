// RUN: tg-emit-kernels %s | FileCheck %s

// bf16 x bf16 uses tensor cores: tiles staged as bf16 in shared memory,
// wmma 16x16x16 with f32 accumulators, zero padding at the edges.
// CHECK-LABEL: // ===== @bf16_wmma: kernels: 1
// CHECK: // ----- kernel 0: tg.matmul 128x128x64 batch 16 wmma bf16
// CHECK: // grid: [64, 1, 1] block: [128, 1, 1]
// CHECK: #include <mma.h>
// CHECK: // Tensor cores: wmma 16x16x16 on bf16 tiles with f32 accumulation.
// CHECK: constexpr long long kM = 128LL, kN = 128LL, kK = 64LL, kBatch = 16LL;
// CHECK: __shared__ __align__(32) __nv_bfloat16 tileA[BM][BK + 8];
// CHECK: const long long batch = tile / (kTilesN * kTilesM);
// CHECK: const long long b0 = (batch / 8);
// CHECK-NEXT: const long long b1 = batch % 8;
// CHECK: __nv_bfloat16 staged = __float2bfloat16_rn(0.0f); // zero outside the matrix
// CHECK-NEXT: if (m < kM && k < kK) {
// CHECK-NEXT: const float a_elem = tg_load(in0, b0 * 65536 + b1 * 8192 + m * 64 + k);
// CHECK: const float b_elem = tg_load(in1, b0 * 65536 + b1 * 8192 + k * 128 + n);
// CHECK: nvcuda::wmma::mma_sync(acc[i][j], fragA[i], fragB[j], acc[i][j]);
// CHECK: nvcuda::wmma::store_matrix_sync(&tileC[warpRow + 16 * i][warpCol + 16 * j], acc[i][j],
// CHECK: if (m < kM && n < kN) {
// CHECK-NEXT: const float acc_elem = tileC[r][c];
// CHECK-NEXT: tg_store(out0, (batch * kM + m) * kN + n, acc_elem);
func.func @bf16_wmma(%a: tensor<2x8x128x64xbf16>, %b: tensor<2x8x64x128xbf16>) -> tensor<2x8x128x128xf32> {
  %c = tg.matmul %a, %b : tensor<2x8x128x64xbf16>, tensor<2x8x64x128xbf16> -> tensor<2x8x128x128xf32>
  return %c : tensor<2x8x128x128xf32>
}

// Odd f16 shapes still use tensor cores; the result rounds to f16.
// CHECK-LABEL: // ===== @f16_odd: kernels: 1
// CHECK: tg.matmul 7x5x33 wmma f16
// CHECK: tg_store(out0, m * kN + n, tg_round_f16(acc_elem));
func.func @f16_odd(%a: tensor<1x7x33xf16>, %b: tensor<1x33x5xf16>) -> tensor<1x7x5xf16> {
  %c = tg.matmul %a, %b : tensor<1x7x33xf16>, tensor<1x33x5xf16> -> tensor<1x7x5xf16>
  return %c : tensor<1x7x5xf16>
}

// Operands that convert exactly (i8 into f16, fp8 into bf16) use tensor
// cores too.
// CHECK-LABEL: // ===== @i8_f16: kernels: 1
// CHECK: tg.matmul 16x32x64 wmma f16
// CHECK: staged = __float2half_rn((float)a_elem);
// CHECK-LABEL: // ===== @fp8_bf16: kernels: 1
// CHECK: tg.matmul 33x7x40 wmma bf16
// CHECK: tg_store(out0, m * kN + n, tg_round_f8e5m2(acc_elem));
func.func @i8_f16(%a: tensor<16x64xi8>, %b: tensor<64x32xf16>) -> tensor<16x32xf32> {
  %c = tg.matmul %a, %b : tensor<16x64xi8>, tensor<64x32xf16> -> tensor<16x32xf32>
  return %c : tensor<16x32xf32>
}
func.func @fp8_bf16(%a: tensor<33x40xf8E4M3FN>, %b: tensor<40x7xbf16>) -> tensor<33x7xf8E5M2> {
  %c = tg.matmul %a, %b : tensor<33x40xf8E4M3FN>, tensor<40x7xbf16> -> tensor<33x7xf8E5M2>
  return %c : tensor<33x7xf8E5M2>
}

// f32 operands (and bf16 x f16, which share no exact 16-bit type) use the
// SIMT engine; batch dimensions broadcast (size 1 -> coordinate 0).
// CHECK-LABEL: // ===== @f32_simt_broadcast: kernels: 1
// CHECK: tg.matmul 17x65x9 batch 6 simt
// CHECK: // grid: [12, 1, 1] block: [256, 1, 1]
// CHECK-NOT: mma.h
// CHECK: // SIMT: each thread accumulates a 4x4 block in f32.
// CHECK: __shared__ float tileA[BM][BK + 1];
// CHECK: const float a_elem = tg_load(in0, b0 * 153 + m * 9 + k);
// CHECK: const float b_elem = tg_load(in1, b1 * 585 + k * 65 + n);
// CHECK: acc[i][j] += a[i] * b[j];
// CHECK: tg_store(out0, (batch * kM + m) * kN + n, acc_elem);
func.func @f32_simt_broadcast(%a: tensor<2x1x17x9xf32>, %b: tensor<1x3x9x65xf32>) -> tensor<2x3x17x65xf32> {
  %c = tg.matmul %a, %b : tensor<2x1x17x9xf32>, tensor<1x3x9x65xf32> -> tensor<2x3x17x65xf32>
  return %c : tensor<2x3x17x65xf32>
}
// CHECK-LABEL: // ===== @bf16_f16: kernels: 1
// CHECK: tg.matmul 5x7x6 simt
func.func @bf16_f16(%a: tensor<5x6xbf16>, %b: tensor<6x7xf16>) -> tensor<5x7xf32> {
  %c = tg.matmul %a, %b : tensor<5x6xbf16>, tensor<6x7xf16> -> tensor<5x7xf32>
  return %c : tensor<5x7xf32>
}

// Integer operands accumulate in i32 with wrap-around, then wrap to the
// result type.
// CHECK-LABEL: // ===== @int_simt: kernels: 1
// CHECK: // SIMT: each thread accumulates a 4x4 block in i32.
// CHECK: __shared__ int tileA[BM][BK + 1];
// CHECK: unsigned int acc[4][4];
// CHECK: staged = (int)tg_wrap_i32(a_elem);
// CHECK: acc[i][j] += (unsigned int)a[i] * (unsigned int)b[j];
// CHECK: const long long acc_elem = (long long)(int)acc[i][j];
// CHECK-NEXT: tg_store(out0, m * kN + n, tg_wrap_i8(acc_elem));
func.func @int_simt(%a: tensor<5x6xi64>, %b: tensor<6x7xi32>) -> tensor<5x7xi8> {
  %c = tg.matmul %a, %b acc = i32 : tensor<5x6xi64>, tensor<6x7xi32> -> tensor<5x7xi8>
  return %c : tensor<5x7xi8>
}

// A transposed operand is read through strides, not copied.
// CHECK-LABEL: // ===== @transposed_k: kernels: 1
// CHECK: tg.matmul 17x33x64 batch 2 wmma bf16
// CHECK: const float b_elem = tg_load(in1, b1 * 2112 + k + n * 64);
func.func @transposed_k(%q: tensor<1x2x17x64xbf16>, %k: tensor<1x2x33x64xbf16>) -> tensor<1x2x17x33xf32> {
  %kt = tg.transpose %k perm = [0, 1, 3, 2] : tensor<1x2x33x64xbf16> -> tensor<1x2x64x33xbf16>
  %s = tg.matmul %q, %kt : tensor<1x2x17x64xbf16>, tensor<1x2x64x33xbf16> -> tensor<1x2x17x33xf32>
  return %s : tensor<1x2x17x33xf32>
}
