// RUN: tg-emit-kernels %s | FileCheck %s

// A chain of pointwise ops of one shape becomes ONE kernel: one temporary
// per op, rounded to its type, and only the last result is stored.
// CHECK-LABEL: // ===== @chain: kernels: 1
// CHECK: // ----- kernel 0: pointwise sub+exp+mul+cast 2x8x16x16
// CHECK: // args: %[[X:.*]] (in) %[[M:.*]] (in) %[[OUT:.*]] (out)
// CHECK: tg_pointwise_0(const float *__restrict__ in0,
// CHECK-NEXT: const float *__restrict__ in1,
// CHECK-NEXT: __nv_bfloat16 *__restrict__ out0) {
// CHECK: const float x0 = tg_load(in0, i);
// CHECK: const float x1 = tg_load(in1, c0 * 128 + c1 * 16 + c2);
// CHECK: // tg.sub
// CHECK-NEXT: const float t0 = x0 - x1;
// CHECK-NEXT: // tg.exp
// CHECK-NEXT: const float t1 = expf(t0);
// CHECK-NEXT: // tg.mul
// CHECK-NEXT: const float t2 = t1 * 0.125f;
// CHECK-NEXT: // tg.cast
// CHECK-NEXT: const float t3 = tg_round_bf16(t2);
// CHECK-NEXT: // Store
// CHECK-NEXT: tg_store(out0, i, t3);
// CHECK-NOT: tg_store
// CHECK-NOT: ----- kernel 1
func.func @chain(%x: tensor<2x8x16x16xf32>, %m: tensor<2x8x16x1xf32>) -> tensor<2x8x16x16xbf16> {
  %d = tg.sub %x, %m : tensor<2x8x16x16xf32>, tensor<2x8x16x1xf32>
  %e = tg.exp %d : tensor<2x8x16x16xf32>
  %c = tg.constant dense<0.125> : tensor<f32>
  %s = tg.mul %e, %c : tensor<2x8x16x16xf32>, tensor<f32>
  %b = tg.cast %s : tensor<2x8x16x16xf32> to tensor<2x8x16x16xbf16>
  return %b : tensor<2x8x16x16xbf16>
}

// A value used twice inside the same group is computed once (x * x).
// CHECK-LABEL: // ===== @square: kernels: 1
// CHECK: pointwise exp+mul
// CHECK: const float t0 = tg_round_bf16(expf(x0));
// CHECK-NEXT: // tg.mul
// CHECK-NEXT: const float t1 = tg_round_bf16(t0 * t0);
func.func @square(%x: tensor<4x4xbf16>) -> tensor<4x4xbf16> {
  %e = tg.exp %x : tensor<4x4xbf16>
  %s = tg.mul %e, %e : tensor<4x4xbf16>, tensor<4x4xbf16>
  return %s : tensor<4x4xbf16>
}

// Results used outside the group (by a reduce, by the return, or by an op
// of another shape) end their group and are stored.
// CHECK-LABEL: // ===== @split: kernels: 4
// CHECK: // ----- kernel 0: pointwise exp 4x8
// CHECK: // args: %{{.*}} (in) %[[E:.*]] (out)
// CHECK: // ----- kernel 1: reduce sum 4x8 -> 4x1
// CHECK: // args: %[[E]] (in) %[[S:.*]] (out)
// CHECK: // ----- kernel 2: pointwise log 4x1
// CHECK: // args: %[[S]] (in) %[[L:.*]] (out)
// CHECK: // ----- kernel 3: pointwise sub+neg 4x8
// CHECK: // args: %[[E]] (in) %[[L]] (in) %{{.*}} (out)
func.func @split(%x: tensor<4x8xf32>) -> (tensor<4x8xf32>, tensor<4x1xf32>) {
  %e = tg.exp %x : tensor<4x8xf32>
  %s = tg.reduce sum %e dims = [1] keepdim : tensor<4x8xf32> -> tensor<4x1xf32>
  %l = tg.log %s : tensor<4x1xf32>
  %d = tg.sub %e, %l : tensor<4x8xf32>, tensor<4x1xf32>
  %n = tg.neg %d : tensor<4x8xf32>
  return %n, %l : tensor<4x8xf32>, tensor<4x1xf32>
}

// Dead ops get no kernel.
// CHECK-LABEL: // ===== @dead: kernels: 1
// CHECK: pointwise abs 8
// CHECK-NOT: tanh
func.func @dead(%x: tensor<8xf32>) -> tensor<8xf32> {
  %t = tg.tanh %x : tensor<8xf32>
  %u = tg.exp %t : tensor<8xf32>
  %a = tg.abs %x : tensor<8xf32>
  return %a : tensor<8xf32>
}

// Integer chains compute in 64 bits with wrap-around, then wrap to width.
// CHECK-LABEL: // ===== @ints: kernels: 1
// CHECK: const long long t0 = tg_wrap_i8(tg_iadd(x0, x1));
// CHECK-NEXT: // tg.div
// CHECK-NEXT: const long long t1 = tg_wrap_i8(tg_idiv(t0, 3LL));
// CHECK-NEXT: // tg.neg
// CHECK-NEXT: const long long t2 = tg_wrap_i8(tg_ineg(t1));
// CHECK-NEXT: // tg.cmp
// CHECK-NEXT: const bool t3 = t2 >= (-1LL);
// CHECK: tg_store(out0, i, t3);
func.func @ints(%a: tensor<5xi8>, %b: tensor<5xi8>) -> tensor<5xi1> {
  %s = tg.add %a, %b : tensor<5xi8>, tensor<5xi8>
  %three = tg.constant dense<3> : tensor<i8>
  %d = tg.div %s, %three : tensor<5xi8>, tensor<i8>
  %n = tg.neg %d : tensor<5xi8>
  %m1 = tg.constant dense<-1> : tensor<i8>
  %c = tg.cmp ge, %n, %m1 : tensor<5xi8>, tensor<i8>
  return %c : tensor<5xi1>
}

// From 2^20 elements (a multiple of 8) a thread takes 8 consecutive
// elements: operands read in the result's row-major order (here the i4
// weight and the bf16 tensor) move by one aligned vector load each, as does
// the group scale seen as [K, N] (its 8 elements are consecutive too, from
// the offset of the thread's first element), and the result by one vector
// store; a transposed operand is still read per element.
// CHECK-LABEL: // ===== @vector_dequant: kernels: 1
// CHECK: // Fused pointwise kernel: cast+mul+add+mul over [1024, 1024] bf16 (1048576 elements, 8 per thread)
// CHECK: for (long long i0 = ((long long)blockIdx.x * blockDim.x + threadIdx.x) * 8; i0 < 1048576LL;
// CHECK-NEXT: i0 += (long long)gridDim.x * blockDim.x * 8) {
// CHECK-NEXT: // Coordinates of element i0
// CHECK-NEXT: const long long q0 = (i0 / 1024);
// CHECK-NEXT: const long long q1 = i0 % 1024;
// CHECK-NEXT: long long x0_v[8];
// CHECK-NEXT: tg_load_vec<8>(in0, i0, x0_v);
// CHECK-NEXT: float x1_v[8];
// CHECK-NEXT: tg_load_vec<8>(in1, (q0 / 128) * 1024 + q1, x1_v);
// CHECK-NEXT: float x2_v[8];
// CHECK-NEXT: tg_load_vec<8>(in2, i0, x2_v);
// CHECK: for (int v = 0; v < 8; ++v) {
// CHECK-NEXT: const long long i = i0 + v;
// CHECK: const long long x0 = x0_v[v];
// CHECK: const float x1 = x1_v[v];
// CHECK: const float x3 = tg_load(in3, c0 + c1 * 1024);
// CHECK: r[v] = t3;
// CHECK-NEXT: }
// CHECK-NEXT: // Store
// CHECK-NEXT: tg_store_vec<8>(out0, i0, r);
// CHECK-LABEL: // ===== @not_a_multiple_of_8: kernels: 1
// CHECK: (1048575 elements)
// CHECK: tg_store(out0, i, t0);
func.func @vector_dequant(%w: tensor<1024x1024xi4>, %s: tensor<8x1x1024xbf16>, %b: tensor<1024x1024xbf16>,
                          %t: tensor<1024x1024xbf16>) -> tensor<1024x1024xbf16> {
  %sb = tg.broadcast %s : tensor<8x1x1024xbf16> -> tensor<8x128x1024xbf16>
  %sv = tg.reshape %sb : tensor<8x128x1024xbf16> -> tensor<1024x1024xbf16>
  %wf = tg.cast %w : tensor<1024x1024xi4> to tensor<1024x1024xbf16>
  %ws = tg.mul %wf, %sv : tensor<1024x1024xbf16>, tensor<1024x1024xbf16>
  %wb = tg.add %ws, %b : tensor<1024x1024xbf16>, tensor<1024x1024xbf16>
  %tt = tg.transpose %t perm = [1, 0] : tensor<1024x1024xbf16> -> tensor<1024x1024xbf16>
  %y = tg.mul %wb, %tt : tensor<1024x1024xbf16>, tensor<1024x1024xbf16>
  return %y : tensor<1024x1024xbf16>
}
func.func @not_a_multiple_of_8(%x: tensor<1048575xf32>) -> tensor<1048575xf32> {
  %y = tg.exp %x : tensor<1048575xf32>
  return %y : tensor<1048575xf32>
}
