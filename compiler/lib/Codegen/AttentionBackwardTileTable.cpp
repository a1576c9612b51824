// The attention backward's tiles: the shared-memory layout (the C++ mirror
// of BackwardLayout in device/attention_bwd.cuh, which static_asserts that
// both agree), the rules a tile must satisfy, and the table of candidates
// per head-dim class, shrunk to the target's shared memory.

#include "AttentionLayout.h"
#include "tg/Codegen/AttentionBackward.h"

#include <algorithm>
#include <sstream>

namespace tg::codegen {

namespace {

/// Largest dynamic shared memory one CTA may opt into (as the forward's table).
unsigned maxSharedBytes(int sm) {
  if ((sm >= 100 && sm < 120) || sm == 90)
    return 232448; // 227 KB
  if (sm == 80 || sm == 87)
    return 166912; // 163 KB
  return 101376;   // 99 KB (sm_86, sm_89, sm_120, ...)
}

int paddedDim(int d) { return roundUp(d, 16); }

/// Why `t` does not tile the three products exactly (empty if it does); the
/// same conditions as BackwardLayout's static_asserts.
std::string tilingProblem(const AttentionBackwardSpec &spec, const AttentionBackwardTile &t) {
  std::ostringstream err;
  int dimQK = paddedDim(spec.headDimQK), dimV = paddedDim(spec.headDimV);
  auto divides = [](int part, int whole) { return part > 0 && whole % part == 0; };
  if (t.blockN < 32 || t.blockN % 32 != 0 || t.blockN > 256)
    err << "blockN " << t.blockN << " must be a multiple of 32 in [32, 256]";
  else if (t.blockM < 16 || t.blockM % 16 != 0 || t.blockM > 256)
    err << "blockM " << t.blockM << " must be a multiple of 16 in [16, 256]";
  else if (t.warps < 1 || t.warps > 16 || t.warps * 32 < t.blockM)
    err << t.warps << " warps: expected 1 to 16 and at least blockM / 32";
  else if (t.qStages != 1 && t.qStages != 2)
    err << t.qStages << " Q/dO stages: expected 1 or 2";
  else if (t.minBlocksPerSM < 1)
    err << "minBlocksPerSM must be positive";
  else if (!divides(t.warpsKeysS, t.warps) || t.blockN % (16 * t.warpsKeysS) != 0 ||
           t.blockM % (8 * (t.warps / t.warpsKeysS)) != 0)
    err << "S^T split " << t.warpsKeysS << " x " << (divides(t.warpsKeysS, t.warps) ? t.warps / t.warpsKeysS : 0)
        << " warps does not tile " << t.blockN << " keys (16 per warp) x " << t.blockM
        << " queries (8 per warp)";
  else if (!divides(t.warpsKeysKV, t.warps) || t.blockN % (16 * t.warpsKeysKV) != 0 ||
           dimQK % (8 * (t.warps / t.warpsKeysKV)) != 0 || dimV % (8 * (t.warps / t.warpsKeysKV)) != 0)
    err << "dK/dV split " << t.warpsKeysKV << " x "
        << (divides(t.warpsKeysKV, t.warps) ? t.warps / t.warpsKeysKV : 0) << " warps does not tile "
        << t.blockN << " keys x head dims " << dimQK << "/" << dimV << " (padded)";
  else if (!divides(t.warpsRowsQ, t.warps) || t.blockM % (16 * t.warpsRowsQ) != 0 ||
           dimQK % (8 * (t.warps / t.warpsRowsQ)) != 0)
    err << "dQ split " << t.warpsRowsQ << " x " << (divides(t.warpsRowsQ, t.warps) ? t.warps / t.warpsRowsQ : 0)
        << " warps does not tile " << t.blockM << " rows x head dim " << dimQK << " (padded)";
  return err.str();
}

/// The first warp split (preference order) that tiles the products.
bool chooseSplits(const AttentionBackwardSpec &spec, AttentionBackwardTile &t) {
  for (int keysS : {4, 2, 8, 1, 16})
    for (int keysKV : {4, 2, 8, 1, 16})
      for (int rowsQ : {2, 4, 1, 8, 16}) {
        AttentionBackwardTile c = t;
        c.warpsKeysS = keysS;
        c.warpsKeysKV = keysKV;
        c.warpsRowsQ = rowsQ;
        if (tilingProblem(spec, c).empty()) {
          t = c;
          return true;
        }
      }
  return false;
}

} // namespace

std::string attentionBackwardWgmmaProblem(const AttentionBackwardSpec &spec) {
  if (spec.target.arch != 90 || !spec.target.archSpecific)
    return "the wgmma backward needs target sm_90a (the arch-specific sm_90 target)";
  for (int d : {spec.headDimQK, spec.headDimV})
    if (d != 64 && d != 128)
      return "the wgmma backward takes head dims 64 and 128 (here " + std::to_string(d) + ")";
  return "";
}

namespace {
/// The wgmma kernel's query tile: 128 rows where dK, dV and the 128-row
/// S^T and dP^T fit in registers (head dims 64), else 64.
int wgmmaBlockM(const AttentionBackwardSpec &spec) {
  return spec.headDimQK == 64 && spec.headDimV == 64 ? 128 : 64;
}
} // namespace

bool backwardTabulatesDistances(const AttentionBackwardSpec &spec, const AttentionBackwardTile &tile) {
  return tile.wgmma && !spec.scoreModifier.empty() && !spec.distanceTerm.empty();
}

unsigned attentionBackwardSharedBytes(const AttentionBackwardSpec &spec,
                                      const AttentionBackwardTile &t) {
  if (t.wgmma) {
    // BackwardWgmmaLayout: K, V, two Q and dO stages, dS^T, two lse and
    // delta stages, keep bits, and 1024 bytes to align the base.
    unsigned n = unsigned(t.blockN), m = unsigned(t.blockM);
    unsigned qk = unsigned(spec.headDimQK), v = unsigned(spec.headDimV);
    unsigned bytes = n * (qk + v) * 2 + 2 * m * (qk + v) * 2 + n * m * 2 + 2 * 2 * m * 4;
    if (spec.dropoutProbability > 0.0)
      bytes += m * (n / 32) * 4;
    // dQ's two stages for the bulk reductions: 64 x 128 (head dim 128) or
    // 2 x 64 x 64 f32 each.
    bytes += 2 * 64 * 128 * 4;
    if (backwardTabulatesDistances(spec, t))
      bytes += 2 * (m + 64) * 4;  // the warpgroups' distance tables
    return bytes + 1024;
  }
  unsigned qkPitch = unsigned(conflictFreePitch(paddedDim(spec.headDimQK)));
  unsigned vPitch = unsigned(conflictFreePitch(paddedDim(spec.headDimV)));
  unsigned sPitch = unsigned(conflictFreePitch(t.blockM));
  unsigned n = unsigned(t.blockN), m = unsigned(t.blockM), stages = unsigned(t.qStages);
  unsigned bytes = n * qkPitch * 2 + n * vPitch * 2;        // K, V
  bytes += stages * m * qkPitch * 2 + stages * m * vPitch * 2; // Q, dO
  bytes += 2 * n * sPitch * 2;                              // P^T, dS^T
  bytes += 2 * stages * m * 4;                              // lse, delta
  if (spec.dropoutProbability > 0.0)
    bytes += m * (n / 32) * 4; // keep bits
  return bytes;
}

std::string validateAttentionBackwardTile(const AttentionBackwardSpec &spec,
                                          const AttentionBackwardTile &tile) {
  if (tile.wgmma) {
    if (std::string problem = attentionBackwardWgmmaProblem(spec); !problem.empty())
      return problem;
    if ((tile.blockM != 64 && tile.blockM != 128) || tile.blockN != 128 || tile.warps != 8 ||
        tile.qStages != 2)
      return "the wgmma backward tile is 64x128 or 128x128 with 8 warps and 2 Q/dO stages";
    if (tile.blockM == 128 && spec.headDimQK + spec.headDimV != 128)
      return "the wgmma backward's 128-row query tiles need head dims 64";
    if (spec.deterministic && tile.blockM == 64 && spec.headDimQK == 64)
      return "the deterministic wgmma backward at head dim 64 needs 128-row query tiles (with "
             "64 both warpgroups add to each dQ element)";
    return "";
  }
  std::string problem = tilingProblem(spec, tile);
  if (!problem.empty())
    return "backward tile " + std::to_string(tile.blockM) + "x" + std::to_string(tile.blockN) +
           ": " + problem;
  unsigned bytes = attentionBackwardSharedBytes(spec, tile);
  if (bytes > maxSharedBytes(spec.target.arch))
    return "backward tile " + std::to_string(tile.blockM) + "x" + std::to_string(tile.blockN) +
           " needs " + std::to_string(bytes) + " bytes of shared memory; sm_" +
           std::to_string(spec.target.arch) + " allows " + std::to_string(maxSharedBytes(spec.target.arch));
  return "";
}

AttentionBackwardTile defaultAttentionBackwardTile(const AttentionBackwardSpec &spec) {
  if (attentionBackwardWgmmaProblem(spec).empty()) {
    AttentionBackwardTile t;
    t.blockM = wgmmaBlockM(spec);
    t.blockN = 128;
    t.warps = 8;
    t.qStages = 2;
    t.wgmma = true;
    return t;
  }
  int dim = std::max(paddedDim(spec.headDimQK), paddedDim(spec.headDimV));
  struct Shape {
    int blockM, blockN, warps, qStages;
  };
  // Preference order per head-dim class (8 warps of 32 keys x 32 queries for
  // S^T; dK + dV of 32 keys at head dim 128 are 128 registers, so larger
  // head dims take 64 keys per CTA), then smaller tiles for smaller shared
  // memories.
  std::vector<Shape> candidates;
  if (dim <= 128)
    candidates = {{64, 128, 8, 2}, {64, 128, 8, 1}, {64, 64, 8, 2}, {64, 64, 8, 1},
                  {32, 64, 4, 1},  {32, 32, 4, 1}};
  else
    candidates = {{64, 64, 8, 2}, {64, 64, 8, 1}, {32, 64, 8, 1}, {32, 32, 4, 1}, {16, 32, 4, 1}};
  for (const Shape &s : candidates) {
    AttentionBackwardTile t;
    t.blockM = s.blockM;
    t.blockN = s.blockN;
    t.warps = s.warps;
    t.qStages = s.qStages;
    if (chooseSplits(spec, t) && attentionBackwardSharedBytes(spec, t) <= maxSharedBytes(spec.target.arch))
      return t;
  }
  // Every spec validateAttentionBackwardSpec accepts fits the last candidate
  // (73 KB at head dim 256).
  AttentionBackwardTile t;
  t.blockM = 16;
  t.blockN = 32;
  t.warps = 4;
  chooseSplits(spec, t);
  return t;
}

} // namespace tg::codegen
