// The tile table of the attention forward kernel: one row per head-dim
// class (and mask kind), measured on the H200, then shrunk to fit the
// target's shared memory. The measurements are in docs/kernels.md.

#include "AttentionLayout.h"
#include "tg/Codegen/AttentionKernel.h"

#include <algorithm>

namespace tg::codegen {

namespace {

/// Largest dynamic shared memory one CTA may opt into, per compute
/// capability (CUDA programming guide, "Compute Capabilities").
unsigned maxSharedBytesPerBlock(int sm) {
  if (sm >= 100 && sm < 120)
    return 232448; // 227 KB (sm_100)
  if (sm == 90)
    return 232448; // 227 KB
  if (sm == 80 || sm == 87)
    return 166912; // 163 KB
  return 101376;   // 99 KB (sm_86, sm_89, sm_120, ...)
}

} // namespace

AttentionTileConfig defaultAttentionTile(const AttentionForwardSpec &spec) {
  int headDim = std::max(roundUp(spec.headDimQK, 16), spec.headDimV);
  bool masked = spec.causal != AttentionCausalMode::None || spec.windowLeft || spec.windowRight;
  AttentionTileConfig tile;
  if (spec.decode) {
    // Decode: one warp per 16 packed rows (the GQA group's queries), key
    // tiles of 32 streamed by cp.async two ahead; the work is the memory,
    // and small CTAs (38 KB at hd 128) keep six per SM in flight (H200:
    // 32-key tiles read 0.53-0.77 of HBM bandwidth dense, 0.31-0.62 paged,
    // against 0.51-0.77 and 0.22-0.41 with 64; bench/results/2026-12-02_decode).
    int warps = std::max(1, (spec.decodeRows + 15) / 16);
    return {16 * warps, 32, warps, /*qInRegisters=*/false,
            /*minBlocksPerSM=*/1, /*stages=*/2, /*prefetch=*/1};
  }
  if (spec.archSpecific && spec.targetSm == 90 && spec.headDimQK % 64 == 0 &&
      spec.headDimV % 64 == 0) {
    // sm_90a: wgmma reads K and V from shared memory once per warpgroup
    // (not once per warp as ldmatrix does), 2 warpgroups of 64 rows.
    if (headDim <= 64) // 102 registers: 2 CTAs per SM
      tile = {128, 64, 8, false, /*minBlocksPerSM=*/2, /*stages=*/2, 1, /*wgmma=*/true};
    else if (headDim <= 128) // S of 128 keys: 64 registers, 213 in all
      tile = {128, 128, 8, false, /*minBlocksPerSM=*/1, /*stages=*/2, 1, /*wgmma=*/true};
    else
      tile = {128, 64, 8, false, /*minBlocksPerSM=*/1, /*stages=*/2, 1, /*wgmma=*/true};
    return tile; // 198 KB at most: fits sm_90's 227 KB
  }
  if (headDim <= 64) {
    // 32 rows per warp halve the K/V shared-memory reads per flop; Q (32
    // registers) stays in registers; 2 CTAs per SM.
    tile = {128, 64, 4, /*qInRegisters=*/true, /*minBlocksPerSM=*/2, /*stages=*/2, /*prefetch=*/2};
  } else if (headDim <= 128) {
    // 128 O accumulators per thread: 48 keys per tile keep S within the
    // register budget (64 spill), Q is re-read from shared memory. Masked
    // (causal/window) kernels do best with single K/V buffers, the others
    // with double buffering (H200, docs/kernels.md).
    tile = {128, 48, 4, /*qInRegisters=*/false, /*minBlocksPerSM=*/2, /*stages=*/masked ? 1 : 2,
            /*prefetch=*/1};
  } else {
    // Up to 128 O accumulators per row block: 8 warps of 16 rows, one CTA
    // per SM; K fragments 3 mma steps ahead.
    tile = {128, 64, 8, /*qInRegisters=*/false, /*minBlocksPerSM=*/1, /*stages=*/2, /*prefetch=*/3};
  }
  // Shrink to the target's shared memory: fewer keys per tile, then fewer
  // query rows with the same rows per warp.
  unsigned limit = maxSharedBytesPerBlock(spec.targetSm);
  while (attentionSharedBytes(spec, tile) > limit && tile.blockN > 16) {
    tile.blockN = tile.blockN > 32 && tile.blockN % 32 != 0 ? 32 : tile.blockN / 2;
    tile.prefetch = std::min(tile.prefetch, tile.blockN / 16);
  }
  while (attentionSharedBytes(spec, tile) > limit && tile.warps > 1) {
    tile.blockM /= 2;
    tile.warps /= 2;
  }
  return tile;
}

} // namespace tg::codegen
