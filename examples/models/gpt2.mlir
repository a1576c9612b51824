// GPT-2 (HF transformers `GPT2Attention._attn`, f32 as GPT-2 usually runs),
// with the head split/merge around it.
//
//   query = query.view(B, S, H, D).permute(0, 2, 1, 3)     # _split_heads
//   attn_weights = torch.matmul(query, key.transpose(-1, -2))
//   attn_weights = attn_weights / torch.full([], value.size(-1) ** 0.5, dtype=attn_weights.dtype)
//   causal_mask = self.bias[:, :, key_length - query_length : key_length, :key_length]
//   mask_value = torch.full([], torch.finfo(attn_weights.dtype).min, dtype=attn_weights.dtype)
//   attn_weights = torch.where(causal_mask, attn_weights.to(attn_weights.dtype), mask_value)
//   attn_weights = attn_weights + attention_mask     # (1.0 - mask[:, None, None, :]) * finfo.min
//   attn_weights = nn.functional.softmax(attn_weights, dim=-1)
//   attn_weights = attn_weights.type(value.dtype)
//   attn_output = torch.matmul(attn_weights, value)
//   attn_output = attn_output.permute(0, 2, 1, 3).contiguous().view(B, S, H * D)   # _merge_heads
//
// `self.bias` is the registered lower-triangular boolean buffer (sliced to
// 8 x 8 here). The causal mask uses finfo.min, not -inf, so it stays region
// math; the padding mask from GPT2Model (a boolean input here) is pulled
// into the region too. The head split/merge become tg.strides.
//
// CHECK-LABEL: func.func @gpt2_attention
// CHECK-SAME: (%[[Q:[^:]*]]: tensor<2x2x8x64xf32> {tg.name = "query", tg.strides = array<i64: 1024, 64, 128, 1>}, %[[K:[^:]*]]: tensor<2x2x8x64xf32> {tg.name = "key", tg.strides = array<i64: 1024, 64, 128, 1>}, %[[V:[^:]*]]: tensor<2x2x8x64xf32> {tg.name = "value", tg.strides = array<i64: 1024, 64, 128, 1>}, %[[MASK:[^:]*]]: tensor<2x8xi1> {tg.name = "attention_mask"})
// CHECK-SAME: -> (tensor<2x2x8x64xf32> {tg.name = "attn_output", tg.strides = array<i64: 1024, 64, 128, 1>})
// CHECK: %[[BIAS:.*]] = tg.constant dense<{{.*}}> : tensor<1x1x8x8xi1>
// CHECK: %[[M4:.*]] = tg.reshape %[[MASK]] : tensor<2x8xi1> -> tensor<2x1x1x8xi1>
// CHECK: %[[O:.*]] = tg.attention %[[Q]], %[[K]], %[[V]] captures(%[[BIAS]], %[[M4]] : tensor<1x1x8x8xi1>, tensor<2x1x1x8xi1>) {scale = 1.250000e-01 : f64}
// CHECK-NOT: tg.attention
// CHECK-NOT: tg.matmul
// CHECK: return %[[O]]
func.func @gpt2_attention(
    %query: tensor<2x8x128xf32> {tg.name = "query"},
    %key: tensor<2x8x128xf32> {tg.name = "key"},
    %value: tensor<2x8x128xf32> {tg.name = "value"},
    %attention_mask: tensor<2x8xi1> {tg.name = "attention_mask"})
    -> (tensor<2x8x128xf32> {tg.name = "attn_output"}) {
  // _split_heads: view(B, S, H, D).permute(0, 2, 1, 3)
  %q4 = tg.reshape %query : tensor<2x8x128xf32> -> tensor<2x8x2x64xf32>
  %q = tg.transpose %q4 perm = [0, 2, 1, 3] : tensor<2x8x2x64xf32> -> tensor<2x2x8x64xf32>
  %k4 = tg.reshape %key : tensor<2x8x128xf32> -> tensor<2x8x2x64xf32>
  %k = tg.transpose %k4 perm = [0, 2, 1, 3] : tensor<2x8x2x64xf32> -> tensor<2x2x8x64xf32>
  %v4 = tg.reshape %value : tensor<2x8x128xf32> -> tensor<2x8x2x64xf32>
  %v = tg.transpose %v4 perm = [0, 2, 1, 3] : tensor<2x8x2x64xf32> -> tensor<2x2x8x64xf32>
  // torch.matmul(query, key.transpose(-1, -2)) / torch.full([], 64 ** 0.5)
  %kt = tg.transpose %k perm = [0, 1, 3, 2] : tensor<2x2x8x64xf32> -> tensor<2x2x64x8xf32>
  %w0 = tg.matmul %q, %kt : tensor<2x2x8x64xf32>, tensor<2x2x64x8xf32> -> tensor<2x2x8x8xf32>
  %sqrt_d = tg.constant dense<8.0> : tensor<f32>
  %w1 = tg.div %w0, %sqrt_d : tensor<2x2x8x8xf32>, tensor<f32>
  // torch.where(self.bias[:, :, 0:8, :8], attn_weights, finfo(f32).min)
  %bias = tg.constant dense<[[[
      [true, false, false, false, false, false, false, false],
      [true, true, false, false, false, false, false, false],
      [true, true, true, false, false, false, false, false],
      [true, true, true, true, false, false, false, false],
      [true, true, true, true, true, false, false, false],
      [true, true, true, true, true, true, false, false],
      [true, true, true, true, true, true, true, false],
      [true, true, true, true, true, true, true, true]]]]> : tensor<1x1x8x8xi1>
  %mask_value = tg.constant dense<-3.40282347e+38> : tensor<f32>
  %w2 = tg.select %bias, %w1, %mask_value : tensor<1x1x8x8xi1>, tensor<2x2x8x8xf32>, tensor<f32>
  // GPT2Model: attention_mask = (1.0 - attention_mask[:, None, None, :].to(dtype)) * finfo(dtype).min
  %m4 = tg.reshape %attention_mask : tensor<2x8xi1> -> tensor<2x1x1x8xi1>
  %mf = tg.cast %m4 : tensor<2x1x1x8xi1> to tensor<2x1x1x8xf32>
  %one = tg.constant dense<1.0> : tensor<f32>
  %inv = tg.sub %one, %mf : tensor<f32>, tensor<2x1x1x8xf32>
  %ext = tg.mul %inv, %mask_value : tensor<2x1x1x8xf32>, tensor<f32>
  %w3 = tg.add %w2, %ext : tensor<2x2x8x8xf32>, tensor<2x1x1x8xf32>
  // softmax(dim=-1); .type(value.dtype) is a no-op in f32; attn_dropout is
  // the identity in eval mode.
  %p = tg.softmax %w3 axis = 3 : tensor<2x2x8x8xf32>
  %o = tg.matmul %p, %v : tensor<2x2x8x8xf32>, tensor<2x2x8x64xf32> -> tensor<2x2x8x64xf32>
  // _merge_heads: permute(0, 2, 1, 3).contiguous().view(B, S, H * D)
  %ot = tg.transpose %o perm = [0, 2, 1, 3] : tensor<2x2x8x64xf32> -> tensor<2x8x2x64xf32>
  %of = tg.reshape %ot : tensor<2x8x2x64xf32> -> tensor<2x8x128xf32>
  return %of : tensor<2x8x128xf32>
}
