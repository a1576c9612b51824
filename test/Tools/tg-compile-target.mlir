// tg-compile --arch is parsed once into a typed target that means what it
// means to NVRTC. sm_90a (the `a`: arch-specific features) adds the wgmma
// kernel, preferred on compute capability 9.0; plain sm_90 gets kernels
// tuned for sm_90 but only the portable features (mma.sync); every plan
// keeps the portable sm_80 kernel and records its exact target.
// RUN: tg-compile %s --backend=nvrtc --arch=sm_90a -o - | FileCheck %s --check-prefix=SM90A
// RUN: tg-compile %s --backend=nvrtc -o - | FileCheck %s --check-prefix=SM90A
// RUN: tg-compile %s --backend=nvrtc --arch=sm_90 -o - | FileCheck %s --check-prefix=SM90
// RUN: tg-compile %s --backend=nvrtc --arch=sm_90a --emit=cuda | FileCheck %s --check-prefix=CUDA90A
// RUN: tg-compile %s --backend=nvrtc --arch=sm_90 --emit=cuda | FileCheck %s --check-prefix=CUDA90
// RUN: tg-compile %s --backend=nvrtc --arch=compute_80 -o - | FileCheck %s --check-prefix=PTX80
// Targets tgc does not generate for, and malformed ones, are errors.
// RUN: not tg-compile %s --arch=sm_75 2>&1 | FileCheck %s --check-prefix=SM75
// RUN: not tg-compile %s --arch=compute_70 2>&1 | FileCheck %s --check-prefix=C70
// RUN: not tg-compile %s --arch=sm_86a 2>&1 | FileCheck %s --check-prefix=SM86A
// RUN: not tg-compile %s --arch=sm_9x 2>&1 | FileCheck %s --check-prefix=BAD
// RUN: not tg-compile %s --arch=90 2>&1 | FileCheck %s --check-prefix=BARE

// SM90A: tgc-plan 3
// SM90A: target sm_90a
// SM90A: kernel "[[WGMMA:k[0-9]+]]" entry "tg_attention_fwd_bf16_d128{{.*}}" target sm_90a
// SM90A-NEXT: early-launch
// SM90A: kernel "[[PORTABLE:k[0-9]+]]" entry "tg_attention_fwd_bf16_d128{{.*}}" target portable 80
// SM90A-NEXT: early-launch
// SM90A: {{^}}launch{{$}}
// SM90A-NEXT: variant "[[WGMMA]]"
// SM90A: variant "[[PORTABLE]]"

// (Tuned for sm_90 without wgmma, the hd128 kernel is the sm_80 one.)
// SM90: tgc-plan 3
// SM90-NEXT: #
// SM90-NEXT: plan "attention"
// SM90-NEXT: workspace
// SM90-NEXT: target sm_90{{$}}
// SM90: kernel "k0" entry "tg_attention_fwd_bf16_d128{{.*}}" target portable 80
// SM90-NOT: target sm_90a
// SM90-NOT: kernel "k1"
// SM90: {{^}}launch{{$}}
// SM90-NEXT: variant "k0"
// SM90-NOT: variant

// CUDA90A: static constexpr bool kWgmma = true;
// CUDA90-NOT: kWgmma = true
// CUDA90: static constexpr bool kWgmma = false;
// CUDA90-NOT: kWgmma = true

// PTX80: tgc-plan 3
// PTX80: target compute_80
// PTX80: kernel "k0" {{.*}} target portable 80
// PTX80-NOT: kernel "k1"

// SM75: tg-compile: --arch: unsupported arch 'sm_75': tgc generates kernels for sm_80 (compute capability 8.0) or newer
// C70: tg-compile: --arch: unsupported arch 'compute_70': tgc generates kernels for sm_80 (compute capability 8.0) or newer
// SM86A: tg-compile: --arch: unknown arch 'sm_86a': arch-specific targets (the 'a' suffix) start at sm_90a
// BAD: tg-compile: --arch: unknown arch 'sm_9x' (expected e.g. sm_80, sm_90a, compute_80)
// BARE: tg-compile: --arch: unknown arch '90' (expected e.g. sm_80, sm_90a, compute_80)
func.func @attention(%q: tensor<1x2x256x128xbf16> {tg.name = "q"},
                     %k: tensor<1x2x256x128xbf16> {tg.name = "k"},
                     %v: tensor<1x2x256x128xbf16> {tg.name = "v"})
    -> (tensor<1x2x256x128xbf16> {tg.name = "o"}) {
  %o = tg.sdpa %q, %k, %v
      : tensor<1x2x256x128xbf16>, tensor<1x2x256x128xbf16>, tensor<1x2x256x128xbf16> -> tensor<1x2x256x128xbf16>
  return %o : tensor<1x2x256x128xbf16>
}
