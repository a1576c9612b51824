// Gemma-2 (HF transformers `Gemma2Attention`, eager, bf16), a sliding-window
// layer: logit soft-capping, GQA (4 query heads, 2 kv heads) and a sliding
// window on top of the causal mask (window 4 here; 4096 in the real model).
//
//   attn_weights = torch.matmul(query_states, key_states.transpose(2, 3)) * self.scaling
//   attn_weights = attn_weights / self.config.attn_logit_softcapping
//   attn_weights = torch.tanh(attn_weights)
//   attn_weights = attn_weights * self.config.attn_logit_softcapping
//   attn_weights = attn_weights + causal_mask
//   attn_weights = softmax(attn_weights, dim=-1, dtype=torch.float32).to(query_states.dtype)
//   attn_output = torch.matmul(attn_weights, value_states)
//
// with scaling = query_pre_attn_scalar ** -0.5 = 256 ** -0.5, softcap 50,
// and the decoder layer's masks:
//
//   causal_mask = torch.triu(torch.full((S, S), min_dtype), diagonal=1)
//   sliding_window_mask = torch.tril(torch.ones_like(mask, dtype=torch.bool), diagonal=-self.sliding_window)
//   attention_mask = torch.where(sliding_window_mask, min_dtype, attention_mask)
//
// The masks use finfo(bf16).min, so they stay additive region math after
// the soft-capping.
//
// CHECK-LABEL: func.func @gemma2_sliding_attention
// CHECK-SAME: (%[[Q:[^:]*]]: tensor<1x4x16x32xbf16> {tg.name = "query_states"}, %[[K:[^:]*]]: tensor<1x2x16x32xbf16> {tg.name = "key_states"}, %[[V:[^:]*]]: tensor<1x2x16x32xbf16> {tg.name = "value_states"})
// CHECK-NEXT: %[[O:.*]] = tg.attention %[[Q]], %[[K]], %[[V]] {scale = 1.250000e-03 : f64}
// CHECK: tg.tanh
// CHECK: tg.sub %{{.*}}, %{{.*}} : tensor<i64>, tensor<i64>
// CHECK: tg.yield
// CHECK-NOT: tg.attention
// CHECK-NOT: tg.matmul
// CHECK: return %[[O]]
func.func @gemma2_sliding_attention(
    %query: tensor<1x4x16x32xbf16> {tg.name = "query_states"},
    %key: tensor<1x2x16x32xbf16> {tg.name = "key_states"},
    %value: tensor<1x2x16x32xbf16> {tg.name = "value_states"})
    -> (tensor<1x4x16x32xbf16> {tg.name = "attn_output"}) {
  // repeat_kv
  %k5 = tg.reshape %key : tensor<1x2x16x32xbf16> -> tensor<1x2x1x16x32xbf16>
  %kx = tg.broadcast %k5 : tensor<1x2x1x16x32xbf16> -> tensor<1x2x2x16x32xbf16>
  %key_states = tg.reshape %kx : tensor<1x2x2x16x32xbf16> -> tensor<1x4x16x32xbf16>
  %v5 = tg.reshape %value : tensor<1x2x16x32xbf16> -> tensor<1x2x1x16x32xbf16>
  %vx = tg.broadcast %v5 : tensor<1x2x1x16x32xbf16> -> tensor<1x2x2x16x32xbf16>
  %value_states = tg.reshape %vx : tensor<1x2x2x16x32xbf16> -> tensor<1x4x16x32xbf16>
  // matmul(query, key.T) * scaling, in bf16
  %kt = tg.transpose %key_states perm = [0, 1, 3, 2] : tensor<1x4x16x32xbf16> -> tensor<1x4x32x16xbf16>
  // expected-remark @below {{fused with the scores in f32; the graph as written rounds them 6 time(s)}}
  %qk = tg.matmul %query, %kt : tensor<1x4x16x32xbf16>, tensor<1x4x32x16xbf16> -> tensor<1x4x16x16xbf16>
  %scaling = tg.constant dense<0.0625> : tensor<bf16>
  %w0 = tg.mul %qk, %scaling : tensor<1x4x16x16xbf16>, tensor<bf16>
  // soft-capping: / 50, tanh, * 50
  %cap = tg.constant dense<50.0> : tensor<bf16>
  %w1 = tg.div %w0, %cap : tensor<1x4x16x16xbf16>, tensor<bf16>
  %w2 = tg.tanh %w1 : tensor<1x4x16x16xbf16>
  %w3 = tg.mul %w2, %cap : tensor<1x4x16x16xbf16>, tensor<bf16>
  // causal_mask = triu(full(min), diagonal=1): min where kv > q, else 0
  %qi = tg.gen_index axis = 2 : tensor<1x1x16x1xi64>
  %ki = tg.gen_index axis = 3 : tensor<1x1x1x16xi64>
  %min = tg.constant dense<-3.3895313892515355e+38> : tensor<bf16>
  %zero = tg.constant dense<0.0> : tensor<bf16>
  %future = tg.cmp gt, %ki, %qi : tensor<1x1x1x16xi64>, tensor<1x1x16x1xi64>
  %causal = tg.select %future, %min, %zero : tensor<1x1x16x16xi1>, tensor<bf16>, tensor<bf16>
  // sliding_window_mask = tril(ones, diagonal=-4): true where kv - q <= -4
  %d = tg.sub %ki, %qi : tensor<1x1x1x16xi64>, tensor<1x1x16x1xi64>
  %mw = tg.constant dense<-4> : tensor<i64>
  %old = tg.cmp le, %d, %mw : tensor<1x1x16x16xi64>, tensor<i64>
  %mask = tg.select %old, %min, %causal : tensor<1x1x16x16xi1>, tensor<bf16>, tensor<1x1x16x16xbf16>
  %w4 = tg.add %w3, %mask : tensor<1x4x16x16xbf16>, tensor<1x1x16x16xbf16>
  // softmax(dim=-1, dtype=torch.float32).to(query_states.dtype)
  %w32 = tg.cast %w4 : tensor<1x4x16x16xbf16> to tensor<1x4x16x16xf32>
  %p32 = tg.softmax %w32 axis = 3 : tensor<1x4x16x16xf32>
  %p = tg.cast %p32 : tensor<1x4x16x16xf32> to tensor<1x4x16x16xbf16>
  %o = tg.matmul %p, %value_states : tensor<1x4x16x16xbf16>, tensor<1x4x16x32xbf16> -> tensor<1x4x16x32xbf16>
  return %o : tensor<1x4x16x32xbf16>
}
