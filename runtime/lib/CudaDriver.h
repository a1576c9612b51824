#ifndef TGC_LIB_CUDADRIVER_H
#define TGC_LIB_CUDADRIVER_H

// The CUDA driver API, loaded at run time with dlopen("libcuda.so.1") so
// that the runtime loads, parses plans and compiles kernels on machines
// without a GPU, and reports "no CUDA driver" only when asked to execute.
// Only types and enums come from cuda.h; no symbol is linked.

#include "tgc/Status.h"

#include <cuda.h>

#include <map>
#include <mutex>
#include <string>

#define TGC_CUDA_SYMBOL_NAME(fn) TGC_CUDA_SYMBOL_NAME_(fn)
#define TGC_CUDA_SYMBOL_NAME_(fn) #fn

// Every driver entry point the runtime uses. cuda.h maps some names to
// versioned symbols (cuMemAlloc -> cuMemAlloc_v2); the stringised macro
// expansion gives the symbol to look up.
#define TGC_CUDA_REQUIRED_FUNCTIONS(X)                                         \
  X(cuInit)                                                                    \
  X(cuDriverGetVersion)                                                        \
  X(cuGetErrorName)                                                            \
  X(cuGetErrorString)                                                          \
  X(cuCtxGetCurrent)                                                           \
  X(cuCtxGetDevice)                                                            \
  X(cuCtxPushCurrent)                                                          \
  X(cuCtxPopCurrent)                                                           \
  X(cuStreamGetCtx)                                                            \
  X(cuDeviceGetAttribute)                                                      \
  X(cuDeviceGetName)                                                           \
  X(cuModuleLoadDataEx)                                                        \
  X(cuModuleUnload)                                                            \
  X(cuModuleGetFunction)                                                       \
  X(cuFuncGetAttribute)                                                        \
  X(cuFuncSetAttribute)                                                        \
  X(cuLaunchKernel)                                                            \
  X(cuMemAlloc)                                                                \
  X(cuMemFree)                                                                 \
  X(cuMemsetD8Async)                                                           \
  X(cuMemcpyAsync)                                                             \
  X(cuEventCreate)                                                             \
  X(cuEventDestroy)                                                            \
  X(cuEventRecord)                                                             \
  X(cuStreamWaitEvent)                                                         \
  X(cuStreamIsCapturing)                                                       \
  X(cuPointerGetAttribute)

// Used when present (newer drivers), and the calls only tools make (device
// memory for tg-run, timing); a mock driver may leave these out.
#define TGC_CUDA_OPTIONAL_FUNCTIONS(X)                                         \
  X(cuFuncGetParamInfo)                                                        \
  X(cuLaunchKernelEx)                                                          \
  X(cuOccupancyMaxActiveBlocksPerMultiprocessor)                               \
  X(cuDeviceGet)                                                               \
  X(cuDevicePrimaryCtxRetain)                                                  \
  X(cuCtxSetCurrent)                                                           \
  X(cuMemcpyHtoD)                                                              \
  X(cuMemcpyDtoH)                                                              \
  X(cuCtxSynchronize)                                                          \
  X(cuEventSynchronize)                                                        \
  X(cuEventElapsedTime)

namespace tgc {

struct CudaDriver {
#define TGC_DECLARE_POINTER(fn) decltype(&::fn) fn = nullptr;
  TGC_CUDA_REQUIRED_FUNCTIONS(TGC_DECLARE_POINTER)
  TGC_CUDA_OPTIONAL_FUNCTIONS(TGC_DECLARE_POINTER)
#undef TGC_DECLARE_POINTER

  std::string libraryPath;
  int version = 0; // cuDriverGetVersion, e.g. 13000

  /// The process-wide driver, loaded and initialised (cuInit) once; fails
  /// with StatusCode::NoDriver when there is no driver or no device.
  static Expected<const CudaDriver *> get();

  /// "CUDA_ERROR_INVALID_VALUE (invalid argument)".
  std::string errorText(CUresult result) const;
  /// Ok, or a CudaError status "<what>: <errorText>" (OutOfMemory for
  /// CUDA_ERROR_OUT_OF_MEMORY).
  Status check(CUresult result, const std::string &what) const;

  /// The primary context of device `ordinal` (the one the CUDA runtime
  /// uses), retained on first use and kept for the life of the process:
  /// modules loaded into it must outlive every run.
  Expected<CUcontext> primaryContext(int ordinal) const;

private:
  mutable std::mutex primaryMutex_;
  mutable std::map<int, CUcontext> primaryContexts_;
};

} // namespace tgc

#endif // TGC_LIB_CUDADRIVER_H
