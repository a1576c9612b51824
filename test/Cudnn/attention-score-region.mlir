// The score region is translated op by op into pointwise ops on the
// [B,Hq,Sq,Skv] f32 scores: captures become bound tensors with their rank-4
// dims and strides (broadcast dims of size 1), indices gen_index, constants
// by-value scalars, tg.tanh tanh_fwd, tg.cast identity (a 16-bit value
// widened to f32 needs none: the op that reads it converts).
// RUN: tg-compile %s --entry=bias --emit=cudnn | FileCheck %s --check-prefix=BIAS
// RUN: tg-compile %s --entry=alibi --emit=cudnn | FileCheck %s --check-prefix=ALIBI
// RUN: tg-compile %s --entry=softcap --emit=cudnn | FileCheck %s --check-prefix=CAP
// RUN: tg-compile %s --entry=ops --emit=cudnn | FileCheck %s --check-prefix=OPS

// A bias capture, added in f32 after the scale; the second matmul writes the
// output directly (a guard after it defeats cuDNN's engines).
// BIAS-NOT: sdpa_fwd
// BIAS: graph "attention fwd (composite)" min_version 91002
// BIAS: tensor [[B:[0-9]+]] bf16 [1,1,128,128] [16384,16384,128,1] buffer "bias"
// BIAS: tensor [[O:[0-9]+]] bf16 [1,8,128,64] [65536,8192,64,1] buffer "o"
// BIAS: op pointwise mul compute f32 x {{[0-9]+}} b {{[0-9]+}} y [[S:[0-9]+]]
// BIAS-NEXT: op pointwise add compute f32 x [[S]] b [[B]] y [[S1:[0-9]+]]
// BIAS-NEXT: op reduction max compute f32 x [[S1]] y [[MAX:[0-9]+]]
// BIAS: op matmul compute f32 a {{[0-9]+}} b {{[0-9]+}} c [[O]]
// BIAS-NEXT: end

// ALiBi from tg.sdpa (decomposed, fused): slope(h) * (kv_idx - q_idx) with
// the slopes as a captured [1,Hq,1,1] constant (finite: no guard).
// ALIBI: graph "attention fwd (composite)" min_version 91002
// ALIBI: tensor [[SLOPES:[0-9]+]] f32 [1,8,1,1] [8,1,1,1] buffer "t0"
// ALIBI: op pointwise mul compute f32 x {{[0-9]+}} b {{[0-9]+}} y [[S:[0-9]+]]
// ALIBI-NEXT: op pointwise gen_index compute f32 axis 2 x [[S]] y [[QI:[0-9]+]]
// ALIBI-NEXT: op pointwise gen_index compute f32 axis 3 x [[S]] y [[KI:[0-9]+]]
// ALIBI-NEXT: op pointwise sub compute i32 x [[KI]] b [[QI]] y [[D:[0-9]+]]
// ALIBI-NEXT: op pointwise identity compute f32 x [[D]] y [[DF:[0-9]+]]
// ALIBI-NEXT: op pointwise mul compute f32 x [[DF]] b [[SLOPES]] y [[A:[0-9]+]]
// ALIBI-NEXT: op pointwise add compute f32 x [[S]] b [[A]]
// ALIBI-NOT: cmp_gt compute f32

// Soft-capping c * tanh(s / c) (1/c folded into the scale).
// CAP: graph "attention fwd (composite)" min_version 90000
// CAP: tensor [[SC:[0-9]+]] f32 [1,1,1,1] [1,1,1,1] value 0.0025
// CAP-NEXT: tensor {{[0-9]+}} f32 [1,8,128,128] {{.*}} virtual
// CAP-NEXT: tensor [[C:[0-9]+]] f32 [1,1,1,1] [1,1,1,1] value 50
// CAP: op pointwise mul compute f32 x {{[0-9]+}} b [[SC]] y [[S:[0-9]+]]
// CAP-NEXT: op pointwise tanh_fwd compute f32 x [[S]] y [[T:[0-9]+]]
// CAP-NEXT: op pointwise mul compute f32 x [[T]] b [[C]]
// CAP-NEXT: op reduction max

// Other ops and their modes; integer index math runs in int32.
// OPS: op pointwise gen_index compute f32 axis 0 x [[S:[0-9]+]] y [[B:[0-9]+]]
// OPS-NEXT: op pointwise gen_index compute f32 axis 1 x [[S]] y [[H:[0-9]+]]
// OPS-NEXT: op pointwise add compute i32 x [[H]] b [[B]] y [[HB:[0-9]+]]
// OPS-NEXT: op pointwise cmp_neq compute i1 x [[HB]] b {{[0-9]+}} y [[NE:[0-9]+]]
// OPS-NEXT: op pointwise sigmoid_fwd compute f32 x [[S]] y [[SG:[0-9]+]]
// OPS-NEXT: op pointwise reciprocal compute f32 x [[SG]] y [[RC:[0-9]+]]
// OPS-NEXT: op pointwise binary_select compute f32 x [[RC]] b [[S]] t [[NE]] y [[SEL:[0-9]+]]
// OPS-NEXT: op pointwise cmp_le compute f32 x [[SEL]] b {{[0-9]+}} y [[LE:[0-9]+]]
// OPS-NEXT: op pointwise abs compute f32 x [[SEL]] y [[AB:[0-9]+]]
// OPS-NEXT: op pointwise neg compute f32 x [[AB]] y [[NG:[0-9]+]]
// OPS-NEXT: op pointwise binary_select compute f32 x [[NG]] b [[SEL]] t [[LE]]
// OPS: op matmul compute f32 a {{[0-9]+}} b {{[0-9]+}} c {{[0-9]+}}
// OPS-NEXT: end

func.func @bias(%q: tensor<1x8x128x64xbf16> {tg.name = "q"}, %k: tensor<1x8x128x64xbf16> {tg.name = "k"},
                %v: tensor<1x8x128x64xbf16> {tg.name = "v"}, %bias: tensor<1x1x128x128xbf16> {tg.name = "bias"})
    -> (tensor<1x8x128x64xbf16> {tg.name = "o"}) {
  %o = tg.sdpa %q, %k, %v bias(%bias : tensor<1x1x128x128xbf16>) {scale = 0.125 : f64}
      : tensor<1x8x128x64xbf16>, tensor<1x8x128x64xbf16>, tensor<1x8x128x64xbf16> -> tensor<1x8x128x64xbf16>
  return %o : tensor<1x8x128x64xbf16>
}

func.func @alibi(%q: tensor<1x8x128x64xbf16> {tg.name = "q"}, %k: tensor<1x8x128x64xbf16> {tg.name = "k"},
                 %v: tensor<1x8x128x64xbf16> {tg.name = "v"}) -> (tensor<1x8x128x64xbf16> {tg.name = "o"}) {
  %o = tg.sdpa %q, %k, %v {alibi, causal = #tg<causal top_left>}
      : tensor<1x8x128x64xbf16>, tensor<1x8x128x64xbf16>, tensor<1x8x128x64xbf16> -> tensor<1x8x128x64xbf16>
  return %o : tensor<1x8x128x64xbf16>
}

func.func @softcap(%q: tensor<1x8x128x64xbf16> {tg.name = "q"}, %k: tensor<1x8x128x64xbf16> {tg.name = "k"},
                   %v: tensor<1x8x128x64xbf16> {tg.name = "v"}) -> (tensor<1x8x128x64xbf16> {tg.name = "o"}) {
  %o = tg.sdpa %q, %k, %v {softcap = 50.0 : f64, scale = 0.125 : f64}
      : tensor<1x8x128x64xbf16>, tensor<1x8x128x64xbf16>, tensor<1x8x128x64xbf16> -> tensor<1x8x128x64xbf16>
  return %o : tensor<1x8x128x64xbf16>
}

func.func @ops(%q: tensor<1x8x128x64xf16>, %k: tensor<1x8x128x64xf16>, %v: tensor<1x8x128x64xf16>) -> tensor<1x8x128x64xf16> {
  %o = tg.attention %q, %k, %v {scale = 0.125 : f64}
      : tensor<1x8x128x64xf16>, tensor<1x8x128x64xf16>, tensor<1x8x128x64xf16> -> tensor<1x8x128x64xf16>
      score {
  ^bb0(%s: tensor<f32>, %b: tensor<i64>, %h: tensor<i64>, %qi: tensor<i64>, %ki: tensor<i64>):
    %hb = tg.add %h, %b : tensor<i64>, tensor<i64>
    %c3 = tg.constant dense<3> : tensor<i64>
    %ne = tg.cmp ne, %hb, %c3 : tensor<i64>, tensor<i64>
    %sg = tg.sigmoid %s : tensor<f32>
    %rc = tg.recip %sg : tensor<f32>
    %sel = tg.select %ne, %rc, %s : tensor<i1>, tensor<f32>, tensor<f32>
    %z = tg.constant dense<0.0> : tensor<f32>
    %le = tg.cmp le, %sel, %z : tensor<f32>, tensor<f32>
    %ab = tg.abs %sel : tensor<f32>
    %ng = tg.neg %ab : tensor<f32>
    %r = tg.select %le, %ng, %sel : tensor<i1>, tensor<f32>, tensor<f32>
    tg.yield %r : tensor<f32>
  }
  return %o : tensor<1x8x128x64xf16>
}
