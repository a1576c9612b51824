#ifndef TGC_LIB_FILEUTIL_H
#define TGC_LIB_FILEUTIL_H

// File helpers shared by plan files and the kernel cache (internal).

#include "tgc/Status.h"

#include <string>

namespace tgc {

Expected<std::string> readFileBytes(const std::string &path);
/// Writes `bytes` to a unique temporary file next to `path`, flushes it and
/// renames it over `path`, so readers see either the old or the new file,
/// never a partial one.
Status writeFileAtomic(const std::string &path, const std::string &bytes);
/// mkdir -p.
Status createDirectories(const std::string &path);

} // namespace tgc

#endif // TGC_LIB_FILEUTIL_H
