// T5 (HF transformers `T5Attention.compute_bias` + `forward`, encoder
// self-attention, f32): the position bias is computed in the graph from the
// bucketed relative positions and the learned embedding
// `relative_attention_bias` ([num_buckets, H]), not given as an input.
//
//   context_position = torch.arange(query_length)[:, None]
//   memory_position = torch.arange(key_length)[None, :]
//   relative_position = memory_position - context_position        # [Sq, Skv]
//   bucket = _relative_position_bucket(relative_position, bidirectional=True,
//                                      num_buckets=32, max_distance=128)
//   values = self.relative_attention_bias(bucket)                  # [Sq, Skv, H]
//   values = values.permute([2, 0, 1]).unsqueeze(0)                # [1, H, Sq, Skv]
//   scores = torch.matmul(query_states, key_states.transpose(3, 2)) + values
//   attn_weights = softmax(scores.float(), dim=-1); attn_output = attn_weights @ v
//
// _relative_position_bucket (bidirectional, num_buckets // 2 = 16, max_exact 8):
//   buckets = (rel > 0).long() * 16; n = rel.abs()
//   large = 8 + (log(n.float() / 8) / log(128 / 8) * 8).long(); large = min(large, 15)
//   buckets += where(n < 8, n, large)
//
// The embedding lookup is a tg.gather of the table at (bucket, h). Fusion
// moves the bucket arithmetic and the lookup into the score region: the
// table is a table capture and no [1, H, Sq, Skv] bias exists.
//
// CHECK-LABEL: func.func @t5_compute_bias
// CHECK-SAME: %[[EMB:[^:]*]]: tensor<32x4xf32> {tg.name = "relative_attention_bias"}
// CHECK: %[[O:.*]] = tg.attention %{{.*}}, %{{.*}}, %{{.*}} captures(%[[EMB]] : tensor<32x4xf32>) :
// CHECK: ^bb0(%{{[^:]*}}: tensor<f32>, %{{[^:]*}}: tensor<i64>, %[[H:[^:]*]]: tensor<i64>, %{{[^:]*}}: tensor<i64>, %{{[^:]*}}: tensor<i64>, %[[T:[^:]*]]: tensor<32x4xf32>):
// CHECK: tg.log
// CHECK: %[[E:.*]] = tg.gather %[[T]][%{{.*}}, %[[H]]] : tensor<32x4xf32>[tensor<i64>, tensor<i64>]
// CHECK: tg.add %{{.*}}, %[[E]]
// CHECK-NOT: tg.attention
// CHECK-NOT: tg.gather
// CHECK-NOT: tg.matmul
// CHECK: return %[[O]]
func.func @t5_compute_bias(
    %query_states: tensor<2x4x16x16xf32> {tg.name = "query_states"},
    %key_states: tensor<2x4x16x16xf32> {tg.name = "key_states"},
    %value_states: tensor<2x4x16x16xf32> {tg.name = "value_states"},
    %emb: tensor<32x4xf32> {tg.name = "relative_attention_bias"})
    -> (tensor<2x4x16x16xf32> {tg.name = "attn_output"}) {
  // relative_position = memory_position - context_position
  %ctx = tg.gen_index axis = 0 : tensor<16x1xi64>
  %mem = tg.gen_index axis = 1 : tensor<1x16xi64>
  %rel = tg.sub %mem, %ctx : tensor<1x16xi64>, tensor<16x1xi64>
  // relative_buckets += (relative_position > 0).to(torch.long) * num_buckets
  %zero = tg.constant dense<0> : tensor<i64>
  %pos = tg.cmp gt, %rel, %zero : tensor<16x16xi64>, tensor<i64>
  %posl = tg.cast %pos : tensor<16x16xi1> to tensor<16x16xi64>
  %c16 = tg.constant dense<16> : tensor<i64>
  %base = tg.mul %posl, %c16 : tensor<16x16xi64>, tensor<i64>
  %n = tg.abs %rel : tensor<16x16xi64>
  %c8 = tg.constant dense<8> : tensor<i64>
  %small = tg.cmp lt, %n, %c8 : tensor<16x16xi64>, tensor<i64>
  // max_exact + (log(n.float() / max_exact) / log(max_distance / max_exact) * (num_buckets - max_exact)).long()
  %nf = tg.cast %n : tensor<16x16xi64> to tensor<16x16xf32>
  %c8f = tg.constant dense<8.0> : tensor<f32>
  %ratio = tg.div %nf, %c8f : tensor<16x16xf32>, tensor<f32>
  %l = tg.log %ratio : tensor<16x16xf32>
  %den = tg.constant dense<2.77258873> : tensor<f32>
  %l2 = tg.div %l, %den : tensor<16x16xf32>, tensor<f32>
  %l3 = tg.mul %l2, %c8f : tensor<16x16xf32>, tensor<f32>
  %li = tg.cast %l3 : tensor<16x16xf32> to tensor<16x16xi64>
  %large = tg.add %c8, %li : tensor<i64>, tensor<16x16xi64>
  %c15 = tg.constant dense<15> : tensor<i64>
  %largec = tg.min %large, %c15 : tensor<16x16xi64>, tensor<i64>
  %pick = tg.select %small, %n, %largec : tensor<16x16xi1>, tensor<16x16xi64>, tensor<16x16xi64>
  %bucket = tg.add %base, %pick : tensor<16x16xi64>, tensor<16x16xi64>
  // values = self.relative_attention_bias(bucket): [Sq, Skv, H]
  %b3 = tg.reshape %bucket : tensor<16x16xi64> -> tensor<16x16x1xi64>
  %heads = tg.gen_index axis = 2 : tensor<1x1x4xi64>
  %values = tg.gather %emb[%b3, %heads] : tensor<32x4xf32>[tensor<16x16x1xi64>, tensor<1x1x4xi64>]
  // values.permute([2, 0, 1]).unsqueeze(0)
  %vt = tg.transpose %values perm = [2, 0, 1] : tensor<16x16x4xf32> -> tensor<4x16x16xf32>
  %bias = tg.reshape %vt : tensor<4x16x16xf32> -> tensor<1x4x16x16xf32>
  // scores = matmul(q, k^T) + position_bias (no scaling in T5)
  %kt = tg.transpose %key_states perm = [0, 1, 3, 2] : tensor<2x4x16x16xf32> -> tensor<2x4x16x16xf32>
  %scores = tg.matmul %query_states, %kt : tensor<2x4x16x16xf32>, tensor<2x4x16x16xf32> -> tensor<2x4x16x16xf32>
  %s = tg.add %scores, %bias : tensor<2x4x16x16xf32>, tensor<1x4x16x16xf32>
  %p = tg.softmax %s axis = 3 : tensor<2x4x16x16xf32>
  %o = tg.matmul %p, %value_states : tensor<2x4x16x16xf32>, tensor<2x4x16x16xf32> -> tensor<2x4x16x16xf32>
  return %o : tensor<2x4x16x16xf32>
}
