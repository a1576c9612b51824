// DeBERTa (HF transformers `DisentangledSelfAttention.forward` with
// pos_att_type = ["c2p", "p2c"], f32, 2 heads, S = 8, att_span = 4): the
// content-to-position and position-to-content terms are matmuls with the
// relative position embeddings [1, H, 2 * att_span, d], read through
// torch.gather at the clamped relative position of each (query, key) pair.
//
//   scale = sqrt(d * 3); query_layer = query_layer / scale
//   attention_scores = torch.matmul(query_layer, key_layer.transpose(-1, -2))
//   relative_pos = q_ids[:, None] - k_ids[None, :]                    # [Sq, Skv]
//   c2p_att = torch.matmul(query_layer, pos_key_layer.transpose(-1, -2))   # [B, H, Sq, 2 span]
//   c2p_pos = torch.clamp(relative_pos + att_span, 0, att_span * 2 - 1)
//   c2p_att = torch.gather(c2p_att, dim=-1, index=c2p_pos.expand([B, H, Sq, Skv]))
//   pos_query_layer /= scale
//   p2c_att = torch.matmul(key_layer, pos_query_layer.transpose(-1, -2))   # [B, H, Skv, 2 span]
//   p2c_pos = torch.clamp(-relative_pos + att_span, 0, att_span * 2 - 1)
//   p2c_att = torch.gather(p2c_att, dim=-1, index=p2c_pos.expand([B, H, Skv, Skv])).transpose(-1, -2)
//   attention_scores = attention_scores + c2p_att + p2c_att
//   attention_probs = softmax(attention_scores, -1); context = attention_probs @ value_layer
//
// torch.gather(x, dim=-1, index) is tg.gather with gen_index along the other
// dimensions. Fusion keeps the two position matmuls ([B, H, S, 2 span], not
// [B, H, S, S]) as table captures and reads them in the score region at
// (b, h, q_idx, clamp(q_idx - kv_idx + span)) and, through the transpose,
// (b, h, kv_idx, clamp(q_idx - kv_idx + span)).
//
// CHECK-LABEL: func.func @deberta_disentangled
// CHECK: %[[C2P:.*]] = tg.matmul %{{.*}}, %{{.*}} : tensor<2x2x8x16xf32>, tensor<1x2x16x8xf32> -> tensor<2x2x8x8xf32>
// CHECK: %[[P2C:.*]] = tg.matmul %{{.*}}, %{{.*}} : tensor<2x2x8x16xf32>, tensor<1x2x16x8xf32> -> tensor<2x2x8x8xf32>
// CHECK: %[[O:.*]] = tg.attention %{{.*}}, %{{.*}}, %{{.*}} captures(%[[C2P]], %[[P2C]] : tensor<2x2x8x8xf32>, tensor<2x2x8x8xf32>) {scale = 0.14433756{{[0-9]*}} : f64}
// CHECK: ^bb0(%{{[^:]*}}: tensor<f32>, %[[B:[^:]*]]: tensor<i64>, %[[H:[^:]*]]: tensor<i64>, %[[QI:[^:]*]]: tensor<i64>, %[[KI:[^:]*]]: tensor<i64>, %[[T1:[^:]*]]: tensor<2x2x8x8xf32>, %[[T2:[^:]*]]: tensor<2x2x8x8xf32>):
// CHECK: tg.gather %[[T1]][%[[B]], %[[H]], %[[QI]], %{{.*}}] : tensor<2x2x8x8xf32>[tensor<i64>, tensor<i64>, tensor<i64>, tensor<i64>]
// CHECK: tg.gather %[[T2]][%[[B]], %[[H]], %[[KI]], %{{.*}}] : tensor<2x2x8x8xf32>[tensor<i64>, tensor<i64>, tensor<i64>, tensor<i64>]
// CHECK-NOT: tg.attention
// CHECK: return %[[O]]
func.func @deberta_disentangled(
    %query_layer: tensor<2x2x8x16xf32> {tg.name = "query_layer"},
    %key_layer: tensor<2x2x8x16xf32> {tg.name = "key_layer"},
    %value_layer: tensor<2x2x8x16xf32> {tg.name = "value_layer"},
    %pos_key_layer: tensor<1x2x8x16xf32> {tg.name = "pos_key_layer"},
    %pos_query_layer: tensor<1x2x8x16xf32> {tg.name = "pos_query_layer"})
    -> (tensor<2x2x8x16xf32> {tg.name = "context_layer"}) {
  %scale = tg.constant dense<6.92820311> : tensor<f32>
  %q = tg.div %query_layer, %scale : tensor<2x2x8x16xf32>, tensor<f32>
  %kt = tg.transpose %key_layer perm = [0, 1, 3, 2] : tensor<2x2x8x16xf32> -> tensor<2x2x16x8xf32>
  %scores = tg.matmul %q, %kt : tensor<2x2x8x16xf32>, tensor<2x2x16x8xf32> -> tensor<2x2x8x8xf32>
  // relative_pos = q_ids[:, None] - k_ids[None, :], as [1, 1, Sq, Skv]
  %qids = tg.gen_index axis = 2 : tensor<1x1x8x1xi64>
  %kids = tg.gen_index axis = 3 : tensor<1x1x1x8xi64>
  %rel = tg.sub %qids, %kids : tensor<1x1x8x1xi64>, tensor<1x1x1x8xi64>
  %span = tg.constant dense<4> : tensor<i64>
  %lo = tg.constant dense<0> : tensor<i64>
  %hi = tg.constant dense<7> : tensor<i64>
  // c2p
  %pkt = tg.transpose %pos_key_layer perm = [0, 1, 3, 2] : tensor<1x2x8x16xf32> -> tensor<1x2x16x8xf32>
  %c2p = tg.matmul %q, %pkt : tensor<2x2x8x16xf32>, tensor<1x2x16x8xf32> -> tensor<2x2x8x8xf32>
  %c2p_r = tg.add %rel, %span : tensor<1x1x8x8xi64>, tensor<i64>
  %c2p_lo = tg.max %c2p_r, %lo : tensor<1x1x8x8xi64>, tensor<i64>
  %c2p_pos = tg.min %c2p_lo, %hi : tensor<1x1x8x8xi64>, tensor<i64>
  %c2p_idx = tg.broadcast %c2p_pos : tensor<1x1x8x8xi64> -> tensor<2x2x8x8xi64>
  %gb = tg.gen_index axis = 0 : tensor<2x1x1x1xi64>
  %gh = tg.gen_index axis = 1 : tensor<1x2x1x1xi64>
  %gr = tg.gen_index axis = 2 : tensor<1x1x8x1xi64>
  %c2p_att = tg.gather %c2p[%gb, %gh, %gr, %c2p_idx] : tensor<2x2x8x8xf32>[tensor<2x1x1x1xi64>, tensor<1x2x1x1xi64>, tensor<1x1x8x1xi64>, tensor<2x2x8x8xi64>]
  // p2c
  %pq = tg.div %pos_query_layer, %scale : tensor<1x2x8x16xf32>, tensor<f32>
  %pqt = tg.transpose %pq perm = [0, 1, 3, 2] : tensor<1x2x8x16xf32> -> tensor<1x2x16x8xf32>
  %p2c = tg.matmul %key_layer, %pqt : tensor<2x2x8x16xf32>, tensor<1x2x16x8xf32> -> tensor<2x2x8x8xf32>
  %neg = tg.neg %rel : tensor<1x1x8x8xi64>
  %p2c_r = tg.add %neg, %span : tensor<1x1x8x8xi64>, tensor<i64>
  %p2c_lo = tg.max %p2c_r, %lo : tensor<1x1x8x8xi64>, tensor<i64>
  %p2c_pos = tg.min %p2c_lo, %hi : tensor<1x1x8x8xi64>, tensor<i64>
  %p2c_idx = tg.broadcast %p2c_pos : tensor<1x1x8x8xi64> -> tensor<2x2x8x8xi64>
  %p2c_g = tg.gather %p2c[%gb, %gh, %gr, %p2c_idx] : tensor<2x2x8x8xf32>[tensor<2x1x1x1xi64>, tensor<1x2x1x1xi64>, tensor<1x1x8x1xi64>, tensor<2x2x8x8xi64>]
  %p2c_att = tg.transpose %p2c_g perm = [0, 1, 3, 2] : tensor<2x2x8x8xf32> -> tensor<2x2x8x8xf32>
  %s1 = tg.add %scores, %c2p_att : tensor<2x2x8x8xf32>, tensor<2x2x8x8xf32>
  %s2 = tg.add %s1, %p2c_att : tensor<2x2x8x8xf32>, tensor<2x2x8x8xf32>
  %p = tg.softmax %s2 axis = 3 : tensor<2x2x8x8xf32>
  %o = tg.matmul %p, %value_layer : tensor<2x2x8x8xf32>, tensor<2x2x8x16xf32> -> tensor<2x2x8x16xf32>
  return %o : tensor<2x2x8x16xf32>
}
