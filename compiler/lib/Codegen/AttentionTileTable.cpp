// The tile table of the attention forward kernel: one row per head-dim
// class (and mask kind), measured on the H200, then shrunk to fit the
// target's shared memory. The measurements are in docs/kernels.md.

#include "AttentionLayout.h"
#include "tg/Codegen/AttentionKernel.h"

#include <algorithm>
#include <string>
#include <vector>

namespace tg::codegen {

AttentionTileConfig defaultAttentionTile(const AttentionForwardSpec &spec) {
  int headDim = std::max(roundUp(spec.headDimQK, 16), spec.headDimV);
  bool masked = spec.causal != AttentionCausalMode::None || spec.windowLeft || spec.windowRight;
  AttentionTileConfig tile;
  if (spec.decode) {
    // Decode: the GQA group's packed query rows, 16 per warp, key tiles of
    // 64 split between two warps per row block (32 keys each, merged at the
    // end), two K/V buffers. Pages that are not multiples of 64 take tiles
    // of 32 (a tile of 64 would need four page lookups per copy), each
    // seen whole by its warp, and at least two warps to issue the copies
    // (the second one's rows may be padding). H200, GQA 64/8, hd 128, 8192
    // keys, B 8 / 32, Sq 1, fraction of HBM bandwidth
    // (bench/results/2026-12-02_decode2, decode3): key slices 0.72 / 0.86
    // dense, 0.73 / 0.84 pages of 64; pages of 16 with 32-key tiles
    // 0.72 / 0.84 (0.60 / 0.66 with 64); 3 or 4 buffers, 128-key tiles,
    // four slices or slices of 16 keys no faster.
    // (hd 256 on GPUs with 99 KB per CTA: 32 keys.)
    const int rowWarps = (spec.decodeRows + 15) / 16;
    if (spec.paged && spec.pageSize % 64 != 0) {
      int warps = std::max(2, rowWarps);
      tile = {16 * warps, 32, warps, /*qInRegisters=*/false, /*minBlocksPerSM=*/1, /*stages=*/2,
              /*prefetch=*/1};
    } else {
      tile = {16 * rowWarps, 64, 2 * rowWarps, /*qInRegisters=*/false, /*minBlocksPerSM=*/1,
              /*stages=*/2, /*prefetch=*/1};
      tile.keyWarps = 2;
      if (attentionFootprintBytes(spec, tile) > maxSharedBytesPerBlock(spec.target.arch)) {
        tile.blockN = 32;
        tile.keyWarps = 1;
        tile.warps = rowWarps;
      }
    }
    return tile;
  }
  if (spec.target.archSpecific && spec.target.arch == 90 && spec.headDimQK % 64 == 0 &&
      spec.headDimV % 64 == 0) {
    // sm_90a: wgmma reads K and V from shared memory once per warpgroup
    // (not once per warp as ldmatrix does), 2 warpgroups of 64 rows.
    if (!spec.paged && !spec.ragged) {
      // Warp-specialised: one more warpgroup copies into a ring of K/V
      // buffers (two; three for the 192-row hd 64 tile).
      // H200, 16k tokens, bf16, TFLOP/s at S 2048 / 8192, not causal then
      // causal (bench/results/2026-12-02_ws/tiles): hd 64: 192x128 with
      // three compute warpgroups 425 / 446, 321 / 393; 128x128 with
      // ping-pong 398 / 433, 322 / 408. hd 128: 128x128 without ping-pong
      // 563 / 656, 474 / 594 (with it 541 / 558, 459 / 587; 128x176 545 /
      // 592). hd 256: 128x64 with ping-pong 616 / 634, 491 / 597 (without
      // 630 / 635, 486 / 572). The kernel before it: 385 / 387, 411 / 489
      // (hd 64 / 128 / 256 at 8192, not causal).
      // (three compute warpgroups have 160 registers each: no score
      // modifier or dropout, which spill there. Three K/V buffers: H200 at
      // S 2048 / 8192, 441 / 496 not causal, 343 / 441 causal, against
      // 435 / 449 and 336 / 400 with two, bench/results/2026-12-02_ws/tiles_s3)
      if (isFp8(spec.elementType)) {
        // FP8: key tiles of 128 (V^T's rows are 128 bytes), two compute
        // warpgroups; S (64 registers), O (64 or 128) and P (16) fit 240.
        // H200, e4m3, 16k tokens, TFLOP/s at S 4096 / 8192 / 16384, not
        // causal then causal (bench/results/2026-12-03_fp8/sweep): hd 128
        // with ping-pong and two K/V buffers 703 / 756 / 797, 600 / 696 /
        // 799, without it and three buffers 640 / 718 / 801, 525 / 626 /
        // 732; hd 256 without ping-pong 1010 / 1109 / 1176, 779 / 950 /
        // 1131, with it 990 / 1091 / 1143, 784 / 936 / 1113. (128x256 at
        // hd 128 spills 144 bytes: 0.76-0.88x, measured with a polynomial
        // exp2 that is itself slower.)
        tile = {128, 128, 8, false, /*minBlocksPerSM=*/1, /*stages=*/2, 1, /*wgmma=*/true};
        tile.warpSpecialized = true;
        tile.pingPong = headDim <= 128;
        return tile;
      }
      const bool plain = spec.scoreModifier.empty() && spec.dropoutProbability == 0;
      if (headDim <= 64 && plain)
        tile = {192, 128, 12, false, /*minBlocksPerSM=*/1, /*stages=*/3, 1, /*wgmma=*/true};
      else
        tile = {128, headDim <= 128 ? 128 : 64, 8, false, /*minBlocksPerSM=*/1, /*stages=*/2, 1,
                /*wgmma=*/true};
      tile.warpSpecialized = true;
      tile.pingPong = tile.warps == 8 && headDim != 128;
      // Dropout's Philox words need the registers of half the keys.
      if (spec.dropoutProbability > 0)
        tile.blockN /= 2;
      return tile;
    }
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
  unsigned limit = maxSharedBytesPerBlock(spec.target.arch);
  while (attentionFootprintBytes(spec, tile) > limit && tile.blockN > 16) {
    tile.blockN = tile.blockN > 32 && tile.blockN % 32 != 0 ? 32 : tile.blockN / 2;
    tile.prefetch = std::min(tile.prefetch, tile.blockN / 16);
  }
  while (attentionFootprintBytes(spec, tile) > limit && tile.warps > 1) {
    tile.blockM /= 2;
    tile.warps /= 2;
  }
  return tile;
}

std::optional<AttentionTileConfig> parseAttentionTile(const std::string &text, std::string *error) {
  auto fail = [&](const std::string &why) -> std::optional<AttentionTileConfig> {
    if (error)
      *error = "attention tile '" + text + "': " + why +
               " (expected MxN:W[:smem|regs][:sK][:pK][:wg][:ws][:pp][:B])";
    return std::nullopt;
  };
  auto number = [](const std::string &part, int &out) {
    if (part.empty() || part.size() > 6 || part.find_first_not_of("0123456789") != std::string::npos)
      return false;
    out = std::stoi(part);
    return true;
  };
  std::vector<std::string> parts;
  for (size_t start = 0;;) {
    size_t colon = text.find(':', start);
    parts.push_back(text.substr(start, colon - start));
    if (colon == std::string::npos)
      break;
    start = colon + 1;
  }
  AttentionTileConfig t;
  t.qInRegisters = true;
  t.minBlocksPerSM = 1;
  size_t x = parts[0].find('x');
  if (x == std::string::npos || !number(parts[0].substr(0, x), t.blockM) ||
      !number(parts[0].substr(x + 1), t.blockN))
    return fail("no MxN");
  if (parts.size() < 2 || !number(parts[1], t.warps))
    return fail("no warp count");
  for (size_t i = 2; i < parts.size(); ++i) {
    const std::string &part = parts[i];
    if (part == "smem")
      t.qInRegisters = false;
    else if (part == "regs")
      t.qInRegisters = true;
    else if (part == "wg")
      t.wgmma = true;
    else if (part == "ws")
      t.warpSpecialized = true;
    else if (part == "pp")
      t.pingPong = true;
    else if (part.size() == 2 && part[0] == 's' && part[1] >= '1' && part[1] <= '4')
      t.stages = part[1] - '0';
    else if (part.size() == 2 && part[0] == 'p' && part[1] >= '1' && part[1] <= '4')
      t.prefetch = part[1] - '0';
    else if (!number(part, t.minBlocksPerSM))
      return fail("unknown part '" + part + "'");
  }
  return t;
}

} // namespace tg::codegen
