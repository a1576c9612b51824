// examples/fp8_attention.mlir: the FP8 sdpa becomes one tg.attention, runs
// on the CPU reference, and on cuDNN is one FP8 graph without an NVRTC
// fallback; with --backend=nvrtc it expands into generic kernels.
// RUN: tg-opt %tgc_src/examples/fp8_attention.mlir --tg-decompose-sdpa | FileCheck %s --check-prefix=FUSED
// RUN: tg-run --ref --entry=fp8_attention %tgc_src/examples/fp8_attention.mlir | FileCheck %s --check-prefix=REF
// RUN: tg-compile %tgc_src/examples/fp8_attention.mlir --entry=fp8_attention --backend=cudnn --emit=cudnn | FileCheck %s --check-prefix=CUDNN
// RUN: tg-compile %tgc_src/examples/fp8_attention.mlir --entry=fp8_attention_output --backend=nvrtc --emit=cuda | FileCheck %s --check-prefix=NVRTC

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

// NVRTC: kernel k0: tg_matmul_0
// NVRTC: kernel {{.*}}: tg_matmul_
// NVRTC: __nv_fp8_e4m3
