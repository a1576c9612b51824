// tg.reduce and tg.softmax -> cuDNN reduction graphs.
#include "Lowerings.h"

using namespace mlir;
using namespace mlir::tg;
using namespace mlir::tg::cudnn;

std::string cudnn::reductionUnsupportedReason(Operation *) {
  return "the cuDNN reduction lowering is not built yet";
}

FailureOr<Lowering> cudnn::lowerReduction(Operation *op, StridesFn) {
  return op->emitOpError("has no cuDNN lowering yet");
}
