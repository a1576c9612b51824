// tg-select-backend: record where each op that launches work will run.
#include "tg/Backend/Backend.h"
#include "tg/Dialect/TG/IR/TGOps.h"
#include "tg/Transforms/AttentionBackendTable.h"
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

/// A measured figure must beat the other backend's by this factor to move
/// an op off cuDNN: repeated runs of the benchmarks differ by up to 3%, and
/// the table's NVRTC figures are of the sm_90a kernels.
constexpr double kMeasuredMargin = 1.05;

/// The choice of a measured row of `pass`: NVRTC when its figure beats
/// cuDNN's by the margin; the remark quotes the row (and the margin when it
/// kept the op on cuDNN).
static Choice rowChoice(AttentionPass pass, const PrefillMeasurement &row) {
  std::string why = describePrefillMeasurement(pass, row);
  bool nvrtcFaster = row.nvrtcTflops > row.cudnnTflops * kMeasuredMargin;
  if (row.nvrtcTflops > row.cudnnTflops && !nvrtcFaster)
    why += "; within the 5% margin that a move off cuDNN needs";
  return {nvrtcFaster ? Backend::nvrtc : Backend::cudnn, why};
}

/// The measured choice for attention that cuDNN can run
/// (AttentionBackendTable.h): a decode step the split-KV kernel takes by
/// the decode rows, otherwise the prefill rows of its pass nearest to its
/// head dim, mask and key length.
template <typename OpTy>
static Choice measuredAttentionChoice(OpTy op, AttentionPass pass) {
  auto q = cast<RankedTensorType>(op.getQ().getType());
  if constexpr (std::is_same_v<OpTy, AttentionOp>) {
    if (nvrtcDecodeKernelApplies(op)) {
      const DecodeMeasurement &row =
          nearestDecodeMeasurement(q.getDimSize(0), q.getDimSize(2));
      return {row.nvrtcUs * kMeasuredMargin < row.cudnnUs ? Backend::nvrtc : Backend::cudnn,
              describeDecodeMeasurement(row)};
    }
  }
  auto k = cast<RankedTensorType>(op.getK().getType());
  int64_t seqKv = op.isRagged() ? int64_t(*op.getMaxSeqlenKv()) : k.getDimSize(2);
  const PrefillMeasurement &row = nearestPrefillMeasurement(
      pass, q.getDimSize(q.getRank() - 1), op.getCausal() != CausalMode::none,
      seqKv);
  auto [backend, why] = rowChoice(pass, row);
  bool nvrtcFaster = backend == Backend::nvrtc;
  // The forward rows time the warp-specialised sm_90a kernel: other head
  // dims, paged and packed operands run slower NVRTC kernels.
  auto v = cast<RankedTensorType>(op.getV().getType());
  bool rowKernel = q.getDimSize(q.getRank() - 1) % 64 == 0 &&
                   v.getDimSize(v.getRank() - 1) % 64 == 0 && !op.isRagged();
  if constexpr (std::is_same_v<OpTy, AttentionOp>)
    rowKernel = rowKernel && !op.isPaged();
  if (nvrtcFaster && pass == AttentionPass::Forward && !rowKernel) {
    nvrtcFaster = false;
    why += "; the figures are of the warp-specialised kernel, which takes head dims that are multiples of "
           "64 and neither paged nor packed operands";
  }
  if (!op.hasIdentityScore())
    why += "; this op has a score region, the figures are of plain attention";
  return {nvrtcFaster ? Backend::nvrtc : Backend::cudnn, why};
}

/// Where `auto` prefers cuDNN for other ops, from measurements on the H200
/// (docs/cudnn.md, bench/results/): its matmuls are far faster than the
/// generic matmul kernel. Reductions and softmax stay with the generated
/// kernels, which fuse them with their pointwise neighbours.
static const char *cudnnPreference(Operation *op) {
  if (isa<MatmulOp, FusedMatmulOp>(op))
    return "cuDNN matmul is faster than the generic matmul kernel";
  return nullptr;
}

/// The measured choice for FP8 attention that cuDNN can run: cuDNN when
/// the fused FP8 kernel cannot run it for `target`, else the FP8 rows.
static Choice measuredFp8Choice(AttentionOp op, StringRef target) {
  std::string unsupported = nvrtcAttentionUnsupportedReason(op, target);
  if (!unsupported.empty())
    return {Backend::cudnn, "FP8: the fused NVRTC kernel cannot run it (" + unsupported +
                                "), the expansion into generic kernels is far slower"};
  auto q = cast<RankedTensorType>(op.getQ().getType());
  auto k = cast<RankedTensorType>(op.getK().getType());
  const PrefillMeasurement &row =
      nearestPrefillMeasurement(AttentionPass::Fp8Forward, q.getDimSize(q.getRank() - 1),
                                op.getCausal() != CausalMode::none, k.getDimSize(k.getRank() - 2));
  return rowChoice(AttentionPass::Fp8Forward, row);
}

/// `requested`: the pass option's backend, none for auto.
static Choice choose(Operation *op, std::optional<Backend> requested,
                     bool deterministic, StringRef target,
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
  // Attention: the faster backend by the committed measurements (prefill:
  // cuDNN but for the hd 64 forward without mask at long sequences, where
  // the warp-specialised kernel is 7% faster; the decode kernel 3.6-6.3x
  // faster than cuDNN at Sq 2-8, cuDNN at Sq 1).
  if (auto attention = dyn_cast<AttentionOp>(op))
    return attention.isFp8() ? measuredFp8Choice(attention, target)
                             : measuredAttentionChoice(attention, AttentionPass::Forward);
  if (auto grad = dyn_cast<AttentionGradOp>(op))
    return measuredAttentionChoice(grad, AttentionPass::Backward);
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
      Choice choice = choose(op, requested, deterministic, target, **backends);
      // On NVRTC, say which kernels: the fused ones or, for what they cannot
      // run, the expansion into generic kernels (tg-expand-attention).
      std::string unsupported =
          isa<AttentionOp>(op)
              ? nvrtcAttentionUnsupportedReason(cast<AttentionOp>(op), target)
              : (*backends)->get(Backend::nvrtc).unsupportedReason(op);
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
