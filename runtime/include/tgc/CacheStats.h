#ifndef TGC_CACHESTATS_H
#define TGC_CACHESTATS_H

// Counters of the kernel cache (tgc::kernelCacheStats() in tgc.hpp), apart
// from the cache itself so that the public API needs no NVRTC declarations.

#include <cstdint>

// Exported API: the library is built with hidden visibility
// (cmake/TgcSharedLibrary.cmake).
#pragma GCC visibility push(default)

namespace tgc {

struct CacheStats {
  uint64_t memoryHits = 0;
  uint64_t diskHits = 0;
  uint64_t compiles = 0;       // misses that ran NVRTC successfully
  uint64_t corruptEntries = 0; // disk entries rejected and rebuilt
  uint64_t diskWriteFailures = 0;
  double compileSeconds = 0;  // total time in NVRTC (cold)
  double diskLoadSeconds = 0; // total time reading and verifying entries (warm)
};

} // namespace tgc

#pragma GCC visibility pop

#endif // TGC_CACHESTATS_H
