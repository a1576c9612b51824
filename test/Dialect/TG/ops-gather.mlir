// tg.gather at graph level and in score regions (table captures), and
// tg.attention_grad returning a table gradient: parse, print, generic form.
// RUN: tg-opt %s | tg-opt | FileCheck %s
// RUN: tg-opt %s --mlir-print-op-generic | tg-opt | FileCheck %s

// CHECK-LABEL: func.func @graph_level
// CHECK-SAME: (%[[T:[^:]*]]: tensor<8x31xf32>, %[[H:[^:]*]]: tensor<1x8x1x1xi64>, %[[R:[^:]*]]: tensor<1x1x16x16xi64>, %[[IDS:[^:]*]]: tensor<2x64xi32>, %[[P:[^:]*]]: tensor<2x1xi64>, %[[Q:[^:]*]]: tensor<1x64xi64>)
func.func @graph_level(%table: tensor<8x31xf32>, %h: tensor<1x8x1x1xi64>, %rel: tensor<1x1x16x16xi64>,
                       %doc: tensor<2x64xi32>, %b: tensor<2x1xi64>, %q: tensor<1x64xi64>)
    -> (tensor<1x8x16x16xf32>, tensor<1x8x16x16xf32>, tensor<2x64xi32>) {
  // CHECK: %[[B0:.*]] = tg.gather %[[T]][%[[H]], %[[R]]] : tensor<8x31xf32>[tensor<1x8x1x1xi64>, tensor<1x1x16x16xi64>]
  %0 = tg.gather %table[%h, %rel] : tensor<8x31xf32>[tensor<1x8x1x1xi64>, tensor<1x1x16x16xi64>]
  // CHECK: %[[B1:.*]] = tg.gather %[[T]][%[[H]], %[[R]]] fill(-inf) : tensor<8x31xf32>[tensor<1x8x1x1xi64>, tensor<1x1x16x16xi64>]
  %1 = tg.gather %table[%h, %rel] fill(-inf) : tensor<8x31xf32>[tensor<1x8x1x1xi64>, tensor<1x1x16x16xi64>]
  // CHECK: %[[D:.*]] = tg.gather %[[IDS]][%[[P]], %[[Q]]] fill(-1.0) : tensor<2x64xi32>[tensor<2x1xi64>, tensor<1x64xi64>]
  %2 = tg.gather %doc[%b, %q] fill(-1) : tensor<2x64xi32>[tensor<2x1xi64>, tensor<1x64xi64>]
  // `clamp` may be written; it is the default and is not printed.
  // CHECK: %[[B3:.*]] = tg.gather %[[T]][%[[H]], %[[R]]] : tensor<8x31xf32>
  %3 = tg.gather %table[%h, %rel] clamp : tensor<8x31xf32>[tensor<1x8x1x1xi64>, tensor<1x1x16x16xi64>]
  %4 = tg.add %0, %3 : tensor<1x8x16x16xf32>, tensor<1x8x16x16xf32>
  // CHECK: return %{{.*}}, %[[B1]], %[[D]]
  return %4, %1, %2 : tensor<1x8x16x16xf32>, tensor<1x8x16x16xf32>, tensor<2x64xi32>
}

// CHECK-LABEL: func.func @score_region
func.func @score_region(%q: tensor<1x8x16x64xbf16>, %k: tensor<1x8x16x64xbf16>, %v: tensor<1x8x16x64xbf16>,
                        %table: tensor<8x31xf32>, %bias: tensor<1x8x1x16xf32>, %doc: tensor<1x16xi64>) -> tensor<1x8x16x64xbf16> {
  // Table captures (own types) and an element capture (rank 0) side by side.
  // CHECK: tg.attention {{.*}} captures(%{{.*}}, %{{.*}}, %{{.*}} : tensor<8x31xf32>, tensor<1x8x1x16xf32>, tensor<1x16xi64>)
  // CHECK: ^bb0(%{{.*}}: tensor<f32>, %{{.*}}: tensor<i64>, %[[HA:[^:]*]]: tensor<i64>, %[[QA:[^:]*]]: tensor<i64>, %[[KA:[^:]*]]: tensor<i64>, %[[TA:[^:]*]]: tensor<8x31xf32>, %{{.*}}: tensor<f32>, %[[DA:[^:]*]]: tensor<1x16xi64>):
  %o = tg.attention %q, %k, %v captures(%table, %bias, %doc : tensor<8x31xf32>, tensor<1x8x1x16xf32>, tensor<1x16xi64>)
      : tensor<1x8x16x64xbf16>, tensor<1x8x16x64xbf16>, tensor<1x8x16x64xbf16> -> tensor<1x8x16x64xbf16> score {
  ^bb0(%s: tensor<f32>, %b: tensor<i64>, %h: tensor<i64>, %qi: tensor<i64>, %ki: tensor<i64>, %t: tensor<8x31xf32>, %be: tensor<f32>, %d: tensor<1x16xi64>):
    %rel = tg.sub %qi, %ki : tensor<i64>, tensor<i64>
    %c15 = tg.constant dense<15> : tensor<i64>
    %r = tg.add %rel, %c15 : tensor<i64>, tensor<i64>
    // CHECK: tg.gather %[[TA]][%[[HA]], %{{.*}}] fill(0.0) : tensor<8x31xf32>[tensor<i64>, tensor<i64>]
    %e = tg.gather %t[%h, %r] fill(0.0) : tensor<8x31xf32>[tensor<i64>, tensor<i64>]
    // CHECK: tg.gather %[[DA]][%{{.*}}, %[[QA]]] : tensor<1x16xi64>[tensor<i64>, tensor<i64>]
    %dq = tg.gather %d[%b, %qi] : tensor<1x16xi64>[tensor<i64>, tensor<i64>]
    // CHECK: tg.gather %[[DA]][%{{.*}}, %[[KA]]] : tensor<1x16xi64>[tensor<i64>, tensor<i64>]
    %dk = tg.gather %d[%b, %ki] : tensor<1x16xi64>[tensor<i64>, tensor<i64>]
    %same = tg.cmp eq, %dq, %dk : tensor<i64>, tensor<i64>
    %s1 = tg.add %s, %e : tensor<f32>, tensor<f32>
    %s2 = tg.add %s1, %be : tensor<f32>, tensor<f32>
    %ninf = tg.constant dense<0xFF800000> : tensor<f32>
    %m = tg.select %same, %s2, %ninf : tensor<i1>, tensor<f32>, tensor<f32>
    tg.yield %m : tensor<f32>
  }
  return %o : tensor<1x8x16x64xbf16>
}

// A table's gradient (grad_captures of a table capture) is derived from
// the score region: a scatter-add where each of its gathers read.
// CHECK-LABEL: func.func @table_gradient
func.func @table_gradient(%q: tensor<1x2x8x16xf32>, %o: tensor<1x2x8x16xf32>, %lse: tensor<1x2x8x1xf32>,
                          %table: tensor<2x15xf32>) -> tensor<2x15xf32> {
  // CHECK: %{{.*}}, %{{.*}}, %{{.*}}, %[[DT:.*]] = tg.attention_grad {{.*}} captures(%{{.*}} : tensor<2x15xf32>) {grad_captures = array<i64: 0>} : tensor<1x2x8x16xf32>, tensor<1x2x8x16xf32>, tensor<1x2x8x16xf32>, tensor<1x2x8x16xf32>, tensor<1x2x8x16xf32>, tensor<1x2x8x1xf32> score {
  %dq, %dk, %dv, %dt = tg.attention_grad %q, %q, %q, %o, %o, %lse captures(%table : tensor<2x15xf32>) {grad_captures = array<i64: 0>}
      : tensor<1x2x8x16xf32>, tensor<1x2x8x16xf32>, tensor<1x2x8x16xf32>, tensor<1x2x8x16xf32>,
        tensor<1x2x8x16xf32>, tensor<1x2x8x1xf32>
      score {
  ^bb0(%s: tensor<f32>, %b: tensor<i64>, %h: tensor<i64>, %qi: tensor<i64>, %ki: tensor<i64>, %t: tensor<2x15xf32>):
    %rel = tg.sub %qi, %ki : tensor<i64>, tensor<i64>
    %c7 = tg.constant dense<7> : tensor<i64>
    %r = tg.add %rel, %c7 : tensor<i64>, tensor<i64>
    %e = tg.gather %t[%h, %r] : tensor<2x15xf32>[tensor<i64>, tensor<i64>]
    %z = tg.add %s, %e : tensor<f32>, tensor<f32>
    tg.yield %z : tensor<f32>
  } score_grad {
  // CHECK: } capture_grads(tensor<2x15xf32>)
  } capture_grads(tensor<2x15xf32>)
  // CHECK: return %[[DT]]
  return %dt : tensor<2x15xf32>
}
