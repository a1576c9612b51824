// The NVRTC backend behind tg/Backend/Backend.h: the generated kernels.
#include "tg/Lowering/KernelStep.h"
#include "tg/Transforms/NvrtcSupport.h"

using namespace mlir;
using namespace mlir::tg;

namespace {
class NvrtcBackend final : public BackendInterface {
public:
  Backend kind() const override { return Backend::nvrtc; }

  std::string unsupportedReason(Operation *op) const override {
    if (auto attention = dyn_cast<AttentionOp>(op))
      return nvrtcAttentionUnsupportedReason(attention);
    if (auto grad = dyn_cast<AttentionGradOp>(op))
      return nvrtcAttentionGradUnsupportedReason(grad);
    return "";
  }

  /// The buffers the kernel adds into are set to zero first, then the
  /// launch (its variants for particular devices first).
  LogicalResult lower(const KernelStep &step, PlanSteps &plan) const override {
    if (step.source.empty())
      return emitError(step.op ? step.op->getLoc() : plan.location())
             << "'" << step.name
             << "' has no NVRTC kernel and is not assigned to cuDNN";
    for (const KernelArg &arg : step.zeroFirst) {
      FailureOr<std::string> name = plan.bufferFor(arg);
      if (failed(name))
        return failure();
      plan.add(tgc::MemsetStep{*name, 0});
    }
    FailureOr<tgc::LaunchStep> launch = plan.launchOf(step);
    if (failed(launch))
      return failure();
    plan.add(std::move(*launch));
    return success();
  }
};
} // namespace

const BackendInterface &mlir::tg::nvrtcBackend() {
  static const NvrtcBackend backend;
  return backend;
}
