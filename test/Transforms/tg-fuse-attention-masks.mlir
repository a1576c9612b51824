// RUN: tg-opt %s --tg-fuse-attention=report=true -verify-diagnostics | FileCheck %s

// Causal mask from gen_index comparisons: select(kv <= q, s, -inf) is
// lifted to causal = top_left and removed from the region.
// CHECK-LABEL: func.func @causal_select
// CHECK: tg.attention {{.*}} {causal = #tg<causal top_left>, scale = 1.250000e-01 : f64} :
// CHECK-NEXT: ^bb0(%[[S:.*]]: tensor<f32>,
// CHECK-NEXT: tg.yield %[[S]]
// CHECK-NOT: tg.gen_index
func.func @causal_select(%q: tensor<1x2x16x8xbf16>, %k: tensor<1x2x16x8xbf16>, %v: tensor<1x2x16x8xbf16>) -> tensor<1x2x16x8xbf16> {
  %kt = tg.transpose %k perm = [0, 1, 3, 2] : tensor<1x2x16x8xbf16> -> tensor<1x2x8x16xbf16>
  %s = tg.matmul %q, %kt : tensor<1x2x16x8xbf16>, tensor<1x2x8x16xbf16> -> tensor<1x2x16x16xf32>
  %c = tg.constant dense<0.125> : tensor<f32>
  %ss = tg.mul %s, %c : tensor<1x2x16x16xf32>, tensor<f32>
  %qi = tg.gen_index axis = 2 : tensor<1x1x16x1xi64>
  %ki = tg.gen_index axis = 3 : tensor<1x1x1x16xi64>
  %keep = tg.cmp le, %ki, %qi : tensor<1x1x1x16xi64>, tensor<1x1x16x1xi64>
  %ninf = tg.constant dense<0xFF800000> : tensor<f32>
  %m = tg.select %keep, %ss, %ninf : tensor<1x1x16x16xi1>, tensor<1x2x16x16xf32>, tensor<f32>
  %p = tg.softmax %m axis = 3 : tensor<1x2x16x16xf32>
  %pc = tg.cast %p : tensor<1x2x16x16xf32> to tensor<1x2x16x16xbf16>
  %o = tg.matmul %pc, %v : tensor<1x2x16x16xbf16>, tensor<1x2x16x8xbf16> -> tensor<1x2x16x8xbf16>
  return %o : tensor<1x2x16x8xbf16>
}

// The negated form in i32 indices: select(kv - q > 0, -inf, s).
// CHECK-LABEL: func.func @causal_negated_i32
// CHECK: tg.attention {{.*}} {causal = #tg<causal top_left>} :
// CHECK-NOT: tg.select
func.func @causal_negated_i32(%q: tensor<1x2x16x8xf32>, %k: tensor<1x2x16x8xf32>, %v: tensor<1x2x16x8xf32>) -> tensor<1x2x16x8xf32> {
  %kt = tg.transpose %k perm = [0, 1, 3, 2] : tensor<1x2x16x8xf32> -> tensor<1x2x8x16xf32>
  %s = tg.matmul %q, %kt : tensor<1x2x16x8xf32>, tensor<1x2x8x16xf32> -> tensor<1x2x16x16xf32>
  %qi = tg.gen_index axis = 2 : tensor<1x1x16x16xi32>
  %ki = tg.gen_index axis = 3 : tensor<1x1x16x16xi32>
  %d = tg.sub %ki, %qi : tensor<1x1x16x16xi32>, tensor<1x1x16x16xi32>
  %zero = tg.constant dense<0> : tensor<i32>
  %future = tg.cmp gt, %d, %zero : tensor<1x1x16x16xi32>, tensor<i32>
  %ninf = tg.constant dense<0xFF800000> : tensor<f32>
  %m = tg.select %future, %ninf, %s : tensor<1x1x16x16xi1>, tensor<f32>, tensor<1x2x16x16xf32>
  %p = tg.softmax %m axis = 3 : tensor<1x2x16x16xf32>
  %o = tg.matmul %p, %v : tensor<1x2x16x16xf32>, tensor<1x2x16x8xf32> -> tensor<1x2x16x8xf32>
  return %o : tensor<1x2x16x8xf32>
}

// Sq < Skv with the diagonal at the bottom right (decoding with a cache):
// kv <= q + (Skv - Sq).
// CHECK-LABEL: func.func @causal_bottom_right
// CHECK: tg.attention {{.*}} {causal = #tg<causal bottom_right>} :
func.func @causal_bottom_right(%q: tensor<1x2x4x8xf32>, %k: tensor<1x2x16x8xf32>, %v: tensor<1x2x16x8xf32>) -> tensor<1x2x4x8xf32> {
  %kt = tg.transpose %k perm = [0, 1, 3, 2] : tensor<1x2x16x8xf32> -> tensor<1x2x8x16xf32>
  %s = tg.matmul %q, %kt : tensor<1x2x4x8xf32>, tensor<1x2x8x16xf32> -> tensor<1x2x4x16xf32>
  %qi = tg.gen_index axis = 2 : tensor<1x1x4x1xi64>
  %ki = tg.gen_index axis = 3 : tensor<1x1x1x16xi64>
  %off = tg.constant dense<12> : tensor<i64>
  %diag = tg.add %qi, %off : tensor<1x1x4x1xi64>, tensor<i64>
  %keep = tg.cmp le, %ki, %diag : tensor<1x1x1x16xi64>, tensor<1x1x4x1xi64>
  %ninf = tg.constant dense<0xFF800000> : tensor<f32>
  %m = tg.select %keep, %s, %ninf : tensor<1x1x4x16xi1>, tensor<1x2x4x16xf32>, tensor<f32>
  %p = tg.softmax %m axis = 3 : tensor<1x2x4x16xf32>
  %o = tg.matmul %p, %v : tensor<1x2x4x16xf32>, tensor<1x2x16x8xf32> -> tensor<1x2x4x8xf32>
  return %o : tensor<1x2x4x8xf32>
}

// Causal plus a sliding window of 4 keys (kv > q - 4), the two conditions
// combined with select(a, b, false), as tg-decompose-sdpa writes them.
// CHECK-LABEL: func.func @sliding_window_conjunction
// CHECK: tg.attention {{.*}} {causal = #tg<causal top_left>, window_left = 3 : i64} :
// CHECK-NOT: tg.cmp
func.func @sliding_window_conjunction(%q: tensor<1x2x16x8xf32>, %k: tensor<1x2x16x8xf32>, %v: tensor<1x2x16x8xf32>) -> tensor<1x2x16x8xf32> {
  %kt = tg.transpose %k perm = [0, 1, 3, 2] : tensor<1x2x16x8xf32> -> tensor<1x2x8x16xf32>
  %s = tg.matmul %q, %kt : tensor<1x2x16x8xf32>, tensor<1x2x8x16xf32> -> tensor<1x2x16x16xf32>
  %qi = tg.gen_index axis = 2 : tensor<1x1x16x1xi64>
  %ki = tg.gen_index axis = 3 : tensor<1x1x1x16xi64>
  %causal = tg.cmp le, %ki, %qi : tensor<1x1x1x16xi64>, tensor<1x1x16x1xi64>
  %w = tg.constant dense<4> : tensor<i64>
  %lo = tg.sub %qi, %w : tensor<1x1x16x1xi64>, tensor<i64>
  %inwin = tg.cmp gt, %ki, %lo : tensor<1x1x1x16xi64>, tensor<1x1x16x1xi64>
  %false = tg.constant dense<false> : tensor<i1>
  %keep = tg.select %causal, %inwin, %false : tensor<1x1x16x16xi1>, tensor<1x1x16x16xi1>, tensor<i1>
  %ninf = tg.constant dense<0xFF800000> : tensor<f32>
  %m = tg.select %keep, %s, %ninf : tensor<1x1x16x16xi1>, tensor<1x2x16x16xf32>, tensor<f32>
  %p = tg.softmax %m axis = 3 : tensor<1x2x16x16xf32>
  %o = tg.matmul %p, %v : tensor<1x2x16x16xf32>, tensor<1x2x16x8xf32> -> tensor<1x2x16x8xf32>
  return %o : tensor<1x2x16x8xf32>
}

// A symmetric window |q - kv| <= 2 in two selects: window_left = 2 and
// window_right = 2 without causal masking (top-left aligned).
// CHECK-LABEL: func.func @window_both_sides
// CHECK: tg.attention {{.*}} {window_left = 2 : i64, window_right = 2 : i64} :
func.func @window_both_sides(%q: tensor<1x2x16x8xf32>, %k: tensor<1x2x16x8xf32>, %v: tensor<1x2x16x8xf32>) -> tensor<1x2x16x8xf32> {
  %kt = tg.transpose %k perm = [0, 1, 3, 2] : tensor<1x2x16x8xf32> -> tensor<1x2x8x16xf32>
  %s = tg.matmul %q, %kt : tensor<1x2x16x8xf32>, tensor<1x2x8x16xf32> -> tensor<1x2x16x16xf32>
  %qi = tg.gen_index axis = 2 : tensor<1x1x16x1xi64>
  %ki = tg.gen_index axis = 3 : tensor<1x1x1x16xi64>
  %d = tg.sub %qi, %ki : tensor<1x1x16x1xi64>, tensor<1x1x1x16xi64>
  %two = tg.constant dense<2> : tensor<i64>
  %mtwo = tg.constant dense<-2> : tensor<i64>
  %near1 = tg.cmp le, %d, %two : tensor<1x1x16x16xi64>, tensor<i64>
  %near2 = tg.cmp ge, %d, %mtwo : tensor<1x1x16x16xi64>, tensor<i64>
  %ninf = tg.constant dense<0xFF800000> : tensor<f32>
  %m1 = tg.select %near1, %s, %ninf : tensor<1x1x16x16xi1>, tensor<1x2x16x16xf32>, tensor<f32>
  %m2 = tg.select %near2, %m1, %ninf : tensor<1x1x16x16xi1>, tensor<1x2x16x16xf32>, tensor<f32>
  %p = tg.softmax %m2 axis = 3 : tensor<1x2x16x16xf32>
  %o = tg.matmul %p, %v : tensor<1x2x16x16xf32>, tensor<1x2x16x8xf32> -> tensor<1x2x16x8xf32>
  return %o : tensor<1x2x16x8xf32>
}

// An additive mask built from a comparison: s + where(kv <= q, 0, -inf).
// CHECK-LABEL: func.func @additive_inf_from_index
// CHECK: tg.attention {{.*}} {causal = #tg<causal top_left>} :
// CHECK-NOT: tg.add
func.func @additive_inf_from_index(%q: tensor<1x2x16x8xf32>, %k: tensor<1x2x16x8xf32>, %v: tensor<1x2x16x8xf32>) -> tensor<1x2x16x8xf32> {
  %kt = tg.transpose %k perm = [0, 1, 3, 2] : tensor<1x2x16x8xf32> -> tensor<1x2x8x16xf32>
  %s = tg.matmul %q, %kt : tensor<1x2x16x8xf32>, tensor<1x2x8x16xf32> -> tensor<1x2x16x16xf32>
  %qi = tg.gen_index axis = 2 : tensor<1x1x16x1xi64>
  %ki = tg.gen_index axis = 3 : tensor<1x1x1x16xi64>
  %keep = tg.cmp le, %ki, %qi : tensor<1x1x1x16xi64>, tensor<1x1x16x1xi64>
  %zero = tg.constant dense<0.0> : tensor<f32>
  %ninf = tg.constant dense<0xFF800000> : tensor<f32>
  %mask = tg.select %keep, %zero, %ninf : tensor<1x1x16x16xi1>, tensor<f32>, tensor<f32>
  %m = tg.add %s, %mask : tensor<1x2x16x16xf32>, tensor<1x1x16x16xf32>
  %p = tg.softmax %m axis = 3 : tensor<1x2x16x16xf32>
  %o = tg.matmul %p, %v : tensor<1x2x16x16xf32>, tensor<1x2x16x8xf32> -> tensor<1x2x16x8xf32>
  return %o : tensor<1x2x16x8xf32>
}

// A constant additive mask of 0 / -inf (a precomputed causal mask): its
// values are checked element by element and lifted.
// CHECK-LABEL: func.func @additive_inf_constant
// CHECK: tg.attention {{.*}} {causal = #tg<causal top_left>} :
// CHECK-NOT: tg.constant
func.func @additive_inf_constant(%q: tensor<1x1x4x8xf32>, %k: tensor<1x1x4x8xf32>, %v: tensor<1x1x4x8xf32>) -> tensor<1x1x4x8xf32> {
  %kt = tg.transpose %k perm = [0, 1, 3, 2] : tensor<1x1x4x8xf32> -> tensor<1x1x8x4xf32>
  %s = tg.matmul %q, %kt : tensor<1x1x4x8xf32>, tensor<1x1x8x4xf32> -> tensor<1x1x4x4xf32>
  %mask = tg.constant dense<[[[[0.0, 0xFF800000, 0xFF800000, 0xFF800000], [0.0, 0.0, 0xFF800000, 0xFF800000], [0.0, 0.0, 0.0, 0xFF800000], [0.0, 0.0, 0.0, 0.0]]]]> : tensor<1x1x4x4xf32>
  %m = tg.add %s, %mask : tensor<1x1x4x4xf32>, tensor<1x1x4x4xf32>
  %p = tg.softmax %m axis = 3 : tensor<1x1x4x4xf32>
  %o = tg.matmul %p, %v : tensor<1x1x4x4xf32>, tensor<1x1x4x8xf32> -> tensor<1x1x4x8xf32>
  return %o : tensor<1x1x4x8xf32>
}

// A constant boolean causal buffer (GPT-2's `bias` buffer) used with a
// select: lifted after checking its values.
// CHECK-LABEL: func.func @constant_tril_buffer
// CHECK: tg.attention {{.*}} {causal = #tg<causal top_left>} :
func.func @constant_tril_buffer(%q: tensor<1x2x4x8xf32>, %k: tensor<1x2x4x8xf32>, %v: tensor<1x2x4x8xf32>) -> tensor<1x2x4x8xf32> {
  %kt = tg.transpose %k perm = [0, 1, 3, 2] : tensor<1x2x4x8xf32> -> tensor<1x2x8x4xf32>
  %s = tg.matmul %q, %kt : tensor<1x2x4x8xf32>, tensor<1x2x8x4xf32> -> tensor<1x2x4x4xf32>
  %tril = tg.constant dense<[[[[true, false, false, false], [true, true, false, false], [true, true, true, false], [true, true, true, true]]]]> : tensor<1x1x4x4xi1>
  %ninf = tg.constant dense<0xFF800000> : tensor<f32>
  %m = tg.select %tril, %s, %ninf : tensor<1x1x4x4xi1>, tensor<1x2x4x4xf32>, tensor<f32>
  %p = tg.softmax %m axis = 3 : tensor<1x2x4x4xf32>
  %o = tg.matmul %p, %v : tensor<1x2x4x4xf32>, tensor<1x2x4x8xf32> -> tensor<1x2x4x8xf32>
  return %o : tensor<1x2x4x8xf32>
}

// A large finite negative (-1e9) is NOT -inf: a fully masked row gives a
// uniform distribution, not zeros. The mask stays region math.
// CHECK-LABEL: func.func @additive_large_negative_stays
// CHECK: tg.attention
// CHECK-NOT: causal
// CHECK: tg.select
// CHECK: tg.yield
func.func @additive_large_negative_stays(%q: tensor<1x2x16x8xf32>, %k: tensor<1x2x16x8xf32>, %v: tensor<1x2x16x8xf32>) -> tensor<1x2x16x8xf32> {
  %kt = tg.transpose %k perm = [0, 1, 3, 2] : tensor<1x2x16x8xf32> -> tensor<1x2x8x16xf32>
  %s = tg.matmul %q, %kt : tensor<1x2x16x8xf32>, tensor<1x2x8x16xf32> -> tensor<1x2x16x16xf32>
  %qi = tg.gen_index axis = 2 : tensor<1x1x16x1xi64>
  %ki = tg.gen_index axis = 3 : tensor<1x1x1x16xi64>
  %keep = tg.cmp le, %ki, %qi : tensor<1x1x1x16xi64>, tensor<1x1x16x1xi64>
  %zero = tg.constant dense<0.0> : tensor<f32>
  %big = tg.constant dense<-1.0e9> : tensor<f32>
  %mask = tg.select %keep, %zero, %big : tensor<1x1x16x16xi1>, tensor<f32>, tensor<f32>
  %m = tg.add %s, %mask : tensor<1x2x16x16xf32>, tensor<1x1x16x16xf32>
  %p = tg.softmax %m axis = 3 : tensor<1x2x16x16xf32>
  %o = tg.matmul %p, %v : tensor<1x2x16x16xf32>, tensor<1x2x16x8xf32> -> tensor<1x2x16x8xf32>
  return %o : tensor<1x2x16x8xf32>
}

// Masking with the dtype's lowest value (HF's torch.finfo(dtype).min) is
// also kept as region math.
// CHECK-LABEL: func.func @finfo_min_select_stays
// CHECK: tg.attention
// CHECK-NOT: causal
// CHECK: tg.constant dense<-3.40282347E+38> : tensor<f32>
func.func @finfo_min_select_stays(%q: tensor<1x2x16x8xf32>, %k: tensor<1x2x16x8xf32>, %v: tensor<1x2x16x8xf32>) -> tensor<1x2x16x8xf32> {
  %kt = tg.transpose %k perm = [0, 1, 3, 2] : tensor<1x2x16x8xf32> -> tensor<1x2x8x16xf32>
  %s = tg.matmul %q, %kt : tensor<1x2x16x8xf32>, tensor<1x2x8x16xf32> -> tensor<1x2x16x16xf32>
  %qi = tg.gen_index axis = 2 : tensor<1x1x16x1xi64>
  %ki = tg.gen_index axis = 3 : tensor<1x1x1x16xi64>
  %keep = tg.cmp le, %ki, %qi : tensor<1x1x1x16xi64>, tensor<1x1x16x1xi64>
  %min = tg.constant dense<-3.40282347e+38> : tensor<f32>
  %m = tg.select %keep, %s, %min : tensor<1x1x16x16xi1>, tensor<1x2x16x16xf32>, tensor<f32>
  %p = tg.softmax %m axis = 3 : tensor<1x2x16x16xf32>
  %o = tg.matmul %p, %v : tensor<1x2x16x16xf32>, tensor<1x2x16x8xf32> -> tensor<1x2x16x8xf32>
  return %o : tensor<1x2x16x8xf32>
}

// A boolean mask input is captured into the region.
// CHECK-LABEL: func.func @bool_mask_input
// CHECK-SAME: %[[MASK:[^:]*]]: tensor<2x1x16x16xi1>)
// CHECK: tg.attention {{.*}} captures(%[[MASK]] : tensor<2x1x16x16xi1>) :
// CHECK-NEXT: ^bb0(%[[S:.*]]: tensor<f32>, %{{.*}}: tensor<i64>, %{{.*}}: tensor<i64>, %{{.*}}: tensor<i64>, %{{.*}}: tensor<i64>, %[[M:.*]]: tensor<i1>):
// CHECK: tg.select %[[M]], %[[S]], %{{.*}} : tensor<i1>, tensor<f32>, tensor<f32>
func.func @bool_mask_input(%q: tensor<2x2x16x8xbf16>, %k: tensor<2x2x16x8xbf16>, %v: tensor<2x2x16x8xbf16>, %mask: tensor<2x1x16x16xi1>) -> tensor<2x2x16x8xbf16> {
  %kt = tg.transpose %k perm = [0, 1, 3, 2] : tensor<2x2x16x8xbf16> -> tensor<2x2x8x16xbf16>
  %s = tg.matmul %q, %kt : tensor<2x2x16x8xbf16>, tensor<2x2x8x16xbf16> -> tensor<2x2x16x16xf32>
  %ninf = tg.constant dense<0xFF800000> : tensor<f32>
  %m = tg.select %mask, %s, %ninf : tensor<2x1x16x16xi1>, tensor<2x2x16x16xf32>, tensor<f32>
  %p = tg.softmax %m axis = 3 : tensor<2x2x16x16xf32>
  %pc = tg.cast %p : tensor<2x2x16x16xf32> to tensor<2x2x16x16xbf16>
  %o = tg.matmul %pc, %v : tensor<2x2x16x16xbf16>, tensor<2x2x16x8xbf16> -> tensor<2x2x16x8xbf16>
  return %o : tensor<2x2x16x8xbf16>
}

// Padding from per-batch key lengths: kv < seq_len_kv[b], with the [B]
// lengths reshaped to [B,1,1,1]. Lifted to the seq_len_kv operand.
// CHECK-LABEL: func.func @padding_seq_len_kv
// CHECK-SAME: %[[LEN:[^:]*]]: tensor<2xi32>)
// CHECK: tg.attention %{{.*}}, %{{.*}}, %{{.*}} seq_len_kv(%[[LEN]] : tensor<2xi32>) :
// CHECK-NEXT: ^bb0(%[[S:.*]]: tensor<f32>,
// CHECK-NEXT: tg.yield %[[S]]
func.func @padding_seq_len_kv(%q: tensor<2x2x16x8xf32>, %k: tensor<2x2x16x8xf32>, %v: tensor<2x2x16x8xf32>, %len: tensor<2xi32>) -> tensor<2x2x16x8xf32> {
  %kt = tg.transpose %k perm = [0, 1, 3, 2] : tensor<2x2x16x8xf32> -> tensor<2x2x8x16xf32>
  %s = tg.matmul %q, %kt : tensor<2x2x16x8xf32>, tensor<2x2x8x16xf32> -> tensor<2x2x16x16xf32>
  %ki = tg.gen_index axis = 3 : tensor<1x1x1x16xi64>
  %l4 = tg.reshape %len : tensor<2xi32> -> tensor<2x1x1x1xi32>
  %l64 = tg.cast %l4 : tensor<2x1x1x1xi32> to tensor<2x1x1x1xi64>
  %keep = tg.cmp lt, %ki, %l64 : tensor<1x1x1x16xi64>, tensor<2x1x1x1xi64>
  %ninf = tg.constant dense<0xFF800000> : tensor<f32>
  %m = tg.select %keep, %s, %ninf : tensor<2x1x1x16xi1>, tensor<2x2x16x16xf32>, tensor<f32>
  %p = tg.softmax %m axis = 3 : tensor<2x2x16x16xf32>
  %o = tg.matmul %p, %v : tensor<2x2x16x16xf32>, tensor<2x2x16x8xf32> -> tensor<2x2x16x8xf32>
  return %o : tensor<2x2x16x8xf32>
}

// Padding of queries and keys plus causal, in one conjunction: all lifted.
// CHECK-LABEL: func.func @padding_both_causal
// CHECK-SAME: %[[LQ:[^:]*]]: tensor<2xi64>, %[[LK:[^:]*]]: tensor<2xi64>)
// CHECK: tg.attention %{{.*}}, %{{.*}}, %{{.*}} seq_len_q(%[[LQ]] : tensor<2xi64>) seq_len_kv(%[[LK]] : tensor<2xi64>) {causal = #tg<causal top_left>} :
// CHECK-NEXT: ^bb0(%[[S:.*]]: tensor<f32>,
// CHECK-NEXT: tg.yield %[[S]]
func.func @padding_both_causal(%q: tensor<2x2x16x8xf32>, %k: tensor<2x2x16x8xf32>, %v: tensor<2x2x16x8xf32>, %lq: tensor<2xi64>, %lk: tensor<2xi64>) -> tensor<2x2x16x8xf32> {
  %kt = tg.transpose %k perm = [0, 1, 3, 2] : tensor<2x2x16x8xf32> -> tensor<2x2x8x16xf32>
  %s = tg.matmul %q, %kt : tensor<2x2x16x8xf32>, tensor<2x2x8x16xf32> -> tensor<2x2x16x16xf32>
  %qi = tg.gen_index axis = 2 : tensor<1x1x16x1xi64>
  %ki = tg.gen_index axis = 3 : tensor<1x1x1x16xi64>
  %lq4 = tg.reshape %lq : tensor<2xi64> -> tensor<2x1x1x1xi64>
  %lk4 = tg.reshape %lk : tensor<2xi64> -> tensor<2x1x1x1xi64>
  %causal = tg.cmp le, %ki, %qi : tensor<1x1x1x16xi64>, tensor<1x1x16x1xi64>
  %rowok = tg.cmp lt, %qi, %lq4 : tensor<1x1x16x1xi64>, tensor<2x1x1x1xi64>
  %colok = tg.cmp gt, %lk4, %ki : tensor<2x1x1x1xi64>, tensor<1x1x1x16xi64>
  %false = tg.constant dense<false> : tensor<i1>
  %k1 = tg.select %causal, %rowok, %false : tensor<1x1x16x16xi1>, tensor<2x1x16x1xi1>, tensor<i1>
  %k2 = tg.select %k1, %colok, %false : tensor<2x1x16x16xi1>, tensor<2x1x1x16xi1>, tensor<i1>
  %ninf = tg.constant dense<0xFF800000> : tensor<f32>
  %m = tg.select %k2, %s, %ninf : tensor<2x1x16x16xi1>, tensor<2x2x16x16xf32>, tensor<f32>
  %p = tg.softmax %m axis = 3 : tensor<2x2x16x16xf32>
  %o = tg.matmul %p, %v : tensor<2x2x16x16xf32>, tensor<2x2x16x8xf32> -> tensor<2x2x16x8xf32>
  return %o : tensor<2x2x16x8xf32>
}

// A mask before other score math cannot be lifted (tanh(-inf) is finite);
// it stays in the region in its place.
// CHECK-LABEL: func.func @mask_before_softcap_stays
// CHECK: tg.attention
// CHECK-NOT: causal
// CHECK: tg.select
// CHECK: tg.tanh
func.func @mask_before_softcap_stays(%q: tensor<1x2x16x8xf32>, %k: tensor<1x2x16x8xf32>, %v: tensor<1x2x16x8xf32>) -> tensor<1x2x16x8xf32> {
  %kt = tg.transpose %k perm = [0, 1, 3, 2] : tensor<1x2x16x8xf32> -> tensor<1x2x8x16xf32>
  %s = tg.matmul %q, %kt : tensor<1x2x16x8xf32>, tensor<1x2x8x16xf32> -> tensor<1x2x16x16xf32>
  %qi = tg.gen_index axis = 2 : tensor<1x1x16x1xi64>
  %ki = tg.gen_index axis = 3 : tensor<1x1x1x16xi64>
  %keep = tg.cmp le, %ki, %qi : tensor<1x1x1x16xi64>, tensor<1x1x16x1xi64>
  %ninf = tg.constant dense<0xFF800000> : tensor<f32>
  %m = tg.select %keep, %s, %ninf : tensor<1x1x16x16xi1>, tensor<1x2x16x16xf32>, tensor<f32>
  %t = tg.tanh %m : tensor<1x2x16x16xf32>
  %p = tg.softmax %t axis = 3 : tensor<1x2x16x16xf32>
  %o = tg.matmul %p, %v : tensor<1x2x16x16xf32>, tensor<1x2x16x8xf32> -> tensor<1x2x16x8xf32>
  return %o : tensor<1x2x16x8xf32>
}
