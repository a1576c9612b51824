// Swin Transformer (`WindowAttention.forward`, 4x4 windows, N = 16 tokens,
// 4 heads, f32): a learned relative-position bias table
// [(2*4-1)*(2*4-1), H] = [49, 4] read through the precomputed index buffer
// `relative_position_index` [N, N].
//
//   q = q * self.scale
//   attn = q @ k.transpose(-2, -1)
//   bias = self.relative_position_bias_table[self.relative_position_index.view(-1)]
//   bias = bias.view(N, N, -1).permute(2, 0, 1).contiguous()     # [H, N, N]
//   attn = self.softmax(attn + bias.unsqueeze(0))
//   x = (attn @ v).transpose(1, 2).reshape(B_, N, C)
//
// Indexing with an index tensor is tg.gather (the second index, the head,
// is gen_index). Fusion reads the table in the score region: the index
// buffer becomes a table capture read at (q_idx, kv_idx) and the bias table
// a table capture read at (index, h). The second function computes the
// index as Swin's constructor does (meshgrid of the window coordinates), so
// fusion turns it into index arithmetic on q_idx and kv_idx.
//
// CHECK-LABEL: func.func @swin_window_attention
// CHECK-SAME: %[[TABLE:[^:]*]]: tensor<49x4xf32> {tg.name = "relative_position_bias_table"}, %[[INDEX:[^:]*]]: tensor<16x16xi64> {tg.name = "relative_position_index"})
// CHECK: %[[O:.*]] = tg.attention %{{.*}}, %{{.*}}, %{{.*}} captures(%[[INDEX]], %[[TABLE]] : tensor<16x16xi64>, tensor<49x4xf32>) {scale = 0.35355338{{[0-9]*}} : f64}
// CHECK: ^bb0(%{{[^:]*}}: tensor<f32>, %{{[^:]*}}: tensor<i64>, %[[H:[^:]*]]: tensor<i64>, %[[QI:[^:]*]]: tensor<i64>, %[[KI:[^:]*]]: tensor<i64>, %[[I:[^:]*]]: tensor<16x16xi64>, %[[T:[^:]*]]: tensor<49x4xf32>):
// CHECK-NEXT: %[[IX:.*]] = tg.gather %[[I]][%[[QI]], %[[KI]]] : tensor<16x16xi64>[tensor<i64>, tensor<i64>]
// CHECK-NEXT: %[[E:.*]] = tg.gather %[[T]][%[[IX]], %[[H]]] : tensor<49x4xf32>[tensor<i64>, tensor<i64>]
// CHECK-NEXT: tg.add %{{.*}}, %[[E]]
// CHECK-NOT: tg.gather
// CHECK-NOT: tg.matmul
// CHECK: return %[[O]]
func.func @swin_window_attention(
    %q: tensor<2x4x16x8xf32> {tg.name = "q"}, %k: tensor<2x4x16x8xf32> {tg.name = "k"},
    %v: tensor<2x4x16x8xf32> {tg.name = "v"},
    %table: tensor<49x4xf32> {tg.name = "relative_position_bias_table"},
    %index: tensor<16x16xi64> {tg.name = "relative_position_index"})
    -> (tensor<2x16x32xf32> {tg.name = "x"}) {
  %scale = tg.constant dense<0.353553385> : tensor<f32>
  %qs = tg.mul %q, %scale : tensor<2x4x16x8xf32>, tensor<f32>
  %kt = tg.transpose %k perm = [0, 1, 3, 2] : tensor<2x4x16x8xf32> -> tensor<2x4x8x16xf32>
  %attn = tg.matmul %qs, %kt : tensor<2x4x16x8xf32>, tensor<2x4x8x16xf32> -> tensor<2x4x16x16xf32>
  // table[index.view(-1)]: [N*N] rows, every head
  %flat = tg.reshape %index : tensor<16x16xi64> -> tensor<256x1xi64>
  %heads = tg.gen_index axis = 1 : tensor<1x4xi64>
  %rows = tg.gather %table[%flat, %heads] : tensor<49x4xf32>[tensor<256x1xi64>, tensor<1x4xi64>]
  %nnh = tg.reshape %rows : tensor<256x4xf32> -> tensor<16x16x4xf32>
  %hnn = tg.transpose %nnh perm = [2, 0, 1] : tensor<16x16x4xf32> -> tensor<4x16x16xf32>
  %bias = tg.reshape %hnn : tensor<4x16x16xf32> -> tensor<1x4x16x16xf32>
  %s = tg.add %attn, %bias : tensor<2x4x16x16xf32>, tensor<1x4x16x16xf32>
  %p = tg.softmax %s axis = 3 : tensor<2x4x16x16xf32>
  %o = tg.matmul %p, %v : tensor<2x4x16x16xf32>, tensor<2x4x16x8xf32> -> tensor<2x4x16x8xf32>
  %ot = tg.transpose %o perm = [0, 2, 1, 3] : tensor<2x4x16x8xf32> -> tensor<2x16x4x8xf32>
  %x = tg.reshape %ot : tensor<2x16x4x8xf32> -> tensor<2x16x32xf32>
  return %x : tensor<2x16x32xf32>
}

// The index as the constructor builds it, in bf16 attention:
//   coords = stack(meshgrid(arange(4), arange(4))).flatten(1)     # [2, N]
//   rel = coords[:, :, None] - coords[:, None, :]                  # [2, N, N]
//   index = (rel[0] + 3) * 7 + (rel[1] + 3)
// with token t at row t / 4, column t % 4 (t % 4 written t - (t / 4) * 4).
// CHECK-LABEL: func.func @swin_index_arithmetic
// CHECK: %[[O:.*]] = tg.attention %{{.*}}, %{{.*}}, %{{.*}} captures(%{{.*}} : tensor<49x4xf32>)
// CHECK: ^bb0(%{{[^:]*}}: tensor<f32>, %{{[^:]*}}: tensor<i64>, %[[H:[^:]*]]: tensor<i64>, %[[QI:[^:]*]]: tensor<i64>, %[[KI:[^:]*]]: tensor<i64>, %[[T:[^:]*]]: tensor<49x4xf32>):
// CHECK: tg.div %[[QI]], %{{.*}} : tensor<i64>, tensor<i64>
// CHECK: tg.div %[[KI]], %{{.*}} : tensor<i64>, tensor<i64>
// CHECK: tg.gather %[[T]][%{{.*}}, %[[H]]] : tensor<49x4xf32>[tensor<i64>, tensor<i64>]
// CHECK-NOT: tg.gather
// CHECK: return %[[O]]
func.func @swin_index_arithmetic(
    %q: tensor<2x4x16x32xbf16> {tg.name = "q"}, %k: tensor<2x4x16x32xbf16> {tg.name = "k"},
    %v: tensor<2x4x16x32xbf16> {tg.name = "v"},
    %table: tensor<49x4xf32> {tg.name = "relative_position_bias_table"})
    -> (tensor<2x4x16x32xbf16> {tg.name = "o"}) {
  %scale = tg.constant dense<0.1767767> : tensor<bf16>
  %qs = tg.mul %q, %scale : tensor<2x4x16x32xbf16>, tensor<bf16>
  %kt = tg.transpose %k perm = [0, 1, 3, 2] : tensor<2x4x16x32xbf16> -> tensor<2x4x32x16xbf16>
  // expected-remark @below {{fused with the scores in f32; the graph as written rounds them 2 time(s)}}
  %attn = tg.matmul %qs, %kt : tensor<2x4x16x32xbf16>, tensor<2x4x32x16xbf16> -> tensor<2x4x16x16xbf16>
  %t = tg.gen_index axis = 0 : tensor<16x1xi64>
  %u = tg.gen_index axis = 1 : tensor<1x16xi64>
  %c4 = tg.constant dense<4> : tensor<i64>
  %th = tg.div %t, %c4 : tensor<16x1xi64>, tensor<i64>
  %th4 = tg.mul %th, %c4 : tensor<16x1xi64>, tensor<i64>
  %tw = tg.sub %t, %th4 : tensor<16x1xi64>, tensor<16x1xi64>
  %uh = tg.div %u, %c4 : tensor<1x16xi64>, tensor<i64>
  %uh4 = tg.mul %uh, %c4 : tensor<1x16xi64>, tensor<i64>
  %uw = tg.sub %u, %uh4 : tensor<1x16xi64>, tensor<1x16xi64>
  %dh = tg.sub %th, %uh : tensor<16x1xi64>, tensor<1x16xi64>
  %dw = tg.sub %tw, %uw : tensor<16x1xi64>, tensor<1x16xi64>
  %c3 = tg.constant dense<3> : tensor<i64>
  %c7 = tg.constant dense<7> : tensor<i64>
  %dh3 = tg.add %dh, %c3 : tensor<16x16xi64>, tensor<i64>
  %row = tg.mul %dh3, %c7 : tensor<16x16xi64>, tensor<i64>
  %dw3 = tg.add %dw, %c3 : tensor<16x16xi64>, tensor<i64>
  %index = tg.add %row, %dw3 : tensor<16x16xi64>, tensor<16x16xi64>
  %flat = tg.reshape %index : tensor<16x16xi64> -> tensor<256x1xi64>
  %heads = tg.gen_index axis = 1 : tensor<1x4xi64>
  %rows = tg.gather %table[%flat, %heads] : tensor<49x4xf32>[tensor<256x1xi64>, tensor<1x4xi64>]
  %nnh = tg.reshape %rows : tensor<256x4xf32> -> tensor<16x16x4xf32>
  %hnn = tg.transpose %nnh perm = [2, 0, 1] : tensor<16x16x4xf32> -> tensor<4x16x16xf32>
  %bias = tg.reshape %hnn : tensor<4x16x16xf32> -> tensor<1x4x16x16xf32>
  %biasb = tg.cast %bias : tensor<1x4x16x16xf32> to tensor<1x4x16x16xbf16>
  %s = tg.add %attn, %biasb : tensor<2x4x16x16xbf16>, tensor<1x4x16x16xbf16>
  %sf = tg.cast %s : tensor<2x4x16x16xbf16> to tensor<2x4x16x16xf32>
  %p = tg.softmax %sf axis = 3 : tensor<2x4x16x16xf32>
  %pb = tg.cast %p : tensor<2x4x16x16xf32> to tensor<2x4x16x16xbf16>
  %o = tg.matmul %pb, %v : tensor<2x4x16x16xbf16>, tensor<2x4x16x32xbf16> -> tensor<2x4x16x32xbf16>
  return %o : tensor<2x4x16x32xbf16>
}
