// tgc::Compiler and the C API's compile entry points: parse a tg graph, run
// the compile pipeline, lower the entry function to a Plan.
#include "tg/Driver/Compile.h"

#include "tg/Dialect/TG/IR/TGDialect.h"
#include "tg/Driver/ParserGuard.h"
#include "tg/Plan/LowerToPlan.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Pass/PassManager.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/raw_ostream.h"

using namespace mlir;

void tg::registerCompilerDialects(DialectRegistry &registry) {
  registry.insert<TGDialect, func::FuncDialect>();
  registerBackends(registry);
}

FailureOr<func::FuncOp> tg::findEntry(ModuleOp module, StringRef entry) {
  func::FuncOp found;
  for (auto fn : module.getOps<func::FuncOp>()) {
    if (fn.isDeclaration())
      continue;
    if (!entry.empty() ? fn.getSymName() == entry : !found) {
      found = fn;
      if (!entry.empty())
        break;
      continue;
    }
    if (entry.empty())
      return module.emitError("the module has several functions; choose one "
                              "with --entry=NAME (found '")
             << found.getSymName() << "' and '" << fn.getSymName() << "')";
  }
  if (!found)
    return module.emitError(entry.empty()
                                ? "the module has no function to compile"
                                : "no function named '")
           << entry << (entry.empty() ? "" : "'");
  return found;
}

LogicalResult tg::runCompilePipeline(ModuleOp module,
                                    const CompileSettings &settings) {
  PassManager pm(module.getContext());
  buildCompilePipeline(pm, settings.backend, settings.explainBackend,
                       settings.fusionNumerics, settings.deterministic,
                       settings.mixedMatmul, settings.target.name());
  return pm.run(module);
}

namespace {
/// A graph argument's or result's memory layout as the user declared it.
struct DeclaredLayout {
  SmallVector<int64_t> shape, strides;
};

SmallVector<DeclaredLayout> declaredLayouts(func::FuncOp fn) {
  SmallVector<DeclaredLayout> layouts;
  for (unsigned i = 0; i < fn.getNumArguments(); ++i)
    layouts.push_back(
        {SmallVector<int64_t>(
             cast<RankedTensorType>(fn.getArgumentTypes()[i]).getShape()),
         tg::argumentStrides(fn, i)});
  for (unsigned i = 0; i < fn.getNumResults(); ++i)
    layouts.push_back(
        {SmallVector<int64_t>(
             cast<RankedTensorType>(fn.getResultTypes()[i]).getShape()),
         tg::resultStrides(fn, i)});
  return layouts;
}

/// Fusion may describe an argument's or result's bytes with another logical
/// shape (layout ops folded into tg.strides). The plan's bound buffers keep
/// the layouts the user declared, so that bindings are checked against what
/// the user wrote; the bytes are the same, which is checked here.
LogicalResult restoreDeclaredLayouts(func::FuncOp fn, tgc::Plan &plan,
                                     ArrayRef<DeclaredLayout> declared) {
  unsigned index = 0;
  for (tgc::Buffer &buffer : plan.buffers) {
    if (buffer.role == tgc::BufferRole::Intermediate)
      continue;
    if (index >= declared.size())
      return fn.emitOpError("the plan has more bound buffers than the graph "
                            "(a tgc bug)");
    tgc::Buffer original = buffer;
    original.shape.assign(declared[index].shape.begin(),
                          declared[index].shape.end());
    original.strides.assign(declared[index].strides.begin(),
                            declared[index].strides.end());
    if (original.byteSpan() != buffer.byteSpan())
      return fn.emitOpError("buffer '")
             << buffer.name << "' spans " << buffer.byteSpan()
             << " bytes after compilation but " << original.byteSpan()
             << " as declared (a tgc bug)";
    buffer = original;
    ++index;
  }
  return success();
}
} // namespace

FailureOr<tgc::Plan> tg::compileModule(
    ModuleOp module, const CompileSettings &settings,
    llvm::function_ref<LogicalResult(func::FuncOp)> afterPipeline) {
  FailureOr<func::FuncOp> fn = findEntry(module, settings.entry);
  if (failed(fn))
    return failure();
  SmallVector<DeclaredLayout> declared = declaredLayouts(*fn);
  if (failed(runCompilePipeline(module, settings)))
    return failure();
  if (afterPipeline && failed(afterPipeline(*fn)))
    return failure();
  PlanOptions options;
  options.target = settings.target;
  options.deterministic = settings.deterministic;
  options.fastMath = settings.fastMath;
  options.attentionTile = settings.attentionTile;
  FailureOr<tgc::Plan> plan = lowerToPlan(*fn, options);
  if (failed(plan) || failed(restoreDeclaredLayouts(*fn, *plan, declared)))
    return failure();
  return plan;
}

namespace {
/// Collects diagnostics as text ("file:line:col: error: ...").
struct DiagnosticCollector {
  explicit DiagnosticCollector(MLIRContext &context)
      : handler(&context, [this](Diagnostic &diag) {
          llvm::raw_string_ostream os(text);
          // "file:line:col", as the tools print it, where there is one.
          if (auto file = diag.getLocation()->findInstanceOf<FileLineColLoc>())
            os << file.getFilename().getValue() << ":" << file.getLine() << ":"
               << file.getColumn() << ": ";
          else
            os << diag.getLocation() << ": ";
          os
             << (diag.getSeverity() == DiagnosticSeverity::Error ? "error: "
                                                                 : "note: ")
             << diag << "\n";
          return success();
        }) {}
  std::string text;
  ScopedDiagnosticHandler handler;
};
} // namespace

static tgc::Expected<tgc::Plan>
compileBuffer(std::unique_ptr<llvm::MemoryBuffer> buffer,
              const tgc::CompileOptions &options) {
  tg::CompileSettings settings;
  for (const std::string &opt : options.extra) {
    StringRef text(opt);
    if (text.consume_front("--entry="))
      settings.entry = text.str();
    else if (text.consume_front("--backend="))
      settings.backend = text.str();
    else if (text == "--deterministic")
      settings.deterministic = true;
    else if (text == "--fast-math")
      settings.fastMath = true;
    else if (text.consume_front("--mixed-matmul="))
      settings.mixedMatmul = text.str();
    else if (text.consume_front("--attention-tile="))
      settings.attentionTile = text.str();
    else
      return tgc::Status(tgc::StatusCode::InvalidArgument,
                         "unknown compile option '" + opt +
                             "' (expected --arch=TARGET, --entry=NAME, --backend=NAME, "
                             "--mixed-matmul=PLAN, --attention-tile=TILE, --deterministic or "
                             "--fast-math)");
  }
  // Empty: the default target (tgc.hpp documents it).
  if (!options.arch.empty()) {
    tgc::Expected<tgc::CompileTarget> target = tgc::parseTarget(options.arch);
    if (!target)
      return target.status();
    settings.target = *target;
  }
  // On a thread of its own: the parser recurses on nesting, and the
  // caller's stack may be small.
  tgc::Expected<tgc::Plan> result =
      tgc::Status(tgc::StatusCode::Internal, "the compile did not run");
  tg::runOnLargeStack([&] {
    DialectRegistry registry;
    tg::registerCompilerDialects(registry);
    MLIRContext context(registry);
    context.disableMultithreading();
    DiagnosticCollector diagnostics(context);
    llvm::SourceMgr sourceMgr;
    sourceMgr.AddNewSourceBuffer(std::move(buffer), llvm::SMLoc());
    OwningOpRef<ModuleOp> module = tg::parseGuarded(sourceMgr, &context);
    FailureOr<tgc::Plan> plan = failure();
    if (module)
      plan = tg::compileModule(*module, settings);
    if (failed(plan))
      result = tgc::Status(tgc::StatusCode::CompileError, diagnostics.text);
    else
      result = std::move(*plan);
  });
  return result;
}

tgc::Compiler::Compiler(CompileOptions options) : options_(std::move(options)) {}

tgc::Expected<tgc::Plan>
tgc::Compiler::compileFile(const std::string &path) const {
  std::string error;
  std::unique_ptr<llvm::MemoryBuffer> buffer = mlir::tg::openGraphFile(path, error);
  if (!buffer)
    return Status(StatusCode::IoError, error);
  return compileBuffer(std::move(buffer), options_);
}

tgc::Expected<tgc::Plan>
tgc::Compiler::compileString(const std::string &mlir,
                             const std::string &bufferName) const {
  return compileBuffer(llvm::MemoryBuffer::getMemBufferCopy(mlir, bufferName),
                       options_);
}
