// tg-run: executes a tg graph and summarises its outputs.
//
//   tg-run --ref graph.mlir [--entry=f] [--seed=N] [--input q=q.npy ...]
//          [--output-dir=DIR] [--save-inputs=DIR] [--print-values]
//
// --ref runs the CPU reference interpreter (float64, see docs/reference.md).
// Without --ref the graph is compiled and run on the first GPU; --check
// compares every output with the reference, --bench=N times N runs.
// Inputs are seeded random values unless given as .npy files by name
// (`tg.name` of the argument, else arg0, arg1, ...). Every failure is a
// diagnostic and a non-zero exit status.
#include "CompiledReference.h"
#include "GpuRun.h"
#include "Summary.h"

#include "tg/Dialect/TG/IR/TGDialect.h"
#include "tg/Driver/Compile.h"
#include "tg/Driver/ParserGuard.h"
#include "tg/Reference/Interpreter.h"
#include "tg/Reference/Npy.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Support/FileUtilities.h"

#include "llvm/ADT/StringMap.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/InitLLVM.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/WithColor.h"
#include "ToolVersion.h"

using namespace mlir;
using namespace mlir::tg;
namespace cl = llvm::cl;

namespace {
cl::OptionCategory category("tg-run options");

cl::opt<std::string> graphFile(cl::Positional, cl::desc("<graph.mlir>"),
                               cl::init("-"), cl::cat(category));
cl::opt<bool> checkMode(
    "check", cl::desc("GPU mode: compare every output with the CPU reference "
                      "(float64) within per-dtype tolerances; exit 1 on a "
                      "mismatch"),
    cl::init(false), cl::cat(category));
cl::opt<int> benchRuns("bench",
                       cl::desc("GPU mode: time this many runs (after 3 "
                                "warm-up runs); print the median and TFLOP/s"),
                       cl::init(0), cl::cat(category));
cl::opt<std::string> backendName(
    "backend", cl::desc("GPU mode: auto, nvrtc or cudnn (default: "
                        "TGC_BACKEND, else auto)"),
    cl::init(""), cl::cat(category));
cl::opt<std::string> mixedMatmulPlan(
    "mixed-matmul",
    cl::desc("GPU mode: auto, fused or dequant, the plan of mixed-input "
             "matmuls (tg-compile --mixed-matmul)"),
    cl::init(""), cl::cat(category));
cl::opt<bool> deterministicMode(
    "deterministic",
    cl::desc("GPU mode: compile with tg-compile --deterministic (the fused "
             "attention backward adds dQ in a fixed order)"),
    cl::init(false), cl::cat(category));
cl::opt<int> repeatRuns(
    "repeat",
    cl::desc("GPU mode: run the plan this many more times (outputs poisoned "
             "before each) and exit 1 unless every output is bitwise "
             "identical to the first run's (with --deterministic)"),
    cl::init(0), cl::cat(category));
cl::opt<bool> printPlan("print-plan",
                        cl::desc("GPU mode: print the compiled plan"),
                        cl::init(false), cl::cat(category));
cl::opt<bool> refMode("ref",
                      cl::desc("Run on the CPU reference interpreter"),
                      cl::cat(category));
cl::opt<bool> compiledMode(
    "compiled",
    cl::desc("With --ref: run the reference on the graph after the compile "
             "pipeline (fusion; what the kernels compute) and report each "
             "output's deviation from the graph as written"),
    cl::cat(category));
cl::opt<std::string> entryName(
    "entry", cl::desc("Function to run (default: the only function)"),
    cl::value_desc("name"), cl::cat(category));
cl::opt<uint64_t> seed("seed", cl::desc("Seed of the random inputs"),
                       cl::init(0), cl::cat(category));
cl::opt<double> stddev("stddev",
                       cl::desc("Standard deviation of random float inputs"),
                       cl::init(1.0), cl::cat(category));
cl::list<std::string> inputFiles(
    "input", cl::desc("Give an input as a .npy file: name=file.npy"),
    cl::value_desc("name=file.npy"), cl::cat(category));
cl::opt<std::string> outputDir(
    "output-dir", cl::desc("Write each output as DIR/<name>.npy"),
    cl::value_desc("DIR"), cl::cat(category));
cl::opt<std::string> saveInputsDir(
    "save-inputs", cl::desc("Write the inputs used as DIR/<name>.npy"),
    cl::value_desc("DIR"), cl::cat(category));
cl::opt<bool> printValues(
    "print-values", cl::desc("Print the values of small tensors"),
    cl::cat(category));
cl::opt<int64_t> printLimit(
    "print-limit",
    cl::desc("Largest tensor whose values --print-values prints"),
    cl::init(256), cl::cat(category));
cl::opt<int> printPrecision("print-precision",
                            cl::desc("Significant digits in printed numbers"),
                            cl::init(6), cl::cat(category));

int fail(const llvm::Twine &message) {
  llvm::WithColor::error(llvm::errs(), "tg-run") << message << "\n";
  return 1;
}

/// The function to run: --entry, else the module's only function with a
/// body. Reports an error and returns null otherwise.
func::FuncOp selectEntry(ModuleOp module) {
  if (!entryName.empty()) {
    auto fn = module.lookupSymbol<func::FuncOp>(entryName);
    if (!fn)
      fail("no function named '" + entryName + "' in '" + graphFile + "'");
    return fn;
  }
  SmallVector<func::FuncOp> candidates;
  for (auto fn : module.getOps<func::FuncOp>())
    if (!fn.isExternal())
      candidates.push_back(fn);
  if (candidates.size() == 1)
    return candidates.front();
  if (candidates.empty())
    fail("'" + graphFile + "' has no function to run");
  else
    fail("'" + graphFile + "' has " + llvm::Twine(candidates.size()) +
         " functions; choose one with --entry=<name>");
  return nullptr;
}

/// Random inputs, with those given by --input replaced.
FailureOr<SmallVector<ref::HostTensor>> prepareInputs(func::FuncOp fn) {
  ref::RandomInputOptions options;
  options.seed = seed;
  options.stddev = stddev;
  SmallVector<ref::HostTensor> inputs = ref::makeRandomInputs(fn, options);
  llvm::StringMap<unsigned> byName;
  for (unsigned i = 0; i < fn.getNumArguments(); ++i)
    byName[ref::argumentName(fn, i)] = i;
  llvm::StringMap<bool> given;
  for (const std::string &spec : inputFiles) {
    auto [name, path] = llvm::StringRef(spec).split('=');
    if (name.empty() || path.empty()) {
      fail("--input expects name=file.npy, got '" + spec + "'");
      return failure();
    }
    auto it = byName.find(name);
    if (it == byName.end()) {
      std::string names;
      for (unsigned i = 0; i < fn.getNumArguments(); ++i)
        names += (i ? ", " : "") + ref::argumentName(fn, i);
      fail("--input names '" + name + "', which is not an argument of '" +
           fn.getName() + "' (arguments: " + names + ")");
      return failure();
    }
    if (!given.insert({name, true}).second) {
      fail("input '" + name + "' is given twice");
      return failure();
    }
    llvm::Expected<ref::NpyArray> array = ref::readNpy(path);
    if (!array) {
      fail("input '" + name + "': " + llvm::toString(array.takeError()));
      return failure();
    }
    auto type = cast<RankedTensorType>(fn.getArgument(it->second).getType());
    llvm::Expected<ref::HostTensor> tensor = ref::npyToTensor(*array, type);
    if (!tensor) {
      fail("input '" + name + "' ('" + path +
           "'): " + llvm::toString(tensor.takeError()));
      return failure();
    }
    inputs[it->second] = std::move(*tensor);
  }
  return inputs;
}

/// Writes `tensors` as DIR/<name>.npy; `names` gives the file names.
LogicalResult writeAll(llvm::StringRef dir, ArrayRef<ref::HostTensor> tensors,
                       function_ref<std::string(unsigned)> names) {
  if (std::error_code ec = llvm::sys::fs::create_directories(dir)) {
    fail("cannot create '" + dir + "': " + ec.message());
    return failure();
  }
  for (auto [i, tensor] : llvm::enumerate(tensors)) {
    llvm::SmallString<128> path(dir);
    llvm::sys::path::append(path, names(i) + ".npy");
    if (llvm::Error error = ref::writeNpy(path, tensor)) {
      fail(llvm::toString(std::move(error)));
      return failure();
    }
  }
  return success();
}

/// What each element type is stored as in .npy when numpy lacks it.
void noteStorage(llvm::raw_ostream &os, ArrayRef<ref::HostTensor> tensors) {
  llvm::StringMap<bool> noted;
  for (const ref::HostTensor &t : tensors) {
    std::string name = ref::elementTypeName(t.elementType);
    bool exotic = t.elementType.isBF16() ||
                  isa<Float8E4M3FNType, Float8E5M2Type>(t.elementType);
    if (exotic && noted.insert({name, true}).second)
      os << "note: " << name
         << " tensors are stored as float32 in .npy (numpy has no " << name
         << "; the values are exact)\n";
  }
}

/// --ref: the CPU reference interpreter.
int runReference(func::FuncOp fn) {
  FailureOr<SmallVector<ref::HostTensor>> inputs = prepareInputs(fn);
  if (failed(inputs))
    return 1;
  if (!saveInputsDir.empty() &&
      failed(writeAll(saveInputsDir, *inputs, [&](unsigned i) {
        return ref::argumentName(fn, i);
      })))
    return 1;
  FailureOr<SmallVector<ref::HostTensor>> outputs =
      ref::interpret(fn, *inputs);
  if (failed(outputs))
    return 1; // the interpreter has emitted a located diagnostic
  // --compiled: the reference of the compiled graph; the one of the graph as
  // written only for the deviation lines.
  SmallVector<ref::HostTensor> asWritten;
  if (compiledMode) {
    OwningOpRef<ModuleOp> compiled = fn->getParentOfType<ModuleOp>().clone();
    CompileSettings settings;
    settings.entry = fn.getName().str();
    settings.fusionNumerics = true;
    FailureOr<func::FuncOp> entry = findEntry(*compiled, settings.entry);
    if (failed(entry) || failed(runCompilePipeline(*compiled, settings)))
      return 1;
    FailureOr<SmallVector<ref::HostTensor>> fused =
        run::interpretCompiled(fn, *entry, *inputs);
    if (failed(fused))
      return 1;
    asWritten = std::move(*outputs);
    *outputs = std::move(*fused);
  }
  run::SummaryOptions summary;
  summary.printValues = printValues;
  summary.maxValues = printLimit;
  summary.precision = printPrecision;
  llvm::raw_ostream &os = llvm::outs();
  os << "tg-run: @" << fn.getName()
     << " on the CPU reference (float64), seed " << seed << "\n";
  for (auto [i, input] : llvm::enumerate(*inputs))
    run::printSummary(os, "input", ref::argumentName(fn, i), input, summary);
  for (auto [i, output] : llvm::enumerate(*outputs))
    run::printSummary(os, "output", ref::resultName(fn, i), output, summary);
  for (auto [i, written] : llvm::enumerate(asWritten)) {
    auto [atol, rtol] = run::resultTolerances(fn, i);
    ref::Comparison cmp = ref::compare((*outputs)[i], written, atol, rtol);
    os << "as-written " << ref::resultName(fn, i) << ": max_abs "
       << cmp.maxAbsError << " max_rel " << cmp.maxRelError << " mismatches "
       << cmp.mismatches << "/" << written.numElements() << " (atol " << atol
       << ", rtol " << rtol << ")\n";
  }
  if (!outputDir.empty()) {
    if (failed(writeAll(outputDir, *outputs, [&](unsigned i) {
          return ref::resultName(fn, i);
        })))
      return 1;
    noteStorage(os, *outputs);
  }
  return 0;
}
/// The GPU mode: the same inputs as --ref would use, run on the GPU.
/// --save-inputs and --output-dir write .npy files as in --ref (the outputs
/// are the GPU's, written even when --check fails, so they can be compared
/// with a reference of one's own).
int runGpu(ModuleOp module, func::FuncOp fn) {
  FailureOr<SmallVector<ref::HostTensor>> inputs = prepareInputs(fn);
  if (failed(inputs))
    return 1;
  if (!saveInputsDir.empty() &&
      failed(writeAll(saveInputsDir, *inputs, [&](unsigned i) {
        return ref::argumentName(fn, i);
      })))
    return 1;
  run::GpuRunOptions options;
  options.check = checkMode;
  options.benchRuns = benchRuns;
  options.printPlan = printPlan;
  options.deterministic = deterministicMode;
  options.repeats = repeatRuns;
  options.backend = backendName;
  options.mixedMatmul = mixedMatmulPlan;
  if (options.backend.empty())
    if (const char *env = std::getenv("TGC_BACKEND"))
      options.backend = env;
  run::SummaryOptions summary;
  summary.printValues = printValues;
  summary.maxValues = printLimit;
  summary.precision = printPrecision;
  SmallVector<ref::HostTensor> outputs;
  int status = run::runOnGpu(module, fn, *inputs, options,
                             [&](StringRef role, StringRef name,
                                 const ref::HostTensor &tensor) {
                               run::printSummary(llvm::outs(), role, name,
                                                 tensor, summary);
                               if (role == "output")
                                 outputs.push_back(tensor);
                             });
  if (!outputDir.empty() && !outputs.empty()) {
    // runOnGpu reports the outputs in the function's result order.
    if (outputs.size() != fn.getNumResults())
      return fail("the GPU run reported " + llvm::Twine(outputs.size()) +
                  " outputs for " + llvm::Twine(fn.getNumResults()) +
                  " results (a tgc bug)");
    if (failed(writeAll(outputDir, outputs, [&](unsigned i) {
          return ref::resultName(fn, i);
        })))
      return 1;
    noteStorage(llvm::outs(), outputs);
  }
  return status;
}
} // namespace

static int runMain() {
  // An option given where it has no effect is an error, not silence.
  if (compiledMode && !refMode)
    return fail("--compiled applies to the reference mode (--ref); the GPU "
                "mode's --check always compares with the compiled graph");
  if (refMode) {
    for (auto [given, flag] :
         {std::pair{bool(checkMode), "--check"}, {benchRuns > 0, "--bench"},
          {!backendName.empty(), "--backend"}, {bool(printPlan), "--print-plan"},
          {!mixedMatmulPlan.empty(), "--mixed-matmul"},
          {repeatRuns > 0, "--repeat"}, {bool(deterministicMode), "--deterministic"}})
      if (given)
        return fail(llvm::Twine(flag) +
                    " applies to the GPU mode (leave out --ref)");
  }
  if (benchRuns < 0)
    return fail("--bench expects a positive number of runs, got " +
                llvm::Twine(benchRuns.getValue()));
  if (repeatRuns < 0)
    return fail("--repeat expects a non-negative number of runs, got " +
                llvm::Twine(repeatRuns.getValue()));

  DialectRegistry registry;
  tg::registerCompilerDialects(registry);
  MLIRContext context(registry);
  context.loadAllAvailableDialects();

  std::string error;
  auto file = openGraphFile(graphFile, error);
  if (!file)
    return fail(error);
  llvm::SourceMgr sourceMgr;
  sourceMgr.AddNewSourceBuffer(std::move(file), llvm::SMLoc());
  SourceMgrDiagnosticHandler diagnostics(sourceMgr, &context);
  OwningOpRef<ModuleOp> module = parseGuarded(sourceMgr, &context);
  if (!module)
    return 1; // the parser or verifier has reported where and why
  func::FuncOp fn = selectEntry(*module);
  if (!fn)
    return 1;
  // Both modes hold the inputs (and --check the reference's outputs) on the
  // host.
  if (failed(ref::checkInterpretable(fn)))
    return 1;
  if (refMode)
    return runReference(fn);
  return runGpu(*module, fn);
}

int main(int argc, char **argv) {
  llvm::InitLLVM init(argc, argv);
  cl::HideUnrelatedOptions(category);
  tgc::tools::setToolVersionPrinter("tg-run");
  cl::ParseCommandLineOptions(argc, argv, "tg-run: run a tg graph\n");
  // The parser recurses on nesting: give it more stack than the main
  // thread has.
  int status = 1;
  runOnLargeStack([&] { status = runMain(); });
  return status;
}
