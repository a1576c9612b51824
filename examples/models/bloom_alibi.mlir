// Bloom (HF transformers `BloomAttention`, eager, bf16): attention on
// [B·H, S, D] tensors with the ALiBi tensor added by baddbmm.
//
//   attn_weights = alibi.baddbmm(batch1=query_layer, batch2=key_layer,
//                                beta=self.beta, alpha=self.inv_norm_factor)
//   attention_scores = attn_weights.view(batch_size, self.num_heads, q_length, -1)
//   attn_weights = attention_scores + causal_mask       # 0 / finfo(bf16).min
//   attention_probs = F.softmax(attn_weights, dim=-1, dtype=torch.float32).to(query_layer.dtype)
//   attention_probs_reshaped = attention_probs.view(batch_size * self.num_heads, q_length, -1)
//   context_layer = torch.bmm(attention_probs_reshaped, value_layer)
//
// with key_layer already transposed ([B·H, D, S]), beta = 1.0 and
// inv_norm_factor = 1 / sqrt(head_dim); `alibi` ([B·H, 1, S], model dtype)
// comes from build_alibi_tensor and the mask from the decoder's causal mask.
// The scores are computed in bf16 (values up to the ALiBi range, where one
// bf16 step is 0.25-0.5); the fused op keeps them in f32 and says so.
//
// CHECK-LABEL: func.func @bloom_attention
// CHECK: %[[O:.*]] = tg.attention %{{.*}}, %{{.*}}, %{{.*}} captures(%{{.*}}, %{{.*}} : tensor<1x4x1x16xbf16>, tensor<1x1x16x16xbf16>) {scale = 2.500000e-01 : f64}
// CHECK-NOT: tg.matmul
// CHECK: return
func.func @bloom_attention(
    %query_layer: tensor<4x16x16xbf16> {tg.name = "query_layer"},
    %key_layer: tensor<4x16x16xbf16> {tg.name = "key_layer"},
    %value_layer: tensor<4x16x16xbf16> {tg.name = "value_layer"},
    %alibi: tensor<4x1x16xbf16> {tg.name = "alibi"},
    %causal_mask: tensor<1x1x16x16xbf16> {tg.name = "causal_mask"})
    -> (tensor<4x16x16xbf16> {tg.name = "context_layer"}) {
  // baddbmm: beta * alibi + alpha * (query_layer @ key_layer), in bf16
  // expected-remark @below {{fused with the scores in f32; the graph as written rounds them 4 time(s)}}
  %qk = tg.matmul %query_layer, %key_layer : tensor<4x16x16xbf16>, tensor<4x16x16xbf16> -> tensor<4x16x16xbf16>
  %alpha = tg.constant dense<0.25> : tensor<bf16>
  %beta = tg.constant dense<1.0> : tensor<bf16>
  %scaled = tg.mul %qk, %alpha : tensor<4x16x16xbf16>, tensor<bf16>
  %bias = tg.mul %alibi, %beta : tensor<4x1x16xbf16>, tensor<bf16>
  %attn_weights = tg.add %scaled, %bias : tensor<4x16x16xbf16>, tensor<4x1x16xbf16>
  // .view(batch_size, num_heads, q_length, -1) + causal_mask
  %scores = tg.reshape %attn_weights : tensor<4x16x16xbf16> -> tensor<1x4x16x16xbf16>
  %masked = tg.add %scores, %causal_mask : tensor<1x4x16x16xbf16>, tensor<1x1x16x16xbf16>
  // softmax(dim=-1, dtype=torch.float32).to(bf16)
  %m32 = tg.cast %masked : tensor<1x4x16x16xbf16> to tensor<1x4x16x16xf32>
  %p32 = tg.softmax %m32 axis = 3 : tensor<1x4x16x16xf32>
  %probs = tg.cast %p32 : tensor<1x4x16x16xf32> to tensor<1x4x16x16xbf16>
  // .view(batch_size * num_heads, q_length, -1), bmm with value_layer
  %probs3 = tg.reshape %probs : tensor<1x4x16x16xbf16> -> tensor<4x16x16xbf16>
  %context = tg.matmul %probs3, %value_layer : tensor<4x16x16xbf16>, tensor<4x16x16xbf16> -> tensor<4x16x16xbf16>
  return %context : tensor<4x16x16xbf16>
}
