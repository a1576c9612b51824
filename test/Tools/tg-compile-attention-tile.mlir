// tg-compile --attention-tile replaces the tile table's tile of the fused
// attention forward kernels (for tile sweeps): a wgmma tile the sm_90a
// variant's, any other the portable ones'; a malformed tile, a tile the
// kernel cannot take, and a tile no kernel of the plan would use are errors.
// RUN: tg-compile %s --backend=nvrtc --arch=sm_90a --emit=cuda --attention-tile=128x128:8:smem:s2:wg:ws:pp | FileCheck %s --check-prefix=WG
// RUN: tg-compile %s --backend=nvrtc --arch=sm_80 --emit=cuda --attention-tile=64x64:4:smem:s1 | FileCheck %s --check-prefix=PORTABLE
// RUN: not tg-compile %s --backend=nvrtc --arch=sm_90a --emit=plan --attention-tile=128x:4 2>&1 | FileCheck %s --check-prefix=MALFORMED
// RUN: not tg-compile %s --backend=nvrtc --arch=sm_90a --emit=plan --attention-tile=128x128:8:smem:s2:wg:ws:zz 2>&1 | FileCheck %s --check-prefix=UNKNOWN
// RUN: not tg-compile %s --backend=nvrtc --arch=sm_80 --emit=plan --attention-tile=128x128:8:smem:s2:wg:ws 2>&1 | FileCheck %s --check-prefix=UNUSED
// RUN: not tg-compile %s --backend=nvrtc --arch=sm_90a --emit=plan --attention-tile=128x128:8:smem:s4:wg:ws 2>&1 | FileCheck %s --check-prefix=TOO-BIG
// RUN: not tg-compile %tgc_src/examples/fp8_attention.mlir --entry=fp8_attention_output --backend=nvrtc --emit=plan --attention-tile=64x64:4:smem:s2 2>&1 | FileCheck %s --check-prefix=FP8-PORTABLE
// RUN: not tg-compile %tgc_src/examples/fp8_attention.mlir --entry=fp8_attention_output --backend=nvrtc --emit=plan --attention-tile=128x64:8:smem:s2:wg:ws 2>&1 | FileCheck %s --check-prefix=FP8-KEYS

// WG: kernel k0: tg_attention_fwd_bf16_d128_{{[0-9a-f]+}} (sm_90a)
// WG: static constexpr int kBlockN = 128;  // keys per K/V tile
// WG: static constexpr int kStages = 2;
// WG: static constexpr bool kPingPong = true;
// The portable variant keeps the table's tile.
// WG: kernel k1: tg_attention_fwd_bf16_d128_{{[0-9a-f]+}} (portable 80)
// WG-NOT: kPingPong = true

// PORTABLE: kernel k0: tg_attention_fwd_bf16_d128_{{[0-9a-f]+}} (portable 80)
// PORTABLE: static constexpr int kBlockM = 64;
// PORTABLE: static constexpr int kBlockN = 64;
// PORTABLE: static constexpr int kStages = 1;

// MALFORMED: error: 'tg.attention' op --attention-tile: attention tile '128x:4': no MxN (expected MxN:W[:smem|regs][:sK][:pK][:wg][:ws][:pp][:B])
// UNKNOWN: error: 'tg.attention' op --attention-tile: attention tile '128x128:8:smem:s2:wg:ws:zz': unknown part 'zz'
// UNUSED: error: 'tg.attention' op --attention-tile 128x128:8:smem:s2:wg:ws is a wgmma tile, but this plan has no sm_90a kernel (target sm_80)
// TOO-BIG: error: 'tg.attention' op the NVRTC attention kernel does not support this configuration: {{.*}}shared memory
// FP8-PORTABLE: error: 'tg.attention' op --attention-tile 64x64:4:smem:s2 is a portable tile, but this plan's kernel is sm_90a code only (target sm_90a, FP8)
// FP8-KEYS: error: 'tg.attention' op the NVRTC attention kernel does not support this configuration: the fp8 tile is warp-specialised with key tiles of a multiple of 128, got 64 keys

func.func @attention(%q: tensor<1x4x256x128xbf16> {tg.name = "q"}, %k: tensor<1x4x256x128xbf16> {tg.name = "k"},
                     %v: tensor<1x4x256x128xbf16> {tg.name = "v"}) -> (tensor<1x4x256x128xbf16> {tg.name = "o"}) {
  %o = tg.sdpa %q, %k, %v {causal = #tg<causal top_left>}
      : tensor<1x4x256x128xbf16>, tensor<1x4x256x128xbf16>, tensor<1x4x256x128xbf16> -> tensor<1x4x256x128xbf16>
  return %o : tensor<1x4x256x128xbf16>
}
