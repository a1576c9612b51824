//===- ProbabilityMatcher.cpp - softmax output to the output matmul -------===//
//
// Between the softmax and the P.V matmul real code puts precision casts,
// dropout (scaled, or unscaled followed by an explicit 1/(1-p) rescale).
// Anything else that changes P (another matmul, a reduction, an arbitrary
// constant factor) cannot be expressed by tg.attention and is refused.
//
//===----------------------------------------------------------------------===//
#include "AttentionMatch.h"

#include <cmath>

using namespace mlir;
using namespace mlir::tg;
using namespace mlir::tg::fusion;

namespace {
/// A constant factor on the probabilities: `P * c` or `P / c`.
struct Rescale {
  Operation *op;
  double constant;
  bool isDivision;
  Type type;
};
} // namespace

/// Matches `x * c`, `c * x` or `x / c` where c is a splat constant and the
/// product has x's shape.
static std::optional<Rescale> matchRescale(Operation *op, Value &input) {
  if (!isa_and_nonnull<MulOp, DivOp>(op))
    return std::nullopt;
  Value result = op->getResult(0);
  for (unsigned i = 0; i < 2; ++i) {
    if (isa<DivOp>(op) && i == 1)
      break;
    Value x = op->getOperand(i), c = op->getOperand(1 - i);
    std::optional<double> value = evalSplatConstant(c);
    if (!value || shapeOf(x) != shapeOf(result))
      continue;
    input = x;
    return Rescale{op, *value, isa<DivOp>(op), elementTypeOf(c)};
  }
  return std::nullopt;
}

/// True when `rescale` is dropout's 1/(1-p) (up to the rounding of the
/// constant to its own element type).
static bool isDropoutRescale(const Rescale &rescale, double prob) {
  double keep = 1.0 - prob;
  if (rescale.isDivision)
    return rescale.constant == roundToType(keep, rescale.type) ||
           std::abs(rescale.constant - keep) <= 1e-6;
  return rescale.constant == roundToType(1.0 / keep, rescale.type) ||
         std::abs(rescale.constant * keep - 1.0) <= 1e-6;
}

FailureOr<ProbabilityMatch>
mlir::tg::fusion::matchProbabilities(Value pvLhs, Refusal &refusal) {
  ProbabilityMatch match;
  SmallVector<Rescale> rescales;
  DropoutOp dropout;
  Value x = pvLhs;
  while (Operation *def = x.getDefiningOp()) {
    if (isPrecisionCast(def)) {
      match.ops.insert(def);
      x = def->getOperand(0);
      continue;
    }
    if (auto op = dyn_cast<DropoutOp>(def)) {
      if (dropout)
        return refuse(refusal, def,
                      "two dropouts between the softmax and the output "
                      "matmul");
      dropout = op;
      match.ops.insert(def);
      x = op.getInput();
      continue;
    }
    Value input;
    if (std::optional<Rescale> rescale = matchRescale(def, input)) {
      rescales.push_back(*rescale);
      match.ops.insert(def);
      x = input;
      continue;
    }
    break;
  }

  if (failed(matchSoftmax(x, match, refusal)))
    return failure();

  // Dropout may sit on the softmax numerator instead (dropout before the
  // normalisation); there must be one at most.
  if (dropout && match.dropout)
    return refuse(refusal, dropout,
                  "two dropouts between the two matmuls");
  if (dropout)
    match.dropout = DropoutMatch{dropout};
  bool unscaled = match.dropout && match.dropout->op.getUnscaled();

  if (unscaled) {
    if (rescales.size() != 1 ||
        !isDropoutRescale(rescales.front(), match.dropout->prob()))
      return refuse(refusal, pvLhs.getDefiningOp(),
                    "unscaled dropout must be followed by exactly one "
                    "rescale by 1/(1-p) to match attention's dropout");
  } else if (!rescales.empty()) {
    return refuse(refusal, rescales.front().op,
                  "the probabilities are multiplied by a constant that is "
                  "not dropout's 1/(1-p) rescale");
  }
  return match;
}
