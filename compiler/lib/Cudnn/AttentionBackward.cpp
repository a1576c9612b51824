// tg.attention_grad -> cuDNN: the composite backward graph.
#include "Lowerings.h"

using namespace mlir;
using namespace mlir::tg;
using namespace mlir::tg::cudnn;

std::string cudnn::attentionGradUnsupportedReason(AttentionGradOp) {
  return "the cuDNN attention backward lowering is not built yet";
}

FailureOr<Lowering> cudnn::lowerAttentionGrad(AttentionGradOp op, StridesFn) {
  return op.emitOpError("has no cuDNN lowering yet");
}
