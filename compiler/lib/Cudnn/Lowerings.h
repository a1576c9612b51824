#ifndef TG_LIB_CUDNN_LOWERINGS_H
#define TG_LIB_CUDNN_LOWERINGS_H

// The per-op cuDNN lowerings behind tg::cudnn::lower/unsupportedReason.
// Each pair lives in its own file.

#include "tg/Cudnn/CudnnLowering.h"
#include "tg/Dialect/TG/IR/TGOps.h"

namespace mlir::tg::cudnn {

// AttentionForward.cpp
std::string attentionUnsupportedReason(AttentionOp op);
FailureOr<Lowering> lowerAttention(AttentionOp op, StridesFn stridesOf);

// AttentionFp8.cpp: tg.attention with fp8_scales (the FP8 forward graph);
// the forward lowering hands such ops over first thing.
inline bool isFp8(AttentionOp op) { return op.isFp8(); }
std::string attentionFp8UnsupportedReason(AttentionOp op);
FailureOr<Lowering> lowerAttentionFp8(AttentionOp op, StridesFn stridesOf);

// AttentionBackward.cpp
std::string attentionGradUnsupportedReason(AttentionGradOp op);
FailureOr<Lowering> lowerAttentionGrad(AttentionGradOp op, StridesFn stridesOf);

// Matmul.cpp: tg.matmul and tg.fused_matmul (mixed input precision).
std::string matmulUnsupportedReason(Operation *op);
FailureOr<Lowering> lowerMatmul(Operation *op, StridesFn stridesOf);

// Reduction.cpp: tg.reduce and tg.softmax.
std::string reductionUnsupportedReason(Operation *op);
FailureOr<Lowering> lowerReduction(Operation *op, StridesFn stridesOf);

} // namespace mlir::tg::cudnn

#endif
