#ifndef TGC_CAPISUPPORT_H
#define TGC_CAPISUPPORT_H

// For libraries that add C API entry points on top of the runtime (the
// compiler's tgc_compile_*): report a status the way every tgc_* call does.

#include "tgc/tgc.h"
#include "tgc/tgc.hpp"

namespace tgc {
/// Sets tgc_last_error() to the status message and returns its code.
tgc_status_t reportCApiStatus(const Status &status);
/// Hands a created Executable to the caller as a tgc_executable_t.
tgc_status_t wrapCApiExecutable(std::unique_ptr<Executable> executable,
                                tgc_executable_t **out);
} // namespace tgc

#endif // TGC_CAPISUPPORT_H
