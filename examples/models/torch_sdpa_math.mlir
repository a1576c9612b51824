// PyTorch's reference implementation of F.scaled_dot_product_attention (the
// documented math path) with is_causal=True, enable_gqa=True and dropout,
// in bf16, for a chunk of 8 queries against 16 keys.
//
//   scale_factor = 1 / math.sqrt(query.size(-1))
//   attn_bias = torch.zeros(L, S, dtype=query.dtype)
//   temp_mask = torch.ones(L, S, dtype=torch.bool).tril(diagonal=0)
//   attn_bias.masked_fill_(temp_mask.logical_not(), float("-inf"))
//   key = key.repeat_interleave(query.size(-3) // key.size(-3), -3)
//   value = value.repeat_interleave(query.size(-3) // value.size(-3), -3)
//   attn_weight = query @ key.transpose(-2, -1) * scale_factor
//   attn_weight += attn_bias
//   attn_weight = torch.softmax(attn_weight, dim=-1)
//   attn_weight = torch.dropout(attn_weight, dropout_p, train=True)
//   return attn_weight @ value
//
// tril on an L x S matrix keeps kv <= q: causal masking aligned to the top
// left even though L < S. The mask is -inf, so it is lifted.
//
// CHECK-LABEL: func.func @torch_sdpa_math
// CHECK-SAME: (%[[Q:[^:]*]]: tensor<1x4x8x32xbf16> {tg.name = "query"}, %[[K:[^:]*]]: tensor<1x2x16x32xbf16> {tg.name = "key"}, %[[V:[^:]*]]: tensor<1x2x16x32xbf16> {tg.name = "value"}, %[[SEED:[^:]*]]: tensor<i64> {tg.name = "seed"}, %[[OFF:[^:]*]]: tensor<i64> {tg.name = "offset"})
// CHECK-NEXT: %[[O:.*]] = tg.attention %[[Q]], %[[K]], %[[V]] seed(%[[SEED]]) offset(%[[OFF]]) {causal = #tg<causal top_left>, dropout = 1.000000e-01 : f64, scale = 0.1767{{[0-9]*}} : f64}
// CHECK-NEXT: ^bb0(%[[S:.*]]: tensor<f32>,
// CHECK-NEXT: tg.yield %[[S]]
// CHECK-NOT: tg.attention
// CHECK: return %[[O]]
func.func @torch_sdpa_math(
    %query: tensor<1x4x8x32xbf16> {tg.name = "query"},
    %key: tensor<1x2x16x32xbf16> {tg.name = "key"},
    %value: tensor<1x2x16x32xbf16> {tg.name = "value"},
    %seed: tensor<i64> {tg.name = "seed"},
    %offset: tensor<i64> {tg.name = "offset"})
    -> (tensor<1x4x8x32xbf16> {tg.name = "output"}) {
  // attn_bias: zeros, -inf where not tril(ones(L, S))
  %ki = tg.gen_index axis = 3 : tensor<1x1x1x16xi64>
  %qi4 = tg.gen_index axis = 2 : tensor<1x1x8x1xi64>
  %keep = tg.cmp le, %ki, %qi4 : tensor<1x1x1x16xi64>, tensor<1x1x8x1xi64>
  %ninf = tg.constant dense<0xFF80> : tensor<bf16>
  %zero = tg.constant dense<0.0> : tensor<bf16>
  %attn_bias = tg.select %keep, %zero, %ninf : tensor<1x1x8x16xi1>, tensor<bf16>, tensor<bf16>
  // repeat_interleave(2, dim=-3): kv head h // 2 for query head h
  %k5 = tg.reshape %key : tensor<1x2x16x32xbf16> -> tensor<1x2x1x16x32xbf16>
  %kx = tg.broadcast %k5 : tensor<1x2x1x16x32xbf16> -> tensor<1x2x2x16x32xbf16>
  %kr = tg.reshape %kx : tensor<1x2x2x16x32xbf16> -> tensor<1x4x16x32xbf16>
  %v5 = tg.reshape %value : tensor<1x2x16x32xbf16> -> tensor<1x2x1x16x32xbf16>
  %vx = tg.broadcast %v5 : tensor<1x2x1x16x32xbf16> -> tensor<1x2x2x16x32xbf16>
  %vr = tg.reshape %vx : tensor<1x2x2x16x32xbf16> -> tensor<1x4x16x32xbf16>
  // query @ key.transpose(-2, -1) * scale_factor (bf16)
  %kt = tg.transpose %kr perm = [0, 1, 3, 2] : tensor<1x4x16x32xbf16> -> tensor<1x4x32x16xbf16>
  // expected-remark @below {{fused with the scores in f32; the graph as written rounds them 4 time(s)}}
  %w0 = tg.matmul %query, %kt : tensor<1x4x8x32xbf16>, tensor<1x4x32x16xbf16> -> tensor<1x4x8x16xbf16>
  %scale = tg.constant dense<0.176776692> : tensor<bf16>
  %w1 = tg.mul %w0, %scale : tensor<1x4x8x16xbf16>, tensor<bf16>
  %w2 = tg.add %w1, %attn_bias : tensor<1x4x8x16xbf16>, tensor<1x1x8x16xbf16>
  %p = tg.softmax %w2 axis = 3 : tensor<1x4x8x16xbf16>
  %pd = tg.dropout %p, %seed, %offset prob = 1.000000e-01 : tensor<1x4x8x16xbf16>
  %o = tg.matmul %pd, %vr : tensor<1x4x8x16xbf16>, tensor<1x4x16x32xbf16> -> tensor<1x4x8x32xbf16>
  return %o : tensor<1x4x8x32xbf16>
}
