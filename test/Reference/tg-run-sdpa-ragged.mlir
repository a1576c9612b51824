// tg.sdpa in the ragged (packed) layout on tiny hand-computed cases, with
// the conventions of tg-run-sdpa.mlir: D = 1, scale = 1, keys 0 and ln 3
// with values 4 and 8 give o = 7 and log-sum-exp ln 4 when both are seen.
// Two sequences are packed: sequence 0 has query tokens 0-1 and keys 0-1,
// sequence 1 query token 2 and keys 2-4 (k = 0, ln 3, 0; v = 4, 8, 100).
//
// RUN: tg-run --ref %s --entry=ragged --print-values | FileCheck %s

// No mask: sequence 0 rows see its keys only (o = 7); sequence 1's row
// sees k = [0, ln 3, 0]: p = [1/5, 3/5, 1/5], o = (4 + 24 + 100) / 5.
// CHECK-LABEL: output plain:
// CHECK-NEXT: values: [7, 7, 25.6]
// CHECK-LABEL: output plain_lse:
// CHECK-NEXT: values: [1.38629, 1.38629, 1.60944]
// Causal top-left per sequence: row 0 of each sequence sees its key 0.
// CHECK-LABEL: output causal:
// CHECK-NEXT: values: [4, 7, 4]
// Causal bottom-right per sequence: sequence 1's one row is aligned with its
// last key, so it sees all three.
// CHECK-LABEL: output bottom_right:
// CHECK-NEXT: values: [4, 7, 25.6]
// window_left = 0 with bottom-right: only the key on the diagonal.
// CHECK-LABEL: output diagonal:
// CHECK-NEXT: values: [4, 8, 100]
func.func @ragged() -> (tensor<3x1x1xf32> {tg.name = "plain"}, tensor<3x1x1xf32> {tg.name = "plain_lse"},
                        tensor<3x1x1xf32> {tg.name = "causal"}, tensor<3x1x1xf32> {tg.name = "bottom_right"},
                        tensor<3x1x1xf32> {tg.name = "diagonal"}) {
  %q = tg.constant dense<1.0> : tensor<3x1x1xf32>
  %k = tg.constant dense<[[[0.0]], [[1.09861229]], [[0.0]], [[1.09861229]], [[0.0]]]> : tensor<5x1x1xf32>
  %v = tg.constant dense<[[[4.0]], [[8.0]], [[4.0]], [[8.0]], [[100.0]]]> : tensor<5x1x1xf32>
  %cq = tg.constant dense<[0, 2, 3]> : tensor<3xi32>
  %ck = tg.constant dense<[0, 2, 5]> : tensor<3xi32>
  %o0, %l0 = tg.sdpa %q, %k, %v cu_seqlens_q(%cq : tensor<3xi32>) cu_seqlens_kv(%ck : tensor<3xi32>)
      {training, scale = 1.0 : f64, max_seqlen_q = 2 : i64, max_seqlen_kv = 3 : i64}
      : tensor<3x1x1xf32>, tensor<5x1x1xf32>, tensor<5x1x1xf32> -> tensor<3x1x1xf32>, tensor<3x1x1xf32>
  %o1 = tg.sdpa %q, %k, %v cu_seqlens_q(%cq : tensor<3xi32>) cu_seqlens_kv(%ck : tensor<3xi32>)
      {causal = #tg<causal top_left>, scale = 1.0 : f64, max_seqlen_q = 2 : i64, max_seqlen_kv = 3 : i64}
      : tensor<3x1x1xf32>, tensor<5x1x1xf32>, tensor<5x1x1xf32> -> tensor<3x1x1xf32>
  %o2 = tg.sdpa %q, %k, %v cu_seqlens_q(%cq : tensor<3xi32>) cu_seqlens_kv(%ck : tensor<3xi32>)
      {causal = #tg<causal bottom_right>, scale = 1.0 : f64, max_seqlen_q = 2 : i64, max_seqlen_kv = 3 : i64}
      : tensor<3x1x1xf32>, tensor<5x1x1xf32>, tensor<5x1x1xf32> -> tensor<3x1x1xf32>
  %o3 = tg.sdpa %q, %k, %v cu_seqlens_q(%cq : tensor<3xi32>) cu_seqlens_kv(%ck : tensor<3xi32>)
      {causal = #tg<causal bottom_right>, window_left = 0 : i64, scale = 1.0 : f64, max_seqlen_q = 2 : i64, max_seqlen_kv = 3 : i64}
      : tensor<3x1x1xf32>, tensor<5x1x1xf32>, tensor<5x1x1xf32> -> tensor<3x1x1xf32>
  return %o0, %l0, %o1, %o2, %o3 : tensor<3x1x1xf32>, tensor<3x1x1xf32>, tensor<3x1x1xf32>, tensor<3x1x1xf32>, tensor<3x1x1xf32>
}
