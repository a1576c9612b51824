//===- SoftmaxMatcher.cpp - tg.softmax or its decompositions --------------===//
//
// Recognises P = softmax(z) along the last axis in the forms real code and
// tg-decompose-softmax write:
//
//   tg.softmax z axis = last (optionally with stats)
//   N / D  or  N * recip(D)            normalisation
//   N = exp(A) | pow(b, A)             b > 1: the exp2 form, softmax of z ln b
//   A = z | z - R | (z - R) * k        k > 0 folded into the exponent
//   R = max(z) | select(max == -inf, c, max)   (the safe-softmax guard)
//   D = sum(N) | max(sum(N), c)        0 < c <= 1 guard, only with R
//   dropout(N) / D                     dropout before the normalisation
//   log(D) + R  (or log(D))            the log-sum-exp of the training form
//
// Precision casts may appear anywhere. Every reduction must be over the last
// axis with keepdim.
//
//===----------------------------------------------------------------------===//
#include "AttentionMatch.h"

#include "llvm/ADT/STLExtras.h"

#include <cmath>
#include <limits>

using namespace mlir;
using namespace mlir::tg;
using namespace mlir::tg::fusion;

/// Why the value multiplied with V is not a softmax, by what produces it.
static LogicalResult refuseNotSoftmax(Refusal &refusal, Value probs) {
  Operation *def = probs.getDefiningOp();
  if (isa_and_nonnull<MatmulOp, ReduceOp>(def))
    return refuse(refusal, def,
                  "a " + opName(def) +
                      " between the two matmuls is not part of a softmax");
  return refuse(refusal, def,
                "the left operand of the output matmul is produced by " +
                    opName(def) + ", not by a softmax");
}

/// Checks that `reduce` is over the last axis with keepdim.
static LogicalResult checkLastAxis(ReduceOp reduce, StringRef what,
                                   Refusal &refusal) {
  int64_t last = rankOf(reduce.getInput()) - 1;
  if (reduce.getDims().size() != 1 || reduce.getDims()[0] != last) {
    std::string dims;
    llvm::raw_string_ostream os(dims);
    llvm::interleaveComma(reduce.getDims(), os);
    return refuse(refusal, reduce,
                  "softmax " + what + " over dims [" + dims +
                      "]; attention normalises over the last (kv) axis " +
                      Twine(last));
  }
  if (!reduce.getKeepdim())
    return refuse(refusal, reduce,
                  "softmax " + what + " without keepdim is not recognised");
  return success();
}

/// Matches the safe-softmax guard `select(m == -inf, c, m)` (or
/// `select(m != -inf, m, c)`) with c finite, returning m.
static Value matchMaxGuard(Value value, llvm::SetVector<Operation *> &ops) {
  auto select = value.getDefiningOp<SelectOp>();
  if (!select)
    return {};
  auto cmp = select.getCond().getDefiningOp<CmpOp>();
  if (!cmp)
    return {};
  std::optional<double> rhs = evalSplatConstant(cmp.getRhs());
  if (!rhs || *rhs != -std::numeric_limits<double>::infinity())
    return {};
  Value max = cmp.getLhs();
  Value kept, replacement;
  if (cmp.getPredicate() == CmpPredicate::eq) {
    replacement = select.getOnTrue();
    kept = select.getOnFalse();
  } else if (cmp.getPredicate() == CmpPredicate::ne) {
    kept = select.getOnTrue();
    replacement = select.getOnFalse();
  } else {
    return {};
  }
  std::optional<double> c = evalSplatConstant(replacement);
  if (kept != max || !c || !std::isfinite(*c))
    return {};
  ops.insert(select);
  ops.insert(cmp);
  return max;
}

/// Finds `log(sum)` (and `log(sum) + shift` when the exponent subtracts
/// `shift`) among the users of the sum: the log-sum-exp of the training
/// form.
static Value findLogSumExp(Value sum, Value shift,
                           llvm::SetVector<Operation *> &ops) {
  auto usersThroughCasts = [](Value value) {
    SmallVector<Operation *> users;
    SmallVector<Value> worklist{value};
    while (!worklist.empty()) {
      Value v = worklist.pop_back_val();
      for (Operation *user : v.getUsers()) {
        if (isPrecisionCast(user))
          worklist.push_back(user->getResult(0));
        else
          users.push_back(user);
      }
    }
    return users;
  };
  for (Operation *user : usersThroughCasts(sum)) {
    auto log = dyn_cast<LogOp>(user);
    if (!log || stripPrecisionCasts(log.getInput()) != sum)
      continue;
    if (!shift) {
      stripPrecisionCasts(log.getInput(), &ops);
      ops.insert(log);
      return log.getResult();
    }
    for (Operation *logUser : usersThroughCasts(log.getResult())) {
      auto add = dyn_cast<AddOp>(logUser);
      if (!add)
        continue;
      Value lhs = stripPrecisionCasts(add.getLhs());
      Value rhs = stripPrecisionCasts(add.getRhs());
      Value strippedShift = stripPrecisionCasts(shift);
      if (!((lhs == log.getResult() && rhs == strippedShift) ||
            (rhs == log.getResult() && lhs == strippedShift)))
        continue;
      stripPrecisionCasts(log.getInput(), &ops);
      stripPrecisionCasts(add.getLhs(), &ops);
      stripPrecisionCasts(add.getRhs(), &ops);
      ops.insert(log);
      ops.insert(add);
      return add.getResult();
    }
  }
  return {};
}

static LogicalResult matchDecomposedSoftmax(Value probs,
                                            ProbabilityMatch &match,
                                            Refusal &refusal) {
  Operation *def = probs.getDefiningOp();
  llvm::SetVector<Operation *> &ops = match.ops;
  Value numerator, denominator;
  if (auto div = dyn_cast_or_null<DivOp>(def)) {
    numerator = div.getLhs();
    denominator = div.getRhs();
  } else if (auto mul = dyn_cast_or_null<MulOp>(def)) {
    // N * recip(D) or N * (1 / D).
    for (unsigned i = 0; i < 2 && !numerator; ++i) {
      Value other = stripPrecisionCasts(mul->getOperand(1 - i));
      if (auto recip = other.getDefiningOp<RecipOp>()) {
        stripPrecisionCasts(mul->getOperand(1 - i), &ops);
        ops.insert(recip);
        numerator = mul->getOperand(i);
        denominator = recip.getInput();
      } else if (auto inv = other.getDefiningOp<DivOp>()) {
        std::optional<double> one = evalSplatConstant(inv.getLhs());
        if (!one || *one != 1.0)
          continue;
        stripPrecisionCasts(mul->getOperand(1 - i), &ops);
        ops.insert(inv);
        numerator = mul->getOperand(i);
        denominator = inv.getRhs();
      }
    }
  }
  if (!numerator)
    return refuseNotSoftmax(refusal, probs);
  ops.insert(def);

  // Numerator: exp(A) or pow(b, A), possibly with dropout in front of the
  // normalisation.
  Value n = stripPrecisionCasts(numerator, &ops);
  if (auto dropout = n.getDefiningOp<DropoutOp>()) {
    match.dropout = DropoutMatch{dropout};
    ops.insert(dropout);
    n = stripPrecisionCasts(dropout.getInput(), &ops);
  }
  if (shapeOf(n) != shapeOf(probs))
    return refuse(refusal, def,
                  "the softmax numerator and the probabilities have "
                  "different shapes");
  Value exponent;
  double factor = 1.0;
  Operation *expOp = n.getDefiningOp();
  if (auto exp = dyn_cast_or_null<ExpOp>(expOp)) {
    exponent = exp.getInput();
  } else if (auto pow = dyn_cast_or_null<PowOp>(expOp)) {
    double base;
    if (!isPositiveFiniteConstant(pow.getLhs(), &base) || base <= 1.0 ||
        shapeOf(pow.getRhs()) != shapeOf(n))
      return refuse(refusal, pow,
                    "tg.pow in a softmax needs a constant base > 1");
    factor = std::log(base);
    exponent = pow.getRhs();
  } else {
    return refuse(refusal, def,
                  "the normalised value is produced by " + opName(expOp) +
                      ", not by an exponential");
  }
  ops.insert(expOp);

  // Denominator: sum(N) over the last axis, optionally max(sum, c).
  Value d = stripPrecisionCasts(denominator, &ops);
  bool sumGuarded = false;
  if (auto max = d.getDefiningOp<MaxOp>()) {
    for (unsigned i = 0; i < 2; ++i) {
      std::optional<double> c = evalSplatConstant(max->getOperand(1 - i));
      if (c && *c > 0.0 && *c <= 1.0 &&
          shapeOf(max->getOperand(i)) == shapeOf(max.getResult())) {
        sumGuarded = true;
        ops.insert(max);
        d = stripPrecisionCasts(max->getOperand(i), &ops);
        break;
      }
    }
  }
  auto sum = d.getDefiningOp<ReduceOp>();
  if (!sum || sum.getKind() != ReduceKind::sum)
    return refuse(refusal, def,
                  "the softmax denominator is produced by " +
                      opName(d.getDefiningOp()) +
                      ", not by a sum of the exponentials");
  if (failed(checkLastAxis(sum, "sum", refusal)))
    return failure();
  if (stripPrecisionCasts(sum.getInput(), &ops) != n)
    return refuse(refusal, sum,
                  "the softmax denominator does not sum the numerators");
  ops.insert(sum);

  // Exponent: z, z - R or (z - R) * k.
  Value a = stripPrecisionCasts(exponent, &ops);
  if (auto mul = a.getDefiningOp<MulOp>()) {
    for (unsigned i = 0; i < 2; ++i) {
      double k;
      if (isPositiveFiniteConstant(mul->getOperand(1 - i), &k) &&
          shapeOf(mul->getOperand(i)) == shapeOf(mul.getResult())) {
        factor *= k;
        ops.insert(mul);
        a = stripPrecisionCasts(mul->getOperand(i), &ops);
        break;
      }
    }
  }
  Value shift; // R as used by the subtraction (after the guard)
  Value z;
  if (auto sub = a.getDefiningOp<SubOp>()) {
    llvm::SetVector<Operation *> subOps;
    Value r = stripPrecisionCasts(sub.getRhs(), &subOps);
    Value guardedMax = matchMaxGuard(r, subOps);
    Value m = guardedMax ? stripPrecisionCasts(guardedMax, &subOps) : r;
    auto max = m.getDefiningOp<ReduceOp>();
    if (max && max.getKind() == ReduceKind::max) {
      if (failed(checkLastAxis(max, "max", refusal)))
        return failure();
      Value zMax = stripPrecisionCasts(max.getInput(), &subOps);
      Value zSub = stripPrecisionCasts(sub.getLhs(), &subOps);
      if (zMax != zSub)
        return refuse(refusal, max,
                      "the softmax subtracts a max that is not taken over "
                      "its own input");
      ops.insert(subOps.begin(), subOps.end());
      ops.insert(max);
      ops.insert(sub);
      shift = r;
      z = zSub;
    }
  }
  if (!z)
    z = stripPrecisionCasts(a, &ops);
  if (sumGuarded && !shift)
    return refuse(refusal, def,
                  "max(sum, c) guards a softmax without max subtraction; "
                  "the guard would change the result");

  match.input = z;
  match.inputFactor = factor;
  match.stats = findLogSumExp(sum.getResult(), shift, ops);
  if (match.stats && factor != 1.0)
    return refuse(refusal, match.stats.getDefiningOp(),
                  "the log-sum-exp of an exp2/pow-form softmax is not fused");
  return success();
}

LogicalResult mlir::tg::fusion::matchSoftmax(Value probs,
                                             ProbabilityMatch &match,
                                             Refusal &refusal) {
  if (auto softmax = probs.getDefiningOp<SoftmaxOp>()) {
    int64_t last = rankOf(probs) - 1;
    if (static_cast<int64_t>(softmax.getAxis()) != last)
      return refuse(refusal, softmax,
                    "softmax over axis " + Twine(softmax.getAxis()) +
                        "; attention normalises over the last (kv) axis " +
                        Twine(last));
    match.ops.insert(softmax);
    match.input = softmax.getInput();
    if (Value stats = softmax.getStats(); stats && !stats.use_empty())
      match.stats = stats;
    return success();
  }
  return matchDecomposedSoftmax(probs, match, refusal);
}
