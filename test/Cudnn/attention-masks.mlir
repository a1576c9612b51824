// Causal and sliding-window masks become cuDNN's diagonal band: gen_index
// rows/columns, int32 index math, a comparison and binary_select with a
// by-value -inf (x = score, b = -inf, t = keep). No fused sdpa_fwd graph:
// that op takes no masks.
// RUN: tg-compile %s --entry=causal_tl --emit=cudnn | FileCheck %s --check-prefix=TL
// RUN: tg-compile %s --entry=causal_br --emit=cudnn | FileCheck %s --check-prefix=BR
// RUN: tg-compile %s --entry=window --emit=cudnn | FileCheck %s --check-prefix=WIN
// RUN: tg-compile %s --entry=window_noncausal_long --emit=cudnn | FileCheck %s --check-prefix=LONG
// RUN: tg-opt %s --tg-select-backend=explain=true 2>&1 | FileCheck %s --check-prefix=EXPLAIN

// EXPLAIN-COUNT-4: remark: backend cudnn: measured on H200 (plain attention forward): cuDNN

// Top-left causal: keep kv_idx <= q_idx.
// TL-NOT: sdpa_fwd
// TL: graph "attention fwd (composite)" min_version 91002
// TL: tensor [[NINF:[0-9]+]] f32 [1,1,1,1] [1,1,1,1] value -inf
// TL: op pointwise mul compute f32 x {{[0-9]+}} b {{[0-9]+}} y [[S:[0-9]+]]
// TL-NEXT: op pointwise gen_index compute f32 axis 2 x [[S]] y [[ROW:[0-9]+]]
// TL-NEXT: op pointwise gen_index compute f32 axis 3 x [[S]] y [[COL:[0-9]+]]
// TL-NEXT: op pointwise cmp_ge compute i1 x [[ROW]] b [[COL]] y [[KEEP:[0-9]+]]
// TL-NEXT: op pointwise binary_select compute f32 x [[S]] b [[NINF]] t [[KEEP]] y [[M:[0-9]+]]
// TL-NEXT: op reduction max compute f32 x [[M]] y

// Bottom-right causal (Sq < Skv, so no row is fully masked): the diagonal
// is q_idx + Skv - Sq, as by-value int32 scalars (the band rule the
// forward shares with the backward, ScoreGraph.h).
// BR: graph "attention fwd (composite)" min_version 91002
// BR: tensor [[SKV:[0-9]+]] i32 [1,1,1,1] [1,1,1,1] value 128
// BR: tensor [[SQ:[0-9]+]] i32 [1,1,1,1] [1,1,1,1] value 64
// BR: op pointwise gen_index compute f32 axis 2 x [[S:[0-9]+]] y [[ROW:[0-9]+]]
// BR-NEXT: op pointwise gen_index compute f32 axis 3 x [[S]] y [[COL:[0-9]+]]
// BR-NEXT: op pointwise add compute i32 x [[ROW]] b [[SKV]] y [[R1:[0-9]+]]
// BR-NEXT: op pointwise sub compute i32 x [[R1]] b [[SQ]] y [[DIAG:[0-9]+]]
// BR-NEXT: op pointwise cmp_ge compute i1 x [[DIAG]] b [[COL]] y [[KEEP:[0-9]+]]
// BR-NEXT: op pointwise binary_select compute f32 x [[S]] b {{[0-9]+}} t [[KEEP]]
// BR-NOT: logical_and

// Causal with window_left = 16: the right bound is the diagonal, the left
// bound keeps kv_idx + 17 > q_idx (kv_idx >= q_idx - 16) in int32: the
// forward's engines find no engine for the backward's f32 spelling (cuDNN
// 9.19 on the H200), ScoreGraph.h's LeftBoundSpelling.
// WIN: graph "attention fwd (composite)" min_version 91002
// WIN: tensor [[L:[0-9]+]] i32 [1,1,1,1] [1,1,1,1] value 17
// WIN: op pointwise gen_index compute f32 axis 2 x [[S:[0-9]+]] y [[ROW:[0-9]+]]
// WIN-NEXT: op pointwise gen_index compute f32 axis 3 x [[S]] y [[COL:[0-9]+]]
// WIN-NEXT: op pointwise cmp_ge compute i1 x [[ROW]] b [[COL]] y [[K1:[0-9]+]]
// WIN-NEXT: op pointwise binary_select compute f32 x [[S]] b {{[0-9]+}} t [[K1]] y [[S1:[0-9]+]]
// WIN-NEXT: op pointwise add compute i32 x [[COL]] b [[L]] y [[CL:[0-9]+]]
// WIN-NEXT: op pointwise cmp_gt compute i1 x [[CL]] b [[ROW]] y [[K2:[0-9]+]]
// WIN-NEXT: op pointwise binary_select compute f32 x [[S1]] b {{[0-9]+}} t [[K2]]

// A non-causal window over more than 1024 kv needs cuDNN >= 9.15 (9.14
// computes it wrongly); the right bound is q_idx + 8.
// LONG: graph "attention fwd (composite)" min_version 91500
// LONG: tensor [[R:[0-9]+]] i32 [1,1,1,1] [1,1,1,1] value 8
// LONG: op pointwise add compute i32 x [[ROW:[0-9]+]] b [[R]] y [[B:[0-9]+]]
// LONG-NEXT: op pointwise cmp_ge compute i1 x [[B]] b [[COL:[0-9]+]]

func.func @causal_tl(%q: tensor<1x4x128x64xf16>, %k: tensor<1x4x128x64xf16>, %v: tensor<1x4x128x64xf16>) -> tensor<1x4x128x64xf16> {
  %o = tg.attention %q, %k, %v {causal = #tg<causal top_left>, scale = 0.125 : f64}
      : tensor<1x4x128x64xf16>, tensor<1x4x128x64xf16>, tensor<1x4x128x64xf16> -> tensor<1x4x128x64xf16>
      score {
  ^bb0(%s: tensor<f32>, %b: tensor<i64>, %h: tensor<i64>, %qi: tensor<i64>, %ki: tensor<i64>):
    tg.yield %s : tensor<f32>
  }
  return %o : tensor<1x4x128x64xf16>
}

func.func @causal_br(%q: tensor<1x4x64x64xf16>, %k: tensor<1x4x128x64xf16>, %v: tensor<1x4x128x64xf16>) -> tensor<1x4x64x64xf16> {
  %o = tg.attention %q, %k, %v {causal = #tg<causal bottom_right>, scale = 0.125 : f64}
      : tensor<1x4x64x64xf16>, tensor<1x4x128x64xf16>, tensor<1x4x128x64xf16> -> tensor<1x4x64x64xf16>
      score {
  ^bb0(%s: tensor<f32>, %b: tensor<i64>, %h: tensor<i64>, %qi: tensor<i64>, %ki: tensor<i64>):
    tg.yield %s : tensor<f32>
  }
  return %o : tensor<1x4x64x64xf16>
}

func.func @window(%q: tensor<1x4x64x64xf16>, %k: tensor<1x4x128x64xf16>, %v: tensor<1x4x128x64xf16>) -> tensor<1x4x64x64xf16> {
  %o = tg.attention %q, %k, %v {causal = #tg<causal top_left>, window_left = 16 : i64}
      : tensor<1x4x64x64xf16>, tensor<1x4x128x64xf16>, tensor<1x4x128x64xf16> -> tensor<1x4x64x64xf16>
      score {
  ^bb0(%s: tensor<f32>, %b: tensor<i64>, %h: tensor<i64>, %qi: tensor<i64>, %ki: tensor<i64>):
    tg.yield %s : tensor<f32>
  }
  return %o : tensor<1x4x64x64xf16>
}

func.func @window_noncausal_long(%q: tensor<1x2x2048x64xbf16>, %k: tensor<1x2x2048x64xbf16>, %v: tensor<1x2x2048x64xbf16>) -> tensor<1x2x2048x64xbf16> {
  %o = tg.attention %q, %k, %v {window_left = 8 : i64, window_right = 8 : i64}
      : tensor<1x2x2048x64xbf16>, tensor<1x2x2048x64xbf16>, tensor<1x2x2048x64xbf16> -> tensor<1x2x2048x64xbf16>
      score {
  ^bb0(%s: tensor<f32>, %b: tensor<i64>, %h: tensor<i64>, %qi: tensor<i64>, %ki: tensor<i64>):
    tg.yield %s : tensor<f32>
  }
  return %o : tensor<1x2x2048x64xbf16>
}
