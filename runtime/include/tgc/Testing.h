#ifndef TGC_TESTING_H
#define TGC_TESTING_H

// Hooks for tests only; not part of the supported API.

#include <string>

namespace tgc::testing {

/// Makes the next CudaDriver::get() load `path` instead of libcuda.so.1
/// (a mock driver, or a missing file to test the no-driver path). Not
/// thread-safe; call while no plan is executing. Executables prepared with
/// the previous driver must be destroyed first.
void setCudaDriverLibrary(const std::string &path);

/// Makes the next cuDNN use load `path` (a fake, or a missing file) instead
/// of $TGC_CUDNN_LIBRARY / libcudnn.so.9; "" restores the default. Drops the
/// process-wide cuDNN handles and plan cache. Same caveats as above.
void setCudnnLibrary(const std::string &path);

/// Makes the next NVRTC use load `path` (a missing file or a library that
/// is not NVRTC, to test those errors) instead of searching for it; ""
/// restores the search. Same caveats as above.
void setNvrtcLibrary(const std::string &path);

} // namespace tgc::testing

#endif // TGC_TESTING_H
