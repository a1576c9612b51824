// The version string of this build: the release and the git commit
// (cmake/TgcVersion.cmake).
#include "tgc/Version.h"
#include "tgc/tgc.h"
#include "tgc/tgc.hpp"

#include "TgcCommit.h"

namespace tgc {

const char *version() { return TGC_VERSION_STRING "+" TGC_GIT_COMMIT; }

} // namespace tgc

extern "C" const char *tgc_version(void) { return tgc::version(); }
