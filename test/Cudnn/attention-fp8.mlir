// FP8 tg.sdpa on cuDNN: the composite FP8 graph as cudnn-frontend's sdpa_fp8
// builds it (descales after the first matmul, softmax, amax of P, P scaled
// into a virtual fp8 tensor typed as Q, second matmul, descales, amax of O,
// scale of O into the bound output), scales bound as f32 [1,1,1,1].
// RUN: tg-compile %s --entry=causal_amax --backend=cudnn --emit=cudnn | FileCheck %s --check-prefix=AMAX
// RUN: tg-compile %s --entry=gqa_training_e5m2 --backend=cudnn --emit=cudnn | FileCheck %s --check-prefix=GQA

// AMAX: // ===== step 0 (cudnn), no fallback
// AMAX-NEXT: graph "attention fwd fp8 (composite)" min_version 91002
// AMAX-NEXT: tensor [[Q:[0-9]+]] f8E4M3FN [1,2,64,32] [4096,2048,32,1] buffer "q"
// AMAX-NEXT: tensor [[KT:[0-9]+]] f8E4M3FN [1,2,32,64] [4096,2048,1,32] buffer "k"
// AMAX-NEXT: tensor [[V:[0-9]+]] f8E4M3FN [1,2,64,32] [4096,2048,32,1] buffer "v"
// AMAX-NEXT: tensor [[DQ:[0-9]+]] f32 [1,1,1,1] [1,1,1,1] buffer "descale_q"
// AMAX-NEXT: tensor [[DK:[0-9]+]] f32 [1,1,1,1] [1,1,1,1] buffer "descale_k"
// AMAX-NEXT: tensor [[DV:[0-9]+]] f32 [1,1,1,1] [1,1,1,1] buffer "descale_v"
// AMAX-NEXT: tensor [[DS:[0-9]+]] f32 [1,1,1,1] [1,1,1,1] buffer "descale_s"
// AMAX-NEXT: tensor [[SS:[0-9]+]] f32 [1,1,1,1] [1,1,1,1] buffer "scale_s"
// AMAX-NEXT: tensor [[SO:[0-9]+]] f32 [1,1,1,1] [1,1,1,1] buffer "scale_o"
// AMAX-NEXT: tensor [[S:[0-9]+]] f32 [1,2,64,64] [8192,4096,64,1] virtual
// AMAX-NEXT: tensor [[SCALE:[0-9]+]] f32 [1,1,1,1] [1,1,1,1] value 0.125
// AMAX-DAG: tensor [[NINF:[0-9]+]] f32 [1,1,1,1] [1,1,1,1] value -inf
// AMAX-DAG: tensor [[ROW:[0-9]+]] i32 [1,2,64,64] [8192,4096,64,1] virtual
// AMAX-DAG: tensor [[KEEP:[0-9]+]] i1 [1,2,64,64] [8192,4096,64,1] virtual
// AMAX-DAG: tensor [[MAX:[0-9]+]] f32 [1,2,64,1] [128,64,1,1] virtual
// AMAX-NOT: buffer "lse"
// AMAX-DAG: tensor [[AS:[0-9]+]] f32 [1,1,1,1] [1,1,1,1] buffer "amax_s"
// AMAX-DAG: tensor [[P8:[0-9]+]] f8E4M3FN [1,2,64,64] [8192,4096,64,1] virtual
// AMAX-DAG: tensor [[AO:[0-9]+]] f32 [1,1,1,1] [1,1,1,1] buffer "amax_o"
// AMAX-DAG: tensor [[O:[0-9]+]] f8E4M3FN [1,2,64,32] [4096,2048,32,1] buffer "o"
// AMAX: op matmul compute f32 a [[Q]] b [[KT]] c [[S]]
// AMAX-NEXT: op pointwise mul compute f32 x [[S]] b [[SCALE]] y [[S1:[0-9]+]]
// AMAX-NEXT: op pointwise mul compute f32 x [[S1]] b [[DQ]] y [[S2:[0-9]+]]
// AMAX-NEXT: op pointwise mul compute f32 x [[S2]] b [[DK]] y [[S3:[0-9]+]]
// AMAX-NEXT: op pointwise gen_index compute f32 axis 2 x [[S3]] y [[ROW]]
// AMAX-NEXT: op pointwise gen_index compute f32 axis 3 x [[S3]] y [[COL:[0-9]+]]
// AMAX-NEXT: op pointwise cmp_ge compute i1 x [[ROW]] b [[COL]] y [[KEEP]]
// AMAX-NEXT: op pointwise binary_select compute f32 x [[S3]] b [[NINF]] t [[KEEP]] y [[MASKED:[0-9]+]]
// AMAX-NEXT: op reduction max compute f32 x [[MASKED]] y [[MAX]]
// AMAX-NEXT: op pointwise sub compute f32 x [[MASKED]] b [[MAX]] y [[D:[0-9]+]]
// AMAX-NEXT: op pointwise exp compute f32 x [[D]] y [[E:[0-9]+]]
// AMAX-NEXT: op reduction add compute f32 x [[E]] y [[SUM:[0-9]+]]
// AMAX-NEXT: op pointwise log compute f32 x [[SUM]] y [[LOG:[0-9]+]]
// AMAX-NEXT: op pointwise add compute f32 x [[MAX]] b [[LOG]] y [[LSE:[0-9]+]]
// AMAX-NEXT: op pointwise div compute f32 x [[E]] b [[SUM]] y [[P:[0-9]+]]
// AMAX-NEXT: op reduction amax compute f32 x [[P]] y [[AS]]
// AMAX-NEXT: op pointwise mul compute f32 x [[P]] b [[SS]] y [[P8]]
// AMAX-NEXT: op matmul compute f32 a [[P8]] b [[V]] c [[PV:[0-9]+]]
// AMAX-NEXT: op pointwise mul compute f32 x [[PV]] b [[DS]] y [[O1:[0-9]+]]
// AMAX-NEXT: op pointwise mul compute f32 x [[O1]] b [[DV]] y [[O2:[0-9]+]]
// AMAX-NEXT: op reduction amax compute f32 x [[O2]] y [[AO]]
// AMAX-NEXT: op pointwise mul compute f32 x [[O2]] b [[SO]] y [[O]]
// AMAX-NEXT: end
func.func @causal_amax(
    %q: tensor<1x2x64x32xf8E4M3FN> {tg.name = "q"}, %k: tensor<1x2x64x32xf8E4M3FN> {tg.name = "k"},
    %v: tensor<1x2x64x32xf8E4M3FN> {tg.name = "v"},
    %dq: tensor<f32> {tg.name = "descale_q"}, %dk: tensor<f32> {tg.name = "descale_k"},
    %dv: tensor<f32> {tg.name = "descale_v"}, %ds: tensor<f32> {tg.name = "descale_s"},
    %ss: tensor<f32> {tg.name = "scale_s"}, %so: tensor<f32> {tg.name = "scale_o"})
    -> (tensor<1x2x64x32xf8E4M3FN> {tg.name = "o"}, tensor<f32> {tg.name = "amax_s"}, tensor<f32> {tg.name = "amax_o"}) {
  %o, %as, %ao = tg.sdpa %q, %k, %v fp8_scales(%dq, %dk, %dv, %ds, %ss, %so : tensor<f32>, tensor<f32>, tensor<f32>, tensor<f32>, tensor<f32>, tensor<f32>)
      {causal = #tg<causal top_left>, scale = 0.125 : f64}
      : tensor<1x2x64x32xf8E4M3FN>, tensor<1x2x64x32xf8E4M3FN>, tensor<1x2x64x32xf8E4M3FN>
      -> tensor<1x2x64x32xf8E4M3FN> amax(tensor<f32>, tensor<f32>)
  return %o, %as, %ao : tensor<1x2x64x32xf8E4M3FN>, tensor<f32>, tensor<f32>
}

// GQA (K and V keep their 2 heads), e5m2 (P typed e5m2), no mask, training
// stats = max + log(sum) into the bound stats, no amax reductions.
// GQA: graph "attention fwd fp8 (composite)" min_version 90100
// GQA-NEXT: tensor [[Q:[0-9]+]] f8E5M2 [2,4,32,16] [2048,512,16,1] buffer "q"
// GQA-NEXT: tensor [[KT:[0-9]+]] f8E5M2 [2,2,16,48] [1536,768,1,16] buffer "k"
// GQA-NEXT: tensor [[V:[0-9]+]] f8E5M2 [2,2,48,16] [1536,768,16,1] buffer "v"
// GQA-NOT: gen_index
// GQA-NOT: amax
// GQA: tensor [[LSE:[0-9]+]] f32 [2,4,32,1] [128,32,1,1] buffer "lse"
// GQA: tensor [[P8:[0-9]+]] f8E5M2 [2,4,32,48] [6144,1536,48,1] virtual
// GQA: op matmul compute f32 a [[Q]] b [[KT]] c
// GQA: op reduction max compute f32 x [[S:[0-9]+]] y [[MAX:[0-9]+]]
// GQA: op reduction add compute f32 x [[E:[0-9]+]] y [[SUM:[0-9]+]]
// GQA-NEXT: op pointwise log compute f32 x [[SUM]] y [[LOG:[0-9]+]]
// GQA-NEXT: op pointwise add compute f32 x [[MAX]] b [[LOG]] y [[LSE]]
// GQA-NEXT: op pointwise div compute f32 x [[E]] b [[SUM]] y [[P:[0-9]+]]
// Unread amaxes still go into the graph (the engines need them), into
// workspace scratch.
// GQA-NEXT: op reduction amax compute f32 x [[P]] y {{[0-9]+}}
// GQA-NEXT: op pointwise mul compute f32 x [[P]] b {{[0-9]+}} y [[P8]]
// GQA-NEXT: op matmul compute f32 a [[P8]] b [[V]] c
// GQA: op reduction amax
// GQA: end
func.func @gqa_training_e5m2(
    %q: tensor<2x4x32x16xf8E5M2> {tg.name = "q"}, %k: tensor<2x2x48x16xf8E5M2> {tg.name = "k"},
    %v: tensor<2x2x48x16xf8E5M2> {tg.name = "v"}, %s: tensor<f32> {tg.name = "s"})
    -> (tensor<2x4x32x16xf8E5M2> {tg.name = "o"}, tensor<2x4x32x1xf32> {tg.name = "lse"}) {
  %o, %lse = tg.sdpa %q, %k, %v fp8_scales(%s, %s, %s, %s, %s, %s : tensor<f32>, tensor<f32>, tensor<f32>, tensor<f32>, tensor<f32>, tensor<f32>)
      {training}
      : tensor<2x4x32x16xf8E5M2>, tensor<2x2x48x16xf8E5M2>, tensor<2x2x48x16xf8E5M2>
      -> tensor<2x4x32x16xf8E5M2>, tensor<2x4x32x1xf32>
  return %o, %lse : tensor<2x4x32x16xf8E5M2>, tensor<2x4x32x1xf32>
}
