// tg.attention (forward) -> cuDNN: the fused SDPA op or the composite graph.
#include "Lowerings.h"

using namespace mlir;
using namespace mlir::tg;
using namespace mlir::tg::cudnn;

// Not written yet (issue 5): nothing is assigned to cuDNN until it is.
std::string cudnn::attentionUnsupportedReason(AttentionOp op) {
  if (isFp8(op)) return attentionFp8UnsupportedReason(op);
  return "the cuDNN attention lowering is not built yet";
}

FailureOr<Lowering> cudnn::lowerAttention(AttentionOp op, StridesFn stridesOf) {
  if (isFp8(op)) return lowerAttentionFp8(op, stridesOf);
  return op.emitOpError("has no cuDNN lowering yet");
}
