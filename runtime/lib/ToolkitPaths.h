#ifndef TGC_LIB_TOOLKITPATHS_H
#define TGC_LIB_TOOLKITPATHS_H

// Where the runtime looks for CUDA toolkit files it loads at run time
// (NVRTC, cuDNN) after the loader's own search path, and for the headers
// NVRTC compiles kernels with: the libraries carry no RUNPATH, so this is
// what replaces it (docs/api.md "Finding CUDA").

#include <string>
#include <vector>

namespace tgc {

/// $CUDA_HOME, $CUDA_PATH (those set), then the toolkit tgc was built with.
std::vector<std::string> cudaToolkitRoots();

/// <root>/lib64/<file> and <root>/lib/<file> for each root, the ones that
/// exist, without repeats.
std::vector<std::string> cudaToolkitLibraries(const std::string &file);

} // namespace tgc

#endif // TGC_LIB_TOOLKITPATHS_H
