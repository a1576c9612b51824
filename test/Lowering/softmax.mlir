// RUN: tg-emit-kernels %s | FileCheck %s

// Last axis: one warp per row, three passes in f32, safe for fully masked
// rows; the result is rounded to the element type.
// CHECK-LABEL: // ===== @last_axis: kernels: 1
// CHECK: // tg.softmax along axis 3 of [2, 3, 17, 9] bf16: 102 rows of 9, one warp per row
// CHECK: const long long outBase = row * kLength;
// CHECK: float rowMax = -TG_INF;
// CHECK-NEXT: for (long long j = tid; j < kLength; j += 32)
// CHECK-NEXT: rowMax = tg_fmax(rowMax, tg_load(in0, c0 * 459 + c1 * 153 + c2 * 9 + j)); // NaN propagates
// CHECK-NEXT: rowMax = tg_warp_reduce(rowMax, tg_max_op());
// CHECK: const bool masked = rowMax == -TG_INF;
// CHECK: rowSum += expf(tg_load(in0, c0 * 459 + c1 * 153 + c2 * 9 + j) - rowMax);
// CHECK: rowSum = tg_warp_reduce(rowSum, tg_sum_op());
// CHECK: const float p = masked ? 0.0f : expf(tg_load(in0, c0 * 459 + c1 * 153 + c2 * 9 + j) - rowMax) / rowSum;
// CHECK-NEXT: tg_store(out0, outBase + j, tg_round_bf16(p));
// CHECK-NOT: logf
func.func @last_axis(%x: tensor<2x3x17x9xbf16>) -> tensor<2x3x17x9xbf16> {
  %0 = tg.softmax %x axis = 3 : tensor<2x3x17x9xbf16>
  return %0 : tensor<2x3x17x9xbf16>
}

// A middle axis: rows are the other coordinates, the output stride along
// the axis is the product of the inner dimensions; stats are the
// log-sum-exp (-inf for masked rows) in f32.
// CHECK-LABEL: // ===== @middle_axis_stats: kernels: 1
// CHECK: // args: %{{.*}} (in) %[[OUT:.*]] (out) %[[LSE:.*]] (out)
// CHECK: tg_softmax_0(const __half *__restrict__ in0,
// CHECK-NEXT: __half *__restrict__ out0,
// CHECK-NEXT: float *__restrict__ out1) {
// CHECK: constexpr long long kInner = 153LL;
// CHECK: const long long c0 = (row / 153);
// CHECK-NEXT: const long long c2 = (row / 9) % 17;
// CHECK-NEXT: const long long c3 = row % 9;
// CHECK: // Element j of this row is at coordinates (c0, j, c2, c3)
// CHECK-NEXT: const long long outBase = (row / kInner) * kLength * kInner + row % kInner;
// CHECK: tg_store(out0, outBase + j * kInner, tg_round_f16(p));
// CHECK: tg_store(out1, row, masked ? -TG_INF : rowMax + logf(rowSum));
func.func @middle_axis_stats(%x: tensor<2x3x17x9xf16>) -> (tensor<2x3x17x9xf16>, tensor<2x1x17x9xf32>) {
  %0, %lse = tg.softmax %x axis = 1 : tensor<2x3x17x9xf16> stats tensor<2x1x17x9xf32>
  return %0, %lse : tensor<2x3x17x9xf16>, tensor<2x1x17x9xf32>
}

// Long rows get a whole block and shared-memory combines.
// CHECK-LABEL: // ===== @long_rows: kernels: 1
// CHECK: 2 rows of 4096, one block per row
// CHECK: __shared__ float scratch[32];
// CHECK: rowMax = tg_block_reduce(rowMax, tg_max_op(), scratch);
// CHECK: rowSum = tg_block_reduce(rowSum, tg_sum_op(), scratch);
func.func @long_rows(%x: tensor<2x4096xf32>) -> tensor<2x4096xf32> {
  %0 = tg.softmax %x axis = 1 : tensor<2x4096xf32>
  return %0 : tensor<2x4096xf32>
}
