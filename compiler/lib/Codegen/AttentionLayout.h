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

/// Largest dynamic shared memory one CTA may opt into, per compute
/// capability (CUDA programming guide, "Compute Capabilities").
inline unsigned maxSharedBytesPerBlock(int sm) {
  if (sm >= 100 && sm < 120)
    return 232448; // 227 KB (sm_100)
  if (sm == 90)
    return 232448; // 227 KB
  if (sm == 80 || sm == 87)
    return 166912; // 163 KB
  return 101376;   // 99 KB (sm_86, sm_89, sm_120, ...)
}

/// Shared memory of one SM, which its resident CTAs share (same source).
inline unsigned maxSharedBytesPerSM(int sm) {
  if (sm == 90 || (sm >= 100 && sm < 120))
    return 233472; // 228 KB
  if (sm == 80 || sm == 87)
    return 167936; // 164 KB
  return 102400;   // 100 KB
}

/// Entries of the paged decode kernel's page-index cache (static shared
/// memory, ints; attention_fwd.cuh).
constexpr int kDecodePageCacheEntries = 1024;

struct AttentionSmemLayout {
  int headDimQKPadded = 0; // QK head dim rounded up to the mma k-step (16)
  int qkPitch = 0;         // Q and K rows
  int vPitch = 0;          // V rows
  int oPitch = 0;          // O staging rows
  int qRegionPitch = 0;    // max(qkPitch, oPitch): Q tile, then O staging
  unsigned qRegionBytes = 0;
  unsigned kStageBytes = 0;
  unsigned vStageBytes = 0;
  unsigned alignSlack = 0; // wgmma: room to align the base to 1024 bytes
  unsigned totalBytes = 0;
};

inline AttentionSmemLayout attentionLayout(const AttentionForwardSpec &spec,
                                           const AttentionTileConfig &tile) {
  AttentionSmemLayout l;
  l.headDimQKPadded = roundUp(spec.headDimQK, 16);
  l.oPitch = conflictFreePitch(spec.headDimV);
  if (tile.wgmma) {
    // 128-byte-swizzled K-major tiles (pitch 0 in the kernel's terms), each
    // 1024-byte aligned; the Q region also holds the padded O staging rows.
    // (fp8: one byte an element; a V^T stage is Dv rows of the tile's keys)
    const unsigned elemBytes = isFp8(spec.elementType) ? 1 : 2;
    unsigned qBytes = unsigned(tile.blockM) * spec.headDimQK * elemBytes;
    unsigned oBytes = unsigned(tile.blockM) * l.oPitch * 2;
    l.qRegionBytes = unsigned(roundUp(int(qBytes > oBytes ? qBytes : oBytes), 1024));
    l.kStageBytes = unsigned(tile.blockN) * spec.headDimQK * elemBytes;
    l.vStageBytes = unsigned(tile.blockN) * spec.headDimV * elemBytes;
    l.alignSlack = 1024;
  } else {
    l.qkPitch = conflictFreePitch(l.headDimQKPadded);
    l.vPitch = conflictFreePitch(spec.headDimV);
    l.qRegionPitch = l.qkPitch > l.oPitch ? l.qkPitch : l.oPitch;
    l.qRegionBytes = unsigned(tile.blockM) * l.qRegionPitch * 2;
    l.kStageBytes = unsigned(tile.blockN) * l.qkPitch * 2;
    l.vStageBytes = unsigned(tile.blockN) * l.vPitch * 2;
  }
  l.totalBytes = l.qRegionBytes + unsigned(tile.stages) * (l.kStageBytes + l.vStageBytes) +
                 l.alignSlack;
  return l;
}

inline unsigned attentionSharedBytes(const AttentionForwardSpec &spec,
                                     const AttentionTileConfig &tile) {
  return attentionLayout(spec, tile).totalBytes;
}

/// The kernel's static shared memory (attention_fwd.cuh): the paged decode
/// kernel's page-index cache, the warp-specialised kernel's mbarriers (Q,
/// and four per K/V buffer, 8 bytes each), rounded up to the alignment of
/// the dynamic shared memory that follows (1024 bytes for wgmma tiles).
inline unsigned attentionStaticSharedBytes(const AttentionForwardSpec &spec,
                                           const AttentionTileConfig &tile) {
  unsigned bytes = spec.paged && spec.decode ? kDecodePageCacheEntries * 4 : 0;
  if (tile.warpSpecialized)
    bytes += 8 * (1 + 4 * unsigned(tile.stages));
  return unsigned(roundUp(int(bytes), tile.wgmma ? 1024 : 16));
}

/// Dynamic and static shared memory of one CTA: what must fit the target.
inline unsigned attentionFootprintBytes(const AttentionForwardSpec &spec,
                                        const AttentionTileConfig &tile) {
  return attentionSharedBytes(spec, tile) + attentionStaticSharedBytes(spec, tile);
}

} // namespace tg::codegen

#endif // TG_CODEGEN_ATTENTIONLAYOUT_H
