#include "ToolVersion.h"

#include "tgc/tgc.hpp"

#include "llvm/Config/llvm-config.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/raw_ostream.h"

namespace tgc::tools {

std::string versionText(const std::string &tool) {
  return tool + ": tgc " + tgc::version() + "\n  built with LLVM/MLIR " +
         LLVM_VERSION_STRING + TGC_LLVM_LINKAGE + ", CUDA " TGC_CUDA_VERSION +
         "\n";
}

void setToolVersionPrinter(const char *tool) {
  llvm::cl::SetVersionPrinter(
      [tool](llvm::raw_ostream &os) { os << versionText(tool); });
}

} // namespace tgc::tools
