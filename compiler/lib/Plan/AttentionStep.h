#ifndef TG_LIB_PLAN_ATTENTIONSTEP_H
#define TG_LIB_PLAN_ATTENTIONSTEP_H

#include "tg/Lowering/KernelStep.h"
#include "tgc/Target.h"

namespace mlir::tg {
/// The launches of the generated attention kernel for `op`: one, or for a
/// decode step (few query rows per kv head) the split-KV kernel and its
/// combine kernel. `stridesOf` gives the physical strides (elements) of
/// each tensor's buffer. `fastMath`: the score region's approximate math
/// (PlanOptions::fastMath). `tile`: PlanOptions::attentionTile.
FailureOr<SmallVector<KernelStep, 0>>
emitAttentionStep(AttentionOp op, const tgc::CompileTarget &target, bool fastMath,
                  StringRef tile, function_ref<SmallVector<int64_t>(Value)> stridesOf);
} // namespace mlir::tg

#endif
