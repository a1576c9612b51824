// GQA, training stats and [B,S,H,D] buffers: layouts reach cuDNN only
// through strides (no copies); kv heads broadcast through the batched
// matmuls; training binds the [B,Hq,Sq,1] f32 stats.
// RUN: tg-compile %s --emit=cudnn | FileCheck %s
// RUN: tg-compile %s --emit=plan | FileCheck %s --check-prefix=PLAN

// CHECK: graph "attention fwd (sdpa_fwd)" min_version 91301
// CHECK-NEXT: tensor [[Q:[0-9]+]] f16 [2,8,96,64] [49152,64,512,1] buffer "q"
// CHECK-NEXT: tensor [[K:[0-9]+]] f16 [2,2,96,64] [12288,64,128,1] buffer "k"
// CHECK-NEXT: tensor [[V:[0-9]+]] f16 [2,2,96,64] [12288,64,128,1] buffer "v"
// CHECK-NEXT: tensor [[O:[0-9]+]] f16 [2,8,96,64] [49152,64,512,1] buffer "o"
// CHECK-NEXT: tensor [[ST:[0-9]+]] f32 [2,8,96,1] [768,96,1,1] buffer "{{.*}}"
// CHECK-NEXT: tensor [[SC:[0-9]+]] f32 [1,1,1,1] [1,1,1,1] value 0.125
// CHECK-NEXT: op sdpa_fwd q [[Q]] k [[K]] v [[V]] o [[O]] stats [[ST]] scale [[SC]]

// CHECK: graph "attention fwd (composite)" min_version 90000
// CHECK-NEXT: tensor [[CQ:[0-9]+]] f16 [2,8,96,64] [49152,64,512,1] buffer "q"
// CHECK-NEXT: tensor [[KT:[0-9]+]] f16 [2,2,64,96] [12288,64,1,128] buffer "k"
// CHECK-NEXT: tensor [[CV:[0-9]+]] f16 [2,2,96,64] [12288,64,128,1] buffer "v"
// CHECK-NEXT: tensor [[S:[0-9]+]] f32 [2,8,96,96] [73728,9216,96,1] virtual
// CHECK: tensor [[CST:[0-9]+]] f32 [2,8,96,1] [768,96,1,1] buffer "{{.*}}"
// CHECK-NEXT: tensor [[P:[0-9]+]] f16 [2,8,96,96] [73728,9216,96,1] virtual
// CHECK-NEXT: tensor [[CO:[0-9]+]] f16 [2,8,96,64] [49152,64,512,1] buffer "o"
// CHECK: op matmul compute f32 a [[CQ]] b [[KT]] c [[S]]
// CHECK: op reduction max compute f32 x {{[0-9]+}} y [[MAX:[0-9]+]]
// CHECK: op pointwise log compute f32 x {{[0-9]+}} y [[LOG:[0-9]+]]
// CHECK-NEXT: op pointwise add compute f32 x [[MAX]] b [[LOG]] y [[CST]]
// CHECK-NEXT: op pointwise div
// CHECK-NEXT: op matmul compute f32 a [[P]] b [[CV]] c [[CO]]
// CHECK-NEXT: end

// PLAN: buffer "o" output f16 shape [2,8,96,64] strides [49152,64,512,1]
// PLAN: cudnn
// PLAN: fallback
func.func @gqa_bshd(%q: tensor<2x8x96x64xf16> {tg.name = "q", tg.strides = array<i64: 49152, 64, 512, 1>},
                    %k: tensor<2x2x96x64xf16> {tg.name = "k", tg.strides = array<i64: 12288, 64, 128, 1>},
                    %v: tensor<2x2x96x64xf16> {tg.name = "v", tg.strides = array<i64: 12288, 64, 128, 1>})
    -> (tensor<2x8x96x64xf16> {tg.name = "o", tg.strides = array<i64: 49152, 64, 512, 1>},
        tensor<2x8x96x1xf32> {tg.name = "stats"}) {
  %o, %st = tg.attention %q, %k, %v {scale = 0.125 : f64, training}
      : tensor<2x8x96x64xf16>, tensor<2x2x96x64xf16>, tensor<2x2x96x64xf16> -> tensor<2x8x96x64xf16>, tensor<2x8x96x1xf32>
      score {
  ^bb0(%s: tensor<f32>, %b: tensor<i64>, %h: tensor<i64>, %qi: tensor<i64>, %ki: tensor<i64>):
    tg.yield %s : tensor<f32>
  }
  return %o, %st : tensor<2x8x96x64xf16>, tensor<2x8x96x1xf32>
}
