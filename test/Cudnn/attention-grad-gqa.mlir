// GQA backward (8 query heads, 2 kv heads) as cudnn-frontend builds it: the
// score and dP matmuls read the [B,Hkv,...] K and V views against
// [B,Hq,...] operands; dK and dV are computed per query head into virtual
// [B,Hq,Skv,D] tensors typed like Q, then add-reduced onto the kv heads.
// RUN: tg-compile %s --emit=cudnn | FileCheck %s

// CHECK-LABEL: ===== step 0 (cudnn), no fallback
// CHECK: graph "attention bwd (sdpa_bwd)" min_version 91900
// CHECK: op sdpa_bwd q
// CHECK: graph "attention bwd (composite)" min_version 91002
// CHECK-NEXT: tensor [[Q:[0-9]+]] bf16 [2,8,256,128] [262144,32768,128,1] buffer "q"
// CHECK-NEXT: tensor [[KT:[0-9]+]] bf16 [2,2,128,256] [65536,32768,1,128] buffer "k"
// CHECK-NEXT: tensor [[VT:[0-9]+]] bf16 [2,2,128,256] [65536,32768,1,128] buffer "v"
// CHECK: tensor [[S:[0-9]+]] f32 [2,8,256,256] [524288,65536,256,1] virtual
// CHECK: tensor [[DV:[0-9]+]] bf16 [2,2,256,128] [65536,32768,128,1] buffer "dv"
// CHECK-NEXT: tensor [[DVH:[0-9]+]] bf16 [2,8,256,128] [262144,32768,128,1] virtual
// CHECK: tensor [[DK:[0-9]+]] bf16 [2,2,256,128] [65536,32768,128,1] buffer "dk"
// CHECK-NEXT: tensor [[DKH:[0-9]+]] bf16 [2,8,256,128] [262144,32768,128,1] virtual
// CHECK-NEXT: tensor [[KN:[0-9]+]] bf16 [2,2,256,128] [65536,32768,128,1] virtual
// CHECK-NEXT: tensor [[ACC:[0-9]+]] f32 [2,8,256,128] [262144,32768,128,1] buffer
// CHECK: op matmul compute f32 a [[Q]] b [[KT]] c [[S]]
// CHECK: op reshape x [[P:[0-9]+]] y [[PT:[0-9]+]]
// CHECK-NEXT: op matmul compute f32 a [[PT]] b {{[0-9]+}} c [[DVH]]
// CHECK-NEXT: op reduction add compute f32 x [[DVH]] y [[DV]]
// CHECK-NEXT: op matmul compute f32 a {{[0-9]+}} b [[VT]] c
// CHECK: op reshape x [[DS:[0-9]+]] y [[DST:[0-9]+]]
// CHECK-NEXT: op matmul compute f32 a [[DST]] b [[Q]] c [[DKH]]
// CHECK-NEXT: op reduction add compute f32 x [[DKH]] y [[DK]]
// CHECK-NEXT: op reshape x [[KT]] y [[KN]]
// CHECK-NEXT: op matmul compute f32 a [[DS]] b [[KN]] c [[ACC]]
// CHECK-NEXT: op pointwise identity compute f32 x [[ACC]] y {{[0-9]+}}
// CHECK-NEXT: end
func.func @gqa(%q: tensor<2x8x256x128xbf16> {tg.name = "q"}, %k: tensor<2x2x256x128xbf16> {tg.name = "k"},
               %v: tensor<2x2x256x128xbf16> {tg.name = "v"}, %o: tensor<2x8x256x128xbf16> {tg.name = "o"},
               %do: tensor<2x8x256x128xbf16> {tg.name = "do"}, %lse: tensor<2x8x256x1xf32> {tg.name = "stats"})
    -> (tensor<2x8x256x128xbf16> {tg.name = "dq"}, tensor<2x2x256x128xbf16> {tg.name = "dk"}, tensor<2x2x256x128xbf16> {tg.name = "dv"}) {
  %dq, %dk, %dv = tg.sdpa_grad %q, %k, %v, %o, %do, %lse
      : tensor<2x8x256x128xbf16>, tensor<2x2x256x128xbf16>, tensor<2x2x256x128xbf16>, tensor<2x8x256x128xbf16>, tensor<2x8x256x128xbf16>, tensor<2x8x256x1xf32>
  return %dq, %dk, %dv : tensor<2x8x256x128xbf16>, tensor<2x2x256x128xbf16>, tensor<2x2x256x128xbf16>
}
