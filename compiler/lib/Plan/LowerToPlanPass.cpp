// tg-lower-to-plan: the plan lowering as a pass, for tg-opt pipelines.
#include "tg/Plan/LowerToPlan.h"
#include "tg/Plan/Passes.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/Support/FileUtilities.h"
#include "llvm/Support/ToolOutputFile.h"

namespace mlir::tg {
#define GEN_PASS_DEF_LOWERTOPLAN
#include "tg/Plan/Passes.h.inc"
} // namespace mlir::tg

using namespace mlir;

namespace {
struct LowerToPlanPass : tg::impl::LowerToPlanBase<LowerToPlanPass> {
  using LowerToPlanBase::LowerToPlanBase;
  void runOnOperation() override {
    tg::PlanOptions options;
    if (!target.empty()) {
      tgc::Expected<tgc::CompileTarget> parsed = tgc::parseTarget(target);
      if (!parsed) {
        getOperation().emitError("tg-lower-to-plan: ")
            << parsed.status().message();
        return signalPassFailure();
      }
      options.target = *parsed;
    }
    // Every function is lowered (so that all errors are reported) before
    // anything is written; the text is written once, in module order.
    std::string text;
    bool failedAny = false;
    for (auto fn : getOperation().getOps<func::FuncOp>()) {
      if (fn.isDeclaration())
        continue;
      FailureOr<tgc::Plan> plan = tg::lowerToPlan(fn, options);
      if (failed(plan)) {
        failedAny = true;
        continue;
      }
      text += tgc::serializePlan(*plan);
    }
    if (failedAny)
      return signalPassFailure();
    std::string error;
    auto file = openOutputFile(output, &error);
    if (!file) {
      getOperation().emitError("cannot write the plan: ") << error;
      return signalPassFailure();
    }
    file->os() << text;
    file->keep();
  }
};
} // namespace
