#ifndef TG_LIB_PLAN_RELAYOUTKERNEL_H
#define TG_LIB_PLAN_RELAYOUTKERNEL_H

#include "tg/Lowering/KernelStep.h"
#include "tgc/Plan.h"

namespace mlir::tg {
/// A kernel copying every logical element of `from` into `to` (same dtype
/// and shape, any strides). Parameters: (const void *from, void *to).
KernelStep emitRelayoutKernel(const tgc::Buffer &from, const tgc::Buffer &to);
} // namespace mlir::tg

#endif
