// Dispatch of the cuDNN lowering by op kind (tg/Cudnn/CudnnLowering.h).
#include "Lowerings.h"

#include "tg/Dialect/TG/IR/Backend.h"

#include "llvm/ADT/TypeSwitch.h"

using namespace mlir;
using namespace mlir::tg;
using namespace mlir::tg::cudnn;

/// Graphs cuDNN's engines reject, measured on the H200 with cuDNN 9.14 and
/// 9.19 (docs/cudnn.md): runtime fusion needs a matmul (or convolution) to
/// anchor a graph, and its generic matmul engines take one batch dim.
static std::string measuredEngineGap(Operation *op) {
  if (isa<ReduceOp, SoftmaxOp>(op))
    return "cuDNN has no engine for a reduction or softmax without a matmul "
           "in its graph (no engine config on H200, cuDNN 9.19)";
  if (auto grad = dyn_cast<AttentionGradOp>(op))
    if (grad.getWindowLeft() || grad.getWindowRight())
      return "cuDNN found no engine config for the backward with a sliding "
             "window (measured on H200 with cuDNN 9.14 and 9.19)";
  if (isa<MatmulOp, FusedMatmulOp>(op) &&
      cast<RankedTensorType>(op->getResult(0).getType()).getRank() > 3)
    return "cuDNN's matmul engines found no config for two batch dims "
           "(rank-4 operands, H200, cuDNN 9.19)";
  if (auto fused = dyn_cast<FusedMatmulOp>(op)) {
    bool choice = false;
    fused.getEpilogue().walk([&](Operation *inner) {
      choice |= isa<CmpOp, SelectOp>(inner);
    });
    if (choice)
      return "cuDNN's matmul engines found no config for an epilogue with "
             "comparisons or selects (measured on H200, cuDNN 9.19)";
  }
  return "";
}

std::string cudnn::unsupportedReason(Operation *op) {
  std::string gap = measuredEngineGap(op);
  return gap.empty() ? graphUnsupportedReason(op) : gap;
}

std::string cudnn::graphUnsupportedReason(Operation *op) {
  return llvm::TypeSwitch<Operation *, std::string>(op)
      .Case([](AttentionOp a) { return attentionUnsupportedReason(a); })
      .Case([](AttentionGradOp a) { return attentionGradUnsupportedReason(a); })
      .Case<MatmulOp, FusedMatmulOp>(
          [](Operation *m) { return matmulUnsupportedReason(m); })
      .Case<ReduceOp, SoftmaxOp>(
          [](Operation *r) { return reductionUnsupportedReason(r); })
      .Default([](Operation *other) {
        return "the cuDNN backend has no lowering for " +
               other->getName().getStringRef().str();
      });
}

FailureOr<Lowering> cudnn::lower(Operation *op, StridesFn stridesOf) {
  std::string reason = graphUnsupportedReason(op);
  if (!reason.empty())
    return op->emitOpError("cannot be lowered to cuDNN: ") << reason;
  return llvm::TypeSwitch<Operation *, FailureOr<Lowering>>(op)
      .Case([&](AttentionOp a) { return lowerAttention(a, stridesOf); })
      .Case([&](AttentionGradOp a) { return lowerAttentionGrad(a, stridesOf); })
      .Case<MatmulOp, FusedMatmulOp>(
          [&](Operation *m) { return lowerMatmul(m, stridesOf); })
      .Case<ReduceOp, SoftmaxOp>(
          [&](Operation *r) { return lowerReduction(r, stridesOf); })
      .Default([](Operation *other) -> FailureOr<Lowering> {
        return other->emitOpError("has no cuDNN lowering");
      });
}

