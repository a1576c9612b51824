// Masks from per-token document ids and per-sequence prefix lengths, as
// packed-sequence training (several documents in one row, attention only
// within a document, causal) and prefix-LM (T5/UL2/PaliGemma: the prefix is
// bidirectional, the rest causal) write them, bf16.
//
//   same_doc = doc_ids[:, None, :, None] == doc_ids[:, None, None, :]   # broadcast form
//   same_doc = doc_ids[b, q_idx] == doc_ids[b, kv_idx]                   # gathered form
//   visible = same_doc & (kv_idx <= q_idx)
//   prefix_lm = (kv_idx < prefix_len[b]) | (kv_idx <= q_idx)
//   scores = scores.masked_fill(~visible, -inf)
//
// The broadcast form reads doc_ids through views at the score's position
// (element captures [B,1,S,1] and [B,1,1,S]); the gathered forms index the
// tables with gen_index and become tg.gather of table captures in the
// region. The causal factor is lifted into the attribute either way. No
// [B, H, S, S] mask exists in any of them.
//
// CHECK-LABEL: func.func @packed_documents_broadcast
// CHECK: %[[O:.*]] = tg.attention {{.*}} captures(%{{.*}}, %{{.*}} : tensor<2x1x32x1xi32>, tensor<2x1x1x32xi32>) {causal = #tg<causal top_left>
// CHECK-NOT: tg.gather
// CHECK: return %[[O]]
func.func @packed_documents_broadcast(
    %q: tensor<2x4x32x64xbf16> {tg.name = "q"}, %k: tensor<2x4x32x64xbf16> {tg.name = "k"},
    %v: tensor<2x4x32x64xbf16> {tg.name = "v"}, %doc: tensor<2x32xi32> {tg.name = "document_ids"})
    -> (tensor<2x4x32x64xbf16> {tg.name = "o"}) {
  %kt = tg.transpose %k perm = [0, 1, 3, 2] : tensor<2x4x32x64xbf16> -> tensor<2x4x64x32xbf16>
  // expected-remark @below {{fused with the scores in f32; the graph as written rounds them 3 time(s)}}
  %s = tg.matmul %q, %kt : tensor<2x4x32x64xbf16>, tensor<2x4x64x32xbf16> -> tensor<2x4x32x32xbf16>
  %scale = tg.constant dense<0.125> : tensor<bf16>
  %ss = tg.mul %s, %scale : tensor<2x4x32x32xbf16>, tensor<bf16>
  %dq = tg.reshape %doc : tensor<2x32xi32> -> tensor<2x1x32x1xi32>
  %dk = tg.reshape %doc : tensor<2x32xi32> -> tensor<2x1x1x32xi32>
  %same = tg.cmp eq, %dq, %dk : tensor<2x1x32x1xi32>, tensor<2x1x1x32xi32>
  %qi = tg.gen_index axis = 2 : tensor<1x1x32x1xi64>
  %ki = tg.gen_index axis = 3 : tensor<1x1x1x32xi64>
  %causal = tg.cmp le, %ki, %qi : tensor<1x1x1x32xi64>, tensor<1x1x32x1xi64>
  %false = tg.constant dense<false> : tensor<i1>
  %vis = tg.select %same, %causal, %false : tensor<2x1x32x32xi1>, tensor<1x1x32x32xi1>, tensor<i1>
  %ninf = tg.constant dense<0xFF80> : tensor<bf16>
  %m = tg.select %vis, %ss, %ninf : tensor<2x1x32x32xi1>, tensor<2x4x32x32xbf16>, tensor<bf16>
  %mf = tg.cast %m : tensor<2x4x32x32xbf16> to tensor<2x4x32x32xf32>
  %p = tg.softmax %mf axis = 3 : tensor<2x4x32x32xf32>
  %pb = tg.cast %p : tensor<2x4x32x32xf32> to tensor<2x4x32x32xbf16>
  %o = tg.matmul %pb, %v : tensor<2x4x32x32xbf16>, tensor<2x4x32x64xbf16> -> tensor<2x4x32x64xbf16>
  return %o : tensor<2x4x32x64xbf16>
}

// CHECK-LABEL: func.func @packed_documents_gather
// CHECK-SAME: %[[DOC:[^:]*]]: tensor<2x32xi32> {tg.name = "document_ids"}
// CHECK: %[[O:.*]] = tg.attention {{.*}} captures(%[[DOC]] : tensor<2x32xi32>) {causal = #tg<causal top_left>
// CHECK: ^bb0(%{{[^:]*}}: tensor<f32>, %[[B:[^:]*]]: tensor<i64>, %{{[^:]*}}: tensor<i64>, %[[QI:[^:]*]]: tensor<i64>, %[[KI:[^:]*]]: tensor<i64>, %[[T:[^:]*]]: tensor<2x32xi32>):
// CHECK-DAG: tg.gather %[[T]][%[[B]], %[[QI]]] : tensor<2x32xi32>[tensor<i64>, tensor<i64>]
// CHECK-DAG: tg.gather %[[T]][%[[B]], %[[KI]]] : tensor<2x32xi32>[tensor<i64>, tensor<i64>]
// CHECK: return %[[O]]
func.func @packed_documents_gather(
    %q: tensor<2x4x32x64xbf16> {tg.name = "q"}, %k: tensor<2x4x32x64xbf16> {tg.name = "k"},
    %v: tensor<2x4x32x64xbf16> {tg.name = "v"}, %doc: tensor<2x32xi32> {tg.name = "document_ids"})
    -> (tensor<2x4x32x64xbf16> {tg.name = "o"}) {
  %kt = tg.transpose %k perm = [0, 1, 3, 2] : tensor<2x4x32x64xbf16> -> tensor<2x4x64x32xbf16>
  // expected-remark @below {{fused with the scores in f32; the graph as written rounds them 3 time(s)}}
  %s = tg.matmul %q, %kt : tensor<2x4x32x64xbf16>, tensor<2x4x64x32xbf16> -> tensor<2x4x32x32xbf16>
  %scale = tg.constant dense<0.125> : tensor<bf16>
  %ss = tg.mul %s, %scale : tensor<2x4x32x32xbf16>, tensor<bf16>
  %b = tg.gen_index axis = 0 : tensor<2x1x1x1xi64>
  %qi = tg.gen_index axis = 2 : tensor<1x1x32x1xi64>
  %ki = tg.gen_index axis = 3 : tensor<1x1x1x32xi64>
  %dq = tg.gather %doc[%b, %qi] : tensor<2x32xi32>[tensor<2x1x1x1xi64>, tensor<1x1x32x1xi64>]
  %dk = tg.gather %doc[%b, %ki] : tensor<2x32xi32>[tensor<2x1x1x1xi64>, tensor<1x1x1x32xi64>]
  %same = tg.cmp eq, %dq, %dk : tensor<2x1x32x1xi32>, tensor<2x1x1x32xi32>
  %causal = tg.cmp le, %ki, %qi : tensor<1x1x1x32xi64>, tensor<1x1x32x1xi64>
  %false = tg.constant dense<false> : tensor<i1>
  %vis = tg.select %same, %causal, %false : tensor<2x1x32x32xi1>, tensor<1x1x32x32xi1>, tensor<i1>
  %ninf = tg.constant dense<0xFF80> : tensor<bf16>
  %m = tg.select %vis, %ss, %ninf : tensor<2x1x32x32xi1>, tensor<2x4x32x32xbf16>, tensor<bf16>
  %mf = tg.cast %m : tensor<2x4x32x32xbf16> to tensor<2x4x32x32xf32>
  %p = tg.softmax %mf axis = 3 : tensor<2x4x32x32xf32>
  %pb = tg.cast %p : tensor<2x4x32x32xf32> to tensor<2x4x32x32xbf16>
  %o = tg.matmul %pb, %v : tensor<2x4x32x32xbf16>, tensor<2x4x32x64xbf16> -> tensor<2x4x32x64xbf16>
  return %o : tensor<2x4x32x64xbf16>
}

// CHECK-LABEL: func.func @prefix_lm
// CHECK-SAME: %[[PRE:[^:]*]]: tensor<2xi64> {tg.name = "prefix_len"}
// CHECK: %[[O:.*]] = tg.attention {{.*}} captures(%[[PRE]] : tensor<2xi64>)
// CHECK: ^bb0(%{{[^:]*}}: tensor<f32>, %[[B:[^:]*]]: tensor<i64>, %{{[^:]*}}: tensor<i64>, %{{[^:]*}}: tensor<i64>, %[[KI:[^:]*]]: tensor<i64>, %[[T:[^:]*]]: tensor<2xi64>):
// CHECK: %[[L:.*]] = tg.gather %[[T]][%[[B]]] : tensor<2xi64>[tensor<i64>]
// CHECK: tg.cmp lt, %[[KI]], %[[L]]
// CHECK: return %[[O]]
func.func @prefix_lm(
    %q: tensor<2x4x32x64xbf16> {tg.name = "q"}, %k: tensor<2x4x32x64xbf16> {tg.name = "k"},
    %v: tensor<2x4x32x64xbf16> {tg.name = "v"}, %prefix: tensor<2xi64> {tg.name = "prefix_len"})
    -> (tensor<2x4x32x64xbf16> {tg.name = "o"}) {
  %kt = tg.transpose %k perm = [0, 1, 3, 2] : tensor<2x4x32x64xbf16> -> tensor<2x4x64x32xbf16>
  // expected-remark @below {{fused with the scores in f32; the graph as written rounds them 3 time(s)}}
  %s = tg.matmul %q, %kt : tensor<2x4x32x64xbf16>, tensor<2x4x64x32xbf16> -> tensor<2x4x32x32xbf16>
  %scale = tg.constant dense<0.125> : tensor<bf16>
  %ss = tg.mul %s, %scale : tensor<2x4x32x32xbf16>, tensor<bf16>
  %b = tg.gen_index axis = 0 : tensor<2x1x1x1xi64>
  %qi = tg.gen_index axis = 2 : tensor<1x1x32x1xi64>
  %ki = tg.gen_index axis = 3 : tensor<1x1x1x32xi64>
  %len = tg.gather %prefix[%b] : tensor<2xi64>[tensor<2x1x1x1xi64>]
  %inprefix = tg.cmp lt, %ki, %len : tensor<1x1x1x32xi64>, tensor<2x1x1x1xi64>
  %causal = tg.cmp le, %ki, %qi : tensor<1x1x1x32xi64>, tensor<1x1x32x1xi64>
  %true = tg.constant dense<true> : tensor<i1>
  %vis = tg.select %inprefix, %true, %causal : tensor<2x1x1x32xi1>, tensor<i1>, tensor<1x1x32x32xi1>
  %ninf = tg.constant dense<0xFF80> : tensor<bf16>
  %m = tg.select %vis, %ss, %ninf : tensor<2x1x32x32xi1>, tensor<2x4x32x32xbf16>, tensor<bf16>
  %mf = tg.cast %m : tensor<2x4x32x32xbf16> to tensor<2x4x32x32xf32>
  %p = tg.softmax %mf axis = 3 : tensor<2x4x32x32xf32>
  %pb = tg.cast %p : tensor<2x4x32x32xf32> to tensor<2x4x32x32xbf16>
  %o = tg.matmul %pb, %v : tensor<2x4x32x32xbf16>, tensor<2x4x32x64xbf16> -> tensor<2x4x32x64xbf16>
  return %o : tensor<2x4x32x64xbf16>
}
