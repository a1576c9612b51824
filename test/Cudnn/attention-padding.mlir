// Padding masks with int32 sequence lengths, bound as [B,1,1,1]: columns
// kv_idx >= seq_len_kv[b] and rows q_idx >= seq_len_q[b] are masked, the
// matmuls stop at the lengths (m/n/k overrides). Nothing follows the second
// matmul (ops there make cuDNN's engines reject the graph, measured on the
// H200): the rows past seq_len_q, which cuDNN does not compute, are zeroed
// by a memset before the step. Training stats with seq_len_q are refused
// (their -inf rows would stay unwritten).
// RUN: tg-compile %s --entry=padding --emit=cudnn | FileCheck %s
// RUN: tg-compile %s --entry=padding --emit=plan | FileCheck %s --check-prefix=PLAN
// RUN: tg-compile %s --entry=kv_only --emit=cudnn | FileCheck %s --check-prefix=KV

// CHECK-NOT: sdpa_fwd
// CHECK: graph "attention fwd (composite)" min_version 91002
// CHECK: tensor [[LQ:[0-9]+]] i32 [2,1,1,1] [1,1,1,1] buffer "lq"
// CHECK-NEXT: tensor [[LKV:[0-9]+]] i32 [2,1,1,1] [1,1,1,1] buffer "lkv"
// CHECK: tensor [[O:[0-9]+]] bf16 [2,4,64,64] [16384,4096,64,1] buffer "o"
// CHECK: op matmul compute f32 a {{[0-9]+}} b {{[0-9]+}} c [[S0:[0-9]+]] m_override [[LQ]] n_override [[LKV]]
// CHECK-NEXT: op pointwise mul compute f32 x [[S0]] b {{[0-9]+}} y [[S:[0-9]+]]
// The padding and band rules are the ones the backward uses (ScoreGraph.h).
// CHECK-NEXT: op pointwise gen_index compute i32 axis 2 x [[S]] y [[ROW:[0-9]+]]
// CHECK-NEXT: op pointwise gen_index compute i32 axis 3 x [[S]] y [[COL:[0-9]+]]
// CHECK-NEXT: op pointwise cmp_lt compute i1 x [[ROW]] b [[LQ]] y [[RV:[0-9]+]]
// CHECK-NEXT: op pointwise cmp_lt compute i1 x [[COL]] b [[LKV]] y [[CV:[0-9]+]]
// CHECK-NEXT: op pointwise logical_and compute i1 x [[RV]] b [[CV]] y [[PAD:[0-9]+]]
// CHECK-NEXT: op pointwise binary_select compute f32 x [[S]] b {{[0-9]+}} t [[PAD]] y [[S1:[0-9]+]]
// Bottom-right diagonal from the actual lengths: q_idx + Lkv - Lq.
// CHECK-NEXT: op pointwise gen_index compute f32 axis 2 x [[S1]] y [[ROW2:[0-9]+]]
// CHECK-NEXT: op pointwise gen_index compute f32 axis 3 x [[S1]] y [[COL2:[0-9]+]]
// CHECK-NEXT: op pointwise add compute i32 x [[ROW2]] b [[LKV]] y [[D1:[0-9]+]]
// CHECK-NEXT: op pointwise sub compute i32 x [[D1]] b [[LQ]] y [[DIAG:[0-9]+]]
// CHECK-NEXT: op pointwise cmp_ge compute i1 x [[DIAG]] b [[COL2]]
// CHECK-NEXT: op pointwise binary_select
// CHECK-NEXT: op reduction max compute f32 x {{[0-9]+}} y [[MAX:[0-9]+]]
// CHECK: op pointwise log compute f32 x {{[0-9]+}} y [[LOG:[0-9]+]]
// CHECK-NEXT: op pointwise add compute f32 x [[MAX]] b [[LOG]] y {{[0-9]+}}
// CHECK-NEXT: op pointwise div compute f32 x {{[0-9]+}} b {{[0-9]+}} y [[P:[0-9]+]]
// CHECK-NEXT: op matmul compute f32 a [[P]] b {{[0-9]+}} c [[O]] m_override [[LQ]] k_override [[LKV]]
// CHECK-NEXT: end

// PLAN: buffer "lq" input i32 shape [2]
// PLAN: memset "o" 0
// PLAN-NEXT: cudnn {{[0-9]+}}
// PLAN: fallback
func.func @padding(%q: tensor<2x4x64x64xbf16> {tg.name = "q"}, %k: tensor<2x4x128x64xbf16> {tg.name = "k"},
                   %v: tensor<2x4x128x64xbf16> {tg.name = "v"}, %lq: tensor<2xi32> {tg.name = "lq"},
                   %lkv: tensor<2xi32> {tg.name = "lkv"})
    -> (tensor<2x4x64x64xbf16> {tg.name = "o"}) {
  %o = tg.attention %q, %k, %v seq_len_q(%lq : tensor<2xi32>) seq_len_kv(%lkv : tensor<2xi32>)
      {causal = #tg<causal bottom_right>}
      : tensor<2x4x64x64xbf16>, tensor<2x4x128x64xbf16>, tensor<2x4x128x64xbf16> -> tensor<2x4x64x64xbf16>
      score {
  ^bb0(%s: tensor<f32>, %b: tensor<i64>, %h: tensor<i64>, %qi: tensor<i64>, %ki: tensor<i64>):
    tg.yield %s : tensor<f32>
  }
  return %o : tensor<2x4x64x64xbf16>
}

// Only kv lengths, with a causal window: a row keeps a kv position iff
// Lkv > 0, q_idx >= 0 and q_idx - 8 < Lkv (operands ordered so that the
// broadcast one is `b`). tg-expand-attention adds a full-length seq_len_q
// constant (attention-padding-one-length.mlir says why).
// KV: tensor [[LQ:[0-9]+]] i32 [2,1,1,1] [1,1,1,1] buffer "t0"
// KV: tensor [[LKV:[0-9]+]] i32 [2,1,1,1] [1,1,1,1] buffer "arg3"
// KV: op matmul compute f32 a {{[0-9]+}} b {{[0-9]+}} c {{[0-9]+}} m_override [[LQ]] n_override [[LKV]]
// KV: op pointwise div
// KV-NEXT: op matmul compute f32 a {{[0-9]+}} b {{[0-9]+}} c {{[0-9]+}} m_override [[LQ]] k_override [[LKV]]
// KV-NEXT: end
func.func @kv_only(%q: tensor<2x4x64x64xbf16>, %k: tensor<2x4x128x64xbf16>, %v: tensor<2x4x128x64xbf16>, %lkv: tensor<2xi32>) -> tensor<2x4x64x64xbf16> {
  %o = tg.attention %q, %k, %v seq_len_kv(%lkv : tensor<2xi32>) {causal = #tg<causal top_left>, window_left = 8 : i64}
      : tensor<2x4x64x64xbf16>, tensor<2x4x128x64xbf16>, tensor<2x4x128x64xbf16> -> tensor<2x4x64x64xbf16>
      score {
  ^bb0(%s: tensor<f32>, %b: tensor<i64>, %h: tensor<i64>, %qi: tensor<i64>, %ki: tensor<i64>):
    tg.yield %s : tensor<f32>
  }
  return %o : tensor<2x4x64x64xbf16>
}
