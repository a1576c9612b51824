#ifndef TG_LIB_PLAN_ATTENTIONGRADSTEP_H
#define TG_LIB_PLAN_ATTENTIONGRADSTEP_H

#include "tg/Lowering/KernelStep.h"
#include "tgc/Target.h"

namespace mlir::tg {
/// The launches of the fused attention backward for `op`: preprocess, main,
/// convert (tg/Codegen/AttentionBackward.h), with the f32 dQ accumulator and
/// delta in workspace scratch buffers. `stridesOf` gives the physical strides
/// (elements) of each tensor's buffer.
/// With `deterministic`, dQ is added in kv-tile order (a semaphore buffer
/// per query tile) and capture gradients summed across threads (broadcast
/// captures, tables) are refused. `fastMath`: the score region's
/// approximate math (PlanOptions::fastMath), its gradient's too.
FailureOr<SmallVector<KernelStep, 0>>
emitAttentionGradSteps(AttentionGradOp op, const tgc::CompileTarget &target,
                       bool deterministic, bool fastMath,
                       function_ref<SmallVector<int64_t>(Value)> stridesOf);
} // namespace mlir::tg

#endif
