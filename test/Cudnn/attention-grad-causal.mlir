// Masked backward graphs: the causal mask as cudnn-frontend's
// diagonal band after `S - stats`. Skv is not a multiple of 128, so the
// step has two graphs: without padding for cuDNN >= 9.16, then (cuDNN
// <= 9.15 computes that case wrongly) the same graph with a padding mask and
// matmul overrides from full-length sequence lengths, which
// tg-expand-attention adds as constants (they mask nothing). No sdpa_bwd:
// the fused op takes no masks.
// RUN: tg-compile %s --entry=causal_bottom_right --emit=cudnn | FileCheck %s
// RUN: tg-compile %s --entry=causal_bottom_right --emit=mlir | FileCheck %s --check-prefix=IR
// RUN: tg-compile %s --entry=causal_top_left_256 --emit=cudnn | FileCheck %s --check-prefix=ALIGNED

// IR-LABEL: func.func @causal_bottom_right
// IR-DAG: %[[LQ:.*]] = tg.constant dense<64> : tensor<1xi32>
// IR-DAG: %[[LKV:.*]] = tg.constant dense<200> : tensor<1xi32>
// IR: tg.attention_grad {{.*}} seq_len_q(%[[LQ]] : tensor<1xi32>) seq_len_kv(%[[LKV]] : tensor<1xi32>) {causal = #tg<causal bottom_right>, {{.*}}tg.backend = #tg<backend cudnn>}

// Steps 0 and 1 write the two length constants.
// CHECK-LABEL: ===== step 2 (cudnn), no fallback
// CHECK-NOT: sdpa_bwd
// CHECK: graph "attention bwd (composite)" min_version 91600
// CHECK: tensor [[Q:[0-9]+]] f16 [1,2,64,64] [8192,4096,64,1] buffer "q"
// CHECK-NEXT: tensor [[KT:[0-9]+]] f16 [1,2,64,200] [25600,12800,1,64] buffer "k"
// CHECK-NOT: buffer "t0"
// CHECK: op matmul compute f32 a [[Q]] b [[KT]] c [[S:[0-9]+]]{{$}}
// CHECK-NEXT: op pointwise mul compute f32 x [[S]] b {{[0-9]+}} y [[SS:[0-9]+]]
// CHECK-NEXT: op pointwise sub compute f32 x [[SS]] b {{[0-9]+}} y [[SUB:[0-9]+]]
// Right bound (bottom-right causal): q_idx + Skv - Sq >= kv_idx, with
// by-value int32 200 and 64.
// CHECK-NEXT: op pointwise gen_index compute f32 axis 2 x [[SUB]] y [[ROW:[0-9]+]]
// CHECK-NEXT: op pointwise gen_index compute f32 axis 3 x [[SUB]] y [[COL:[0-9]+]]
// CHECK-NEXT: op pointwise add compute i32 x [[ROW]] b {{[0-9]+}} y [[R1:[0-9]+]]
// CHECK-NEXT: op pointwise sub compute i32 x [[R1]] b {{[0-9]+}} y [[DIAG:[0-9]+]]
// CHECK-NEXT: op pointwise cmp_ge compute i1 x [[DIAG]] b [[COL]] y [[KEEP:[0-9]+]]
// CHECK-NEXT: op pointwise binary_select compute f32 x [[SUB]] b {{[0-9]+}} t [[KEEP]] y [[M1:[0-9]+]]
// CHECK-NEXT: op pointwise exp compute f32 x [[M1]] y {{[0-9]+}}
// CHECK: end

// CHECK: graph "attention bwd (composite, full-length padding for cuDNN <= 9.15)" min_version 91002
// CHECK: tensor [[PQ:[0-9]+]] f16 [1,2,64,64] [8192,4096,64,1] buffer "q"
// CHECK-NEXT: tensor [[PKT:[0-9]+]] f16 [1,2,64,200] [25600,12800,1,64] buffer "k"
// CHECK-NEXT: tensor [[PVT:[0-9]+]] f16 [1,2,64,200] [25600,12800,1,64] buffer "v"
// CHECK: tensor [[LENQ:[0-9]+]] i32 [1,1,1,1] [1,1,1,1] buffer "t0"
// CHECK-NEXT: tensor [[LENKV:[0-9]+]] i32 [1,1,1,1] [1,1,1,1] buffer "t1"
// CHECK: op matmul compute f32 a [[PQ]] b [[PKT]] c [[PS:[0-9]+]] m_override [[LENQ]] n_override [[LENKV]]
// CHECK-NEXT: op pointwise mul compute f32 x [[PS]] b {{[0-9]+}} y [[PSS:[0-9]+]]
// The padding mask, before `S - stats`:
// CHECK-NEXT: op pointwise gen_index compute i32 axis 2 x [[PSS]] y [[PROW:[0-9]+]]
// CHECK-NEXT: op pointwise gen_index compute i32 axis 3 x [[PSS]] y [[PCOL:[0-9]+]]
// CHECK-NEXT: op pointwise cmp_lt compute i1 x [[PROW]] b [[LENQ]] y [[RK:[0-9]+]]
// CHECK-NEXT: op pointwise cmp_lt compute i1 x [[PCOL]] b [[LENKV]] y [[CK:[0-9]+]]
// CHECK-NEXT: op pointwise logical_and compute i1 x [[RK]] b [[CK]] y [[PK:[0-9]+]]
// CHECK-NEXT: op pointwise binary_select compute f32 x [[PSS]] b {{[0-9]+}} t [[PK]] y [[PM:[0-9]+]]
// CHECK-NEXT: op pointwise sub compute f32 x [[PM]] b {{[0-9]+}} y {{[0-9]+}}
// The diagonal with the bound lengths: q_idx + Lkv - Lq.
// CHECK: op pointwise add compute i32 x {{[0-9]+}} b [[LENKV]] y
// CHECK-NEXT: op pointwise sub compute i32 x {{[0-9]+}} b [[LENQ]] y
// The gradient matmuls stop at the lengths as well.
// CHECK: op matmul compute f32 a {{[0-9]+}} b {{[0-9]+}} c {{[0-9]+}} m_override [[LENKV]] k_override [[LENQ]]
// CHECK-NEXT: op matmul compute f32 a {{[0-9]+}} b [[PVT]] c {{[0-9]+}} m_override [[LENQ]] n_override [[LENKV]]
// CHECK: op matmul compute f32 a {{[0-9]+}} b [[PQ]] c {{[0-9]+}} m_override [[LENKV]] k_override [[LENQ]]
// CHECK: op matmul compute f32 a {{[0-9]+}} b {{[0-9]+}} c {{[0-9]+}} m_override [[LENQ]] k_override [[LENKV]]
// CHECK-NEXT: op pointwise identity
// CHECK-NEXT: end
func.func @causal_bottom_right(%q: tensor<1x2x64x64xf16> {tg.name = "q"}, %k: tensor<1x2x200x64xf16> {tg.name = "k"},
    %v: tensor<1x2x200x64xf16> {tg.name = "v"}, %o: tensor<1x2x64x64xf16> {tg.name = "o"},
    %do: tensor<1x2x64x64xf16> {tg.name = "do"}, %lse: tensor<1x2x64x1xf32> {tg.name = "stats"})
    -> (tensor<1x2x64x64xf16> {tg.name = "dq"}, tensor<1x2x200x64xf16> {tg.name = "dk"}, tensor<1x2x200x64xf16> {tg.name = "dv"}) {
  %dq, %dk, %dv = tg.attention_grad %q, %k, %v, %o, %do, %lse {causal = #tg<causal bottom_right>, scale = 0.125 : f64}
      : tensor<1x2x64x64xf16>, tensor<1x2x200x64xf16>, tensor<1x2x200x64xf16>, tensor<1x2x64x64xf16>, tensor<1x2x64x64xf16>, tensor<1x2x64x1xf32>
      score {
  ^bb0(%s: tensor<f32>, %b: tensor<i64>, %h: tensor<i64>, %qi: tensor<i64>, %ki: tensor<i64>):
    tg.yield %s : tensor<f32>
  } score_grad {
  }
  return %dq, %dk, %dv : tensor<1x2x64x64xf16>, tensor<1x2x200x64xf16>, tensor<1x2x200x64xf16>
}

// Skv = 256: one composite graph for every version from 9.10.2; top-left
// causal is q_idx >= kv_idx.
// ALIGNED-LABEL: ===== step 0 (cudnn), no fallback
// ALIGNED-NEXT: graph "attention bwd (composite)" min_version 91002
// ALIGNED: op pointwise gen_index compute f32 axis 2 x [[SUB:[0-9]+]] y [[ROW:[0-9]+]]
// ALIGNED-NEXT: op pointwise gen_index compute f32 axis 3 x [[SUB]] y [[COL:[0-9]+]]
// ALIGNED-NEXT: op pointwise cmp_ge compute i1 x [[ROW]] b [[COL]] y [[KEEP:[0-9]+]]
// ALIGNED-NEXT: op pointwise binary_select compute f32 x [[SUB]] b {{[0-9]+}} t [[KEEP]] y [[M:[0-9]+]]
// ALIGNED-NEXT: op pointwise exp compute f32 x [[M]]
// ALIGNED: end
// ALIGNED-NOT: graph
func.func @causal_top_left_256(%q: tensor<1x2x256x64xbf16>, %k: tensor<1x2x256x64xbf16>, %v: tensor<1x2x256x64xbf16>,
    %o: tensor<1x2x256x64xbf16>, %do: tensor<1x2x256x64xbf16>, %lse: tensor<1x2x256x1xf32>)
    -> (tensor<1x2x256x64xbf16>, tensor<1x2x256x64xbf16>, tensor<1x2x256x64xbf16>) {
  %dq, %dk, %dv = tg.sdpa_grad %q, %k, %v, %o, %do, %lse {causal = #tg<causal top_left>}
      : tensor<1x2x256x64xbf16>, tensor<1x2x256x64xbf16>, tensor<1x2x256x64xbf16>, tensor<1x2x256x64xbf16>, tensor<1x2x256x64xbf16>, tensor<1x2x256x1xf32>
  return %dq, %dk, %dv : tensor<1x2x256x64xbf16>, tensor<1x2x256x64xbf16>, tensor<1x2x256x64xbf16>
}
