// RUN: tg-emit-kernels %s | FileCheck %s

// Transposes fold into the strides of their readers.
// CHECK-LABEL: // ===== @transpose: kernels: 1
// CHECK: pointwise exp 2x3x8x5
// CHECK: const float x0 = tg_load(in0, c0 * 120 + c1 * 40 + c2 + c3 * 8);
func.func @transpose(%k: tensor<2x3x5x8xbf16>) -> tensor<2x3x8x5xbf16> {
  %kt = tg.transpose %k perm = [0, 1, 3, 2] : tensor<2x3x5x8xbf16> -> tensor<2x3x8x5xbf16>
  %e = tg.exp %kt : tensor<2x3x8x5xbf16>
  return %e : tensor<2x3x8x5xbf16>
}

// Reshapes of row-major data fold (the element order is unchanged).
// CHECK-LABEL: // ===== @reshape: kernels: 1
// CHECK: pointwise neg 6x40
// CHECK: const float x0 = tg_load(in0, i);
func.func @reshape(%k: tensor<2x3x5x8xf32>) -> tensor<6x40xf32> {
  %r = tg.reshape %k : tensor<2x3x5x8xf32> -> tensor<6x40xf32>
  %n = tg.neg %r : tensor<6x40xf32>
  return %n : tensor<6x40xf32>
}

// A reshape that merges dimensions a transpose separated cannot be a
// strided view: it is copied once, then read densely.
// CHECK-LABEL: // ===== @reshape_copy: kernels: 2
// CHECK: // ----- kernel 0: copy reshape 2x15x8
// CHECK: // args: %{{.*}} (in) %[[R:.*]] (out)
// CHECK: // Coordinates of element i in [2, 3, 5, 8]
// CHECK: tg_store(out0, i, tg_load(in0, c0 * 120 + c1 * 8 + c2 * 24 + c3));
// CHECK: // ----- kernel 1: pointwise neg 2x15x8
// CHECK: // args: %[[R]] (in)
// CHECK: const float x0 = tg_load(in0, i);
func.func @reshape_copy(%v: tensor<2x5x3x8xbf16>) -> tensor<2x15x8xbf16> {
  %vt = tg.transpose %v perm = [0, 2, 1, 3] : tensor<2x5x3x8xbf16> -> tensor<2x3x5x8xbf16>
  %vr = tg.reshape %vt : tensor<2x3x5x8xbf16> -> tensor<2x15x8xbf16>
  %n = tg.neg %vr : tensor<2x15x8xbf16>
  return %n : tensor<2x15x8xbf16>
}

// GQA: broadcast of kv heads is a stride of 0; merged with the kv head
// dimension outside it, head h reads kv head h / 4 (no copy).
// CHECK-LABEL: // ===== @gqa: kernels: 1
// CHECK: pointwise sigmoid 1x8x7x8
// CHECK: const float x0 = tg_load(in0, (c1 / 4) * 56 + c2 * 8 + c3);
func.func @gqa(%k: tensor<1x2x1x7x8xf16>) -> tensor<1x8x7x8xf16> {
  %b = tg.broadcast %k : tensor<1x2x1x7x8xf16> -> tensor<1x2x4x7x8xf16>
  %r = tg.reshape %b : tensor<1x2x4x7x8xf16> -> tensor<1x8x7x8xf16>
  %s = tg.sigmoid %r : tensor<1x8x7x8xf16>
  return %s : tensor<1x8x7x8xf16>
}

// gen_index is never materialised: readers use the coordinate.
// CHECK-LABEL: // ===== @causal_mask: kernels: 2
// CHECK: // ----- kernel 0: pointwise cmp 1x1x17x33
// CHECK: tg_pointwise_0(unsigned char *__restrict__ out0) {
// CHECK: const long long x0 = c3; // tensor<1x1x17x33xi64>
// CHECK-NEXT: const long long x1 = c2; // tensor<1x1x17x33xi64>
// CHECK: const bool t0 = x0 > x1;
// CHECK: // ----- kernel 1: pointwise select 2x4x17x33
// CHECK: const bool x0 = tg_load(in0, c2 * 33 + c3); // tensor<1x1x17x33xi1>
// CHECK: const float t0 = x0 ? __int_as_float(0xff800000) : x1;
func.func @causal_mask(%s: tensor<2x4x17x33xf32>) -> tensor<2x4x17x33xf32> {
  %q = tg.gen_index axis = 2 : tensor<1x1x17x33xi64>
  %k = tg.gen_index axis = 3 : tensor<1x1x17x33xi64>
  %future = tg.cmp gt, %k, %q : tensor<1x1x17x33xi64>, tensor<1x1x17x33xi64>
  %ninf = tg.constant dense<0xFF800000> : tensor<f32>
  %m = tg.select %future, %ninf, %s : tensor<1x1x17x33xi1>, tensor<f32>, tensor<2x4x17x33xf32>
  return %m : tensor<2x4x17x33xf32>
}

// Indices of a transposed gen_index follow the permutation; after a
// reshape they are recovered from the linear position.
// CHECK-LABEL: // ===== @index_views: kernels: 1
// CHECK: const long long x0 = c0; // tensor<6x4xi32>
// CHECK-NEXT: const long long x1 = ((i / 8) % 3); // tensor<6x4xi32>
func.func @index_views() -> tensor<6x4xi32> {
  %i = tg.gen_index axis = 1 : tensor<4x6xi32>
  %t = tg.transpose %i perm = [1, 0] : tensor<4x6xi32> -> tensor<6x4xi32>
  %j = tg.gen_index axis = 0 : tensor<3x8xi32>
  %r = tg.reshape %j : tensor<3x8xi32> -> tensor<6x4xi32>
  %s = tg.add %t, %r : tensor<6x4xi32>, tensor<6x4xi32>
  return %s : tensor<6x4xi32>
}

// Returned views get their own buffer: a copy at the end.
// CHECK-LABEL: // ===== @returned_views: kernels: 4
// CHECK: // ----- kernel 0: copy result 4x3
// CHECK: tg_store(out0, i, tg_load(in0, c0 + c1 * 4));
// CHECK: // ----- kernel 1: copy result 2x3x4
// CHECK: tg_store(out0, i, tg_load(in0, c1 * 4 + c2));
// CHECK: // ----- kernel 2: copy result 3x4
// CHECK: tg_store(out0, i, c1);
// CHECK: // ----- kernel 3: copy result 3x4
// CHECK: tg_store(out0, i, 2.5f);
func.func @returned_views(%x: tensor<3x4xf32>) -> (tensor<4x3xf32>, tensor<2x3x4xf32>, tensor<3x4xi32>, tensor<3x4xf32>, tensor<3x4xf32>) {
  %t = tg.transpose %x perm = [1, 0] : tensor<3x4xf32> -> tensor<4x3xf32>
  %x3 = tg.reshape %x : tensor<3x4xf32> -> tensor<1x3x4xf32>
  %b = tg.broadcast %x3 : tensor<1x3x4xf32> -> tensor<2x3x4xf32>
  %i = tg.gen_index axis = 1 : tensor<3x4xi32>
  %c = tg.constant dense<2.5> : tensor<3x4xf32>
  return %t, %b, %i, %c, %x : tensor<4x3xf32>, tensor<2x3x4xf32>, tensor<3x4xi32>, tensor<3x4xf32>, tensor<3x4xf32>
}

// Arguments with tg.strides are read through them (here a [B,S,H,D] buffer
// seen as logical [B,H,S,D]); a strided argument that is returned as it is
// gets no kernel (the plan copies it).
// CHECK-LABEL: // ===== @strided_argument: kernels: 1
// CHECK: pointwise exp 1x2x3x4
// CHECK: const float x0 = tg_load(in0, c1 * 4 + c2 * 8 + c3);
// CHECK-NOT: ----- kernel 1
func.func @strided_argument(%q: tensor<1x2x3x4xf32> {tg.strides = array<i64: 24, 4, 8, 1>})
    -> (tensor<1x2x3x4xf32>, tensor<1x2x3x4xf32>) {
  %e = tg.exp %q : tensor<1x2x3x4xf32>
  return %e, %q : tensor<1x2x3x4xf32>, tensor<1x2x3x4xf32>
}

// A broadcast dimension merged by a reshape into the one outside it (group
// scales [K / G, 1, N] seen as [K, N]) is read at index / G; a transpose of
// such a view keeps it; a reshape of it that splits K again is copied; the
// view returned is copied into the result.
// CHECK-LABEL: // ===== @grouped_view: kernels: 4
// CHECK: pointwise mul 8x3
// CHECK: const float x1 = tg_load(in1, (c0 / 4) * 3 + c1);
// CHECK: pointwise mul 3x8
// CHECK: const float x1 = tg_load(in1, c0 + (c1 / 4) * 3);
// CHECK: // ----- kernel 2: copy reshape 4x2x3
// CHECK: // ----- kernel 3: copy result 8x3
func.func @grouped_view(%w: tensor<8x3xf32>, %s: tensor<2x1x3xf32>)
    -> (tensor<8x3xf32>, tensor<3x8xf32>, tensor<4x2x3xf32>, tensor<8x3xf32>) {
  %b = tg.broadcast %s : tensor<2x1x3xf32> -> tensor<2x4x3xf32>
  %v = tg.reshape %b : tensor<2x4x3xf32> -> tensor<8x3xf32>
  %y = tg.mul %w, %v : tensor<8x3xf32>, tensor<8x3xf32>
  %wt = tg.transpose %w perm = [1, 0] : tensor<8x3xf32> -> tensor<3x8xf32>
  %vt = tg.transpose %v perm = [1, 0] : tensor<8x3xf32> -> tensor<3x8xf32>
  %yt = tg.mul %wt, %vt : tensor<3x8xf32>, tensor<3x8xf32>
  %r = tg.reshape %v : tensor<8x3xf32> -> tensor<4x2x3xf32>
  return %y, %yt, %r, %v : tensor<8x3xf32>, tensor<3x8xf32>, tensor<4x2x3xf32>, tensor<8x3xf32>
}
