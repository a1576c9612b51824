#include "tgc/KernelCache.h"
#include "FileUtil.h"
#include "tgc/Log.h"

#include <atomic>
#include <cerrno>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <sys/stat.h>
#include <unistd.h>

namespace tgc {

namespace {
constexpr char kEntryMagic[8] = {'T', 'G', 'C', 'K', 'E', 'R', 'N', 'L'};
constexpr uint32_t kEntryVersion = 1;
constexpr size_t kHeaderSize = 96;
constexpr size_t kChecksummedFrom = 80;

double secondsSince(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start)
      .count();
}

void putLE(std::string &out, size_t offset, uint64_t value, int bytes) {
  for (int i = 0; i < bytes; ++i)
    out[offset + size_t(i)] = char(uint8_t(value >> (8 * i)));
}

uint64_t getLE(const std::string &in, size_t offset, int bytes) {
  uint64_t value = 0;
  for (int i = 0; i < bytes; ++i)
    value |= uint64_t(uint8_t(in[offset + size_t(i)])) << (8 * i);
  return value;
}
/// Removes a directory that sits where a cache entry belongs: rmdir when
/// empty, else a rename to a unique name beside it (its contents are not
/// ours to delete). The message says which was done, or why neither was.
Expected<std::string> clearDirectoryEntry(const std::string &path) {
  if (::rmdir(path.c_str()) == 0)
    return std::string("removed it");
  int rmdirError = errno;
  static std::atomic<unsigned> counter{0};
  std::string aside = strCat(path, ".unusable.", ::getpid(), ".", counter++);
  if (::rename(path.c_str(), aside.c_str()) == 0)
    return strCat("moved it to '", aside, "'");
  return makeError(StatusCode::IoError, "cannot remove it (",
                   std::strerror(rmdirError), ") or move it aside (",
                   std::strerror(errno), ")");
}
} // namespace

Digest kernelCacheKey(const Kernel &kernel, const CompileTarget &target,
                      const std::string &compilerVersion) {
  Sha256 sha;
  sha.updateField("tgc-kernel-key-v1");
  sha.updateField(kernel.source);
  sha.updateField(kernel.entry);
  std::vector<std::string> options = nvrtcOptions(kernel, target);
  sha.updateField(std::to_string(options.size()));
  for (const std::string &option : options)
    sha.updateField(option);
  sha.updateField(compilerVersion);
  sha.updateField(target.name());
  sha.updateField(target.kind == BinaryKind::Cubin ? "cubin" : "ptx");
  return sha.finish();
}

std::string encodeCacheEntry(const Digest &key, const CompiledKernel &kernel) {
  std::string out(kHeaderSize, '\0');
  std::memcpy(out.data(), kEntryMagic, 8);
  putLE(out, 8, kEntryVersion, 4);
  putLE(out, 12, kernel.kind == BinaryKind::Cubin ? 1 : 2, 4);
  std::memcpy(out.data() + 16, key.data(), 32);
  putLE(out, 80, kernel.targetName.size(), 4);
  putLE(out, 84, kernel.loweredName.size(), 4);
  putLE(out, 88, kernel.image.size(), 8);
  out += kernel.targetName;
  out += kernel.loweredName;
  out += kernel.image;
  Digest checksum = Sha256::hash(
      std::string_view(out).substr(kChecksummedFrom));
  std::memcpy(out.data() + 48, checksum.data(), 32);
  return out;
}

Expected<CompiledKernel> decodeCacheEntry(const std::string &bytes,
                                          const Digest &key) {
  auto bad = [](const std::string &why) {
    return Status(StatusCode::IoError, why);
  };
  if (bytes.size() < kHeaderSize)
    return bad(strCat("truncated (", bytes.size(), " bytes)"));
  if (std::memcmp(bytes.data(), kEntryMagic, 8) != 0)
    return bad("bad magic");
  if (uint32_t version = uint32_t(getLE(bytes, 8, 4)); version != kEntryVersion)
    return bad(strCat("unknown entry version ", version));
  uint32_t kind = uint32_t(getLE(bytes, 12, 4));
  if (kind != 1 && kind != 2)
    return bad(strCat("unknown binary kind ", kind));
  if (std::memcmp(bytes.data() + 16, key.data(), 32) != 0)
    return bad("key does not match the file name");
  uint64_t targetSize = getLE(bytes, 80, 4), nameSize = getLE(bytes, 84, 4),
           imageSize = getLE(bytes, 88, 8);
  if (targetSize + nameSize + imageSize != bytes.size() - kHeaderSize ||
      imageSize > bytes.size())
    return bad("lengths do not match the file size");
  Digest checksum =
      Sha256::hash(std::string_view(bytes).substr(kChecksummedFrom));
  if (std::memcmp(bytes.data() + 48, checksum.data(), 32) != 0)
    return bad("checksum mismatch");
  CompiledKernel kernel;
  kernel.kind = kind == 1 ? BinaryKind::Cubin : BinaryKind::Ptx;
  kernel.targetName = bytes.substr(kHeaderSize, targetSize);
  kernel.loweredName = bytes.substr(kHeaderSize + targetSize, nameSize);
  kernel.image = bytes.substr(kHeaderSize + targetSize + nameSize);
  if (kernel.loweredName.empty() || kernel.image.empty())
    return bad("empty symbol name or image");
  return kernel;
}

std::string defaultCacheDir() {
  if (const char *dir = std::getenv("TGC_CACHE_DIR"); dir && *dir)
    return dir;
  if (const char *xdg = std::getenv("XDG_CACHE_HOME"); xdg && *xdg)
    return std::string(xdg) + "/tgc";
  if (const char *home = std::getenv("HOME"); home && *home)
    return std::string(home) + "/.cache/tgc";
  return "";
}

KernelCache::KernelCache(std::string diskDir, KernelCompiler compiler,
                         std::string compilerVersion)
    : diskDir_(std::move(diskDir)), compiler_(std::move(compiler)),
      compilerVersion_(std::move(compilerVersion)) {
  if (!compiler_)
    compiler_ = compileKernel;
  while (diskDir_.size() > 1 && diskDir_.back() == '/')
    diskDir_.pop_back();
}

KernelCache &KernelCache::global() {
  static KernelCache *cache = new KernelCache(defaultCacheDir());
  return *cache;
}

std::string KernelCache::entryPath(const Digest &key) const {
  return diskDir_ + "/" + toHex(key) + ".tgck";
}

Expected<std::shared_ptr<const CompiledKernel>>
KernelCache::get(const Kernel &kernel, const CompileTarget &target) {
  // Empty: NVRTC, asked on every call because it is loaded on first use
  // (and reloaded by tests).
  std::string version = compilerVersion_.empty()
                            ? "nvrtc-" + nvrtcInfo().version()
                            : compilerVersion_;
  Digest key = kernelCacheKey(kernel, target, version);
  std::shared_ptr<Slot> slot;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    std::shared_ptr<Slot> &entry = slots_[key];
    if (!entry)
      entry = std::make_shared<Slot>();
    slot = entry;
  }
  // Holding the slot's lock makes concurrent requests for this key wait for
  // one compile instead of starting their own.
  std::lock_guard<std::mutex> slotLock(slot->mutex);
  if (slot->value) {
    std::lock_guard<std::mutex> lock(mutex_);
    ++stats_.memoryHits;
    return slot->value;
  }

  std::string what = strCat("kernel '", kernel.id, "' for ", target.name());
  std::string path = diskDir_.empty() ? "" : entryPath(key);
  bool writeEntry = !path.empty();
  if (!path.empty()) {
    auto start = std::chrono::steady_clock::now();
    struct stat st;
    if (::lstat(path.c_str(), &st) == 0 && S_ISDIR(st.st_mode)) {
      // rename() cannot replace a directory with the new entry: move it out
      // of the way first, or every later run would recompile.
      Expected<std::string> cleared = clearDirectoryEntry(path);
      {
        std::lock_guard<std::mutex> lock(mutex_);
        ++stats_.corruptEntries;
        if (!cleared)
          ++stats_.diskWriteFailures;
      }
      if (cleared) {
        TGC_LOG_WARN("kernel cache entry '", path, "' is a directory, not a "
                     "file; ", *cleared, "; recompiling ", what,
                     " and rewriting the entry");
      } else {
        TGC_LOG_WARN("kernel cache entry '", path, "' is a directory, not a "
                     "file, and ", cleared.status().message(),
                     "; recompiling ", what,
                     " without caching it on disk");
        writeEntry = false;
      }
    } else if (::stat(path.c_str(), &st) == 0) {
      Expected<std::string> bytes = readFileBytes(path);
      Expected<CompiledKernel> decoded =
          bytes ? decodeCacheEntry(*bytes, key) : Expected<CompiledKernel>(bytes.status());
      double seconds = secondsSince(start);
      if (decoded) {
        slot->value = std::make_shared<const CompiledKernel>(decoded.take());
        {
          std::lock_guard<std::mutex> lock(mutex_);
          ++stats_.diskHits;
          stats_.diskLoadSeconds += seconds;
        }
        TGC_LOG_INFO(what, ": loaded from the disk cache in ",
                     seconds * 1e3, " ms (", path, ")");
        return slot->value;
      }
      {
        std::lock_guard<std::mutex> lock(mutex_);
        ++stats_.corruptEntries;
      }
      TGC_LOG_WARN("kernel cache entry '", path, "' is unusable (",
                   decoded.status().message(), "); recompiling ", what);
    }
  }

  auto start = std::chrono::steady_clock::now();
  Expected<CompiledKernel> compiled = compiler_(kernel, target);
  double seconds = secondsSince(start);
  if (!compiled)
    return compiled.takeStatus();
  {
    std::lock_guard<std::mutex> lock(mutex_);
    ++stats_.compiles;
    stats_.compileSeconds += seconds;
  }
  TGC_LOG_INFO(what, ": compiled with NVRTC in ", seconds * 1e3, " ms");
  auto value = std::make_shared<const CompiledKernel>(compiled.take());

  if (writeEntry) {
    Status written = createDirectories(diskDir_);
    if (written.isOk())
      written = writeFileAtomic(path, encodeCacheEntry(key, *value));
    if (!written.isOk()) {
      {
        std::lock_guard<std::mutex> lock(mutex_);
        ++stats_.diskWriteFailures;
      }
      TGC_LOG_WARN("cannot write the kernel cache entry for ", what, ": ",
                   written.message());
    }
  }
  slot->value = value;
  return value;
}

CacheStats KernelCache::stats() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return stats_;
}

void KernelCache::resetStats() {
  std::lock_guard<std::mutex> lock(mutex_);
  stats_ = CacheStats();
}

void KernelCache::clearMemory() {
  std::lock_guard<std::mutex> lock(mutex_);
  slots_.clear();
}

} // namespace tgc
