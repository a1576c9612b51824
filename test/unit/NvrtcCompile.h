#ifndef TGC_TEST_UNIT_NVRTCCOMPILE_H
#define TGC_TEST_UNIT_NVRTCCOMPILE_H
// NVRTC compilation of a generated kernel for the generators' tests: the
// log, and the size of the CUBIN (arch "sm_XX", with ptxas's resource usage
// in the log) or of the PTX (arch "compute_XX").
#include <nvrtc.h>

#include <string>
#include <vector>

struct NvrtcCompiled {
  bool ok = false;
  std::string log;
  size_t bytes = 0;
};

inline NvrtcCompiled compileWithNvrtc(const std::string &source, const std::string &arch,
                                      const char *fileName) {
  NvrtcCompiled out;
  nvrtcProgram prog;
  if (nvrtcCreateProgram(&prog, source.c_str(), fileName, 0, nullptr, nullptr) != NVRTC_SUCCESS) {
    out.log = "nvrtcCreateProgram failed";
    return out;
  }
  bool cubin = arch.rfind("sm_", 0) == 0;
  std::string archFlag = "--gpu-architecture=" + arch;
  std::vector<const char *> options = {archFlag.c_str(), "-std=c++17"};
  if (cubin)
    options.push_back("--ptxas-options=-v");
  nvrtcResult r = nvrtcCompileProgram(prog, int(options.size()), options.data());
  size_t logSize = 0;
  nvrtcGetProgramLogSize(prog, &logSize);
  out.log.resize(logSize);
  if (logSize)
    nvrtcGetProgramLog(prog, out.log.data());
  out.ok = r == NVRTC_SUCCESS;
  if (out.ok) {
    if (cubin)
      nvrtcGetCUBINSize(prog, &out.bytes);
    else
      nvrtcGetPTXSize(prog, &out.bytes);
  }
  nvrtcDestroyProgram(&prog);
  return out;
}

#endif // TGC_TEST_UNIT_NVRTCCOMPILE_H
