// BERT (HF transformers `BertSelfAttention`, eager, f32, training forward
// with attention-probability dropout 0.1).
//
//   query_layer = self.transpose_for_scores(mixed_query_layer)   # view + permute
//   attention_scores = torch.matmul(query_layer, key_layer.transpose(-1, -2))
//   attention_scores = attention_scores / math.sqrt(self.attention_head_size)
//   attention_scores = attention_scores + attention_mask
//   attention_probs = nn.functional.softmax(attention_scores, dim=-1)
//   attention_probs = self.dropout(attention_probs)
//   context_layer = torch.matmul(attention_probs, value_layer)
//   context_layer = context_layer.permute(0, 2, 1, 3).contiguous().view(B, S, H * D)
//
// `attention_mask` is the extended padding mask of `get_extended_attention_mask`:
// (1.0 - mask[:, None, None, :]) * torch.finfo(dtype).min, computed from the
// tokenizer's 0/1 mask (a boolean input here). Its finite value makes a
// fully padded row uniform rather than zero, so it stays region math.
//
// CHECK-LABEL: func.func @bert_self_attention
// CHECK: %[[M4:.*]] = tg.reshape %{{.*}} : tensor<2x8xi1> -> tensor<2x1x1x8xi1>
// CHECK: %[[O:.*]] = tg.attention %{{.*}}, %{{.*}}, %{{.*}} seed(%{{.*}}) offset(%{{.*}}) captures(%[[M4]] : tensor<2x1x1x8xi1>) {dropout = 1.000000e-01 : f64, scale = 0.17677{{[0-9]*}} : f64}
// CHECK-NEXT: ^bb0(%[[S:.*]]: tensor<f32>, %{{.*}}: tensor<i64>, %{{.*}}: tensor<i64>, %{{.*}}: tensor<i64>, %{{.*}}: tensor<i64>, %[[MK:.*]]: tensor<i1>):
// CHECK: tg.cast %[[MK]] : tensor<i1> to tensor<f32>
// CHECK: tg.add %[[S]]
// CHECK-NOT: tg.attention
// CHECK-NOT: tg.matmul
// CHECK: return %[[O]]
func.func @bert_self_attention(
    %mixed_query: tensor<2x8x64xf32> {tg.name = "mixed_query_layer"},
    %mixed_key: tensor<2x8x64xf32> {tg.name = "mixed_key_layer"},
    %mixed_value: tensor<2x8x64xf32> {tg.name = "mixed_value_layer"},
    %attention_mask: tensor<2x8xi1> {tg.name = "attention_mask"},
    %seed: tensor<i64> {tg.name = "dropout_seed"},
    %offset: tensor<i64> {tg.name = "dropout_offset"})
    -> (tensor<2x8x64xf32> {tg.name = "context_layer"}) {
  // transpose_for_scores: view(B, S, H, D).permute(0, 2, 1, 3)
  %q4 = tg.reshape %mixed_query : tensor<2x8x64xf32> -> tensor<2x8x2x32xf32>
  %q = tg.transpose %q4 perm = [0, 2, 1, 3] : tensor<2x8x2x32xf32> -> tensor<2x2x8x32xf32>
  %k4 = tg.reshape %mixed_key : tensor<2x8x64xf32> -> tensor<2x8x2x32xf32>
  %k = tg.transpose %k4 perm = [0, 2, 1, 3] : tensor<2x8x2x32xf32> -> tensor<2x2x8x32xf32>
  %v4 = tg.reshape %mixed_value : tensor<2x8x64xf32> -> tensor<2x8x2x32xf32>
  %v = tg.transpose %v4 perm = [0, 2, 1, 3] : tensor<2x8x2x32xf32> -> tensor<2x2x8x32xf32>
  // matmul(query_layer, key_layer.transpose(-1, -2)) / math.sqrt(32)
  %kt = tg.transpose %k perm = [0, 1, 3, 2] : tensor<2x2x8x32xf32> -> tensor<2x2x32x8xf32>
  %s0 = tg.matmul %q, %kt : tensor<2x2x8x32xf32>, tensor<2x2x32x8xf32> -> tensor<2x2x8x8xf32>
  %sqrt_d = tg.constant dense<5.65685415> : tensor<f32>
  %s1 = tg.div %s0, %sqrt_d : tensor<2x2x8x8xf32>, tensor<f32>
  // get_extended_attention_mask: (1.0 - mask[:, None, None, :].to(dtype)) * finfo(dtype).min
  %m4 = tg.reshape %attention_mask : tensor<2x8xi1> -> tensor<2x1x1x8xi1>
  %mf = tg.cast %m4 : tensor<2x1x1x8xi1> to tensor<2x1x1x8xf32>
  %one = tg.constant dense<1.0> : tensor<f32>
  %inv = tg.sub %one, %mf : tensor<f32>, tensor<2x1x1x8xf32>
  %min = tg.constant dense<-3.40282347e+38> : tensor<f32>
  %ext = tg.mul %inv, %min : tensor<2x1x1x8xf32>, tensor<f32>
  %s2 = tg.add %s1, %ext : tensor<2x2x8x8xf32>, tensor<2x1x1x8xf32>
  %p = tg.softmax %s2 axis = 3 : tensor<2x2x8x8xf32>
  // self.dropout (nn.Dropout(0.1), training)
  %pd = tg.dropout %p, %seed, %offset prob = 1.000000e-01 : tensor<2x2x8x8xf32>
  %c = tg.matmul %pd, %v : tensor<2x2x8x8xf32>, tensor<2x2x8x32xf32> -> tensor<2x2x8x32xf32>
  // permute(0, 2, 1, 3).contiguous().view(B, S, H * D)
  %ct = tg.transpose %c perm = [0, 2, 1, 3] : tensor<2x2x8x32xf32> -> tensor<2x8x2x32xf32>
  %cf = tg.reshape %ct : tensor<2x8x2x32xf32> -> tensor<2x8x64xf32>
  return %cf : tensor<2x8x64xf32>
}
