// tg.gather on the reference interpreter: graph level with broadcasting,
// clamp and fill out of range; a score region reading a table capture.
// Values worked out by hand.
//
// RUN: tg-run --ref %s --entry=graph --print-values | FileCheck %s --check-prefix=GRAPH
// RUN: tg-run --ref %s --entry=region --print-values | FileCheck %s --check-prefix=REGION

// t = [[10, 11, 12], [20, 21, 22]]; rows [-1, 1, 2] x columns [0, 2, 3].
// Clamp: row -1 -> 0, row 2 -> 1, column 3 -> 2.
// GRAPH-LABEL: output clamp:
// GRAPH-NEXT: values: [10, 12, 12, 20, 22, 22, 20, 22, 22]
// Fill: any index out of range gives -1.
// GRAPH-LABEL: output fill:
// GRAPH-NEXT: values: [-1, -1, -1, 20, 22, -1, -1, -1, -1]
// An integer table: ids[1, [0, 1]] (row 1 broadcast).
// GRAPH-LABEL: output ids:
// GRAPH-NEXT: values: [7, 8]
func.func @graph() -> (tensor<3x3xf32> {tg.name = "clamp"}, tensor<3x3xf32> {tg.name = "fill"},
                       tensor<2xi32> {tg.name = "ids"}) {
  %t = tg.constant dense<[[10.0, 11.0, 12.0], [20.0, 21.0, 22.0]]> : tensor<2x3xf32>
  %rows = tg.constant dense<[[-1], [1], [2]]> : tensor<3x1xi64>
  %cols = tg.constant dense<[[0, 2, 3]]> : tensor<1x3xi64>
  %c = tg.gather %t[%rows, %cols] : tensor<2x3xf32>[tensor<3x1xi64>, tensor<1x3xi64>]
  %f = tg.gather %t[%rows, %cols] fill(-1.0) : tensor<2x3xf32>[tensor<3x1xi64>, tensor<1x3xi64>]
  %ids = tg.constant dense<[[5, 6], [7, 8]]> : tensor<2x2xi32>
  %one = tg.constant dense<1> : tensor<i64>
  %pos = tg.constant dense<[0, 1]> : tensor<2xi64>
  %g = tg.gather %ids[%one, %pos] : tensor<2x2xi32>[tensor<i64>, tensor<2xi64>]
  return %c, %f, %g : tensor<3x3xf32>, tensor<3x3xf32>, tensor<2xi32>
}

// q = 0: every score is the bias table[kv - q + 1] (fill -inf outside, a
// band |kv - q| <= 1), so p is softmax over the band; v = [0, 1, 2]
// (one column) makes o the expected kv index under p.
// table = [0, 0, ln 2]: row 0 sees kv 0 (w 1), 1 (w 2): o = 2/3;
// row 1 sees kv 0 (1), 1 (1), 2 (2): o = (1 + 4)/4 = 1.25; row 2 sees
// kv 1 (1), 2 (1): o = 1.5.
// REGION-LABEL: output o:
// REGION-NEXT: values: [0.666667, 1.25, 1.5]
func.func @region() -> (tensor<1x1x3x1xf32> {tg.name = "o"}) {
  %q = tg.constant dense<0.0> : tensor<1x1x3x1xf32>
  %v = tg.constant dense<[[[[0.0], [1.0], [2.0]]]]> : tensor<1x1x3x1xf32>
  %table = tg.constant dense<[0.0, 0.0, 0.693147182]> : tensor<3xf32>
  %o = tg.attention %q, %q, %v captures(%table : tensor<3xf32>)
      : tensor<1x1x3x1xf32>, tensor<1x1x3x1xf32>, tensor<1x1x3x1xf32> -> tensor<1x1x3x1xf32> score {
  ^bb0(%s: tensor<f32>, %b: tensor<i64>, %h: tensor<i64>, %qi: tensor<i64>, %ki: tensor<i64>, %t: tensor<3xf32>):
    %d = tg.sub %ki, %qi : tensor<i64>, tensor<i64>
    %c1 = tg.constant dense<1> : tensor<i64>
    %r = tg.add %d, %c1 : tensor<i64>, tensor<i64>
    %e = tg.gather %t[%r] fill(-inf) : tensor<3xf32>[tensor<i64>]
    %z = tg.add %s, %e : tensor<f32>, tensor<f32>
    tg.yield %z : tensor<f32>
  }
  return %o : tensor<1x1x3x1xf32>
}
