// tg-compile: compiles a tg graph and prints or writes what a stage produced:
// the compiled IR, the generated CUDA, PTX/cubin from NVRTC, or the plan.
#include "tg/Driver/Compile.h"
#include "tg/Driver/ParserGuard.h"
#include "tg/Plan/LowerToPlan.h"
#include "tg/Transforms/Passes.h"

#include "tgc/Nvrtc.h"
#include "tgc/Plan.h"
#include "tgc/Target.h"

#include "mlir/IR/AsmState.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Support/FileUtilities.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/InitLLVM.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/ToolOutputFile.h"
#include "ToolVersion.h"

using namespace mlir;
namespace cl = llvm::cl;

namespace {
enum class Emit { Mlir, Cuda, Ptx, Cudnn, Plan };

cl::OptionCategory category("tg-compile options");
cl::opt<std::string> inputFile(cl::Positional, cl::desc("<graph.mlir>"),
                               cl::init("-"), cl::cat(category));
cl::opt<std::string> outputFile("o", cl::desc("Output file (default stdout)"),
                                cl::value_desc("file"), cl::init("-"),
                                cl::cat(category));
cl::opt<Emit> emit(
    "emit", cl::desc("What to produce"), cl::init(Emit::Plan),
    cl::values(clEnumValN(Emit::Mlir, "mlir", "the graph after the compile "
                                              "pipeline (fused, backend "
                                              "chosen)"),
               clEnumValN(Emit::Cuda, "cuda", "the generated CUDA C++ of "
                                              "every kernel"),
               clEnumValN(Emit::Ptx, "ptx", "PTX of every kernel from NVRTC "
                                            "for --arch"),
               clEnumValN(Emit::Cudnn, "cudnn",
                          "the cuDNN operation graphs of every cuDNN step"),
               clEnumValN(Emit::Plan, "plan", "the serialised plan (default)")),
    cl::cat(category));
cl::opt<std::string> arch("arch",
                          cl::desc("Target, as NVRTC names them: sm_80, "
                                   "sm_90, sm_90a (wgmma), compute_80, ... "
                                   "(sm_80 or newer; default sm_90a)"),
                          cl::init(tgc::kDefaultTarget.name()),
                          cl::cat(category));
cl::opt<std::string> entry("entry",
                           cl::desc("Function to compile (default: the only "
                                    "one)"),
                           cl::cat(category));
cl::opt<std::string> backend(
    "backend", cl::desc("auto, nvrtc or cudnn (overrides TGC_BACKEND)"),
    cl::init(""), cl::cat(category));
cl::opt<bool> deterministic(
    "deterministic",
    cl::desc("Reproducible results run to run: the fused attention backward "
             "adds dQ in a fixed order (slower)"),
    cl::cat(category));
cl::opt<bool> fastMath(
    "fast-math",
    cl::desc("Score regions of the fused attention kernels use the GPU's "
             "approximate exp, log, tanh and sigmoid (tanh: relative error up "
             "to 2^-11; docs/kernels.md)"),
    cl::cat(category));
cl::opt<std::string> attentionTile(
    "attention-tile",
    cl::desc("The tile of every fused attention forward kernel, "
             "MxN:W[:smem|regs][:sK][:pK][:wg][:ws][:pp][:B] as "
             "tg-gen-attention --tile takes it (for tile sweeps; a :wg tile "
             "replaces the sm_90a variant's, any other the portable ones'; "
             "an unsuitable tile is an error)"),
    cl::init(""), cl::cat(category));
cl::opt<std::string> mixedMatmul(
    "mixed-matmul",
    cl::desc("auto, fused, dequant or generated: run mixed-input matmuls "
             "(16-bit x i8/fp8) as one fused cuDNN graph, as a dequantise "
             "kernel and a 16-bit matmul (auto: the measured faster, "
             "docs/cudnn.md), or on the generated NVRTC mixed-input "
             "kernel"),
    cl::init("auto"), cl::cat(category));
cl::opt<bool> explainBackend("explain-backend",
                             cl::desc("Report why each op got its backend"),
                             cl::init(false), cl::cat(category));
} // namespace

static void printKernels(const tgc::Plan &plan, llvm::raw_ostream &os) {
  for (const tgc::Kernel &kernel : plan.kernels) {
    os << "// ===== kernel " << kernel.id << ": " << kernel.entry << " ("
       << kernel.target.str() << ")\n";
    os << kernel.source;
    if (!kernel.source.empty() && kernel.source.back() != '\n')
      os << "\n";
  }
}

/// Each cuDNN step's graphs in their text form (docs/cudnn.md), and which
/// NVRTC kernel replaces them when cuDNN cannot run.
static void printCudnnGraphs(const tgc::Plan &plan, llvm::raw_ostream &os) {
  for (auto [index, step] : llvm::enumerate(plan.steps)) {
    const auto *cudnnStep = std::get_if<tgc::CudnnStep>(&step);
    if (!cudnnStep)
      continue;
    os << "// ===== step " << index << " (cudnn)";
    if (cudnnStep->fallback)
      os << ", fallback kernel " << cudnnStep->fallback->variants.back().kernel;
    else
      os << ", no fallback";
    os << "\n";
    for (const tgc::cudnn::Graph &graph : cudnnStep->graphs)
      os << tgc::cudnn::printGraph(graph);
  }
}

static LogicalResult printPtx(const tgc::Plan &plan,
                              const tgc::CompileTarget &target,
                              llvm::raw_ostream &os) {
  for (const tgc::Kernel &kernel : plan.kernels) {
    // PTX for the virtual arch of the requested target; an arch-specific
    // kernel (e.g. wgmma code) only for its own arch.
    tgc::CompileTarget ptx =
        kernel.target.kind == tgc::KernelTarget::Kind::ArchSpecific
            ? tgc::CompileTarget{tgc::BinaryKind::Ptx, kernel.target.arch, true}
            : target.virtualArch();
    tgc::Expected<tgc::CompiledKernel> compiled =
        tgc::compileKernel(kernel, ptx);
    if (!compiled.hasValue()) {
      llvm::errs() << "tg-compile: kernel " << kernel.id << ": "
                   << compiled.status().message() << "\n";
      return failure();
    }
    os << "// ===== kernel " << kernel.id << ": " << kernel.entry << " ("
       << compiled->targetName << ")\n";
    os << StringRef(compiled->image.c_str());
  }
  return success();
}

static int compileMain() {

  tgc::Expected<tgc::CompileTarget> target = tgc::parseTarget(arch);
  if (!target) {
    llvm::errs() << "tg-compile: --arch: " << target.status().message()
                 << "\n";
    return 1;
  }
  std::string backendChoice = backend;
  if (backendChoice.empty())
    if (const char *env = std::getenv("TGC_BACKEND"))
      backendChoice = env;

  DialectRegistry registry;
  tg::registerCompilerDialects(registry);
  MLIRContext context(registry);
  std::string error;
  auto input = tg::openGraphFile(inputFile, error);
  if (!input) {
    llvm::errs() << "tg-compile: " << error << "\n";
    return 1;
  }
  llvm::SourceMgr sourceMgr;
  sourceMgr.AddNewSourceBuffer(std::move(input), llvm::SMLoc());
  SourceMgrDiagnosticHandler diagnostics(sourceMgr, &context);
  OwningOpRef<ModuleOp> module = tg::parseGuarded(sourceMgr, &context);
  if (!module)
    return 1;

  tg::CompileSettings settings;
  settings.entry = entry;
  settings.target = *target;
  settings.backend = backendChoice.empty() ? "auto" : backendChoice;
  settings.explainBackend = explainBackend;
  settings.mixedMatmul = mixedMatmul;
  settings.deterministic = deterministic;
  settings.fastMath = fastMath;
  settings.attentionTile = attentionTile;
  auto output = openOutputFile(outputFile, &error);
  if (!output) {
    llvm::errs() << "tg-compile: " << error << "\n";
    return 1;
  }
  if (emit == Emit::Mlir) {
    if (failed(tg::runCompilePipeline(*module, settings)))
      return 1;
    module->print(output->os());
    output->keep();
    return 0;
  }
  FailureOr<tgc::Plan> plan = tg::compileModule(*module, settings);
  if (failed(plan))
    return 1;
  switch (emit) {
  case Emit::Cuda:
    printKernels(*plan, output->os());
    break;
  case Emit::Ptx:
    if (failed(printPtx(*plan, *target, output->os())))
      return 1;
    break;
  case Emit::Cudnn:
    printCudnnGraphs(*plan, output->os());
    break;
  case Emit::Plan:
    output->os() << tgc::serializePlan(*plan);
    break;
  case Emit::Mlir:
    break;
  }
  output->keep();
  return 0;
}

int main(int argc, char **argv) {
  llvm::InitLLVM init(argc, argv);
  registerAsmPrinterCLOptions();
  registerMLIRContextCLOptions();
  cl::HideUnrelatedOptions(category);
  tgc::tools::setToolVersionPrinter("tg-compile");
  cl::ParseCommandLineOptions(argc, argv, "tg-compile: tg graph -> plan\n");
  // The parser recurses on nesting: give it more stack than the main
  // thread has.
  int status = 1;
  tg::runOnLargeStack([&] { status = compileMain(); });
  return status;
}
