#ifndef TG_LIB_PLAN_MASKINGREGION_H
#define TG_LIB_PLAN_MASKINGREGION_H

// Score regions that only mask: each score is kept as it is or replaced by
// -inf, by conditions that do not read the score. The fused kernels then
// keep the score scale folded into the softmax's exponent, as for a kernel
// without a region (docs/kernels.md, "Regions that only mask").

#include "mlir/IR/Region.h"
#include "mlir/IR/Value.h"

namespace mlir::tg {
/// Whether `value` is a splat float constant -inf, possibly through float
/// casts.
bool isNegInfConstant(Value value);

/// Whether the score region `score` (block argument 0 the score) yields a
/// chain of `select(c, x, -inf)` or `select(c, -inf, x)` ending at the
/// score itself, with no condition depending on the score.
bool scoreRegionOnlyMasks(Region &score);
} // namespace mlir::tg

#endif
