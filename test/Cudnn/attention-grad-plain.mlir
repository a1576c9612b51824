// The backward of a plain attention (tg.sdpa_grad -> tg-decompose-sdpa ->
// tg-fuse-attention backward=true -> tg.attention_grad on cuDNN) lowers to
// two alternatives and no NVRTC fallback: the single fused sdpa_bwd op, then
// the composite graph cudnn-frontend builds (Skv = 128: no padding
// workaround needed).
// RUN: tg-compile %s --emit=cudnn | FileCheck %s
// RUN: tg-compile %s --emit=plan | FileCheck %s --check-prefix=PLAN
// RUN: tg-compile %s --explain-backend --emit=mlir 2>&1 | FileCheck %s --check-prefix=EXPLAIN
// RUN: tg-compile %s --backend=nvrtc --emit=mlir | FileCheck %s --check-prefix=NVRTC

// EXPLAIN: remark: backend cudnn: measured on H200 (plain attention backward): cuDNN 216.3 TFLOP/s, the fused NVRTC backward 147.5 (nearest measured: hd 64, no mask, S 512;
// EXPLAIN: tg.attention_grad {{.*}}tg.backend = #tg<backend cudnn>
// NVRTC: tg.attention_grad {{.*}}tg.backend = #tg<backend nvrtc>
// NVRTC-NOT: tg.exp

// PLAN: buffer "t0" intermediate f32 shape [1,2,128,1]
// PLAN: buffer "t1" intermediate f32 shape [1,2,128,64]
// PLAN: cudnn
// PLAN-NOT: fallback

// CHECK-LABEL: ===== step 0 (cudnn), no fallback
// CHECK: graph "attention bwd (sdpa_bwd)" min_version 91900
// CHECK-NEXT: tensor [[Q:[0-9]+]] bf16 [1,2,128,64] [16384,8192,64,1] buffer "q"
// CHECK-NEXT: tensor [[K:[0-9]+]] bf16 [1,2,128,64] [16384,8192,64,1] buffer "k"
// CHECK-NEXT: tensor [[V:[0-9]+]] bf16 [1,2,128,64] [16384,8192,64,1] buffer "v"
// CHECK-NEXT: tensor [[O:[0-9]+]] bf16 [1,2,128,64] [16384,8192,64,1] buffer "o"
// CHECK-NEXT: tensor [[DO:[0-9]+]] bf16 [1,2,128,64] [16384,8192,64,1] buffer "do"
// CHECK-NEXT: tensor [[LSE:[0-9]+]] f32 [1,2,128,1] [256,128,1,1] buffer "stats"
// CHECK-NEXT: tensor [[SCALE:[0-9]+]] f32 [1,1,1,1] [1,1,1,1] value 0.125
// CHECK-NEXT: tensor [[DQ:[0-9]+]] bf16 [1,2,128,64] [16384,8192,64,1] buffer "dq"
// CHECK-NEXT: tensor [[DK:[0-9]+]] bf16 [1,2,128,64] [16384,8192,64,1] buffer "dk"
// CHECK-NEXT: tensor [[DV:[0-9]+]] bf16 [1,2,128,64] [16384,8192,64,1] buffer "dv"
// CHECK-NEXT: op sdpa_bwd q [[Q]] k [[K]] v [[V]] o [[O]] do [[DO]] stats [[LSE]] scale [[SCALE]] dq [[DQ]] dk [[DK]] dv [[DV]]
// CHECK-NEXT: end

// K and V bound as transposed views; the row sums of dO * O and the dQ
// accumulator are bound f32 scratch tensors (plan intermediates t0, t1);
// Pᵀ and dSᵀ are reshapes typed bf16.
// CHECK: graph "attention bwd (composite)" min_version 91002
// CHECK-NEXT: tensor [[CQ:[0-9]+]] bf16 [1,2,128,64] [16384,8192,64,1] buffer "q"
// CHECK-NEXT: tensor [[KT:[0-9]+]] bf16 [1,2,64,128] [16384,8192,1,64] buffer "k"
// CHECK-NEXT: tensor [[VT:[0-9]+]] bf16 [1,2,64,128] [16384,8192,1,64] buffer "v"
// CHECK-NEXT: tensor [[CO:[0-9]+]] bf16 [1,2,128,64] [16384,8192,64,1] buffer "o"
// CHECK-NEXT: tensor [[CDO:[0-9]+]] bf16 [1,2,128,64] [16384,8192,64,1] buffer "do"
// CHECK-NEXT: tensor [[CLSE:[0-9]+]] f32 [1,2,128,1] [256,128,1,1] buffer "stats"
// CHECK-NEXT: tensor [[CSCALE:[0-9]+]] f32 [1,1,1,1] [1,1,1,1] value 0.125
// CHECK-NEXT: tensor [[PROD:[0-9]+]] f32 [1,2,128,64] [16384,8192,64,1] virtual
// CHECK-NEXT: tensor [[ROWS:[0-9]+]] f32 [1,2,128,1] [256,128,1,1] virtual
// CHECK-NEXT: tensor [[D:[0-9]+]] f32 [1,2,128,1] [256,128,1,1] buffer "t0"
// CHECK-NEXT: tensor [[ONE:[0-9]+]] f32 [1,1,1,1] [1,1,1,1] value 1
// CHECK-NEXT: tensor [[S:[0-9]+]] f32 [1,2,128,128] [32768,16384,128,1] virtual
// CHECK-NEXT: tensor [[SS:[0-9]+]] f32 [1,2,128,128] [32768,16384,128,1] virtual
// CHECK-NEXT: tensor [[SUB:[0-9]+]] f32 [1,2,128,128] [32768,16384,128,1] virtual
// CHECK-NEXT: tensor [[P:[0-9]+]] f32 [1,2,128,128] [32768,16384,128,1] virtual
// CHECK-NEXT: tensor [[PT:[0-9]+]] bf16 [1,2,128,128] [32768,16384,1,128] virtual
// CHECK-NEXT: tensor [[CDV:[0-9]+]] bf16 [1,2,128,64] [16384,8192,64,1] buffer "dv"
// CHECK-NEXT: tensor [[DP:[0-9]+]] f32 [1,2,128,128] [32768,16384,128,1] virtual
// CHECK-NEXT: tensor [[DPD:[0-9]+]] f32 [1,2,128,128] [32768,16384,128,1] virtual
// CHECK-NEXT: tensor [[DS0:[0-9]+]] f32 [1,2,128,128] [32768,16384,128,1] virtual
// CHECK-NEXT: tensor [[DS:[0-9]+]] f32 [1,2,128,128] [32768,16384,128,1] virtual
// CHECK-NEXT: tensor [[DST:[0-9]+]] bf16 [1,2,128,128] [32768,16384,1,128] virtual
// CHECK-NEXT: tensor [[CDK:[0-9]+]] bf16 [1,2,128,64] [16384,8192,64,1] buffer "dk"
// CHECK-NEXT: tensor [[KN:[0-9]+]] bf16 [1,2,128,64] [16384,8192,64,1] virtual
// CHECK-NEXT: tensor [[ACC:[0-9]+]] f32 [1,2,128,64] [16384,8192,64,1] buffer "t1"
// CHECK-NEXT: tensor [[CDQ:[0-9]+]] bf16 [1,2,128,64] [16384,8192,64,1] buffer "dq"
// CHECK-NEXT: op pointwise mul compute f32 x [[CDO]] b [[CO]] y [[PROD]]
// CHECK-NEXT: op reduction add compute f32 x [[PROD]] y [[ROWS]]
// CHECK-NEXT: op pointwise mul compute f32 x [[ROWS]] b [[ONE]] y [[D]]
// CHECK-NEXT: op matmul compute f32 a [[CQ]] b [[KT]] c [[S]]
// CHECK-NEXT: op pointwise mul compute f32 x [[S]] b [[CSCALE]] y [[SS]]
// CHECK-NEXT: op pointwise sub compute f32 x [[SS]] b [[CLSE]] y [[SUB]]
// CHECK-NEXT: op pointwise exp compute f32 x [[SUB]] y [[P]]
// CHECK-NEXT: op reshape x [[P]] y [[PT]]
// CHECK-NEXT: op matmul compute f32 a [[PT]] b [[CDO]] c [[CDV]]
// CHECK-NEXT: op matmul compute f32 a [[CDO]] b [[VT]] c [[DP]]
// CHECK-NEXT: op pointwise sub compute f32 x [[DP]] b [[D]] y [[DPD]]
// CHECK-NEXT: op pointwise mul compute f32 x [[DPD]] b [[P]] y [[DS0]]
// CHECK-NEXT: op pointwise mul compute f32 x [[DS0]] b [[CSCALE]] y [[DS]]
// CHECK-NEXT: op reshape x [[DS]] y [[DST]]
// CHECK-NEXT: op matmul compute f32 a [[DST]] b [[CQ]] c [[CDK]]
// CHECK-NEXT: op reshape x [[KT]] y [[KN]]
// CHECK-NEXT: op matmul compute f32 a [[DS]] b [[KN]] c [[ACC]]
// CHECK-NEXT: op pointwise identity compute f32 x [[ACC]] y [[CDQ]]
// CHECK-NEXT: end
// CHECK-NOT: graph
func.func @plain(%q: tensor<1x2x128x64xbf16> {tg.name = "q"}, %k: tensor<1x2x128x64xbf16> {tg.name = "k"},
                 %v: tensor<1x2x128x64xbf16> {tg.name = "v"}, %o: tensor<1x2x128x64xbf16> {tg.name = "o"},
                 %do: tensor<1x2x128x64xbf16> {tg.name = "do"}, %lse: tensor<1x2x128x1xf32> {tg.name = "stats"})
    -> (tensor<1x2x128x64xbf16> {tg.name = "dq"}, tensor<1x2x128x64xbf16> {tg.name = "dk"}, tensor<1x2x128x64xbf16> {tg.name = "dv"}) {
  %dq, %dk, %dv = tg.sdpa_grad %q, %k, %v, %o, %do, %lse
      : tensor<1x2x128x64xbf16>, tensor<1x2x128x64xbf16>, tensor<1x2x128x64xbf16>, tensor<1x2x128x64xbf16>, tensor<1x2x128x64xbf16>, tensor<1x2x128x1xf32>
  return %dq, %dk, %dv : tensor<1x2x128x64xbf16>, tensor<1x2x128x64xbf16>, tensor<1x2x128x64xbf16>
}
