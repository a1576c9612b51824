#ifndef TGC_LIB_CUDNNLIBRARY_H
#define TGC_LIB_CUDNNLIBRARY_H

// cuDNN, loaded at run time with dlopen like the CUDA driver
// (CudaDriver.h): the runtime builds and runs without it, and a plan's cuDNN
// steps fall back to their NVRTC launches when it is missing. Only types and
// enums come from cudnn_graph.h; no symbol is linked.
//
// The library is $TGC_CUDNN_LIBRARY (a file path) when set, else
// "libcudnn.so.9" through the loader's search path, else the first of the
// CUDA toolkit's lib64/libcudnn.so.9 that loads (ToolkitPaths.h). Tests
// point testing::setCudnnLibrary() at a fake (test/runtime/MockCudnn.cpp).

#include "tgc/Status.h"

#include <cudnn_graph.h>

#include <string>
#include <vector>

// Every entry point the runtime calls.
#define TGC_CUDNN_FUNCTIONS(X)                                                 \
  X(cudnnGetVersion)                                                           \
  X(cudnnGetErrorString)                                                       \
  X(cudnnGetLastErrorString)                                                   \
  X(cudnnCreate)                                                               \
  X(cudnnDestroy)                                                              \
  X(cudnnSetStream)                                                            \
  X(cudnnBackendCreateDescriptor)                                              \
  X(cudnnBackendDestroyDescriptor)                                             \
  X(cudnnBackendSetAttribute)                                                  \
  X(cudnnBackendGetAttribute)                                                  \
  X(cudnnBackendFinalize)                                                      \
  X(cudnnBackendExecute)

namespace tgc {

struct CudnnLibrary {
#define TGC_DECLARE_POINTER(fn) decltype(&::fn) fn = nullptr;
  TGC_CUDNN_FUNCTIONS(TGC_DECLARE_POINTER)
#undef TGC_DECLARE_POINTER

  std::string libraryPath;
  int version = 0; // cudnnGetVersion(), e.g. 91900

  /// The process-wide library, loaded once; Unsupported when it cannot be
  /// loaded (the message says which file and why).
  static Expected<const CudnnLibrary *> get();

  /// "CUDNN_STATUS_NOT_SUPPORTED: <cudnnGetLastErrorString>" (or just the
  /// name when cuDNN left no message). Call right after the failing call:
  /// the last-error string is per thread and overwritten by the next error.
  std::string errorText(cudnnStatus_t status) const;
  /// cudnnGetLastErrorString(), "" when there is none.
  std::string lastError() const;
  /// Ok, or a `code` status "<what>: <errorText>".
  Status check(cudnnStatus_t status, const std::string &what,
               StatusCode code = StatusCode::Unsupported) const;
};

/// The files get() tries, in order, for the current environment.
std::vector<std::string> cudnnCandidatePaths();

/// 91301 -> "9.13.1" (the cudnnGetVersion encoding of cuDNN 9).
std::string cudnnVersionText(int version);

} // namespace tgc

#endif // TGC_LIB_CUDNNLIBRARY_H
