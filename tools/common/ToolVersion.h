#ifndef TGC_TOOLS_TOOLVERSION_H
#define TGC_TOOLS_TOOLVERSION_H

#include <string>

namespace tgc::tools {

/// "<tool>: tgc 0.1.0+<commit>\n  built with LLVM/MLIR 22.1.8 (static), CUDA
/// 13.0\n": what --version prints.
std::string versionText(const std::string &tool);

/// Makes --version of an llvm::cl tool print versionText(tool) instead of
/// LLVM's own version alone. Call before parsing the command line.
void setToolVersionPrinter(const char *tool);

} // namespace tgc::tools

#endif // TGC_TOOLS_TOOLVERSION_H
