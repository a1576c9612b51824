// The tile table of the attention forward kernel: one row per head-dim
// class, then shrunk to fit the target's shared memory. Figures behind the
// choices are in docs/kernels.md.

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
  AttentionTileConfig tile;
  if (headDim <= 64) {
    // 32 rows per warp halves K/V shared-memory reads per flop; Q (32
    // registers) stays in registers.
    tile = {128, 64, 4, /*qInRegisters=*/true, /*minBlocksPerSM=*/2};
  } else if (headDim <= 128) {
    // 128 O + 64 S accumulators leave no room for Q fragments: Q is re-read
    // from shared memory for each K/V tile.
    tile = {128, 64, 4, /*qInRegisters=*/false, /*minBlocksPerSM=*/2};
  } else {
    // Up to 128 O accumulators per row block: 8 warps of 16 rows.
    tile = {128, 64, 8, /*qInRegisters=*/false, /*minBlocksPerSM=*/1};
  }
  unsigned limit = maxSharedBytesPerBlock(spec.targetSm);
  while (attentionSharedBytes(spec, tile) > limit && tile.blockN > 16)
    tile.blockN /= 2;
  // Still too large: fewer query rows, same rows per warp.
  while (attentionSharedBytes(spec, tile) > limit && tile.warps > 1) {
    tile.blockM /= 2;
    tile.warps /= 2;
  }
  return tile;
}

} // namespace tg::codegen
