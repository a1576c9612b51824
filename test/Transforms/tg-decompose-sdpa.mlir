// RUN: tg-opt %s --tg-decompose-sdpa | FileCheck %s
// RUN: tg-opt %s --tg-decompose-sdpa | FileCheck %s --check-prefix=GONE
// RUN: tg-opt %s --tg-decompose-sdpa --tg-decompose-softmax --canonicalize | tg-opt | FileCheck %s --check-prefix=PRIMITIVE

// Every tg.sdpa is expanded, and the result still verifies and round-trips
// down to primitive ops when softmax is expanded too.
// GONE-NOT: tg.sdpa
// PRIMITIVE-NOT: tg.sdpa
// PRIMITIVE-NOT: tg.softmax

// CHECK-LABEL: func.func @plain(
// CHECK-SAME: %[[Q:[a-z0-9]+]]: tensor<1x2x16x8xbf16>, %[[K:[a-z0-9]+]]: tensor<1x2x16x8xbf16>, %[[V:[a-z0-9]+]]: tensor<1x2x16x8xbf16>
// CHECK-DAG: %[[SCALE:.*]] = tg.constant dense<0.353553385> : tensor<f32>
// CHECK: %[[KT:.*]] = tg.transpose %[[K]] perm = [0, 1, 3, 2] : tensor<1x2x16x8xbf16> -> tensor<1x2x8x16xbf16>
// CHECK: %[[S:.*]] = tg.matmul %[[Q]], %[[KT]] : tensor<1x2x16x8xbf16>, tensor<1x2x8x16xbf16> -> tensor<1x2x16x16xf32>
// CHECK: %[[SS:.*]] = tg.mul %[[S]], %[[SCALE]] : tensor<1x2x16x16xf32>, tensor<f32>
// CHECK: %[[P:.*]] = tg.softmax %[[SS]] axis = 3 : tensor<1x2x16x16xf32>
// CHECK-NOT: stats
// CHECK: %[[PC:.*]] = tg.cast %[[P]] : tensor<1x2x16x16xf32> to tensor<1x2x16x16xbf16>
// CHECK: %[[O:.*]] = tg.matmul %[[PC]], %[[V]] : tensor<1x2x16x16xbf16>, tensor<1x2x16x8xbf16> -> tensor<1x2x16x8xbf16>
// CHECK: return %[[O]]
func.func @plain(%q: tensor<1x2x16x8xbf16>, %k: tensor<1x2x16x8xbf16>, %v: tensor<1x2x16x8xbf16>) -> tensor<1x2x16x8xbf16> {
  %o = tg.sdpa %q, %k, %v : tensor<1x2x16x8xbf16>, tensor<1x2x16x8xbf16>, tensor<1x2x16x8xbf16> -> tensor<1x2x16x8xbf16>
  return %o : tensor<1x2x16x8xbf16>
}

// An explicit scale replaces 1/sqrt(D); f32 inputs need no cast of P.
// CHECK-LABEL: func.func @scale_f32(
// CHECK-SAME: %[[Q:[a-z0-9]+]]: tensor<1x1x4x8xf32>, %[[K:[a-z0-9]+]]: tensor<1x1x4x8xf32>, %[[V:[a-z0-9]+]]: tensor<1x1x4x8xf32>
// CHECK-DAG: %[[SCALE:.*]] = tg.constant dense<5.000000e-01> : tensor<f32>
// CHECK: %[[S:.*]] = tg.matmul %[[Q]], %{{.*}} -> tensor<1x1x4x4xf32>
// CHECK: %[[SS:.*]] = tg.mul %[[S]], %[[SCALE]]
// CHECK: %[[P:.*]] = tg.softmax %[[SS]] axis = 3
// CHECK-NOT: tg.cast
// CHECK: %[[O:.*]] = tg.matmul %[[P]], %[[V]] : tensor<1x1x4x4xf32>, tensor<1x1x4x8xf32> -> tensor<1x1x4x8xf32>
// CHECK: return %[[O]]
func.func @scale_f32(%q: tensor<1x1x4x8xf32>, %k: tensor<1x1x4x8xf32>, %v: tensor<1x1x4x8xf32>) -> tensor<1x1x4x8xf32> {
  %o = tg.sdpa %q, %k, %v {scale = 0.5 : f64} : tensor<1x1x4x8xf32>, tensor<1x1x4x8xf32>, tensor<1x1x4x8xf32> -> tensor<1x1x4x8xf32>
  return %o : tensor<1x1x4x8xf32>
}

// GQA: each of the 2 kv heads is repeated for its 2 query heads.
// CHECK-LABEL: func.func @gqa(
// CHECK-SAME: %[[Q:[a-z0-9]+]]: tensor<1x4x16x8xf16>, %[[K:[a-z0-9]+]]: tensor<1x2x16x8xf16>, %[[V:[a-z0-9]+]]: tensor<1x2x16x8xf16>
// CHECK: %[[K5:.*]] = tg.reshape %[[K]] : tensor<1x2x16x8xf16> -> tensor<1x2x1x16x8xf16>
// CHECK: %[[KB:.*]] = tg.broadcast %[[K5]] : tensor<1x2x1x16x8xf16> -> tensor<1x2x2x16x8xf16>
// CHECK: %[[KH:.*]] = tg.reshape %[[KB]] : tensor<1x2x2x16x8xf16> -> tensor<1x4x16x8xf16>
// CHECK: %[[KT:.*]] = tg.transpose %[[KH]] perm = [0, 1, 3, 2] : tensor<1x4x16x8xf16> -> tensor<1x4x8x16xf16>
// CHECK: tg.matmul %[[Q]], %[[KT]] : tensor<1x4x16x8xf16>, tensor<1x4x8x16xf16> -> tensor<1x4x16x16xf32>
// CHECK: %[[PC:.*]] = tg.cast %{{.*}} : tensor<1x4x16x16xf32> to tensor<1x4x16x16xf16>
// CHECK: %[[V5:.*]] = tg.reshape %[[V]] : tensor<1x2x16x8xf16> -> tensor<1x2x1x16x8xf16>
// CHECK: %[[VB:.*]] = tg.broadcast %[[V5]] : tensor<1x2x1x16x8xf16> -> tensor<1x2x2x16x8xf16>
// CHECK: %[[VH:.*]] = tg.reshape %[[VB]] : tensor<1x2x2x16x8xf16> -> tensor<1x4x16x8xf16>
// CHECK: %[[O:.*]] = tg.matmul %[[PC]], %[[VH]] : tensor<1x4x16x16xf16>, tensor<1x4x16x8xf16> -> tensor<1x4x16x8xf16>
// CHECK: return %[[O]]
func.func @gqa(%q: tensor<1x4x16x8xf16>, %k: tensor<1x2x16x8xf16>, %v: tensor<1x2x16x8xf16>) -> tensor<1x4x16x8xf16> {
  %o = tg.sdpa %q, %k, %v : tensor<1x4x16x8xf16>, tensor<1x2x16x8xf16>, tensor<1x2x16x8xf16> -> tensor<1x4x16x8xf16>
  return %o : tensor<1x4x16x8xf16>
}

// Causal, top-left: keep kv_idx <= q_idx.
// CHECK-LABEL: func.func @causal_top_left(
// CHECK-DAG: %[[NINF:.*]] = tg.constant dense<0xFF800000> : tensor<f32>
// CHECK: %[[SS:.*]] = tg.mul
// CHECK: %[[QI:.*]] = tg.gen_index axis = 2 : tensor<1x1x8x1xi64>
// CHECK: %[[KI:.*]] = tg.gen_index axis = 3 : tensor<1x1x1x16xi64>
// CHECK: %[[KEEP:.*]] = tg.cmp le, %[[KI]], %[[QI]] : tensor<1x1x1x16xi64>, tensor<1x1x8x1xi64>
// CHECK: %[[MS:.*]] = tg.select %[[KEEP]], %[[SS]], %[[NINF]] : tensor<1x1x8x16xi1>, tensor<1x2x8x16xf32>, tensor<f32>
// CHECK: tg.softmax %[[MS]] axis = 3
func.func @causal_top_left(%q: tensor<1x2x8x8xbf16>, %k: tensor<1x2x16x8xbf16>, %v: tensor<1x2x16x8xbf16>) -> tensor<1x2x8x8xbf16> {
  %o = tg.sdpa %q, %k, %v {causal = #tg<causal top_left>} : tensor<1x2x8x8xbf16>, tensor<1x2x16x8xbf16>, tensor<1x2x16x8xbf16> -> tensor<1x2x8x8xbf16>
  return %o : tensor<1x2x8x8xbf16>
}

// Causal, bottom-right: the diagonal moves by Skv - Sq = 8.
// CHECK-LABEL: func.func @causal_bottom_right(
// CHECK-DAG: %[[NINF:.*]] = tg.constant dense<0xFF800000> : tensor<f32>
// CHECK-DAG: %[[SHIFT:.*]] = tg.constant dense<8> : tensor<i64>
// CHECK: %[[SS:.*]] = tg.mul
// CHECK: %[[QI:.*]] = tg.gen_index axis = 2 : tensor<1x1x8x1xi64>
// CHECK: %[[KI:.*]] = tg.gen_index axis = 3 : tensor<1x1x1x16xi64>
// CHECK: %[[DIAG:.*]] = tg.add %[[QI]], %[[SHIFT]] : tensor<1x1x8x1xi64>, tensor<i64>
// CHECK: %[[KEEP:.*]] = tg.cmp le, %[[KI]], %[[DIAG]]
// CHECK: %[[MS:.*]] = tg.select %[[KEEP]], %[[SS]], %[[NINF]]
// CHECK: tg.softmax %[[MS]] axis = 3
func.func @causal_bottom_right(%q: tensor<1x2x8x8xbf16>, %k: tensor<1x2x16x8xbf16>, %v: tensor<1x2x16x8xbf16>) -> tensor<1x2x8x8xbf16> {
  %o = tg.sdpa %q, %k, %v {causal = #tg<causal bottom_right>} : tensor<1x2x8x8xbf16>, tensor<1x2x16x8xbf16>, tensor<1x2x16x8xbf16> -> tensor<1x2x8x8xbf16>
  return %o : tensor<1x2x8x8xbf16>
}

// Sliding window: keep q_idx - 4 <= kv_idx <= q_idx + 2 (the masks' rule:
// the right bound, then the left bound).
// CHECK-LABEL: func.func @window(
// CHECK-DAG: %[[NINF:.*]] = tg.constant dense<0xFF800000> : tensor<f32>
// CHECK-DAG: %[[FALSE:.*]] = tg.constant dense<false> : tensor<i1>
// CHECK-DAG: %[[LEFT:.*]] = tg.constant dense<4> : tensor<i64>
// CHECK-DAG: %[[RIGHT:.*]] = tg.constant dense<2> : tensor<i64>
// CHECK: %[[SS:.*]] = tg.mul
// CHECK: %[[QI:.*]] = tg.gen_index axis = 2
// CHECK: %[[KI:.*]] = tg.gen_index axis = 3
// CHECK: %[[HI:.*]] = tg.add %[[QI]], %[[RIGHT]]
// CHECK: %[[BEFORE:.*]] = tg.cmp le, %[[KI]], %[[HI]]
// CHECK: %[[LO:.*]] = tg.sub %[[QI]], %[[LEFT]]
// CHECK: %[[AFTER:.*]] = tg.cmp ge, %[[KI]], %[[LO]]
// CHECK: %[[KEEP:.*]] = tg.select %[[BEFORE]], %[[AFTER]], %[[FALSE]] : tensor<1x1x16x16xi1>, tensor<1x1x16x16xi1>, tensor<i1>
// CHECK: %[[MS:.*]] = tg.select %[[KEEP]], %[[SS]], %[[NINF]]
// CHECK: tg.softmax %[[MS]] axis = 3
func.func @window(%q: tensor<1x2x16x8xbf16>, %k: tensor<1x2x16x8xbf16>, %v: tensor<1x2x16x8xbf16>) -> tensor<1x2x16x8xbf16> {
  %o = tg.sdpa %q, %k, %v {window_left = 4 : i64, window_right = 2 : i64} : tensor<1x2x16x8xbf16>, tensor<1x2x16x8xbf16>, tensor<1x2x16x8xbf16> -> tensor<1x2x16x8xbf16>
  return %o : tensor<1x2x16x8xbf16>
}

// Padding: rows q_idx >= seq_len_q[b] and columns kv_idx >= seq_len_kv[b]
// are masked; the lengths become [B, 1, 1, 1] i64.
// CHECK-LABEL: func.func @padding(
// CHECK-SAME: %[[LQ:[a-z0-9]+]]: tensor<2xi32>, %[[LKV:[a-z0-9]+]]: tensor<2xi32>
// CHECK-DAG: %[[NINF:.*]] = tg.constant dense<0xFF800000> : tensor<f32>
// CHECK-DAG: %[[FALSE:.*]] = tg.constant dense<false> : tensor<i1>
// CHECK: %[[SS:.*]] = tg.mul
// CHECK: %[[QI:.*]] = tg.gen_index axis = 2 : tensor<1x1x7x1xi64>
// CHECK: %[[KI:.*]] = tg.gen_index axis = 3 : tensor<1x1x1x9xi64>
// CHECK: %[[LQ4:.*]] = tg.reshape %[[LQ]] : tensor<2xi32> -> tensor<2x1x1x1xi32>
// CHECK: %[[LQI:.*]] = tg.cast %[[LQ4]] : tensor<2x1x1x1xi32> to tensor<2x1x1x1xi64>
// CHECK: %[[LKV4:.*]] = tg.reshape %[[LKV]] : tensor<2xi32> -> tensor<2x1x1x1xi32>
// CHECK: %[[LKVI:.*]] = tg.cast %[[LKV4]] : tensor<2x1x1x1xi32> to tensor<2x1x1x1xi64>
// CHECK: %[[ROWS:.*]] = tg.cmp lt, %[[QI]], %[[LQI]] : tensor<1x1x7x1xi64>, tensor<2x1x1x1xi64>
// CHECK: %[[COLS:.*]] = tg.cmp lt, %[[KI]], %[[LKVI]] : tensor<1x1x1x9xi64>, tensor<2x1x1x1xi64>
// CHECK: %[[KEEP:.*]] = tg.select %[[ROWS]], %[[COLS]], %[[FALSE]] : tensor<2x1x7x1xi1>, tensor<2x1x1x9xi1>, tensor<i1>
// CHECK: %[[MS:.*]] = tg.select %[[KEEP]], %[[SS]], %[[NINF]] : tensor<2x1x7x9xi1>, tensor<2x2x7x9xf32>, tensor<f32>
// CHECK: tg.softmax %[[MS]] axis = 3
func.func @padding(%q: tensor<2x2x7x8xbf16>, %k: tensor<2x2x9x8xbf16>, %v: tensor<2x2x9x8xbf16>, %lq: tensor<2xi32>, %lkv: tensor<2xi32>) -> tensor<2x2x7x8xbf16> {
  %o = tg.sdpa %q, %k, %v seq_len_q(%lq : tensor<2xi32>) seq_len_kv(%lkv : tensor<2xi32>) : tensor<2x2x7x8xbf16>, tensor<2x2x9x8xbf16>, tensor<2x2x9x8xbf16> -> tensor<2x2x7x8xbf16>
  return %o : tensor<2x2x7x8xbf16>
}

// Bottom-right with padding aligns on the actual lengths:
// diag = q_idx + seq_len_kv[b] - seq_len_q[b] (i64 lengths need no cast).
// CHECK-LABEL: func.func @padding_bottom_right(
// CHECK-SAME: %[[LQ:[a-z0-9]+]]: tensor<2xi64>, %[[LKV:[a-z0-9]+]]: tensor<2xi64>
// CHECK: %[[QI:.*]] = tg.gen_index axis = 2
// CHECK: %[[KI:.*]] = tg.gen_index axis = 3
// CHECK: %[[LQ4:.*]] = tg.reshape %[[LQ]] : tensor<2xi64> -> tensor<2x1x1x1xi64>
// CHECK: %[[LKV4:.*]] = tg.reshape %[[LKV]] : tensor<2xi64> -> tensor<2x1x1x1xi64>
// CHECK: %[[SHIFT:.*]] = tg.sub %[[LKV4]], %[[LQ4]] : tensor<2x1x1x1xi64>, tensor<2x1x1x1xi64>
// CHECK: %[[DIAG:.*]] = tg.add %[[QI]], %[[SHIFT]] : tensor<1x1x7x1xi64>, tensor<2x1x1x1xi64>
// CHECK: tg.cmp le, %[[KI]], %[[DIAG]] : tensor<1x1x1x9xi64>, tensor<2x1x7x1xi64>
// CHECK: tg.cmp lt, %[[QI]], %[[LQ4]]
// CHECK: tg.cmp lt, %[[KI]], %[[LKV4]]
func.func @padding_bottom_right(%q: tensor<2x2x7x8xbf16>, %k: tensor<2x2x9x8xbf16>, %v: tensor<2x2x9x8xbf16>, %lq: tensor<2xi64>, %lkv: tensor<2xi64>) -> tensor<2x2x7x8xbf16> {
  %o = tg.sdpa %q, %k, %v seq_len_q(%lq : tensor<2xi64>) seq_len_kv(%lkv : tensor<2xi64>) {causal = #tg<causal bottom_right>} : tensor<2x2x7x8xbf16>, tensor<2x2x9x8xbf16>, tensor<2x2x9x8xbf16> -> tensor<2x2x7x8xbf16>
  return %o : tensor<2x2x7x8xbf16>
}

// Bias is added in f32 after scaling.
// CHECK-LABEL: func.func @bias(
// CHECK-SAME: %[[BIAS:[a-z0-9]+]]: tensor<1x2x1x16xbf16>
// CHECK: %[[SS:.*]] = tg.mul
// CHECK: %[[B32:.*]] = tg.cast %[[BIAS]] : tensor<1x2x1x16xbf16> to tensor<1x2x1x16xf32>
// CHECK: %[[SB:.*]] = tg.add %[[SS]], %[[B32]] : tensor<1x2x16x16xf32>, tensor<1x2x1x16xf32>
// CHECK: tg.softmax %[[SB]] axis = 3
func.func @bias(%q: tensor<1x2x16x8xbf16>, %k: tensor<1x2x16x8xbf16>, %v: tensor<1x2x16x8xbf16>, %bias: tensor<1x2x1x16xbf16>) -> tensor<1x2x16x8xbf16> {
  %o = tg.sdpa %q, %k, %v bias(%bias : tensor<1x2x1x16xbf16>) : tensor<1x2x16x8xbf16>, tensor<1x2x16x8xbf16>, tensor<1x2x16x8xbf16> -> tensor<1x2x16x8xbf16>
  return %o : tensor<1x2x16x8xbf16>
}

// Softcap: 50 * tanh(s / 50), applied after scaling and before the bias.
// CHECK-LABEL: func.func @softcap(
// CHECK-DAG: %[[CAP:.*]] = tg.constant dense<5.000000e+01> : tensor<f32>
// CHECK: %[[SS:.*]] = tg.mul %{{.*}}, %{{.*}} : tensor<1x2x16x16xf32>, tensor<f32>
// CHECK: %[[D:.*]] = tg.div %[[SS]], %[[CAP]]
// CHECK: %[[T:.*]] = tg.tanh %[[D]] : tensor<1x2x16x16xf32>
// CHECK: %[[C:.*]] = tg.mul %[[T]], %[[CAP]]
// CHECK: %[[SB:.*]] = tg.add %[[C]], %{{.*}}
// CHECK: tg.softmax %[[SB]] axis = 3
func.func @softcap(%q: tensor<1x2x16x8xbf16>, %k: tensor<1x2x16x8xbf16>, %v: tensor<1x2x16x8xbf16>, %bias: tensor<1x1x16x16xf32>) -> tensor<1x2x16x8xbf16> {
  %o = tg.sdpa %q, %k, %v bias(%bias : tensor<1x1x16x16xf32>) {softcap = 50.0 : f64} : tensor<1x2x16x8xbf16>, tensor<1x2x16x8xbf16>, tensor<1x2x16x8xbf16> -> tensor<1x2x16x8xbf16>
  return %o : tensor<1x2x16x8xbf16>
}

// ALiBi: s += slope(h) * (kv_idx - q_idx), slopes 2^-4 and 2^-8 for Hq = 2.
// CHECK-LABEL: func.func @alibi(
// CHECK-DAG: %[[SLOPES:.*]] = tg.constant dense<{{\[\[\[\[}}6.250000e-02]], {{\[\[}}3.906250e-03]]]]> : tensor<1x2x1x1xf32>
// CHECK: %[[SS:.*]] = tg.mul
// CHECK: %[[QI:.*]] = tg.gen_index axis = 2
// CHECK: %[[KI:.*]] = tg.gen_index axis = 3
// CHECK: %[[DIST:.*]] = tg.sub %[[KI]], %[[QI]] : tensor<1x1x1x16xi64>, tensor<1x1x16x1xi64>
// CHECK: %[[DF:.*]] = tg.cast %[[DIST]] : tensor<1x1x16x16xi64> to tensor<1x1x16x16xf32>
// CHECK: %[[A:.*]] = tg.mul %[[DF]], %[[SLOPES]] : tensor<1x1x16x16xf32>, tensor<1x2x1x1xf32>
// CHECK: %[[SA:.*]] = tg.add %[[SS]], %[[A]]
// CHECK: tg.softmax %[[SA]] axis = 3
func.func @alibi(%q: tensor<1x2x16x8xbf16>, %k: tensor<1x2x16x8xbf16>, %v: tensor<1x2x16x8xbf16>) -> tensor<1x2x16x8xbf16> {
  %o = tg.sdpa %q, %k, %v {alibi} : tensor<1x2x16x8xbf16>, tensor<1x2x16x8xbf16>, tensor<1x2x16x8xbf16> -> tensor<1x2x16x8xbf16>
  return %o : tensor<1x2x16x8xbf16>
}

// Dropout acts on the f32 probabilities, before they are rounded for p.v.
// CHECK-LABEL: func.func @dropout(
// CHECK-SAME: %[[SEED:[a-z0-9]+]]: tensor<i64>, %[[OFF:[a-z0-9]+]]: tensor<i64>
// CHECK: %[[P:.*]] = tg.softmax
// CHECK: %[[PD:.*]] = tg.dropout %[[P]], %[[SEED]], %[[OFF]] prob = 1.000000e-01 : tensor<1x2x16x16xf32>
// CHECK: %[[PC:.*]] = tg.cast %[[PD]] : tensor<1x2x16x16xf32> to tensor<1x2x16x16xbf16>
// CHECK: tg.matmul %[[PC]]
func.func @dropout(%q: tensor<1x2x16x8xbf16>, %k: tensor<1x2x16x8xbf16>, %v: tensor<1x2x16x8xbf16>, %seed: tensor<i64>, %off: tensor<i64>) -> tensor<1x2x16x8xbf16> {
  %o = tg.sdpa %q, %k, %v seed(%seed) offset(%off) {dropout = 0.1 : f64} : tensor<1x2x16x8xbf16>, tensor<1x2x16x8xbf16>, tensor<1x2x16x8xbf16> -> tensor<1x2x16x8xbf16>
  return %o : tensor<1x2x16x8xbf16>
}

// With a seed but zero dropout probability there is no dropout op.
// CHECK-LABEL: func.func @no_dropout(
// CHECK-NOT: tg.dropout
// CHECK: return
func.func @no_dropout(%q: tensor<1x2x16x8xbf16>, %k: tensor<1x2x16x8xbf16>, %v: tensor<1x2x16x8xbf16>, %seed: tensor<i64>, %off: tensor<i64>) -> tensor<1x2x16x8xbf16> {
  %o = tg.sdpa %q, %k, %v seed(%seed) offset(%off) : tensor<1x2x16x8xbf16>, tensor<1x2x16x8xbf16>, tensor<1x2x16x8xbf16> -> tensor<1x2x16x8xbf16>
  return %o : tensor<1x2x16x8xbf16>
}

// Training: the softmax's log-sum-exp is the stats result.
// CHECK-LABEL: func.func @training(
// CHECK: %[[P:.*]], %[[LSE:.*]] = tg.softmax %{{.*}} axis = 3 : tensor<1x2x16x16xf32> stats tensor<1x2x16x1xf32>
// CHECK: %[[PC:.*]] = tg.cast %[[P]]
// CHECK: %[[O:.*]] = tg.matmul %[[PC]]
// CHECK: return %[[O]], %[[LSE]] : tensor<1x2x16x8xbf16>, tensor<1x2x16x1xf32>
func.func @training(%q: tensor<1x2x16x8xbf16>, %k: tensor<1x2x16x8xbf16>, %v: tensor<1x2x16x8xbf16>) -> (tensor<1x2x16x8xbf16>, tensor<1x2x16x1xf32>) {
  %o, %lse = tg.sdpa %q, %k, %v {training} : tensor<1x2x16x8xbf16>, tensor<1x2x16x8xbf16>, tensor<1x2x16x8xbf16> -> tensor<1x2x16x8xbf16>, tensor<1x2x16x1xf32>
  return %o, %lse : tensor<1x2x16x8xbf16>, tensor<1x2x16x1xf32>
}

// Options combine in the documented order: scale, softcap, bias, ALiBi,
// masks, softmax, dropout.
// CHECK-LABEL: func.func @everything(
// CHECK: tg.matmul
// CHECK: tg.tanh
// CHECK: tg.add
// CHECK: tg.gen_index
// CHECK: tg.cmp le
// CHECK: tg.cmp ge
// CHECK: tg.cmp lt
// CHECK: tg.cmp lt
// CHECK: tg.softmax {{.*}} stats
// CHECK: tg.dropout
// CHECK: tg.cast {{.*}} to tensor<2x4x7x9xbf16>
// CHECK: tg.matmul
func.func @everything(%q: tensor<2x4x7x8xbf16>, %k: tensor<2x2x9x8xbf16>, %v: tensor<2x2x9x8xbf16>, %bias: tensor<1x4x7x9xbf16>, %lq: tensor<2xi32>, %lkv: tensor<2xi32>, %seed: tensor<i64>, %off: tensor<i64>) -> (tensor<2x4x7x8xbf16>, tensor<2x4x7x1xf32>) {
  %o, %lse = tg.sdpa %q, %k, %v bias(%bias : tensor<1x4x7x9xbf16>) seq_len_q(%lq : tensor<2xi32>) seq_len_kv(%lkv : tensor<2xi32>) seed(%seed) offset(%off) {causal = #tg<causal bottom_right>, window_left = 3 : i64, softcap = 30.0 : f64, alibi, training, dropout = 0.1 : f64} : tensor<2x4x7x8xbf16>, tensor<2x2x9x8xbf16>, tensor<2x2x9x8xbf16> -> tensor<2x4x7x8xbf16>, tensor<2x4x7x1xf32>
  return %o, %lse : tensor<2x4x7x8xbf16>, tensor<2x4x7x1xf32>
}
