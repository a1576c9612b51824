// Attention on [B·H, S, D] tensors (heads folded into the batch dim, as
// Bloom, OPT and GPT-NeoX write it) fuses like the rank-4 form: the views
// move to q, k, v, the captured tensors and the output.
// RUN: tg-opt %s -split-input-file --tg-fuse-attention=report=true -verify-diagnostics | FileCheck %s

// OPT: bmm(q, kᵀ), view to [B, H, S, S] + mask, view back, softmax on rank 3
// (upcast to f32 for f16 weights, as OPTAttention does), dropout p = 0 left
// out, bmm with v.
// CHECK-LABEL: func.func @opt_attention
// CHECK-SAME: (%[[Q:[^:]*]]: tensor<2x4x32x16xf16> {tg.name = "query_states"}, %[[K:[^:]*]]: tensor<2x4x32x16xf16> {tg.name = "key_states"}, %[[V:[^:]*]]: tensor<2x4x32x16xf16> {tg.name = "value_states"}, %[[M:[^:]*]]: tensor<2x1x32x32xf16> {tg.name = "attention_mask"})
// CHECK-NEXT: %[[O:.*]] = tg.attention %[[Q]], %[[K]], %[[V]] captures(%[[M]] : tensor<2x1x32x32xf16>) {scale = 2.500000e-01 : f64}
// CHECK-NOT: tg.matmul
// CHECK: return %[[O]] : tensor<2x4x32x16xf16>
func.func @opt_attention(%q: tensor<8x32x16xf16> {tg.name = "query_states"},
                         %k: tensor<8x32x16xf16> {tg.name = "key_states"},
                         %v: tensor<8x32x16xf16> {tg.name = "value_states"},
                         %mask: tensor<2x1x32x32xf16> {tg.name = "attention_mask"})
    -> (tensor<8x32x16xf16> {tg.name = "attn_output"}) {
  // query_states = q_proj(hidden_states) * scaling
  %scaling = tg.constant dense<0.25> : tensor<f16>
  %qs = tg.mul %q, %scaling : tensor<8x32x16xf16>, tensor<f16>
  %kt = tg.transpose %k perm = [0, 2, 1] : tensor<8x32x16xf16> -> tensor<8x16x32xf16>
  // expected-remark @below {{fused with the scores in f32; the graph as written rounds them 2 time(s)}}
  %s = tg.matmul %qs, %kt : tensor<8x32x16xf16>, tensor<8x16x32xf16> -> tensor<8x32x32xf16>
  %s4 = tg.reshape %s : tensor<8x32x32xf16> -> tensor<2x4x32x32xf16>
  %sm = tg.add %s4, %mask : tensor<2x4x32x32xf16>, tensor<2x1x32x32xf16>
  %s3 = tg.reshape %sm : tensor<2x4x32x32xf16> -> tensor<8x32x32xf16>
  %s32 = tg.cast %s3 : tensor<8x32x32xf16> to tensor<8x32x32xf32>
  %p32 = tg.softmax %s32 axis = 2 : tensor<8x32x32xf32>
  %p = tg.cast %p32 : tensor<8x32x32xf32> to tensor<8x32x32xf16>
  %o = tg.matmul %p, %v : tensor<8x32x32xf16>, tensor<8x32x16xf16> -> tensor<8x32x16xf16>
  return %o : tensor<8x32x16xf16>
}

// -----

// GPT-NeoX style: a per-batch bias on rank 3 added before the view, and
// dropout on the rank-3 probabilities.
// CHECK-LABEL: func.func @neox_attention
// CHECK: tg.attention {{.*}} seed(%{{.*}}) offset(%{{.*}}) {dropout = 1.000000e-01 : f64, scale = 1.250000e-01 : f64}
// CHECK-NOT: tg.matmul
func.func @neox_attention(%q: tensor<8x32x64xbf16>, %k: tensor<8x64x32xbf16>,
                          %v: tensor<8x32x64xbf16>, %bias: tensor<8x1x32xf32>,
                          %seed: tensor<i64>, %offset: tensor<i64>) -> tensor<8x32x64xbf16> {
  %s = tg.matmul %q, %k : tensor<8x32x64xbf16>, tensor<8x64x32xbf16> -> tensor<8x32x32xf32>
  %c = tg.constant dense<0.125> : tensor<f32>
  %ss = tg.mul %s, %c : tensor<8x32x32xf32>, tensor<f32>
  %sb = tg.add %ss, %bias : tensor<8x32x32xf32>, tensor<8x1x32xf32>
  %s4 = tg.reshape %sb : tensor<8x32x32xf32> -> tensor<2x4x32x32xf32>
  %p4 = tg.softmax %s4 axis = 3 : tensor<2x4x32x32xf32>
  %p3 = tg.reshape %p4 : tensor<2x4x32x32xf32> -> tensor<8x32x32xf32>
  %pd = tg.dropout %p3, %seed, %offset prob = 1.000000e-01 : tensor<8x32x32xf32>
  %pb = tg.cast %pd : tensor<8x32x32xf32> to tensor<8x32x32xbf16>
  %o = tg.matmul %pb, %v : tensor<8x32x32xbf16>, tensor<8x32x64xbf16> -> tensor<8x32x64xbf16>
  return %o : tensor<8x32x64xbf16>
}

// -----

// A rank-3 matmul whose result is viewed as rank 4 but feeds no softmax is
// not attention: it stays as written.
// CHECK-LABEL: func.func @not_attention
// CHECK: tg.matmul {{.*}} -> tensor<8x32x32xf32>
// CHECK: tg.reshape
func.func @not_attention(%a: tensor<8x32x16xf32>, %b: tensor<8x16x32xf32>) -> tensor<2x4x32x32xf32> {
  %s = tg.matmul %a, %b : tensor<8x32x16xf32>, tensor<8x16x32xf32> -> tensor<8x32x32xf32>
  %s4 = tg.reshape %s : tensor<8x32x32xf32> -> tensor<2x4x32x32xf32>
  %e = tg.exp %s4 : tensor<2x4x32x32xf32>
  return %e : tensor<2x4x32x32xf32>
}
