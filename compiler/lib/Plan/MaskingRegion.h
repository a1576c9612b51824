#ifndef TG_LIB_PLAN_MASKINGREGION_H
#define TG_LIB_PLAN_MASKINGREGION_H

// The masks a score region applies last, for the plan's finders (document
// masks, key bounds), and regions that only mask: each score is kept as it
// is or replaced by -inf, by conditions that do not read the score. The
// fused kernels then keep the score scale folded into the softmax's
// exponent, as for a kernel without a region (docs/kernels.md, "Regions
// that only mask").

#include "tg/Dialect/TG/IR/TGOps.h"
#include "tg/Lowering/ScalarExpr.h"

#include "mlir/IR/Region.h"
#include "mlir/IR/Value.h"
#include "mlir/Support/LLVM.h"

#include <optional>
#include <string>

namespace mlir::tg {
/// Whether `value` is a splat i1 constant equal to `expected`.
bool isBoolConstant(Value value, bool expected);

/// `gather` as the kernel's table read, its indices given by `index` (each
/// index's C++ expression, or nullopt where it has none); nullopt when an
/// index or the read has none.
std::optional<std::string>
gatherExpression(GatherOp gather, GatherEmitter emitGather,
                 function_ref<std::optional<std::string>(Value)> index);

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
