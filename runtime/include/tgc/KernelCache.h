#ifndef TGC_KERNELCACHE_H
#define TGC_KERNELCACHE_H

// Compiled kernels cached in memory and on disk. The key is the SHA-256 of
// the kernel source, entry name, full NVRTC option list (which names the
// arch), the NVRTC version and the binary kind (docs/api.md "Kernel cache").
// Disk entries carry a header (magic, format version, key, lengths) and a
// SHA-256 of their contents; they are written atomically and an entry that
// cannot be read or does not verify is recompiled and overwritten, never
// used.

#include "tgc/CacheStats.h"
#include "tgc/Nvrtc.h"
#include "tgc/Sha256.h"

#include <functional>
#include <map>
#include <memory>
#include <mutex>

namespace tgc {

using KernelCompiler =
    std::function<Expected<CompiledKernel>(const Kernel &, const CompileTarget &)>;

Digest kernelCacheKey(const Kernel &kernel, const CompileTarget &target,
                      const std::string &compilerVersion);

/// The binary layout of a disk entry (exposed for tests).
std::string encodeCacheEntry(const Digest &key, const CompiledKernel &kernel);
/// Fails with a reason when `bytes` is not a valid entry for `key`.
Expected<CompiledKernel> decodeCacheEntry(const std::string &bytes,
                                          const Digest &key);

/// $TGC_CACHE_DIR, else $XDG_CACHE_HOME/tgc, else $HOME/.cache/tgc; empty
/// when none can be determined (then the cache is memory-only).
std::string defaultCacheDir();

class KernelCache {
public:
  /// `diskDir` empty: memory only. `compiler` and `compilerVersion` default
  /// to NVRTC; tests substitute a counting compiler.
  explicit KernelCache(std::string diskDir, KernelCompiler compiler = nullptr,
                       std::string compilerVersion = "");

  /// The process-wide cache used by executables (defaultCacheDir()).
  static KernelCache &global();

  /// The compiled kernel from memory, else from disk, else from the
  /// compiler (then stored in both). Thread-safe; concurrent requests for
  /// one key compile it once.
  Expected<std::shared_ptr<const CompiledKernel>> get(const Kernel &kernel,
                                                      const CompileTarget &target);

  CacheStats stats() const;
  void resetStats();
  /// Forgets the in-memory entries (the disk is untouched).
  void clearMemory();
  const std::string &diskDir() const { return diskDir_; }
  std::string entryPath(const Digest &key) const;

private:
  struct Slot {
    std::mutex mutex;
    std::shared_ptr<const CompiledKernel> value;
  };

  std::string diskDir_;
  KernelCompiler compiler_;
  std::string compilerVersion_;
  mutable std::mutex mutex_; // guards slots_ and stats_
  std::map<Digest, std::shared_ptr<Slot>> slots_;
  CacheStats stats_;
};

} // namespace tgc

#endif // TGC_KERNELCACHE_H
