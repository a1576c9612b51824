// tg-emit-kernels: prints the CUDA kernels that the generic generator makes
// for every function of a tg module (name, entry, launch shape, arguments
// and source), for lit tests and inspection.
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/AsmState.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Support/FileUtilities.h"
#include "mlir/Support/ToolUtilities.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/InitLLVM.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/ToolOutputFile.h"

#include "tg/Dialect/TG/IR/TGDialect.h"
#include "tg/Dialect/TG/IR/TGOps.h"
#include "tg/Driver/ParserGuard.h"
#include "tg/Lowering/CudaPrelude.h"
#include "tg/Lowering/KernelStep.h"
#include "ToolVersion.h"

using namespace mlir;
namespace cl = llvm::cl;

static cl::opt<std::string> inputFilename(cl::Positional,
                                          cl::desc("<input .mlir>"),
                                          cl::init("-"));
static cl::opt<std::string> outputFilename("o", cl::desc("Output file"),
                                           cl::init("-"));
static cl::opt<bool> withPrelude(
    "with-prelude", cl::desc("Print each source with the shared prelude"),
    cl::init(false));
static cl::opt<bool> splitInputFile(
    "split-input-file", cl::desc("Process each '// -----' chunk separately"),
    cl::init(false));
static cl::opt<bool> verifyDiagnostics(
    "verify-diagnostics",
    cl::desc("Check diagnostics against expected-* lines"), cl::init(false));

static void printStep(const tg::KernelStep &step, unsigned index,
                      AsmState &asmState, raw_ostream &os) {
  os << "// ----- kernel " << index << ": " << step.name << "\n"
     << "// entry: " << step.entry << "\n"
     << "// grid: [" << step.grid[0] << ", " << step.grid[1] << ", "
     << step.grid[2] << "] block: [" << step.block[0] << ", "
     << step.block[1] << ", " << step.block[2]
     << "] shared: " << step.sharedBytes << "\n"
     << "// args:";
  for (const tg::KernelArg &arg : step.args) {
    os << " ";
    switch (arg.kind) {
    case tg::KernelArg::Kind::Buffer:
      arg.value.printAsOperand(os, asmState);
      os << (llvm::is_contained(step.outputs, arg.value) ? " (out)" : " (in)");
      break;
    case tg::KernelArg::Kind::Int64:
      os << "i64 " << arg.i64;
      break;
    case tg::KernelArg::Kind::Float32:
      os << "f32 " << arg.f32;
      break;
    }
  }
  os << "\n";
  StringRef source = step.source;
  if (!withPrelude && source.starts_with(tg::cudaPrelude()))
    source = source.drop_front(tg::cudaPrelude().size()).ltrim('\n');
  os << source << "\n";
}

static LogicalResult processBuffer(std::unique_ptr<llvm::MemoryBuffer> buffer,
                                   raw_ostream &os) {
  DialectRegistry registry;
  registry.insert<tg::TGDialect, func::FuncDialect>();
  MLIRContext context(registry);
  context.loadAllAvailableDialects();
  // The verifier matches the diagnostics themselves, not op dumps.
  context.printOpOnDiagnostic(!verifyDiagnostics);
  llvm::SourceMgr sourceMgr;
  sourceMgr.AddNewSourceBuffer(std::move(buffer), llvm::SMLoc());

  auto run = [&]() -> LogicalResult {
    OwningOpRef<ModuleOp> module = tg::parseGuarded(sourceMgr, &context);
    if (!module)
      return failure();
    bool ok = true;
    for (func::FuncOp fn : module->getOps<func::FuncOp>()) {
      auto noAttention = [](tg::AttentionOp op) -> FailureOr<SmallVector<tg::KernelStep, 0>> {
        return op.emitOpError("has no kernel generator in tg-emit-kernels "
                              "(only the generic kernels are printed)");
      };
      FailureOr<SmallVector<tg::KernelStep, 0>> steps =
          tg::emitGenericKernels(fn, noAttention);
      if (failed(steps)) {
        ok = false;
        continue;
      }
      AsmState asmState(fn);
      os << "// ===== @" << fn.getName() << ": kernels: " << steps->size()
         << "\n";
      for (auto [i, step] : llvm::enumerate(*steps))
        printStep(step, i, asmState, os);
    }
    return success(ok);
  };

  if (!verifyDiagnostics) {
    SourceMgrDiagnosticHandler handler(sourceMgr, &context);
    return run();
  }
  SourceMgrDiagnosticVerifierHandler handler(sourceMgr, &context);
  (void)run(); // failures are expected; the verifier judges them
  return handler.verify();
}

static int emitMain() {
  std::string error;
  std::unique_ptr<llvm::MemoryBuffer> input =
      tg::openGraphFile(inputFilename, error);
  if (!input) {
    llvm::errs() << error << "\n";
    return 1;
  }
  std::unique_ptr<llvm::ToolOutputFile> output =
      openOutputFile(outputFilename, &error);
  if (!output) {
    llvm::errs() << error << "\n";
    return 1;
  }
  LogicalResult result =
      splitInputFile
          ? splitAndProcessBuffer(
                std::move(input),
                [](std::unique_ptr<llvm::MemoryBuffer> chunk,
                   raw_ostream &os) { return processBuffer(std::move(chunk), os); },
                output->os())
          : processBuffer(std::move(input), output->os());
  if (failed(result))
    return 1;
  output->keep();
  return 0;
}

int main(int argc, char **argv) {
  llvm::InitLLVM init(argc, argv);
  tgc::tools::setToolVersionPrinter("tg-emit-kernels");
  cl::ParseCommandLineOptions(argc, argv, "tgc generic kernel printer\n");
  // The parser recurses on nesting: give it more stack than the main
  // thread has.
  int status = 1;
  tg::runOnLargeStack([&] { status = emitMain(); });
  return status;
}
