#ifndef TGC_NVRTC_H
#define TGC_NVRTC_H

// Compiling plan kernels with NVRTC (no GPU needed). NVRTC is loaded on
// first use (runtime/lib/NvrtcLibrary.h says where it is looked for).

#include "tgc/Plan.h"
#include "tgc/Target.h"

#include <string>
#include <vector>

namespace tgc {

struct NvrtcInfo {
  int major = 0, minor = 0;
  std::vector<int> archs; // nvrtcGetSupportedArchs, ascending (75, 80, ...)
  /// Why NVRTC could not be loaded (CompileError); ok when it was.
  Status status;
  std::string version() const { return strCat(major, ".", minor); }
};
/// Of the process-wide NVRTC, loaded and queried once.
const NvrtcInfo &nvrtcInfo();

/// The CUDA toolkit root whose headers kernels are compiled with:
/// $CUDA_HOME, else $CUDA_PATH, else the toolkit tgc was built with
/// (TGC_CUDA_HOME, /usr/local/cuda by default).
std::string cudaHome();

/// Everything passed to nvrtcCompileProgram for `kernel` on `target`: the
/// kernel's own options, then -arch=<target> and the include paths
/// <cuda>/include and <cuda>/include/cccl (NVRTC has no default include
/// path). This exact list is part of the kernel cache key.
std::vector<std::string> nvrtcOptions(const Kernel &kernel,
                                      const CompileTarget &target);

struct CompiledKernel {
  BinaryKind kind = BinaryKind::Cubin;
  std::string targetName;  // CompileTarget::name()
  std::string loweredName; // the symbol to pass to cuModuleGetFunction
  std::string image;       // cubin bytes, or PTX text (NUL-terminated)
  std::string log;         // NVRTC's log (warnings); empty when not compiled
};

/// Compiles one kernel. On failure the message carries NVRTC's log.
Expected<CompiledKernel> compileKernel(const Kernel &kernel,
                                       const CompileTarget &target);

} // namespace tgc

#endif // TGC_NVRTC_H
