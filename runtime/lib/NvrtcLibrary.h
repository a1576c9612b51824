#ifndef TGC_LIB_NVRTCLIBRARY_H
#define TGC_LIB_NVRTCLIBRARY_H

// NVRTC, loaded at run time with dlopen like the CUDA driver (CudaDriver.h)
// and cuDNN (CudnnLibrary.h): a program linked with tgc starts and loads
// plans where NVRTC is missing, and gets a CompileError that says where it
// looked only when a kernel has to be compiled. Only types come from
// nvrtc.h; no symbol is linked, so the libraries need no RUNPATH into the
// toolkit.
//
// Where it is looked for, in order (docs/api.md "Finding CUDA"):
//   $TGC_NVRTC_LIBRARY (a file path; nothing else is tried when it is set)
//   libnvrtc.so.13 through the loader's search path (LD_LIBRARY_PATH,
//     ld.so.cache)
//   <root>/lib64/libnvrtc.so.13 and <root>/lib/libnvrtc.so.13 for root in
//     $CUDA_HOME, $CUDA_PATH and the toolkit tgc was built with

#include "tgc/Nvrtc.h"
#include "tgc/Status.h"

#include <nvrtc.h>

#include <string>
#include <vector>

// Every entry point the runtime calls.
#define TGC_NVRTC_FUNCTIONS(X)                                                 \
  X(nvrtcVersion)                                                              \
  X(nvrtcGetErrorString)                                                       \
  X(nvrtcGetNumSupportedArchs)                                                 \
  X(nvrtcGetSupportedArchs)                                                    \
  X(nvrtcCreateProgram)                                                        \
  X(nvrtcDestroyProgram)                                                       \
  X(nvrtcAddNameExpression)                                                    \
  X(nvrtcCompileProgram)                                                       \
  X(nvrtcGetProgramLogSize)                                                    \
  X(nvrtcGetProgramLog)                                                        \
  X(nvrtcGetLoweredName)                                                       \
  X(nvrtcGetCUBINSize)                                                         \
  X(nvrtcGetCUBIN)                                                             \
  X(nvrtcGetPTXSize)                                                           \
  X(nvrtcGetPTX)

namespace tgc {

/// The NVRTC major version the runtime is built for (its soname).
constexpr int kNvrtcMajor = 13;

struct NvrtcLibrary {
#define TGC_DECLARE_POINTER(fn) decltype(&::fn) fn = nullptr;
  TGC_NVRTC_FUNCTIONS(TGC_DECLARE_POINTER)
#undef TGC_DECLARE_POINTER

  std::string libraryPath; // as passed to dlopen
  std::string directory;   // where the loader found it
  NvrtcInfo info;          // version and supported archs, status ok

  /// The process-wide library, loaded once; CompileError when it cannot be
  /// loaded (the message lists what was tried and what to set).
  static Expected<const NvrtcLibrary *> get();
};

/// The paths get() tries, in order, for the current environment.
std::vector<std::string> nvrtcCandidatePaths();

} // namespace tgc

#endif // TGC_LIB_NVRTCLIBRARY_H
