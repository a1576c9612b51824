#ifndef TG_LIB_PLAN_MASKINGREGION_H
#define TG_LIB_PLAN_MASKINGREGION_H

// Score regions that only mask: each score is kept as it is or replaced by
// -inf, by conditions that do not read the score. The fused kernels then
// keep the score scale folded into the softmax's exponent, as for a kernel
// without a region (docs/kernels.md, "Regions that only mask").

#include "mlir/IR/Region.h"
#include "mlir/IR/Value.h"
#include "mlir/Support/LLVM.h"

namespace mlir::tg {
/// Whether `value` is a splat float constant -inf, possibly through float
/// casts.
bool isNegInfConstant(Value value);

/// Calls `factor` on each factor of the masks the score region `score`
/// applies last, until it returns true: the conditions c of the chain of
/// `select(c, x, -inf)` that ends the region (and the selects inside x),
/// each split at its conjunctions `select(a, b, false)`. Every score where
/// a factor is false is -inf.
void forEachFinalMaskFactor(Region &score, function_ref<bool(Value)> factor);

/// Whether the score region `score` (block argument 0 the score) yields a
/// chain of `select(c, x, -inf)` or `select(c, -inf, x)` ending at the
/// score itself, with no condition depending on the score.
bool scoreRegionOnlyMasks(Region &score);
} // namespace mlir::tg

#endif
