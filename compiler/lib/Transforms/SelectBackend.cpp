// tg-select-backend: record where each op that launches work will run.
#include "tg/Backend/Backend.h"
#include "tg/Dialect/TG/IR/TGOps.h"
#include "tg/Transforms/DecodeBackendTable.h"
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
  Backend backend;
  std::string reason;
};
} // namespace

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

/// `requested`: the pass option's backend, none for auto.
static Choice choose(Operation *op, std::optional<Backend> requested,
                     bool deterministic,
                     const BackendsDialectInterface &backends) {
  // A backend written on the op by the user wins over the pass option.
  if (std::optional<Backend> pinned = getBackend(op))
    requested = pinned;
  bool cudnnRequested = requested == Backend::cudnn;
  if (deterministic && isa<AttentionGradOp>(op))
    return {Backend::nvrtc,
            "deterministic: the fused NVRTC backward adds dQ in a "
            "fixed order (tgc does not ask cuDNN for that)" +
                std::string(cudnnRequested ? "; cudnn was requested" : "")};
  if (requested == Backend::nvrtc)
    return {Backend::nvrtc, "requested (nvrtc)"};
  std::string unsupported =
      backends.get(Backend::cudnn).unsupportedReason(op);
  if (cudnnRequested) {
    if (unsupported.empty())
      return {Backend::cudnn, "requested (cudnn)"};
    return {Backend::nvrtc,
            "cudnn was requested but " + unsupported + "; using nvrtc"};
  }
  if (!unsupported.empty())
    return {Backend::nvrtc, "cuDNN cannot run it: " + unsupported};
  // A decode step: the faster of the split-KV decode kernel and cuDNN by
  // the committed measurements (DecodeBackendTable.h): cuDNN at Sq 1, the
  // decode kernel 3.6-6.3x faster at Sq 2-8.
  if (auto attention = dyn_cast<AttentionOp>(op);
      attention && nvrtcDecodeKernelApplies(attention)) {
    auto q = cast<RankedTensorType>(attention.getQ().getType());
    const DecodeMeasurement &row =
        nearestDecodeMeasurement(q.getDimSize(0), q.getDimSize(2));
    return {row.nvrtcUs < row.cudnnUs ? Backend::nvrtc : Backend::cudnn,
            describeDecodeMeasurement(row)};
  }
  if (const char *why = cudnnPreference(op))
    return {Backend::cudnn, why};
  return {Backend::nvrtc, "the generated kernels fuse it with neighbouring ops"};
}

namespace {
struct SelectBackendPass : tg::impl::SelectBackendBase<SelectBackendPass> {
  using SelectBackendBase::SelectBackendBase;

  void runOnOperation() override {
    std::optional<Backend> requested;
    if (backend != "auto") {
      requested = symbolizeBackend(backend);
      if (!requested) {
        getOperation().emitError("unknown backend '")
            << backend << "' (expected auto, nvrtc or cudnn)";
        return signalPassFailure();
      }
    }
    FailureOr<const BackendsDialectInterface *> backends =
        backendsFor(getOperation(), getArgument());
    if (failed(backends))
      return signalPassFailure();
    getOperation().walk([&](Operation *op) {
      if (!isa<AttentionOp, AttentionGradOp, FusedMatmulOp, MatmulOp,
               SoftmaxOp, ReduceOp>(op))
        return;
      Choice choice = choose(op, requested, deterministic, **backends);
      // On NVRTC, say which kernels: the fused ones or, for what they cannot
      // run, the expansion into generic kernels (tg-expand-attention).
      std::string unsupported =
          (*backends)->get(Backend::nvrtc).unsupportedReason(op);
      if (choice.backend == Backend::nvrtc &&
          isa<AttentionOp, AttentionGradOp>(op))
        choice.reason += unsupported.empty()
                             ? "; fused kernel"
                             : "; expanded into generic kernels (" +
                                   unsupported + ")";
      setBackend(op, choice.backend);
      if (explain)
        op->emitRemark("backend ")
            << stringifyBackend(choice.backend) << ": " << choice.reason;
    });
  }
};
} // namespace
