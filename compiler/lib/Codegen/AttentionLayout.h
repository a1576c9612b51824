#ifndef TG_CODEGEN_ATTENTIONLAYOUT_H
#define TG_CODEGEN_ATTENTIONLAYOUT_H

// Shared-memory layout of the attention forward kernel, computed once here
// and used by both the tile table (does it fit?) and the emitter.

#include "tg/Codegen/AttentionKernel.h"

namespace tg::codegen {

inline int roundUp(int x, int multiple) {
  return (x + multiple - 1) / multiple * multiple;
}

/// Row pitch in elements for a shared-memory tile whose rows hold `cols`
/// 16-bit elements: an odd number of 16-byte chunks, so that the 8 row
/// addresses of one ldmatrix land in 8 different groups of 4 banks.
inline int conflictFreePitch(int cols) {
  int chunks = cols / 8 + 1;
  if (chunks % 2 == 0)
    ++chunks;
  return chunks * 8;
}

struct AttentionSmemLayout {
  int headDimQKPadded = 0; // QK head dim rounded up to the mma k-step (16)
  int qkPitch = 0;         // Q and K rows
  int vPitch = 0;          // V rows
  int oPitch = 0;          // O staging rows
  int qRegionPitch = 0;    // max(qkPitch, oPitch): Q tile, then O staging
  unsigned qRegionBytes = 0;
  unsigned kStageBytes = 0;
  unsigned vStageBytes = 0;
  unsigned totalBytes = 0;
};

inline AttentionSmemLayout attentionLayout(const AttentionForwardSpec &spec,
                                           const AttentionTileConfig &tile) {
  AttentionSmemLayout l;
  l.headDimQKPadded = roundUp(spec.headDimQK, 16);
  l.qkPitch = conflictFreePitch(l.headDimQKPadded);
  l.vPitch = conflictFreePitch(spec.headDimV);
  l.oPitch = conflictFreePitch(spec.headDimV);
  l.qRegionPitch = l.qkPitch > l.oPitch ? l.qkPitch : l.oPitch;
  l.qRegionBytes = unsigned(tile.blockM) * l.qRegionPitch * 2;
  l.kStageBytes = unsigned(tile.blockN) * l.qkPitch * 2;
  l.vStageBytes = unsigned(tile.blockN) * l.vPitch * 2;
  l.totalBytes = l.qRegionBytes + unsigned(tile.stages) * (l.kStageBytes + l.vStageBytes);
  return l;
}

inline unsigned attentionSharedBytes(const AttentionForwardSpec &spec,
                                     const AttentionTileConfig &tile) {
  return attentionLayout(spec, tile).totalBytes;
}

} // namespace tg::codegen

#endif // TG_CODEGEN_ATTENTIONLAYOUT_H
