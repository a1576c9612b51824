// tg-select-backend: record where each op that launches work will run.
#include "tg/Dialect/TG/IR/TGOps.h"
#include "tg/Transforms/Passes.h"

namespace mlir::tg {
#define GEN_PASS_DEF_SELECTBACKEND
#include "tg/Transforms/Passes.h.inc"
} // namespace mlir::tg

using namespace mlir;
using namespace mlir::tg;

namespace {
struct Choice {
  StringRef backend;
  std::string reason;
};

/// The cuDNN lowering does not exist yet, so every op goes to NVRTC; the
/// request for cuDNN is honoured by saying why it cannot be.
Choice choose(Operation *op, StringRef requested) {
  if (requested == "nvrtc")
    return {"nvrtc", "requested (backend=nvrtc)"};
  std::string why = "the cuDNN backend is not available in this build";
  if (requested == "cudnn")
    return {"nvrtc", "cudnn was requested but " + why + "; using nvrtc"};
  return {"nvrtc", "nvrtc runs every op; " + why};
}

struct SelectBackendPass : tg::impl::SelectBackendBase<SelectBackendPass> {
  using SelectBackendBase::SelectBackendBase;

  void runOnOperation() override {
    if (backend != "auto" && backend != "nvrtc" && backend != "cudnn") {
      getOperation().emitError("unknown backend '")
          << backend << "' (expected auto, nvrtc or cudnn)";
      return signalPassFailure();
    }
    Builder builder(&getContext());
    getOperation().walk([&](Operation *op) {
      if (!isa<AttentionOp, FusedMatmulOp, MatmulOp, SoftmaxOp, ReduceOp>(op))
        return;
      Choice choice = choose(op, backend);
      op->setAttr("tg.backend", builder.getStringAttr(choice.backend));
      if (explain)
        op->emitRemark("backend ") << choice.backend << ": " << choice.reason;
    });
  }
};
} // namespace
