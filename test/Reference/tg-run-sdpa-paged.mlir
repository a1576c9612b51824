// tg.sdpa over a paged K/V cache on tiny hand-computed cases, with the
// conventions of tg-run-sdpa.mlir (D = 1, scale = 1; keys 0 and ln 3 with
// values 4 and 8 give o = 7). Pages of 2 keys (k, v): page 0 holds
// (ln 3, 8), (0, 4); page 1 (0, 4), (50, 100); page 2 (ln 3, 8), (0, 100).
//
// The page table is an input (a constant one must name existing pages: the
// verifier checks it), so that the clamp of a device value shows.
// RUN: rm -rf %t && mkdir -p %t
// RUN: python3 %S/Inputs/make_npy.py %t/table.npy '<i4' 3,2 1,0,2,1,7,0
// RUN: tg-run --ref %s --entry=paged --input=table=%t/table.npy --print-values | FileCheck %s

// Sequence 0 reads pages [1, 0] with length 1: only key (0, 4), o = 4.
// Sequence 1 reads pages [2, 1] with length 3: keys (ln 3, 8), (0, 100),
// (0, 4): p = [3/5, 1/5, 1/5], o = (24 + 100 + 4) / 5 = 25.6. A page index
// past the cache (7) is clamped to the last page (2): sequence 2 reads
// [7, 0] with length 2, keys (ln 3, 8), (0, 100): o = 6 + 25 = 31.
// CHECK-LABEL: output plain:
// CHECK-NEXT: values: [4, 25.6, 31]
// Causal bottom-right with one query: every cached key is visible.
// CHECK-LABEL: output decode_causal:
// CHECK-NEXT: values: [4, 25.6, 31]
func.func @paged(%t: tensor<3x2xi32> {tg.name = "table"}) -> (tensor<3x1x1x1xf32> {tg.name = "plain"}, tensor<3x1x1x1xf32> {tg.name = "decode_causal"}) {
  %q = tg.constant dense<1.0> : tensor<3x1x1x1xf32>
  %k = tg.constant dense<[[[[1.09861229]], [[0.0]]], [[[0.0]], [[50.0]]], [[[1.09861229]], [[0.0]]]]> : tensor<3x2x1x1xf32>
  %v = tg.constant dense<[[[[8.0]], [[4.0]]], [[[4.0]], [[100.0]]], [[[8.0]], [[100.0]]]]> : tensor<3x2x1x1xf32>
  %len = tg.constant dense<[1, 3, 2]> : tensor<3xi32>
  %o0 = tg.sdpa %q, %k, %v seq_len_kv(%len : tensor<3xi32>) page_table(%t : tensor<3x2xi32>) {scale = 1.0 : f64}
      : tensor<3x1x1x1xf32>, tensor<3x2x1x1xf32>, tensor<3x2x1x1xf32> -> tensor<3x1x1x1xf32>
  %o1 = tg.sdpa %q, %k, %v seq_len_kv(%len : tensor<3xi32>) page_table(%t : tensor<3x2xi32>) {scale = 1.0 : f64, causal = #tg<causal bottom_right>}
      : tensor<3x1x1x1xf32>, tensor<3x2x1x1xf32>, tensor<3x2x1x1xf32> -> tensor<3x1x1x1xf32>
  return %o0, %o1 : tensor<3x1x1x1xf32>, tensor<3x1x1x1xf32>
}
