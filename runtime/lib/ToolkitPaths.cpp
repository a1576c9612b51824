#include "ToolkitPaths.h"

#include <algorithm>
#include <cstdlib>
#include <sys/stat.h>

#ifndef TGC_DEFAULT_CUDA_HOME
#error "TGC_DEFAULT_CUDA_HOME must name the toolkit tgc was built with"
#endif

namespace tgc {

std::vector<std::string> cudaToolkitRoots() {
  std::vector<std::string> roots;
  for (const char *name : {"CUDA_HOME", "CUDA_PATH"})
    if (const char *env = std::getenv(name); env && *env)
      roots.push_back(env);
  roots.push_back(TGC_DEFAULT_CUDA_HOME);
  return roots;
}

std::vector<std::string> cudaToolkitLibraries(const std::string &file) {
  std::vector<std::string> paths;
  for (const std::string &root : cudaToolkitRoots())
    for (const char *dir : {"/lib64/", "/lib/"}) {
      std::string path = root + dir + file;
      struct stat info;
      if (::stat(path.c_str(), &info) != 0 || !S_ISREG(info.st_mode))
        continue;
      if (std::find(paths.begin(), paths.end(), path) == paths.end())
        paths.push_back(path);
    }
  return paths;
}

} // namespace tgc
