// A decode step (one new token per sequence, GQA 8) compiles to the
// split-KV decode kernel, which holds a GQA group's query rows in one tile,
// and the combine kernel after it. The causal mask of a single query row
// is no mask at all: the fused region is the identity (it once kept
// `kv_idx <= Skv - 1` as a region mask).
// RUN: tg-compile %s --backend=nvrtc --emit=mlir | FileCheck %s --check-prefix=IR
// RUN: tg-compile %s --backend=nvrtc --emit=cuda | FileCheck %s
// RUN: tg-compile %s --backend=nvrtc --emit=plan -o - | FileCheck %s --check-prefix=PLAN
// On cuDNN the op is one cuDNN step, without an NVRTC fallback (the decode
// kernel and its combine are two launches; each once became a cuDNN step
// that ran the graph again).
// RUN: tg-compile %s --backend=cudnn --emit=plan -o - | FileCheck %s --check-prefix=CUDNN
// CUDNN-NOT: kernel "
// CUDNN: {{^}}cudnn {{[0-9]+}}
// CUDNN-NOT: {{^}}cudnn {{[0-9]+}}
// CUDNN-NOT: fallback

// IR: tg.attention
// IR-NOT: tg.cmp
// IR: tg.yield %arg3
// CHECK: decode (8 packed rows, split KV)
// CHECK: static constexpr bool kDecode = true;
// CHECK: tg_attention_decode_combine_bf16_dv128
// 3 x 2 kv heads, 2000 keys in 32 tiles of 64: 16 splits, two tiles each
// (decodeSplits); two warps (the group's 8 rows and padding).
// PLAN: variant "k0" grid [16,2,3] block [64,1,1]
// PLAN: variant "k1" grid [6,1,1] block [512,1,1]
func.func @decode(%q: tensor<3x16x1x128xbf16>, %k: tensor<3x2x2000x128xbf16>, %v: tensor<3x2x2000x128xbf16>) -> tensor<3x16x1x128xbf16> {
  %o = tg.sdpa %q, %k, %v {causal = #tg<causal bottom_right>}
      : tensor<3x16x1x128xbf16>, tensor<3x2x2000x128xbf16>, tensor<3x2x2000x128xbf16> -> tensor<3x16x1x128xbf16>
  return %o : tensor<3x16x1x128xbf16>
}
