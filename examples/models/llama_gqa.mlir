// Llama (HF transformers `eager_attention_forward`, bf16 inference) with
// grouped-query attention: 4 query heads share 2 key/value heads. Rotary
// embeddings are already applied to the query and key states.
//
//   key_states = repeat_kv(key, n_rep)      # [:, :, None].expand().reshape()
//   value_states = repeat_kv(value, n_rep)
//   attn_weights = torch.matmul(query, key_states.transpose(2, 3)) * scaling
//   attn_weights = attn_weights + causal_mask          # [B,1,Sq,Skv], 0 / min
//   attn_weights = softmax(attn_weights, dim=-1, dtype=torch.float32).to(query.dtype)
//   attn_output = torch.matmul(attn_weights, value_states)
//   attn_output = attn_output.transpose(1, 2).contiguous()
//
// torch.matmul of bf16 tensors returns bf16, and `* scaling` (a Python
// float, head_dim ** -0.5) multiplies in bf16. The 4-D mask is a graph input
// (HF builds it once per forward); it stays additive region math.
//
// CHECK-LABEL: func.func @llama_attention
// CHECK-SAME: %[[Q:[^:]*]]: tensor<1x4x16x16xbf16> {tg.name = "query_states"}, %[[K:[^:]*]]: tensor<1x2x16x16xbf16> {tg.name = "key_states"}, %[[V:[^:]*]]: tensor<1x2x16x16xbf16> {tg.name = "value_states"}, %[[M:[^:]*]]: tensor<1x1x16x16xbf16> {tg.name = "attention_mask"})
// CHECK-SAME: -> (tensor<1x4x16x16xbf16> {tg.name = "attn_output", tg.strides = array<i64: 1024, 16, 64, 1>})
// CHECK-NEXT: %[[O:.*]] = tg.attention %[[Q]], %[[K]], %[[V]] captures(%[[M]] : tensor<1x1x16x16xbf16>) {scale = 2.500000e-01 : f64}
// CHECK-NOT: tg.attention
// CHECK-NOT: tg.matmul
// CHECK: return %[[O]]
func.func @llama_attention(
    %query: tensor<1x4x16x16xbf16> {tg.name = "query_states"},
    %key: tensor<1x2x16x16xbf16> {tg.name = "key_states"},
    %value: tensor<1x2x16x16xbf16> {tg.name = "value_states"},
    %attention_mask: tensor<1x1x16x16xbf16> {tg.name = "attention_mask"})
    -> (tensor<1x16x4x16xbf16> {tg.name = "attn_output"}) {
  // repeat_kv: hidden_states[:, :, None, :, :].expand(b, kvh, n_rep, s, d)
  //            .reshape(b, kvh * n_rep, s, d)
  %k5 = tg.reshape %key : tensor<1x2x16x16xbf16> -> tensor<1x2x1x16x16xbf16>
  %kx = tg.broadcast %k5 : tensor<1x2x1x16x16xbf16> -> tensor<1x2x2x16x16xbf16>
  %key_states = tg.reshape %kx : tensor<1x2x2x16x16xbf16> -> tensor<1x4x16x16xbf16>
  %v5 = tg.reshape %value : tensor<1x2x16x16xbf16> -> tensor<1x2x1x16x16xbf16>
  %vx = tg.broadcast %v5 : tensor<1x2x1x16x16xbf16> -> tensor<1x2x2x16x16xbf16>
  %value_states = tg.reshape %vx : tensor<1x2x2x16x16xbf16> -> tensor<1x4x16x16xbf16>
  // torch.matmul(query, key_states.transpose(2, 3)) * scaling
  %kt = tg.transpose %key_states perm = [0, 1, 3, 2] : tensor<1x4x16x16xbf16> -> tensor<1x4x16x16xbf16>
  // expected-remark @below {{fused with the scores in f32; the graph as written rounds them 3 time(s)}}
  %qk = tg.matmul %query, %kt : tensor<1x4x16x16xbf16>, tensor<1x4x16x16xbf16> -> tensor<1x4x16x16xbf16>
  %scaling = tg.constant dense<0.25> : tensor<bf16>
  %w0 = tg.mul %qk, %scaling : tensor<1x4x16x16xbf16>, tensor<bf16>
  // + causal_mask (attention_mask[:, :, :, :key_len] is the whole mask here)
  %w1 = tg.add %w0, %attention_mask : tensor<1x4x16x16xbf16>, tensor<1x1x16x16xbf16>
  // softmax(dim=-1, dtype=torch.float32).to(query.dtype)
  %w32 = tg.cast %w1 : tensor<1x4x16x16xbf16> to tensor<1x4x16x16xf32>
  %p32 = tg.softmax %w32 axis = 3 : tensor<1x4x16x16xf32>
  %p = tg.cast %p32 : tensor<1x4x16x16xf32> to tensor<1x4x16x16xbf16>
  // dropout(p=attention_dropout, training=False) is the identity.
  %o = tg.matmul %p, %value_states : tensor<1x4x16x16xbf16>, tensor<1x4x16x16xbf16> -> tensor<1x4x16x16xbf16>
  // attn_output.transpose(1, 2).contiguous()
  %ot = tg.transpose %o perm = [0, 2, 1, 3] : tensor<1x4x16x16xbf16> -> tensor<1x16x4x16xbf16>
  return %ot : tensor<1x16x4x16xbf16>
}
