// examples/fp8_attention.mlir: the FP8 sdpa becomes one tg.attention, runs
// on the CPU reference, and on cuDNN is one FP8 graph without an NVRTC
// fallback; with --backend=nvrtc it is the fused sm_90a FP8 kernel after a
// V-transpose kernel, and for a target without FP8 wgmma it expands into
// generic kernels, saying why.
// RUN: tg-opt %tgc_src/examples/fp8_attention.mlir --tg-decompose-sdpa | FileCheck %s --check-prefix=FUSED
// RUN: tg-run --ref --entry=fp8_attention %tgc_src/examples/fp8_attention.mlir | FileCheck %s --check-prefix=REF
// RUN: tg-compile %tgc_src/examples/fp8_attention.mlir --entry=fp8_attention --backend=cudnn --emit=cudnn | FileCheck %s --check-prefix=CUDNN
// RUN: tg-compile %tgc_src/examples/fp8_attention.mlir --entry=fp8_attention_output --backend=nvrtc --emit=cuda | FileCheck %s --check-prefix=NVRTC
// RUN: tg-compile %tgc_src/examples/fp8_attention.mlir --entry=fp8_attention_output --explain-backend --emit=plan -o /dev/null 2>&1 | FileCheck %s --check-prefix=AUTO
// RUN: tg-compile %tgc_src/examples/fp8_attention.mlir --entry=fp8_attention_output --backend=nvrtc --arch=sm_80 --explain-backend --emit=cuda 2>&1 | FileCheck %s --check-prefix=SM80

// FUSED-LABEL: func.func @fp8_attention
// FUSED: tg.attention {{.*}} fp8_scales({{.*}}) {causal = #tg<causal top_left>, scale = 0.088388347648318433 : f64} : {{.*}} -> tensor<1x4x256x128xf8E4M3FN> amax(tensor<f32>, tensor<f32>) score
// FUSED-NOT: tg.matmul
// FUSED-LABEL: func.func @fp8_attention_output

// REF: output o: shape [1, 4, 256, 128] dtype f8E4M3FN
// REF: output amax_s: shape [] dtype f32
// REF: output amax_o: shape [] dtype f32

// CUDNN: // ===== step 0 (cudnn), no fallback
// CUDNN-NEXT: graph "attention fwd fp8 (composite)" min_version 91002
// CUDNN: op reduction amax compute f32
// CUDNN: op reduction amax compute f32
// CUDNN: end
// CUDNN-NOT: step 1

// NVRTC: kernel k0: tg_attention_fp8_prepare_v_dv128 (portable 80)
// NVRTC: tg::device::prepare_v_fp8<128, 256, 64>
// NVRTC: kernel k1: tg_attention_fwd_e4m3_d128_{{[0-9a-f]+}} (sm_90a)
// NVRTC: static constexpr tg::device::Elem kElem = tg::device::Elem::E4M3;
// NVRTC-NOT: tg_matmul

// The backend choice by the FP8 measurements (cuDNN at hd 128).
// AUTO: remark: backend cudnn: measured on H200 (FP8 attention forward): cuDNN {{[0-9.]+}} TFLOP/s, the fused FP8 kernel {{[0-9.]+}} (nearest measured: hd 128, causal, S 4096; bench/results/2026-12-03_fp8/bench_fp8)

// SM80: remark: backend nvrtc: requested (nvrtc); expanded into generic kernels (FP8 attention has a fused kernel for target sm_90a only (target sm_80))
// SM80: kernel k0: tg_matmul_0
// SM80: kernel {{.*}}: tg_matmul_
// SM80: __nv_fp8_e4m3
