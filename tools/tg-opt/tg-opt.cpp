// tg-opt: runs tgc passes (and canonicalize/cse) on tg graphs, like mlir-opt.
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/DialectRegistry.h"
#include "mlir/Support/FileUtilities.h"
#include "mlir/Tools/mlir-opt/MlirOptMain.h"
#include "mlir/Transforms/Passes.h"
#include "llvm/Support/InitLLVM.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/ToolOutputFile.h"

#include "tg/Dialect/TG/IR/TGDialect.h"
#include "tg/Driver/Compile.h"
#include "tg/Driver/ParserGuard.h"
#include "tg/Plan/Passes.h"
#include "tg/Transforms/Passes.h"
#include "ToolVersion.h"

using namespace mlir;

/// Rejects text MLIR's parser would crash on (tg/Driver/ParserGuard.h),
/// with a located error on stderr.
static LogicalResult checkInput(const llvm::MemoryBuffer &input) {
  llvm::SourceMgr sourceMgr;
  sourceMgr.AddNewSourceBuffer(
      llvm::MemoryBuffer::getMemBuffer(input.getBuffer(),
                                       input.getBufferIdentifier(),
                                       /*RequiresNullTerminator=*/false),
      llvm::SMLoc());
  MLIRContext context(MLIRContext::Threading::DISABLED);
  SourceMgrDiagnosticHandler diagnostics(sourceMgr, &context);
  return tg::checkParserInput(sourceMgr, &context);
}

static LogicalResult tgOptMain(int argc, char **argv,
                               DialectRegistry &registry) {
  auto [inputFilename, outputFilename] = registerAndParseCLIOptions(
      argc, argv, "tgc graph optimizer\n", registry);
  MlirOptMainConfig config = MlirOptMainConfig::createFromCLOptions();
  if (config.shouldShowDialects() || config.shouldListPasses())
    return MlirOptMain(argc, argv, inputFilename, outputFilename, registry);
  std::string error;
  std::unique_ptr<llvm::MemoryBuffer> input =
      tg::openGraphFile(inputFilename, error);
  if (!input) {
    llvm::errs() << error << "\n";
    return failure();
  }
  if (failed(checkInput(*input)))
    return failure();
  std::unique_ptr<llvm::ToolOutputFile> output =
      openOutputFile(outputFilename, &error);
  if (!output) {
    llvm::errs() << error << "\n";
    return failure();
  }
  if (failed(MlirOptMain(output->os(), std::move(input), registry, config)))
    return failure();
  output->keep();
  return success();
}

int main(int argc, char **argv) {
  llvm::InitLLVM init(argc, argv);
  tgc::tools::setToolVersionPrinter("tg-opt");
  DialectRegistry registry;
  tg::registerCompilerDialects(registry);
  tg::registerTGPasses();
  tg::registerTGPlanPasses();
  registerCanonicalizerPass();
  registerCSEPass();
  registerSymbolDCEPass();
  // The parser recurses on nesting: give it more stack than the main
  // thread has.
  LogicalResult result = failure();
  tg::runOnLargeStack([&] { result = tgOptMain(argc, argv, registry); });
  return asMainReturnCode(result);
}
