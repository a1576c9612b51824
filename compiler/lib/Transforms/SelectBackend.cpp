// tg-select-backend: record where each op that launches work will run.
#include "tg/Cudnn/CudnnLowering.h"
#include "tg/Dialect/TG/IR/TGOps.h"
#include "tg/Transforms/NvrtcSupport.h"
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

/// Where `auto` prefers cuDNN, from measurements on the H200 (docs/cudnn.md,
/// bench/results/): cuDNN's attention kernels are 1.1-1.5x faster than the
/// generated ones, and its matmuls far faster than the generic matmul
/// kernel. Reductions and softmax stay with the generated kernels, which
/// fuse them with their pointwise neighbours.
static const char *cudnnPreference(Operation *op) {
  if (isa<AttentionOp>(op))
    return "cuDNN attention measured 1.1-1.5x faster than the generated "
           "kernel on H200";
  if (isa<AttentionGradOp>(op))
    return "cuDNN's attention backward measured 560-610 TFLOP/s on H200 "
           "(hd 128, S >= 8k), faster than the generated mma.sync kernel";
  if (isa<MatmulOp, FusedMatmulOp>(op))
    return "cuDNN matmul is faster than the generic matmul kernel";
  return nullptr;
}

Choice choose(Operation *op, StringRef requested, bool deterministic) {
  // A backend written on the op by the user wins over the pass option.
  if (auto pinned = op->getAttrOfType<StringAttr>("tg.backend"))
    requested = pinned.getValue();
  if (deterministic && isa<AttentionGradOp>(op))
    return {"nvrtc", "deterministic: the fused NVRTC backward adds dQ in a "
                     "fixed order (tgc does not ask cuDNN for that)" +
                         std::string(requested == "cudnn"
                                         ? "; cudnn was requested"
                                         : "")};
  if (requested == "nvrtc")
    return {"nvrtc", "requested (nvrtc)"};
  std::string unsupported = cudnn::unsupportedReason(op);
  if (requested == "cudnn") {
    if (unsupported.empty())
      return {"cudnn", "requested (cudnn)"};
    return {"nvrtc", "cudnn was requested but " + unsupported + "; using nvrtc"};
  }
  if (!unsupported.empty())
    return {"nvrtc", "cuDNN cannot run it: " + unsupported};
  if (const char *why = cudnnPreference(op))
    return {"cudnn", why};
  return {"nvrtc", "the generated kernels fuse it with neighbouring ops"};
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
    WalkResult walk = getOperation().walk([&](Operation *op) {
      if (!isa<AttentionOp, AttentionGradOp, FusedMatmulOp, MatmulOp,
               SoftmaxOp, ReduceOp>(op))
        return WalkResult::advance();
      if (auto pinned = op->getAttrOfType<StringAttr>("tg.backend"))
        if (pinned.getValue() != "nvrtc" && pinned.getValue() != "cudnn") {
          op->emitOpError("has tg.backend = \"")
              << pinned.getValue() << "\"; expected \"nvrtc\" or \"cudnn\"";
          return WalkResult::interrupt();
        }
      Choice choice = choose(op, backend, deterministic);
      // On NVRTC, say which kernels: the fused ones or, for what they cannot
      // run, the expansion into generic kernels (tg-expand-attention).
      std::string unsupported;
      if (auto attention = dyn_cast<AttentionOp>(op))
        unsupported = nvrtcAttentionUnsupportedReason(attention);
      else if (auto grad = dyn_cast<AttentionGradOp>(op))
        unsupported = nvrtcAttentionGradUnsupportedReason(grad);
      if (choice.backend == "nvrtc" && isa<AttentionOp, AttentionGradOp>(op))
        choice.reason += unsupported.empty()
                             ? "; fused kernel"
                             : "; expanded into generic kernels (" +
                                   unsupported + ")";
      op->setAttr("tg.backend", builder.getStringAttr(choice.backend));
      if (explain)
        op->emitRemark("backend ") << choice.backend << ": " << choice.reason;
      return WalkResult::advance();
    });
    if (walk.wasInterrupted())
      signalPassFailure();
  }
};
} // namespace
