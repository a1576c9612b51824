#include "Harnesses.h"

#include "tg/Driver/Compile.h"
#include "tg/Driver/ParserGuard.h"
#include "tg/Plan/LowerToPlan.h"

#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Pass/PassManager.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/SourceMgr.h"

#include <memory>

using namespace mlir;

namespace {
/// One context for many inputs (a fresh one per input would be most of the
/// time), replaced now and then so that uniqued types and attributes do not
/// pile up.
MLIRContext &context() {
  static std::unique_ptr<MLIRContext> shared;
  static unsigned uses = 0;
  if (!shared || ++uses % 512 == 0) {
    DialectRegistry registry;
    tg::registerCompilerDialects(registry);
    shared = std::make_unique<MLIRContext>(registry,
                                           MLIRContext::Threading::DISABLED);
    shared->loadAllAvailableDialects();
  }
  return *shared;
}
} // namespace

int tgc::fuzz::compileText(const uint8_t *data, size_t size) {
  MLIRContext &ctx = context();
  // Diagnostics are expected; one that says "a tgc bug" is a finding.
  bool bug = false;
  ScopedDiagnosticHandler handler(&ctx, [&](Diagnostic &diag) {
    if (diag.str().find("a tgc bug") != std::string::npos)
      bug = true;
    return success();
  });
  llvm::SourceMgr sourceMgr;
  sourceMgr.AddNewSourceBuffer(
      llvm::MemoryBuffer::getMemBufferCopy(
          llvm::StringRef(reinterpret_cast<const char *>(data), size), "fuzz"),
      llvm::SMLoc());
  OwningOpRef<ModuleOp> module = tg::parseGuarded(sourceMgr, &ctx);
  if (!module)
    return 0;
  // The backend choice changes the pipeline (fused backward, cuDNN steps).
  const char *backends[] = {"auto", "nvrtc", "cudnn"};
  PassManager pm(&ctx);
  tg::buildCompilePipeline(pm, backends[size % 3]);
  if (failed(pm.run(*module))) {
    require(!bug, "the compile pipeline reported a tgc bug");
    return 0;
  }
  tg::PlanOptions options;
  options.target = size % 2 ? *tgc::parseTarget("sm_80") : tgc::kDefaultTarget;
  for (auto fn : module->getOps<func::FuncOp>()) {
    if (fn.isDeclaration())
      continue;
    FailureOr<tgc::Plan> plan = tg::lowerToPlan(fn, options);
    require(!bug, "the plan lowering reported a tgc bug");
    if (failed(plan))
      continue;
    std::string text = tgc::serializePlan(*plan);
    tgc::Expected<tgc::Plan> back = tgc::parsePlan(text, "compiled");
    require(back.hasValue(), "a compiled plan does not load back");
    require(tgc::serializePlan(*back) == text,
            "a compiled plan does not serialise to the same text");
  }
  return 0;
}
