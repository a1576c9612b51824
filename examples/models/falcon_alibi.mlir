// Falcon (HF transformers `FalconAttention`, the ALiBi path used by the
// Falcon-RW models, bf16).
//
//   matmul_result = query_layer_ @ key_layer_.transpose(-1, -2)
//   attention_scores = matmul_result.view(batch_size, self.num_heads, query_length, kv_length)
//   attention_scores = attention_scores.to(torch.float32)        # bf16 input
//   attention_logits = attention_scores + alibi.view(batch_size, self.num_heads, 1, -1)
//   attention_logits *= self.inv_norm_factor                      # scale after the bias
//   attention_probs = F.softmax(attention_logits + attention_mask, dim=-1, dtype=hidden_states.dtype)
//   attn_output = (attention_probs_reshaped @ value_layer_).flatten(0, 1)
//
// `build_alibi_tensor` gives slopes[h] * position[kv] with slopes
// 2^(-8 (h+1) / H) = [0.25, 0.0625, 0.015625, 0.00390625] for 4 heads and
// positions (cumsum(mask) - 1) * mask = kv_idx for an unpadded batch; it is
// returned in the model dtype (bf16). The causal mask of
// `_prepare_4d_causal_attention_mask` holds 0 / finfo(bf16).min.
//
// CHECK-LABEL: func.func @falcon_alibi_attention
// CHECK: %[[SL:.*]] = tg.constant dense<{{.*}}> : tensor<1x4x1x1xf32>
// CHECK: %[[O:.*]] = tg.attention %{{.*}}, %{{.*}}, %{{.*}} captures(%[[SL]] : tensor<1x4x1x1xf32>) :
// CHECK-NEXT: ^bb0(%[[S:[^:]*]]: tensor<f32>, %{{[^:]*}}: tensor<i64>, %{{[^:]*}}: tensor<i64>, %[[QI:[^:]*]]: tensor<i64>, %[[KI:[^:]*]]: tensor<i64>, %[[SLOPE:[^:]*]]: tensor<f32>):
// CHECK: tg.cast %[[KI]] : tensor<i64> to tensor<f32>
// CHECK: tg.mul %[[SLOPE]]
// CHECK: tg.constant dense<2.500000e-01> : tensor<f32>
// CHECK: tg.yield
// CHECK-NOT: tg.attention
// CHECK-NOT: tg.matmul
// CHECK: return %[[O]]
func.func @falcon_alibi_attention(
    %query_layer: tensor<1x4x16x16xbf16> {tg.name = "query_layer_"},
    %key_layer: tensor<1x4x16x16xbf16> {tg.name = "key_layer_"},
    %value_layer: tensor<1x4x16x16xbf16> {tg.name = "value_layer_"})
    -> (tensor<4x16x16xbf16> {tg.name = "attn_output"}) {
  // build_alibi_tensor: slopes[..., None] * arange_tensor, .to(bf16)
  %slopes = tg.constant dense<[[[[0.25]], [[0.0625]], [[0.015625]], [[0.00390625]]]]> : tensor<1x4x1x1xf32>
  %pos = tg.gen_index axis = 3 : tensor<1x1x1x16xi64>
  %posf = tg.cast %pos : tensor<1x1x1x16xi64> to tensor<1x1x1x16xf32>
  %alibi32 = tg.mul %slopes, %posf : tensor<1x4x1x1xf32>, tensor<1x1x1x16xf32>
  %alibi = tg.cast %alibi32 : tensor<1x4x1x16xf32> to tensor<1x4x1x16xbf16>
  // _prepare_4d_causal_attention_mask: finfo(bf16).min above the diagonal
  %qi = tg.gen_index axis = 2 : tensor<1x1x16x1xi64>
  %ki = tg.gen_index axis = 3 : tensor<1x1x1x16xi64>
  %future = tg.cmp gt, %ki, %qi : tensor<1x1x1x16xi64>, tensor<1x1x16x1xi64>
  %min = tg.constant dense<-3.3895313892515355e+38> : tensor<bf16>
  %zero = tg.constant dense<0.0> : tensor<bf16>
  %attention_mask = tg.select %future, %min, %zero : tensor<1x1x16x16xi1>, tensor<bf16>, tensor<bf16>
  // query_layer_ @ key_layer_.transpose(-1, -2), viewed as [B, H, Sq, Skv]
  %kt = tg.transpose %key_layer perm = [0, 1, 3, 2] : tensor<1x4x16x16xbf16> -> tensor<1x4x16x16xbf16>
  // expected-remark @below {{fused with the scores in f32; the graph as written rounds them 3 time(s)}}
  %scores = tg.matmul %query_layer, %kt : tensor<1x4x16x16xbf16>, tensor<1x4x16x16xbf16> -> tensor<1x4x16x16xbf16>
  %scores32 = tg.cast %scores : tensor<1x4x16x16xbf16> to tensor<1x4x16x16xf32>
  %alibi_f = tg.cast %alibi : tensor<1x4x1x16xbf16> to tensor<1x4x1x16xf32>
  %logits0 = tg.add %scores32, %alibi_f : tensor<1x4x16x16xf32>, tensor<1x4x1x16xf32>
  %inv_norm = tg.constant dense<0.25> : tensor<f32>
  %logits1 = tg.mul %logits0, %inv_norm : tensor<1x4x16x16xf32>, tensor<f32>
  %mask_f = tg.cast %attention_mask : tensor<1x1x16x16xbf16> to tensor<1x1x16x16xf32>
  %logits2 = tg.add %logits1, %mask_f : tensor<1x4x16x16xf32>, tensor<1x1x16x16xf32>
  // F.softmax(..., dtype=bf16) converts the input to bf16 first.
  %logits_b = tg.cast %logits2 : tensor<1x4x16x16xf32> to tensor<1x4x16x16xbf16>
  %probs = tg.softmax %logits_b axis = 3 : tensor<1x4x16x16xbf16>
  %o = tg.matmul %probs, %value_layer : tensor<1x4x16x16xbf16>, tensor<1x4x16x16xbf16> -> tensor<1x4x16x16xbf16>
  // .flatten(0, 1)
  %of = tg.reshape %o : tensor<1x4x16x16xbf16> -> tensor<4x16x16xbf16>
  return %of : tensor<4x16x16xbf16>
}
