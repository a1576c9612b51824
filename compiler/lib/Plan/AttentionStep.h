#ifndef TG_LIB_PLAN_ATTENTIONSTEP_H
#define TG_LIB_PLAN_ATTENTIONSTEP_H

#include "tg/Lowering/KernelStep.h"
#include "tgc/Target.h"

namespace mlir::tg {
/// The launch of the generated attention kernel for `op`. `stridesOf` gives
/// the physical strides (elements) of each tensor's buffer.
FailureOr<KernelStep>
emitAttentionStep(AttentionOp op, const tgc::CompileTarget &target,
                  function_ref<SmallVector<int64_t>(Value)> stridesOf);
} // namespace mlir::tg

#endif
