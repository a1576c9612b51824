#ifndef TG_LIB_CUDNN_SCOREREGIONTOCUDNN_H
#define TG_LIB_CUDNN_SCOREREGIONTOCUDNN_H

// tg.attention's score region as cuDNN pointwise ops on the [B,Hq,Sq,Skv]
// score tensor (docs/cudnn.md, "Attention forward").

#include "tg/Cudnn/CudnnLowering.h"
#include "tg/Dialect/TG/IR/TGOps.h"

namespace mlir::tg::cudnn {

/// Why the score region of `op` cannot be written as cuDNN pointwise ops
/// that compute exactly what tg computes, or "" when it can.
std::string scoreRegionUnsupportedReason(AttentionOp op);
/// Why a tg.attention / tg.attention_grad with a table capture (read by
/// tg.gather) cannot run on cuDNN; empty when it has none.
std::string tableCaptureReason(Operation *attention, ValueRange captures);

/// Whether the region yields its score argument unchanged.
bool isIdentityScoreRegion(AttentionOp op);

/// Whether the region may turn a finite score into -inf (captured data,
/// infinite constants, log, division by a non-constant), so that a whole
/// row could end up masked by data the compiler cannot see.
bool scoreRegionMayYieldNegInf(AttentionOp op);

/// Emits the region (accepted by scoreRegionUnsupportedReason) as pointwise
/// ops on `score` and returns the uid of the new score tensor. Captures
/// become bound tensors described with `stridesOf`.
int64_t emitScoreRegion(GraphBuilder &g, AttentionOp op, int64_t score,
                        StridesFn stridesOf);

/// A binary pointwise op whose larger operand goes to `x` when the mode
/// allows swapping (cudnn-frontend broadcasts `b`, the second operand):
/// commutative modes swap, comparisons swap with the mirrored predicate.
int64_t binaryBroadcastingB(GraphBuilder &g, StringRef mode, int64_t x,
                            int64_t b, DType result);

} // namespace mlir::tg::cudnn

#endif
