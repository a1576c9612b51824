#ifndef TGC_TEST_UNIT_NVRTCCOMPILE_H
#define TGC_TEST_UNIT_NVRTCCOMPILE_H
// NVRTC compilation of a generated kernel for the generators' tests and
// tgc-kernel-fingerprint: the log, and the CUBIN (arch "sm_XX", with ptxas's
// resource usage in the log) or the PTX (arch "compute_XX") and its size.
#include <nvrtc.h>

#include <string>
#include <vector>

struct NvrtcCompiled {
  bool ok = false;
  std::string log;
  size_t bytes = 0;
  std::vector<char> image; // the CUBIN or the PTX text (NUL-terminated)
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
    out.image.resize(out.bytes);
    if (cubin)
      nvrtcGetCUBIN(prog, out.image.data());
    else
      nvrtcGetPTX(prog, out.image.data());
  }
  nvrtcDestroyProgram(&prog);
  return out;
}

#endif // TGC_TEST_UNIT_NVRTCCOMPILE_H
