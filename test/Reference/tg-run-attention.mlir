// tg.attention: the score region is evaluated per element, then the
// attribute masks, softmax and p.v. Same tiny problem as tg-run-sdpa.mlir:
// k = [0, ln 3], v = [4, 8], scale 1; an unmasked row gives o = 7.
//
// RUN: tg-run --ref %s --print-values | FileCheck %s

// CHECK-LABEL: output identity:
// CHECK-NEXT: values: [7, 7]
// A captured bias [ln 3, 0] (broadcast from [1, 1, 1, 2]): o = 6.
// CHECK-LABEL: output bias:
// CHECK-NEXT: values: [6, 6]
// A causal mask written in the region from the indices: o = [4, 7].
// CHECK-LABEL: output region_causal:
// CHECK-NEXT: values: [4, 7]
// The causal attribute instead, with stats.
// CHECK-LABEL: output attr_causal:
// CHECK-NEXT: values: [4, 7]
// CHECK-LABEL: output attr_causal_lse:
// CHECK-NEXT: values: [0, 1.38629]
// A soft-cap in the region: tanh(s); o = 4 + 4 e^0.8 / (1 + e^0.8).
// CHECK-LABEL: output softcap:
// CHECK-NEXT: values: [6.7599, 6.7599]
// A region that masks everything: zeros.
// CHECK-LABEL: output all_masked:
// CHECK-NEXT: values: [0, 0]
func.func @attention() -> (tensor<1x1x2x1xf32> {tg.name = "identity"}, tensor<1x1x2x1xf32> {tg.name = "bias"},
                           tensor<1x1x2x1xf32> {tg.name = "region_causal"}, tensor<1x1x2x1xf32> {tg.name = "attr_causal"},
                           tensor<1x1x2x1xf32> {tg.name = "attr_causal_lse"}, tensor<1x1x2x1xf32> {tg.name = "softcap"},
                           tensor<1x1x2x1xf32> {tg.name = "all_masked"}) {
  %q = tg.constant dense<1.0> : tensor<1x1x2x1xf32>
  %k = tg.constant dense<[[[[0.0], [1.09861229]]]]> : tensor<1x1x2x1xf32>
  %v = tg.constant dense<[[[[4.0], [8.0]]]]> : tensor<1x1x2x1xf32>
  %bias = tg.constant dense<[[[[1.09861229, 0.0]]]]> : tensor<1x1x1x2xf32>
  %o0 = tg.attention %q, %k, %v : tensor<1x1x2x1xf32>, tensor<1x1x2x1xf32>, tensor<1x1x2x1xf32> -> tensor<1x1x2x1xf32>
    score {
  ^bb0(%s: tensor<f32>, %b: tensor<i64>, %h: tensor<i64>, %qi: tensor<i64>, %ki: tensor<i64>):
    tg.yield %s : tensor<f32>
  }
  %o1 = tg.attention %q, %k, %v captures(%bias : tensor<1x1x1x2xf32>)
      : tensor<1x1x2x1xf32>, tensor<1x1x2x1xf32>, tensor<1x1x2x1xf32> -> tensor<1x1x2x1xf32>
    score {
  ^bb0(%s: tensor<f32>, %b: tensor<i64>, %h: tensor<i64>, %qi: tensor<i64>, %ki: tensor<i64>, %be: tensor<f32>):
    %r = tg.add %s, %be : tensor<f32>, tensor<f32>
    tg.yield %r : tensor<f32>
  }
  %o2 = tg.attention %q, %k, %v : tensor<1x1x2x1xf32>, tensor<1x1x2x1xf32>, tensor<1x1x2x1xf32> -> tensor<1x1x2x1xf32>
    score {
  ^bb0(%s: tensor<f32>, %b: tensor<i64>, %h: tensor<i64>, %qi: tensor<i64>, %ki: tensor<i64>):
    %future = tg.cmp gt, %ki, %qi : tensor<i64>, tensor<i64>
    %ninf = tg.constant dense<0xFF800000> : tensor<f32>
    %r = tg.select %future, %ninf, %s : tensor<i1>, tensor<f32>, tensor<f32>
    tg.yield %r : tensor<f32>
  }
  %o3, %l3 = tg.attention %q, %k, %v {causal = #tg<causal top_left>, training}
      : tensor<1x1x2x1xf32>, tensor<1x1x2x1xf32>, tensor<1x1x2x1xf32> -> tensor<1x1x2x1xf32>, tensor<1x1x2x1xf32>
    score {
  ^bb0(%s: tensor<f32>, %b: tensor<i64>, %h: tensor<i64>, %qi: tensor<i64>, %ki: tensor<i64>):
    tg.yield %s : tensor<f32>
  }
  %o4 = tg.attention %q, %k, %v : tensor<1x1x2x1xf32>, tensor<1x1x2x1xf32>, tensor<1x1x2x1xf32> -> tensor<1x1x2x1xf32>
    score {
  ^bb0(%s: tensor<f32>, %b: tensor<i64>, %h: tensor<i64>, %qi: tensor<i64>, %ki: tensor<i64>):
    %t = tg.tanh %s : tensor<f32>
    tg.yield %t : tensor<f32>
  }
  %o5 = tg.attention %q, %k, %v : tensor<1x1x2x1xf32>, tensor<1x1x2x1xf32>, tensor<1x1x2x1xf32> -> tensor<1x1x2x1xf32>
    score {
  ^bb0(%s: tensor<f32>, %b: tensor<i64>, %h: tensor<i64>, %qi: tensor<i64>, %ki: tensor<i64>):
    %ninf = tg.constant dense<0xFF800000> : tensor<f32>
    tg.yield %ninf : tensor<f32>
  }
  return %o0, %o1, %o2, %o3, %l3, %o4, %o5 : tensor<1x1x2x1xf32>, tensor<1x1x2x1xf32>, tensor<1x1x2x1xf32>, tensor<1x1x2x1xf32>, tensor<1x1x2x1xf32>, tensor<1x1x2x1xf32>, tensor<1x1x2x1xf32>
}
