#include "tgc/Nvrtc.h"
#include "NvrtcLibrary.h"
#include "ToolkitPaths.h"
#include "tgc/Log.h"

#include <memory>

namespace tgc {

std::string cudaHome() { return cudaToolkitRoots().front(); }

std::vector<std::string> nvrtcOptions(const Kernel &kernel,
                                      const CompileTarget &target) {
  std::vector<std::string> options = kernel.options;
  options.push_back("-arch=" + target.name());
  std::string include = cudaHome() + "/include";
  options.push_back("-I" + include);
  options.push_back("-I" + include + "/cccl");
  return options;
}

namespace {
struct ProgramDeleter {
  const NvrtcLibrary *nvrtc;
  void operator()(nvrtcProgram *program) const {
    nvrtc->nvrtcDestroyProgram(program);
    delete program;
  }
};

std::string programLog(const NvrtcLibrary &nvrtc, nvrtcProgram program) {
  size_t size = 0;
  if (nvrtc.nvrtcGetProgramLogSize(program, &size) != NVRTC_SUCCESS ||
      size <= 1)
    return "";
  std::string log(size, '\0');
  if (nvrtc.nvrtcGetProgramLog(program, log.data()) != NVRTC_SUCCESS)
    return "";
  while (!log.empty() && (log.back() == '\0' || log.back() == '\n'))
    log.pop_back();
  return log;
}
} // namespace

Expected<CompiledKernel> compileKernel(const Kernel &kernel,
                                       const CompileTarget &target) {
  Expected<const NvrtcLibrary *> library = NvrtcLibrary::get();
  if (!library)
    return library.takeStatus();
  const NvrtcLibrary &nvrtc = **library;
  std::string what =
      strCat("NVRTC ", nvrtc.info.version(), " cannot compile kernel '",
             kernel.id, "' (entry '", kernel.entry, "') for ", target.name());
  auto nvrtcError = [&](nvrtcResult result, const std::string &log) {
    std::string message = strCat(what, ": ", nvrtc.nvrtcGetErrorString(result));
    if (!log.empty())
      message += "\n" + log;
    return Status(StatusCode::CompileError, message);
  };

  std::unique_ptr<nvrtcProgram, ProgramDeleter> program(new nvrtcProgram(),
                                                        ProgramDeleter{&nvrtc});
  std::string fileName = kernel.id + ".cu";
  nvrtcResult result =
      nvrtc.nvrtcCreateProgram(program.get(), kernel.source.c_str(),
                               fileName.c_str(), 0, nullptr, nullptr);
  if (result != NVRTC_SUCCESS) {
    // Nothing to destroy.
    delete program.release();
    return nvrtcError(result, "");
  }
  // A name expression resolves both extern "C" names and C++ template
  // instantiations to the symbol in the binary.
  if ((result = nvrtc.nvrtcAddNameExpression(*program, kernel.entry.c_str())) !=
      NVRTC_SUCCESS)
    return nvrtcError(result, "");

  std::vector<std::string> options = nvrtcOptions(kernel, target);
  std::vector<const char *> argv;
  for (const std::string &option : options)
    argv.push_back(option.c_str());
  result = nvrtc.nvrtcCompileProgram(*program, int(argv.size()), argv.data());
  CompiledKernel compiled;
  compiled.log = programLog(nvrtc, *program);
  if (result != NVRTC_SUCCESS)
    return nvrtcError(result, compiled.log);
  if (!compiled.log.empty())
    TGC_LOG_DEBUG("NVRTC log for kernel '", kernel.id, "' (", target.name(),
                  "):\n", compiled.log);

  const char *lowered = nullptr;
  if ((result = nvrtc.nvrtcGetLoweredName(*program, kernel.entry.c_str(),
                                          &lowered)) != NVRTC_SUCCESS ||
      !lowered)
    return nvrtcError(result, compiled.log);
  compiled.loweredName = lowered;

  compiled.kind = target.kind;
  compiled.targetName = target.name();
  size_t size = 0;
  if (target.kind == BinaryKind::Cubin) {
    if ((result = nvrtc.nvrtcGetCUBINSize(*program, &size)) != NVRTC_SUCCESS)
      return nvrtcError(result, compiled.log);
    compiled.image.resize(size);
    if ((result = nvrtc.nvrtcGetCUBIN(*program, compiled.image.data())) !=
        NVRTC_SUCCESS)
      return nvrtcError(result, compiled.log);
  } else {
    if ((result = nvrtc.nvrtcGetPTXSize(*program, &size)) != NVRTC_SUCCESS)
      return nvrtcError(result, compiled.log);
    // The size includes the terminating NUL, which cuModuleLoadDataEx needs.
    compiled.image.resize(size);
    if ((result = nvrtc.nvrtcGetPTX(*program, compiled.image.data())) !=
        NVRTC_SUCCESS)
      return nvrtcError(result, compiled.log);
  }
  return compiled;
}

} // namespace tgc
