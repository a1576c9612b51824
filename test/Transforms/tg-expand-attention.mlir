// RUN: tg-opt %s --tg-expand-attention | FileCheck %s
// RUN: tg-opt %s --tg-expand-attention="all=true" | FileCheck %s --check-prefix=ALL
// Same values before and after expansion (reference interpreter, f32):
// RUN: tg-run --ref %s --entry=f32_softcap --print-values --print-precision=4 | grep -v "^tg-run" | sed "s/ hash .*//" > %t.direct
// RUN: tg-opt %s --tg-expand-attention | tg-run --ref - --entry=f32_softcap --print-values --print-precision=4 | grep -v "^tg-run" | sed "s/ hash .*//" > %t.expanded
// RUN: diff %t.direct %t.expanded

// f32 attention is outside the fused kernel's range: expanded, with the
// score region applied to whole score tensors and the causal mask built
// from gen_index.
// CHECK-LABEL: func.func @f32_softcap
// CHECK-NOT: tg.attention
// CHECK: %[[S:.*]] = tg.matmul
// CHECK: tg.tanh
// CHECK: tg.gen_index axis = 3
// CHECK: tg.softmax %{{.*}} axis = 3
// CHECK: tg.matmul
func.func @f32_softcap(%q: tensor<1x2x6x8xf32> {tg.name = "q"}, %k: tensor<1x2x5x8xf32> {tg.name = "k"},
                       %v: tensor<1x2x5x8xf32> {tg.name = "v"}) -> (tensor<1x2x6x8xf32> {tg.name = "o"}) {
  %o = tg.attention %q, %k, %v {causal = #tg<causal bottom_right>, scale = 0.35 : f64}
      : tensor<1x2x6x8xf32>, tensor<1x2x5x8xf32>, tensor<1x2x5x8xf32> -> tensor<1x2x6x8xf32> score {
  ^bb0(%s: tensor<f32>, %b: tensor<i64>, %h: tensor<i64>, %qi: tensor<i64>, %ki: tensor<i64>):
    %c = tg.constant dense<5.0> : tensor<f32>
    %d = tg.div %s, %c : tensor<f32>, tensor<f32>
    %t = tg.tanh %d : tensor<f32>
    %r = tg.mul %t, %c : tensor<f32>, tensor<f32>
    tg.yield %r : tensor<f32>
  }
  return %o : tensor<1x2x6x8xf32>
}

// bf16 attention runs on the fused kernel: left alone unless all=true.
// CHECK-LABEL: func.func @bf16
// CHECK: tg.attention
// ALL-LABEL: func.func @bf16
// ALL-NOT: tg.attention
// ALL: tg.softmax
func.func @bf16(%q: tensor<1x2x6x8xbf16>, %k: tensor<1x2x5x8xbf16>, %v: tensor<1x2x5x8xbf16>) -> tensor<1x2x6x8xbf16> {
  %o = tg.attention %q, %k, %v : tensor<1x2x6x8xbf16>, tensor<1x2x5x8xbf16>, tensor<1x2x5x8xbf16> -> tensor<1x2x6x8xbf16> score {
  ^bb0(%s: tensor<f32>, %b: tensor<i64>, %h: tensor<i64>, %qi: tensor<i64>, %ki: tensor<i64>):
    tg.yield %s : tensor<f32>
  }
  return %o : tensor<1x2x6x8xbf16>
}
