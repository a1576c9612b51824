// tg-lower-to-plan: the plan lowering as a pass, for tg-opt pipelines.
#include "tg/Plan/LowerToPlan.h"
#include "tg/Plan/Passes.h"

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
    options.targetSm = targetSm;
    FailureOr<tgc::Plan> plan = tg::lowerToPlan(getOperation(), options);
    if (failed(plan))
      return signalPassFailure();
    std::string error;
    auto file = openOutputFile(output, &error);
    if (!file) {
      getOperation().emitError("cannot write the plan: ") << error;
      return signalPassFailure();
    }
    file->os() << tgc::serializePlan(*plan);
    file->keep();
  }
};
} // namespace
