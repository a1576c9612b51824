#ifndef TGC_LIB_FILEUTIL_H
#define TGC_LIB_FILEUTIL_H

// File helpers shared by plan files and the kernel cache (internal).

#include "tgc/Status.h"

#include <cstdint>
#include <string>

namespace tgc {

/// Plan files and kernel cache entries are at most this large (a plan with
/// the largest generated kernels is a few MiB).
constexpr uint64_t kMaxReadBytes = uint64_t(1) << 30;

/// The bytes of a regular file of at most `maxBytes` (directories, devices
/// and FIFOs are refused, never read or waited on).
Expected<std::string> readFileBytes(const std::string &path,
                                    uint64_t maxBytes = kMaxReadBytes);
/// Writes `bytes` to a unique temporary file next to `path`, flushes it and
/// renames it over `path`, so readers see either the old or the new file,
/// never a partial one.
Status writeFileAtomic(const std::string &path, const std::string &bytes);
/// mkdir -p.
Status createDirectories(const std::string &path);

} // namespace tgc

#endif // TGC_LIB_FILEUTIL_H
