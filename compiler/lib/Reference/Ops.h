#ifndef TG_REFERENCE_OPS_H
#define TG_REFERENCE_OPS_H

// One evaluator per non-pointwise tg op. Each reads its operands through
// `lookup` and returns the op's results in order, or emits a located error.

#include "Elements.h"

#include "tg/Dialect/TG/IR/TGOps.h"
#include "tg/Reference/Interpreter.h"

namespace mlir::tg::ref {

using ValueLookup = function_ref<const HostTensor &(Value)>;
using Results = FailureOr<SmallVector<HostTensor>>;

Results evalReduce(ReduceOp op, ValueLookup lookup);
Results evalGenIndex(GenIndexOp op, ValueLookup lookup);
Results evalGather(GatherOp op, ValueLookup lookup);
Results evalTranspose(TransposeOp op, ValueLookup lookup);
Results evalReshape(ReshapeOp op, ValueLookup lookup);
Results evalBroadcast(BroadcastOp op, ValueLookup lookup);
Results evalSoftmax(SoftmaxOp op, ValueLookup lookup);
Results evalDropout(DropoutOp op, ValueLookup lookup);
Results evalMatmul(MatmulOp op, ValueLookup lookup);
Results evalFusedMatmul(FusedMatmulOp op, ValueLookup lookup);
Results evalSdpa(SdpaOp op, ValueLookup lookup);
Results evalSdpaGrad(SdpaGradOp op, ValueLookup lookup);
Results evalAttention(AttentionOp op, ValueLookup lookup);
Results evalAttentionGrad(AttentionGradOp op, ValueLookup lookup);

/// The i64 bit pattern of a rank-0 seed or offset tensor.
uint64_t rngScalar(const HostTensor &tensor);

} // namespace mlir::tg::ref

#endif // TG_REFERENCE_OPS_H
