// tg.sdpa_grad, the direct analytic backward, on hand-computed cases.
//
// RUN: tg-run --ref %s --entry=two_keys --print-values | FileCheck %s --check-prefix=TWO
// RUN: tg-run --ref %s --entry=gqa_one_key --print-values | FileCheck %s --check-prefix=GQA

// q = [1], k = [0, ln 3], v = [4, 8], scale 1, dO = 1: P = [1/4, 3/4],
// O = 7, dV = P dO = [0.25, 0.75], dP = dO v = [4, 8], D = dO O = 7,
// dS = P (dP - D) = [-0.75, 0.75], dQ = sum_j dS_j k_j = 0.75 ln 3,
// dK = dS q = [-0.75, 0.75].
// TWO-LABEL: output dq:
// TWO-NEXT: values: [0.823959]
// TWO-LABEL: output dk:
// TWO-NEXT: values: [-0.75, 0.75]
// TWO-LABEL: output dv:
// TWO-NEXT: values: [0.25, 0.75]
func.func @two_keys() -> (tensor<1x1x1x1xf32> {tg.name = "dq"}, tensor<1x1x2x1xf32> {tg.name = "dk"},
                          tensor<1x1x2x1xf32> {tg.name = "dv"}) {
  %q = tg.constant dense<1.0> : tensor<1x1x1x1xf32>
  %k = tg.constant dense<[[[[0.0], [1.09861229]]]]> : tensor<1x1x2x1xf32>
  %v = tg.constant dense<[[[[4.0], [8.0]]]]> : tensor<1x1x2x1xf32>
  %o = tg.constant dense<7.0> : tensor<1x1x1x1xf32>
  %do = tg.constant dense<1.0> : tensor<1x1x1x1xf32>
  %lse = tg.constant dense<1.38629436> : tensor<1x1x1x1xf32>
  %dq, %dk, %dv = tg.sdpa_grad %q, %k, %v, %o, %do, %lse {scale = 1.0 : f64}
      : tensor<1x1x1x1xf32>, tensor<1x1x2x1xf32>, tensor<1x1x2x1xf32>,
        tensor<1x1x1x1xf32>, tensor<1x1x1x1xf32>, tensor<1x1x1x1xf32>
  return %dq, %dk, %dv : tensor<1x1x1x1xf32>, tensor<1x1x2x1xf32>, tensor<1x1x2x1xf32>
}

// One kv position: P = 1 everywhere, so dS = dP - D = 0 (dq = dk = 0) and
// dV sums dO over both query rows of both query heads (GQA): 1+2+3+4 = 10.
// A causal padding row (seq_len_q = 1) drops row 1 of each head: 1 + 3.
// GQA-LABEL: output dq:
// GQA-NEXT: values: [0, 0, 0, 0]
// GQA-LABEL: output dk:
// GQA-NEXT: values: [0]
// GQA-LABEL: output dv:
// GQA-NEXT: values: [10]
// GQA-LABEL: output dv_padded:
// GQA-NEXT: values: [4]
func.func @gqa_one_key() -> (tensor<1x2x2x1xf32> {tg.name = "dq"}, tensor<1x1x1x1xf32> {tg.name = "dk"},
                             tensor<1x1x1x1xf32> {tg.name = "dv"}, tensor<1x1x1x1xf32> {tg.name = "dv_padded"}) {
  %q = tg.constant dense<[[[[0.5], [-1.0]], [[2.0], [1.5]]]]> : tensor<1x2x2x1xf32>
  %k = tg.constant dense<0.75> : tensor<1x1x1x1xf32>
  %v = tg.constant dense<5.0> : tensor<1x1x1x1xf32>
  %o = tg.constant dense<5.0> : tensor<1x2x2x1xf32>
  %do = tg.constant dense<[[[[1.0], [2.0]], [[3.0], [4.0]]]]> : tensor<1x2x2x1xf32>
  // lse of a single score s = q k.
  %lse = tg.constant dense<[[[[0.375], [-0.75]], [[1.5], [1.125]]]]> : tensor<1x2x2x1xf32>
  %one = tg.constant dense<1> : tensor<1xi64>
  %dq, %dk, %dv = tg.sdpa_grad %q, %k, %v, %o, %do, %lse {scale = 1.0 : f64}
      : tensor<1x2x2x1xf32>, tensor<1x1x1x1xf32>, tensor<1x1x1x1xf32>,
        tensor<1x2x2x1xf32>, tensor<1x2x2x1xf32>, tensor<1x2x2x1xf32>
  %dq2, %dk2, %dv2 = tg.sdpa_grad %q, %k, %v, %o, %do, %lse seq_len_q(%one : tensor<1xi64>) {scale = 1.0 : f64}
      : tensor<1x2x2x1xf32>, tensor<1x1x1x1xf32>, tensor<1x1x1x1xf32>,
        tensor<1x2x2x1xf32>, tensor<1x2x2x1xf32>, tensor<1x2x2x1xf32>
  return %dq, %dk, %dv, %dv2 : tensor<1x2x2x1xf32>, tensor<1x1x1x1xf32>, tensor<1x1x1x1xf32>, tensor<1x1x1x1xf32>
}
