// Dispatch of the cuDNN lowering by op kind (tg/Cudnn/CudnnLowering.h).
#include "Lowerings.h"

#include "llvm/ADT/TypeSwitch.h"

using namespace mlir;
using namespace mlir::tg;
using namespace mlir::tg::cudnn;

std::string cudnn::unsupportedReason(Operation *op) {
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
  std::string reason = unsupportedReason(op);
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

bool cudnn::isAssignedToCudnn(Operation *op) {
  auto backend = op->getAttrOfType<StringAttr>("tg.backend");
  return backend && backend.getValue() == "cudnn";
}
