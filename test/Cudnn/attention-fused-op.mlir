// A plain attention (no masks, identity score region) lowers to two
// alternatives: the single fused sdpa_fwd op (cuDNN >= 9.13.1), then the
// composite graph; the NVRTC kernel stays as the fallback.
// RUN: tg-compile %s --emit=cudnn | FileCheck %s
// RUN: tg-compile %s --emit=plan | FileCheck %s --check-prefix=PLAN
// RUN: tg-compile %s --explain-backend --emit=mlir 2>&1 | FileCheck %s --check-prefix=EXPLAIN

// EXPLAIN: remark: backend cudnn: measured on H200 (plain attention forward): cuDNN 453.9 TFLOP/s, the generated kernel 448.3 (nearest measured: hd 64, no mask, S 2048;

// CHECK-LABEL: ===== step 0 (cudnn)
// CHECK: graph "attention fwd (sdpa_fwd)" min_version 91301
// CHECK-NEXT: tensor [[Q:[0-9]+]] bf16 [2,8,128,64] [65536,8192,64,1] buffer "q"
// CHECK-NEXT: tensor [[K:[0-9]+]] bf16 [2,8,256,64] [131072,16384,64,1] buffer "k"
// CHECK-NEXT: tensor [[V:[0-9]+]] bf16 [2,8,256,64] [131072,16384,64,1] buffer "v"
// CHECK-NEXT: tensor [[O:[0-9]+]] bf16 [2,8,128,64] [65536,8192,64,1] buffer "o"
// CHECK-NEXT: tensor [[SCALE:[0-9]+]] f32 [1,1,1,1] [1,1,1,1] value 0.125
// CHECK-NEXT: op sdpa_fwd q [[Q]] k [[K]] v [[V]] o [[O]] scale [[SCALE]]
// CHECK-NEXT: end

// The composite graph: K bound as a transposed view (dims and strides of the
// last two axes swapped, no copy), scores virtual f32, P virtual bf16.
// CHECK: graph "attention fwd (composite)" min_version 90000
// CHECK-NEXT: tensor [[CQ:[0-9]+]] bf16 [2,8,128,64] [65536,8192,64,1] buffer "q"
// CHECK-NEXT: tensor [[KT:[0-9]+]] bf16 [2,8,64,256] [131072,16384,1,64] buffer "k"
// CHECK-NEXT: tensor [[CV:[0-9]+]] bf16 [2,8,256,64] [131072,16384,64,1] buffer "v"
// CHECK-NEXT: tensor [[S:[0-9]+]] f32 [2,8,128,256] [262144,32768,256,1] virtual
// CHECK-NEXT: tensor [[SC:[0-9]+]] f32 [1,1,1,1] [1,1,1,1] value 0.125
// CHECK-NEXT: tensor [[SS:[0-9]+]] f32 [2,8,128,256] [262144,32768,256,1] virtual
// CHECK-NEXT: tensor [[MAX:[0-9]+]] f32 [2,8,128,1] [1024,128,1,1] virtual
// CHECK-NEXT: tensor [[SUB:[0-9]+]] f32 [2,8,128,256] {{.*}} virtual
// CHECK-NEXT: tensor [[EXP:[0-9]+]] f32 [2,8,128,256] {{.*}} virtual
// CHECK-NEXT: tensor [[SUM:[0-9]+]] f32 [2,8,128,1] [1024,128,1,1] virtual
// CHECK-NEXT: tensor [[LOG:[0-9]+]] f32 [2,8,128,1] [1024,128,1,1] virtual
// CHECK-NEXT: tensor [[LSE:[0-9]+]] f32 [2,8,128,1] [1024,128,1,1] virtual
// CHECK-NEXT: tensor [[P:[0-9]+]] bf16 [2,8,128,256] [262144,32768,256,1] virtual
// CHECK-NEXT: tensor [[CO:[0-9]+]] bf16 [2,8,128,64] [65536,8192,64,1] buffer "o"
// CHECK-NEXT: op matmul compute f32 a [[CQ]] b [[KT]] c [[S]]
// CHECK-NEXT: op pointwise mul compute f32 x [[S]] b [[SC]] y [[SS]]
// CHECK-NEXT: op reduction max compute f32 x [[SS]] y [[MAX]]
// CHECK-NEXT: op pointwise sub compute f32 x [[SS]] b [[MAX]] y [[SUB]]
// CHECK-NEXT: op pointwise exp compute f32 x [[SUB]] y [[EXP]]
// CHECK-NEXT: op reduction add compute f32 x [[EXP]] y [[SUM]]
// The stats (virtual: not training) must be there for cuDNN's engines.
// CHECK-NEXT: op pointwise log compute f32 x [[SUM]] y [[LOG]]
// CHECK-NEXT: op pointwise add compute f32 x [[MAX]] b [[LOG]] y [[LSE]]
// CHECK-NEXT: op pointwise div compute f32 x [[EXP]] b [[SUM]] y [[P]]
// CHECK-NEXT: op matmul compute f32 a [[P]] b [[CV]] c [[CO]]
// CHECK-NEXT: end

// The plan validates and the cuDNN step keeps the NVRTC kernel as fallback.
// PLAN: tgc-plan 3
// PLAN: kernel "k0" entry "tg_attention_fwd_bf16_d64
// PLAN: cudnn {{[0-9]+}}
// PLAN-NEXT: graph "attention fwd (sdpa_fwd)" min_version 91301
// PLAN: graph "attention fwd (composite)" min_version 90000
// PLAN: fallback
// PLAN-NEXT: variant "k0"
// PLAN: arg buffer "q"
// PLAN: end sha256
func.func @plain(%q: tensor<2x8x128x64xbf16> {tg.name = "q"},
                 %k: tensor<2x8x256x64xbf16> {tg.name = "k"},
                 %v: tensor<2x8x256x64xbf16> {tg.name = "v"})
    -> (tensor<2x8x128x64xbf16> {tg.name = "o"}) {
  %o = tg.sdpa %q, %k, %v : tensor<2x8x128x64xbf16>, tensor<2x8x256x64xbf16>, tensor<2x8x256x64xbf16> -> tensor<2x8x128x64xbf16>
  return %o : tensor<2x8x128x64xbf16>
}
