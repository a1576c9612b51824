// tg-compile drives the whole pipeline: tg.sdpa is decomposed, fused into
// one tg.attention, placed on the NVRTC backend (test/Cudnn covers cuDNN) and
// lowered to one kernel launch.
// RUN: tg-compile %s --backend=nvrtc --emit=mlir | FileCheck %s --check-prefix=MLIR
// RUN: tg-compile %s --backend=nvrtc --emit=plan | FileCheck %s --check-prefix=PLAN
// RUN: tg-compile %s --backend=nvrtc --emit=cuda | FileCheck %s --check-prefix=CUDA
// RUN: tg-compile %s --backend=nvrtc --emit=ptx --arch=sm_80 | FileCheck %s --check-prefix=PTX
// RUN: not tg-compile %s --backend=nvrtc --arch=gfx90a 2>&1 | FileCheck %s --check-prefix=ARCH

// MLIR-LABEL: func.func @attention
// MLIR: tg.attention %{{.*}}, %{{.*}}, %{{.*}} {causal = #tg<causal top_left>, scale = 1.250000e-01 : f64, tg.backend = #tg<backend nvrtc>}
// MLIR-NOT: tg.sdpa
// MLIR-NOT: tg.matmul

// PLAN: tgc-plan 3
// PLAN: target sm_90a
// PLAN: buffer "q" input bf16 shape [1,4,100,64]
// PLAN: buffer "k" input bf16 shape [1,2,100,64]
// PLAN: buffer "o" output bf16 shape [1,4,100,64] strides [25600,64,256,1]
// PLAN: kernel "k0" entry "tg_attention_fwd_bf16_d64
// PLAN-NOT: kernel "k1"
// PLAN: launch

// CUDA: // ===== kernel k0: tg_attention_fwd_bf16_d64
// CUDA: extern "C" __global__

// PTX: // ===== kernel k0: tg_attention_fwd_bf16_d64{{.*}} (compute_80)
// PTX: .visible .entry tg_attention_fwd_bf16_d64
// PTX: mma.sync.aligned.m16n8k16

// ARCH: tg-compile: --arch: unknown arch 'gfx90a' (expected e.g. sm_80, sm_90a, compute_80)
func.func @attention(%q: tensor<1x4x100x64xbf16> {tg.name = "q"},
                     %k: tensor<1x2x100x64xbf16> {tg.name = "k"},
                     %v: tensor<1x2x100x64xbf16> {tg.name = "v"})
    -> (tensor<1x4x100x64xbf16> {tg.name = "o", tg.strides = array<i64: 25600, 64, 256, 1>}) {
  %o = tg.sdpa %q, %k, %v {causal = #tg<causal top_left>}
      : tensor<1x4x100x64xbf16>, tensor<1x2x100x64xbf16>, tensor<1x2x100x64xbf16> -> tensor<1x4x100x64xbf16>
  return %o : tensor<1x4x100x64xbf16>
}
