// RUN: tg-emit-kernels %s | FileCheck %s

// Short reductions: one warp per output, lanes stride the reduced elements,
// shuffle combine; the kept and reduced coordinates index the input. Float
// sums accumulate in double and round once.
// CHECK-LABEL: // ===== @sum_last: kernels: 1
// CHECK: // tg.reduce sum over dims [2] of [2, 7, 33] bf16 -> [2, 7, 1]: 14 outputs of 33 elements, one warp per output
// CHECK: constexpr long long kOutputs = 14LL;
// CHECK: constexpr long long kExtent = 33LL;
// CHECK: const int tid = threadIdx.x & 31; // lane
// CHECK: for (long long o = (long long)blockIdx.x * 8 + (threadIdx.x >> 5); o < kOutputs;
// CHECK: const long long c0 = (o / 7);
// CHECK-NEXT: const long long c1 = o % 7;
// CHECK: double acc = 0.0;
// CHECK-NEXT: for (long long r = tid; r < kExtent; r += 32) {
// CHECK-NEXT: const long long c2 = r;
// CHECK-NEXT: const double x = tg_load(in0, c0 * 231 + c1 * 33 + c2);
// CHECK-NEXT: acc = tg_sum_op()(acc, x);
// CHECK: acc = tg_warp_reduce(acc, tg_sum_op());
// CHECK-NEXT: if (tid == 0)
// CHECK-NEXT: tg_store(out0, o, tg_dround_bf16(acc));
func.func @sum_last(%x: tensor<2x7x33xbf16>) -> tensor<2x7x1xbf16> {
  %0 = tg.reduce sum %x dims = [2] keepdim : tensor<2x7x33xbf16> -> tensor<2x7x1xbf16>
  return %0 : tensor<2x7x1xbf16>
}

// Several non-adjacent dimensions; max starts from -inf.
// CHECK-LABEL: // ===== @max_outer: kernels: 1
// CHECK: -> [7]: 7 outputs of 66 elements, one warp per output
// CHECK: const long long c1 = o;
// CHECK: float acc = (-TG_INF);
// CHECK: const long long c0 = (r / 33);
// CHECK-NEXT: const long long c2 = r % 33;
// CHECK-NEXT: const float x = tg_load(in0, c0 * 231 + c1 * 33 + c2);
// CHECK-NEXT: acc = tg_max_op()(acc, x);
// CHECK: tg_store(out0, o, acc);
func.func @max_outer(%x: tensor<2x7x33xf32>) -> tensor<7xf32> {
  %0 = tg.reduce max %x dims = [0, 2] : tensor<2x7x33xf32> -> tensor<7xf32>
  return %0 : tensor<7xf32>
}

// Long reductions: one block per output, combined through shared memory;
// integers accumulate in 64 bits and wrap to their width; the transposed
// input is read through strides.
// CHECK-LABEL: // ===== @long_int_sum: kernels: 1
// CHECK: 3 outputs of 5000 elements, one block per output
// CHECK: __shared__ long long scratch[32];
// CHECK: for (long long o = blockIdx.x; o < kOutputs; o += gridDim.x) {
// CHECK: long long acc = 0LL;
// CHECK-NEXT: for (long long r = tid; r < kExtent; r += 256) {
// CHECK: const long long x = tg_load(in0, c0 + c1 * 3);
// CHECK: acc = tg_block_reduce(acc, tg_sum_op(), scratch);
// CHECK: tg_store(out0, o, tg_wrap_i32(acc));
func.func @long_int_sum(%x: tensor<5000x3xi32>) -> tensor<3x1xi32> {
  %t = tg.transpose %x perm = [1, 0] : tensor<5000x3xi32> -> tensor<3x5000xi32>
  %s = tg.reduce sum %t dims = [1] keepdim : tensor<3x5000xi32> -> tensor<3x1xi32>
  return %s : tensor<3x1xi32>
}

// A full reduction to a scalar; min of i64 starts from the largest i64.
// CHECK-LABEL: // ===== @min_all: kernels: 1
// CHECK: 1 outputs of 24 elements
// CHECK: long long acc = TG_I64_MAX;
// CHECK: acc = tg_min_op()(acc, x);
// CHECK: tg_store(out0, o, acc);
func.func @min_all(%x: tensor<2x3x4xi64>) -> tensor<i64> {
  %s = tg.reduce min %x dims = [0, 1, 2] : tensor<2x3x4xi64> -> tensor<i64>
  return %s : tensor<i64>
}
