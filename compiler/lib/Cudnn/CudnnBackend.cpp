// The cuDNN backend behind tg/Backend/Backend.h (tg/Cudnn/CudnnLowering.h).
#include "tg/Cudnn/CudnnLowering.h"
#include "tg/Lowering/KernelStep.h"

using namespace mlir;
using namespace mlir::tg;

namespace {
class CudnnBackend final : public BackendInterface {
public:
  Backend kind() const override { return Backend::cudnn; }

  std::string unsupportedReason(Operation *op) const override {
    return cudnn::unsupportedReason(op);
  }

  /// One tgc::CudnnStep with the op's graphs (tried in order at run time),
  /// their tensors bound to the plan's buffers, after the memsets of the
  /// results cuDNN leaves partly unwritten. The step's NVRTC kernel, when
  /// it has one, is the step's fallback (what TGC_BACKEND=nvrtc runs).
  LogicalResult lower(const KernelStep &step, PlanSteps &plan) const override {
    FailureOr<cudnn::Lowering> lowering = cudnn::lower(
        step.op, [&](Value v) { return plan.stridesOf(v); });
    if (failed(lowering))
      return failure();
    for (Value value : lowering->zeroFirst) {
      FailureOr<std::string> name = plan.bufferFor(value);
      if (failed(name))
        return failure();
      plan.add(tgc::MemsetStep{*name, 0});
    }
    tgc::CudnnStep cudnnStep;
    for (cudnn::GraphBuilder &builder : lowering->graphs) {
      tgc::cudnn::Graph graph = builder.graph();
      auto setBuffer = [&](int64_t uid, const std::string &name) {
        for (tgc::cudnn::Tensor &t : graph.tensors)
          if (t.uid == uid)
            t.buffer = name;
      };
      for (auto [uid, value] : builder.bindings()) {
        FailureOr<std::string> name = plan.bufferFor(value);
        if (failed(name))
          return failure();
        setBuffer(uid, *name);
      }
      for (const cudnn::ScratchTensor &scratch : builder.scratchTensors())
        setBuffer(scratch.uid, plan.scratchBuffer(scratch.dtype, scratch.shape));
      cudnnStep.graphs.push_back(std::move(graph));
    }
    if (!step.source.empty()) {
      FailureOr<tgc::LaunchStep> launch = plan.launchOf(step);
      if (failed(launch))
        return failure();
      cudnnStep.fallback = std::move(*launch);
    }
    plan.add(std::move(cudnnStep));
    return success();
  }
};
} // namespace

const BackendInterface &cudnn::backend() {
  static const CudnnBackend backend;
  return backend;
}
