// tg.matmul and tg.fused_matmul -> cuDNN matmul graphs.
#include "Lowerings.h"

using namespace mlir;
using namespace mlir::tg;
using namespace mlir::tg::cudnn;

std::string cudnn::matmulUnsupportedReason(Operation *) {
  return "the cuDNN matmul lowering is not built yet";
}

FailureOr<Lowering> cudnn::lowerMatmul(Operation *op, StridesFn) {
  return op->emitOpError("has no cuDNN lowering yet");
}
