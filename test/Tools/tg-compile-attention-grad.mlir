// tg.attention_grad on NVRTC: three launches of the fused backward
// (preprocess: delta and the zeroed f32 dQ accumulator, both workspace
// buffers of O(B*H*S) elements; the main kernel per kv tile; convert: dQ),
// no S x S buffer. What the kernels cannot run (f32) is expanded into generic
// kernels, with the reason in --explain-backend.
// RUN: tg-compile %s --backend=nvrtc --entry=gqa_causal -o - | FileCheck %s --check-prefix=PLAN
// RUN: tg-compile %s --backend=nvrtc --entry=softcap_step -o - | FileCheck %s --check-prefix=STEP
// RUN: tg-compile %s --backend=nvrtc --entry=gqa_causal --arch=sm_80 -o - | FileCheck %s --check-prefix=PLAN80
// RUN: tg-compile %s --backend=nvrtc --explain-backend --emit=mlir --mlir-print-op-on-diagnostic=false 2>&1 | FileCheck %s --check-prefix=EXPLAIN
// RUN: tg-compile %s --backend=nvrtc --entry=softcap_step --emit=ptx --arch=sm_90a | FileCheck %s --check-prefix=PTX

// PLAN: workspace 416000 align 256
// PLAN: buffer "[[DELTA:t[0-9]+]]" intermediate f32 shape [2,4,200] strides [800,200,1]
// PLAN: buffer "[[ACC:t[0-9]+]]" intermediate f32 shape [2,4,200,64] strides [51200,12800,64,1]
// PLAN: kernel "[[PRE:k[0-9]+]]" entry "tg_attention_bwd_preprocess_bf16_dqk64_dv64" target portable 80
// On sm_90a (the default target) the wgmma kernel comes first, the portable
// mma.sync kernel is its fallback.
// PLAN: kernel "[[WGMMA:k[0-9]+]]" entry "tg_attention_bwd_bf16_dqk64_dv64_{{[0-9a-f]+}}" target sm_90a
// PLAN: static constexpr bool kWgmma = true;
// PLAN: kernel "[[MAIN:k[0-9]+]]" entry "tg_attention_bwd_bf16_dqk64_dv64_{{[0-9a-f]+}}" target portable 80
// PLAN: static constexpr long long kGroup = 2;
// PLAN: static constexpr bool kUpper = true;
// PLAN: static constexpr bool kBottomRight = true;
// Every kernel of an sm_90a plan keeps the dQ accumulator in the wgmma
// kernel's swizzled layout (device/dq_accumulator.cuh).
// PLAN: kernel "[[CONV:k[0-9]+]]" entry "tg_attention_bwd_convert_bf16_dqk64_{{[0-9a-f]+}}_swizzled" target portable 80
// Without an sm_90a variant the accumulator's rows are plain.
// PLAN80-NOT: dqk64_{{[0-9a-f]+}}_swizzled"
// PLAN80: kernel "{{k[0-9]+}}" entry "tg_attention_bwd_convert_bf16_dqk64_{{[0-9a-f]+}}" target portable 80
// PLAN80-NOT: dqk64_{{[0-9a-f]+}}_swizzled"
// Preprocess over query rows (16 per CTA), y = query heads, z = batch.
// PLAN: {{^}}launch{{$}}
// PLAN-NEXT: variant "[[PRE]]" grid [13,4,2] block [128,1,1] smem 0
// PLAN-NEXT: arg buffer "o"
// PLAN-NEXT: arg buffer "do"
// PLAN-NEXT: arg buffer "[[DELTA]]"
// PLAN-NEXT: arg buffer "[[ACC]]"
// The main kernel over kv tiles of 128 keys, y = kv heads.
// PLAN: {{^}}launch{{$}}
// PLAN-NEXT: variant "[[WGMMA]]" grid [3,2,2] block [256,1,1] smem 199680
// PLAN: variant "[[MAIN]]" grid [3,2,2] block [256,1,1] smem 111616
// PLAN-NEXT: arg buffer "q"
// PLAN-NEXT: arg buffer "k"
// PLAN-NEXT: arg buffer "v"
// PLAN-NEXT: arg buffer "do"
// PLAN-NEXT: arg buffer "stats"
// PLAN-NEXT: arg buffer "[[DELTA]]"
// PLAN-NEXT: arg buffer "[[ACC]]"
// No dQ semaphores outside deterministic mode:
// PLAN-NEXT: arg i64 0
// PLAN-NEXT: arg buffer "dk"
// PLAN-NEXT: arg buffer "dv"
// PLAN: {{^}}launch{{$}}
// PLAN-NEXT: variant "[[CONV]]" grid [13,4,2] block [128,1,1] smem 0
// PLAN-NEXT: arg buffer "[[ACC]]"
// PLAN-NEXT: arg buffer "dq"
// PLAN-NOT: {{^}}launch{{$}}
func.func @gqa_causal(%q: tensor<2x4x200x64xbf16> {tg.name = "q"}, %k: tensor<2x2x300x64xbf16> {tg.name = "k"},
    %v: tensor<2x2x300x64xbf16> {tg.name = "v"}, %o: tensor<2x4x200x64xbf16> {tg.name = "o"},
    %do: tensor<2x4x200x64xbf16> {tg.name = "do"}, %lse: tensor<2x4x200x1xf32> {tg.name = "stats"})
    -> (tensor<2x4x200x64xbf16> {tg.name = "dq"}, tensor<2x2x300x64xbf16> {tg.name = "dk"}, tensor<2x2x300x64xbf16> {tg.name = "dv"}) {
  %dq, %dk, %dv = tg.sdpa_grad %q, %k, %v, %o, %do, %lse {causal = #tg<causal bottom_right>}
      : tensor<2x4x200x64xbf16>, tensor<2x2x300x64xbf16>, tensor<2x2x300x64xbf16>, tensor<2x4x200x64xbf16>, tensor<2x4x200x64xbf16>, tensor<2x4x200x1xf32>
  return %dq, %dk, %dv : tensor<2x4x200x64xbf16>, tensor<2x2x300x64xbf16>, tensor<2x2x300x64xbf16>
}

// A training step with a soft-cap: the forward kernel writes the stats the
// backward reads; the main kernel gets the score modifier and its gradient
// (the score_grad region); for sm_90a the wgmma kernel, then for sm_90 a
// variant with two Q/dO buffers, then the portable one.
// STEP: buffer "[[STATS:t[0-9]+]]" intermediate f32 shape [1,2,100,1]
// STEP: kernel "[[MAIN90A:k[0-9]+]]" entry "tg_attention_bwd_bf16_dqk128_dv128_{{[0-9a-f]+}}" target sm_90a
// STEP: static constexpr bool kWgmma = true;
// STEP: tanhf
// STEP: kernel "[[MAIN90:k[0-9]+]]" entry "tg_attention_bwd_bf16_dqk128_dv128_{{[0-9a-f]+}}" target portable 90
// STEP: static constexpr int kQStages = 2;
// STEP: static constexpr bool kScoreMod = true;
// STEP: static constexpr bool kScoreGrad = true;
// STEP: tanhf
// STEP: kernel "[[MAIN80:k[0-9]+]]" entry "tg_attention_bwd_bf16_dqk128_dv128_{{[0-9a-f]+}}" target portable 80
// STEP: static constexpr int kQStages = 1;
// The forward writes the stats:
// STEP: {{^}}launch{{$}}
// STEP: arg buffer "[[STATS]]"
// STEP: {{^}}launch{{$}}
// STEP-NEXT: variant "{{k[0-9]+}}" grid [7,2,1] block [128,1,1] smem 0
// STEP: {{^}}launch{{$}}
// STEP-NEXT: variant "[[MAIN90A]]" grid [1,2,1] block [256,1,1] smem 215040
// STEP-NEXT: arg buffer "q"
// STEP: variant "[[MAIN90]]" grid [1,2,1] block [256,1,1] smem 177152
// STEP-NEXT: arg buffer "q"
// STEP: variant "[[MAIN80]]" grid [1,2,1] block [256,1,1] smem 141824
// STEP-NEXT: arg buffer "q"
// STEP-NEXT: arg buffer "k"
// STEP-NEXT: arg buffer "v"
// STEP-NEXT: arg buffer "do"
// STEP-NEXT: arg buffer "[[STATS]]"
// PTX: .visible .entry tg_attention_bwd_preprocess_bf16_dqk128_dv128(
// PTX: .visible .entry tg_attention_bwd_bf16_dqk128_dv128_
// PTX: wgmma.mma_async.sync.aligned.m64n64k16.f32.bf16.bf16
// PTX: cp.reduce.async.bulk.global.shared::cta.bulk_group.add.f32
// PTX: .visible .entry tg_attention_bwd_bf16_dqk128_dv128_
// PTX: mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32
// PTX: .visible .entry tg_attention_bwd_convert_bf16_dqk128_
func.func @softcap_step(%q: tensor<1x2x100x128xbf16> {tg.name = "q"}, %k: tensor<1x2x100x128xbf16> {tg.name = "k"},
    %v: tensor<1x2x100x128xbf16> {tg.name = "v"}, %do: tensor<1x2x100x128xbf16> {tg.name = "do"})
    -> (tensor<1x2x100x128xbf16> {tg.name = "o"}, tensor<1x2x100x128xbf16> {tg.name = "dq"}, tensor<1x2x100x128xbf16> {tg.name = "dk"}, tensor<1x2x100x128xbf16> {tg.name = "dv"}) {
  %o, %lse = tg.sdpa %q, %k, %v {softcap = 30.0 : f64, causal = #tg<causal top_left>, training}
      : tensor<1x2x100x128xbf16>, tensor<1x2x100x128xbf16>, tensor<1x2x100x128xbf16> -> tensor<1x2x100x128xbf16>, tensor<1x2x100x1xf32>
  %dq, %dk, %dv = tg.sdpa_grad %q, %k, %v, %o, %do, %lse {softcap = 30.0 : f64, causal = #tg<causal top_left>}
      : tensor<1x2x100x128xbf16>, tensor<1x2x100x128xbf16>, tensor<1x2x100x128xbf16>, tensor<1x2x100x128xbf16>, tensor<1x2x100x128xbf16>, tensor<1x2x100x1xf32>
  return %o, %dq, %dk, %dv : tensor<1x2x100x128xbf16>, tensor<1x2x100x128xbf16>, tensor<1x2x100x128xbf16>, tensor<1x2x100x128xbf16>
}

// EXPLAIN: remark: backend nvrtc: requested (nvrtc); fused kernel
// EXPLAIN: remark: backend nvrtc: requested (nvrtc); fused kernel
// EXPLAIN: remark: backend nvrtc: requested (nvrtc); fused kernel
// EXPLAIN: remark: backend nvrtc: requested (nvrtc); expanded into generic kernels (the fused backward takes bf16 or f16 tensors, got f32)
// EXPLAIN-LABEL: func.func @f32_backward
// EXPLAIN-NOT: tg.attention_grad
// EXPLAIN: tg.matmul
func.func @f32_backward(%q: tensor<1x2x16x8xf32> {tg.name = "q"}, %k: tensor<1x2x16x8xf32> {tg.name = "k"}, %v: tensor<1x2x16x8xf32> {tg.name = "v"}, %o: tensor<1x2x16x8xf32> {tg.name = "o"}, %do: tensor<1x2x16x8xf32> {tg.name = "do"}, %lse: tensor<1x2x16x1xf32> {tg.name = "stats"}) -> (tensor<1x2x16x8xf32> {tg.name = "dq"}, tensor<1x2x16x8xf32> {tg.name = "dk"}, tensor<1x2x16x8xf32> {tg.name = "dv"}) {
  %dq, %dk, %dv = tg.sdpa_grad %q, %k, %v, %o, %do, %lse : tensor<1x2x16x8xf32>, tensor<1x2x16x8xf32>, tensor<1x2x16x8xf32>, tensor<1x2x16x8xf32>, tensor<1x2x16x8xf32>, tensor<1x2x16x1xf32>
  return %dq, %dk, %dv : tensor<1x2x16x8xf32>, tensor<1x2x16x8xf32>, tensor<1x2x16x8xf32>
}

// An empty score_grad is derived from the score region: the soft-cap's
// derivative becomes the kernel's gradient function; an additive bias (and
// the mask) passes dz through, so its kernel has none.
// RUN: tg-compile %s --backend=nvrtc --entry=derived_softcap --emit=cuda | FileCheck %s --check-prefix=DERIVED
// RUN: tg-compile %s --backend=nvrtc --entry=derived_bias --emit=cuda | FileCheck %s --check-prefix=BIAS
// DERIVED: static constexpr bool kScoreGrad = true;
// DERIVED: float gradient(
// DERIVED: tanhf(
// DERIVED: // tg.sub
// DERIVED: ds = ds_{{[0-9]+}};
// BIAS: static constexpr bool kScoreMod = true;
// BIAS: static constexpr bool kScoreGrad = false;
func.func @derived_softcap(%q: tensor<1x2x64x64xbf16> {tg.name = "q"}, %k: tensor<1x2x64x64xbf16> {tg.name = "k"},
    %v: tensor<1x2x64x64xbf16> {tg.name = "v"}, %o: tensor<1x2x64x64xbf16> {tg.name = "o"},
    %do: tensor<1x2x64x64xbf16> {tg.name = "do"}, %lse: tensor<1x2x64x1xf32> {tg.name = "stats"})
    -> (tensor<1x2x64x64xbf16> {tg.name = "dq"}, tensor<1x2x64x64xbf16> {tg.name = "dk"}, tensor<1x2x64x64xbf16> {tg.name = "dv"}) {
  %dq, %dk, %dv = tg.attention_grad %q, %k, %v, %o, %do, %lse {scale = 0.125 : f64}
      : tensor<1x2x64x64xbf16>, tensor<1x2x64x64xbf16>, tensor<1x2x64x64xbf16>, tensor<1x2x64x64xbf16>, tensor<1x2x64x64xbf16>, tensor<1x2x64x1xf32>
      score {
  ^bb0(%s: tensor<f32>, %b: tensor<i64>, %h: tensor<i64>, %qi: tensor<i64>, %ki: tensor<i64>):
    %c = tg.constant dense<30.0> : tensor<f32>
    %d = tg.div %s, %c : tensor<f32>, tensor<f32>
    %t = tg.tanh %d : tensor<f32>
    %r = tg.mul %t, %c : tensor<f32>, tensor<f32>
    tg.yield %r : tensor<f32>
  } score_grad {
  }
  return %dq, %dk, %dv : tensor<1x2x64x64xbf16>, tensor<1x2x64x64xbf16>, tensor<1x2x64x64xbf16>
}
func.func @derived_bias(%q: tensor<1x2x64x64xbf16> {tg.name = "q"}, %k: tensor<1x2x64x64xbf16> {tg.name = "k"},
    %v: tensor<1x2x64x64xbf16> {tg.name = "v"}, %o: tensor<1x2x64x64xbf16> {tg.name = "o"},
    %do: tensor<1x2x64x64xbf16> {tg.name = "do"}, %lse: tensor<1x2x64x1xf32> {tg.name = "stats"},
    %bias: tensor<1x2x64x64xf32> {tg.name = "bias"})
    -> (tensor<1x2x64x64xbf16> {tg.name = "dq"}, tensor<1x2x64x64xbf16> {tg.name = "dk"}, tensor<1x2x64x64xbf16> {tg.name = "dv"}) {
  %dq, %dk, %dv = tg.attention_grad %q, %k, %v, %o, %do, %lse captures(%bias : tensor<1x2x64x64xf32>) {scale = 0.125 : f64}
      : tensor<1x2x64x64xbf16>, tensor<1x2x64x64xbf16>, tensor<1x2x64x64xbf16>, tensor<1x2x64x64xbf16>, tensor<1x2x64x64xbf16>, tensor<1x2x64x1xf32>
      score {
  ^bb0(%s: tensor<f32>, %b: tensor<i64>, %h: tensor<i64>, %qi: tensor<i64>, %ki: tensor<i64>, %e: tensor<f32>):
    %r = tg.add %s, %e : tensor<f32>, tensor<f32>
    %keep = tg.cmp le, %ki, %qi : tensor<i64>, tensor<i64>
    %ninf = tg.constant dense<0xFF800000> : tensor<f32>
    %m = tg.select %keep, %r, %ninf : tensor<i1>, tensor<f32>, tensor<f32>
    tg.yield %m : tensor<f32>
  } score_grad {
  }
  return %dq, %dk, %dv : tensor<1x2x64x64xbf16>, tensor<1x2x64x64xbf16>, tensor<1x2x64x64xbf16>
}

// A learnable bias: its gradient is zeroed, accumulated by the main kernel
// (f32 atomics into a workspace buffer for a bf16 bias), then rounded.
// RUN: tg-compile %s --entry=dbias_step -o - | FileCheck %s --check-prefix=DBIAS
// DBIAS: buffer "[[ACC:t[0-9]+]]" intermediate f32 shape [1,2,100,100]
// DBIAS: kernel "[[CONV:k[0-9]+]]" entry "tg_attention_bwd_capture_grad_bf16" target portable 80
// DBIAS: memset "[[ACC]]" 0
// DBIAS-NEXT: {{^}}launch{{$}}
// DBIAS: arg buffer "[[ACC]]"
// DBIAS-NEXT: arg i64 0
// DBIAS-NEXT: arg i64 10000
// DBIAS-NEXT: arg i64 100
// DBIAS-NEXT: arg i64 1
// DBIAS: {{^}}launch{{$}}
// DBIAS-NEXT: variant "[[CONV]]" grid [20,1,1] block [256,1,1] smem 0
// DBIAS-NEXT: arg buffer "[[ACC]]"
// DBIAS-NEXT: arg buffer "dbias"
func.func @dbias_step(%q: tensor<2x2x100x64xbf16> {tg.name = "q"}, %k: tensor<2x2x100x64xbf16> {tg.name = "k"},
    %v: tensor<2x2x100x64xbf16> {tg.name = "v"}, %do: tensor<2x2x100x64xbf16> {tg.name = "do"},
    %bias: tensor<1x2x100x100xbf16> {tg.name = "bias"})
    -> (tensor<2x2x100x64xbf16> {tg.name = "o"}, tensor<2x2x100x64xbf16> {tg.name = "dq"}, tensor<2x2x100x64xbf16> {tg.name = "dk"}, tensor<2x2x100x64xbf16> {tg.name = "dv"}, tensor<1x2x100x100xbf16> {tg.name = "dbias"}) {
  %o, %lse = tg.sdpa %q, %k, %v bias(%bias : tensor<1x2x100x100xbf16>) {causal = #tg<causal top_left>, training}
      : tensor<2x2x100x64xbf16>, tensor<2x2x100x64xbf16>, tensor<2x2x100x64xbf16> -> tensor<2x2x100x64xbf16>, tensor<2x2x100x1xf32>
  %dq, %dk, %dv, %db = tg.sdpa_grad %q, %k, %v, %o, %do, %lse bias(%bias : tensor<1x2x100x100xbf16>) {causal = #tg<causal top_left>}
      : tensor<2x2x100x64xbf16>, tensor<2x2x100x64xbf16>, tensor<2x2x100x64xbf16>, tensor<2x2x100x64xbf16>, tensor<2x2x100x64xbf16>, tensor<2x2x100x1xf32> -> dbias tensor<1x2x100x100xbf16>
  return %o, %dq, %dk, %dv, %db : tensor<2x2x100x64xbf16>, tensor<2x2x100x64xbf16>, tensor<2x2x100x64xbf16>, tensor<2x2x100x64xbf16>, tensor<1x2x100x100xbf16>
}

// --deterministic: tg.attention_grad stays off cuDNN and its main kernel
// adds dQ in kv-tile order through a zeroed semaphore per query tile (16-row
// granularity, for any variant's tile); a capture gradient summed over
// broadcast dimensions would race and is refused.
// RUN: tg-compile %s --deterministic --entry=gqa_causal -o - | FileCheck %s --check-prefix=DET
// RUN: not tg-compile %s --deterministic --entry=dbias_step -o /dev/null 2>&1 | FileCheck %s --check-prefix=DET-ERR
// DET: buffer "[[SEM:t[0-9]+]]" intermediate i32 shape [2,4,13]
// DET: static constexpr bool kDeterministic = true;
// DET: memset "[[SEM]]" 0
// DET-NEXT: {{^}}launch{{$}}
// DET-NEXT: variant "{{k[0-9]+}}" grid [3,2,2] block [256,1,1]
// DET: arg buffer "[[SEM]]"
// DET-ERR: error: 'tg.attention_grad' op the deterministic backward cannot sum the gradient of capture 0 ('tensor<1x2x100x100xbf16>') over its broadcast dimensions
