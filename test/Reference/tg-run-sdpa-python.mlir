// tg.sdpa on random inputs against an independent plain-python reference
// (Inputs/sdpa_reference.py, which shares no code with the interpreter):
// GQA, every mask kind, bias, softcap, ALiBi, dropout and training stats.
//
// RUN: rm -rf %t && mkdir -p %t
// RUN: tg-run --ref %s --entry=plain --seed=1 --save-inputs=%t/plain/in --output-dir=%t/plain/out | FileCheck %s --check-prefix=RUN-PLAIN
// RUN: python3 %S/Inputs/sdpa_reference.py %t/plain/in %t/plain/out | FileCheck %s --check-prefix=PLAIN
// RUN: tg-run --ref %s --entry=everything --seed=2 --save-inputs=%t/all/in --output-dir=%t/all/out
// RUN: python3 %S/Inputs/sdpa_reference.py %t/all/in %t/all/out causal=bottom_right window_left=2 window_right=1 softcap=2.5 alibi=1 bias=1 padding=1 dropout=0.25 stats=1 scale=0.7 | FileCheck %s --check-prefix=ALL
// RUN: tg-run --ref %s --entry=top_left --seed=3 --save-inputs=%t/tl/in --output-dir=%t/tl/out
// RUN: python3 %S/Inputs/sdpa_reference.py %t/tl/in %t/tl/out causal=top_left window_left=1 stats=1 | FileCheck %s --check-prefix=TL

// RUN-PLAIN: tg-run: @plain on the CPU reference (float64), seed 1
// RUN-PLAIN: output o: shape [2, 4, 5, 2] dtype f32
// PLAIN: output error ok
// PLAIN: fully masked rows 0
func.func @plain(%q: tensor<2x4x5x3xf32> {tg.name = "q"},
                 %k: tensor<2x2x7x3xf32> {tg.name = "k"},
                 %v: tensor<2x2x7x2xf32> {tg.name = "v"})
    -> (tensor<2x4x5x2xf32> {tg.name = "o"}) {
  %o = tg.sdpa %q, %k, %v : tensor<2x4x5x3xf32>, tensor<2x2x7x3xf32>, tensor<2x2x7x2xf32> -> tensor<2x4x5x2xf32>
  return %o : tensor<2x4x5x2xf32>
}

// ALL: output error ok
// ALL: stats error ok
// ALL: fully masked rows
// ALL: dropped
func.func @everything(%q: tensor<2x4x5x3xf32> {tg.name = "q"},
                      %k: tensor<2x2x7x3xf32> {tg.name = "k"},
                      %v: tensor<2x2x7x2xf32> {tg.name = "v"},
                      %bias: tensor<2x1x5x7xf32> {tg.name = "bias"},
                      %lq: tensor<2xi32> {tg.name = "seq_len_q"},
                      %lkv: tensor<2xi32> {tg.name = "seq_len_kv"},
                      %seed: tensor<i64> {tg.name = "seed"},
                      %offset: tensor<i64> {tg.name = "offset"})
    -> (tensor<2x4x5x2xf32> {tg.name = "o"}, tensor<2x4x5x1xf32> {tg.name = "lse"}) {
  %o, %lse = tg.sdpa %q, %k, %v bias(%bias : tensor<2x1x5x7xf32>)
      seq_len_q(%lq : tensor<2xi32>) seq_len_kv(%lkv : tensor<2xi32>)
      seed(%seed) offset(%offset)
      {causal = #tg<causal bottom_right>, window_left = 2 : i64, window_right = 1 : i64,
       softcap = 2.5 : f64, alibi, dropout = 0.25 : f64, training, scale = 0.7 : f64}
      : tensor<2x4x5x3xf32>, tensor<2x2x7x3xf32>, tensor<2x2x7x2xf32> -> tensor<2x4x5x2xf32>, tensor<2x4x5x1xf32>
  return %o, %lse : tensor<2x4x5x2xf32>, tensor<2x4x5x1xf32>
}

// TL: output error ok
// TL: stats error ok
// Row 5 sees kv 4..5, beyond Skv = 4: fully masked in both heads.
// TL: fully masked rows 2
func.func @top_left(%q: tensor<1x2x6x4xf32> {tg.name = "q"},
                    %k: tensor<1x1x4x4xf32> {tg.name = "k"},
                    %v: tensor<1x1x4x3xf32> {tg.name = "v"})
    -> (tensor<1x2x6x3xf32> {tg.name = "o"}, tensor<1x2x6x1xf32> {tg.name = "lse"}) {
  %o, %lse = tg.sdpa %q, %k, %v {causal = #tg<causal top_left>, window_left = 1 : i64, training}
      : tensor<1x2x6x4xf32>, tensor<1x1x4x4xf32>, tensor<1x1x4x3xf32> -> tensor<1x2x6x3xf32>, tensor<1x2x6x1xf32>
  return %o, %lse : tensor<1x2x6x3xf32>, tensor<1x2x6x1xf32>
}
