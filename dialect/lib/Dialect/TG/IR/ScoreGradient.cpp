//===- ScoreGradient.cpp - The chain rule through a score region ----------===//
//
// Reverse-mode differentiation of a per-score region (rank-0 pointwise tg
// ops): one forward pass marks the float values that depend on the chosen
// argument ("active"), the region is cloned into a new block (the primal
// values), and one backward pass over the ops accumulates each active
// operand's adjoint from its result's, with one rule per op.
//
//===----------------------------------------------------------------------===//

#include "tg/Dialect/TG/IR/ScoreGradient.h"

#include "tg/Dialect/TG/IR/TGOps.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/IRMapping.h"
#include "llvm/ADT/DenseSet.h"
#include "llvm/ADT/TypeSwitch.h"

using namespace mlir;
using namespace mlir::tg;

/// Whether `v` is a tg.constant of -inf (a mask's other branch).
static bool isNegativeInfinity(Value v) {
  auto constant = v.getDefiningOp<ConstantOp>();
  auto dense = constant ? dyn_cast<DenseElementsAttr>(constant.getValue())
                        : DenseElementsAttr();
  if (!dense || !dense.isSplat() || !isa<FloatType>(dense.getElementType()))
    return false;
  APFloat x = dense.getSplatValue<APFloat>();
  return x.isInfinity() && x.isNegative();
}

static bool isFloatValue(Value v) {
  return isa<FloatType>(cast<RankedTensorType>(v.getType()).getElementType());
}

/// The float values of `score` that depend on `wrt` (an argument of the
/// block or the result of one of its ops).
static llvm::DenseSet<Value> activeValues(Block &score, Value wrt) {
  llvm::DenseSet<Value> active;
  if (isFloatValue(wrt))
    active.insert(wrt);
  for (Operation &op : score.without_terminator()) {
    if (llvm::is_contained(op.getResults(), wrt))
      continue; // the seed itself
    // A condition (select) or a comparison carries no gradient.
    auto operands = op.getOperands();
    bool depends = isa<SelectOp>(op)
                       ? active.contains(op.getOperand(1)) ||
                             active.contains(op.getOperand(2))
                       : llvm::any_of(operands, [&](Value v) {
                           return active.contains(v);
                         });
    if (!depends || isa<CmpOp>(op))
      continue;
    for (Value result : op.getResults())
      if (isFloatValue(result))
        active.insert(result);
  }
  return active;
}

bool mlir::tg::scoreDependsOn(Block &score, unsigned wrt) {
  llvm::DenseSet<Value> active = activeValues(score, score.getArgument(wrt));
  return active.contains(score.getTerminator()->getOperand(0));
}

namespace {
/// Builds the derivative block: primal clones and adjoint arithmetic.
class Differentiator {
public:
  Differentiator(Block &score, Block &out)
      : score(score), b(score.getArgument(0).getContext()) {
    b.setInsertionPointToEnd(&out);
    f32 = RankedTensorType::get({}, b.getF32Type());
  }

  Value primal(Value v) { return mapping.lookup(v); }
  /// The primal value as f32 (adjoint arithmetic is in f32).
  Value asF32(Location loc, Value v) {
    Value p = primal(v);
    if (cast<RankedTensorType>(p.getType()).getElementType().isF32())
      return p;
    return CastOp::create(b, loc, f32, p);
  }
  Value constant(Location loc, double value) {
    return ConstantOp::createSplat(b, loc, f32, value);
  }
  Value add(Location loc, Value x, Value y) { return AddOp::create(b, loc, x, y); }
  Value mul(Location loc, Value x, Value y) { return MulOp::create(b, loc, x, y); }
  Value neg(Location loc, Value x) { return NegOp::create(b, loc, x); }
  Value select(Location loc, Value cond, Value onTrue, Value onFalse) {
    return SelectOp::create(b, loc, cond, onTrue, onFalse);
  }

  /// adjoint(v) += contribution, for active v.
  void accumulate(Location loc, Value v, Value contribution) {
    if (!active.contains(v))
      return;
    auto it = adjoints.find(v);
    if (it == adjoints.end())
      adjoints[v] = contribution;
    else
      it->second = add(loc, it->second, contribution);
  }

  LogicalResult backward(Operation &op, std::string *whyNot);

  Block &score;
  OpBuilder b;
  RankedTensorType f32;
  IRMapping mapping;
  llvm::DenseSet<Value> active;
  llvm::DenseMap<Value, Value> adjoints;
};
} // namespace

LogicalResult Differentiator::backward(Operation &op, std::string *whyNot) {
  if (op.getNumResults() != 1 || !active.contains(op.getResult(0)))
    return success();
  auto it = adjoints.find(op.getResult(0));
  if (it == adjoints.end())
    return success(); // the result does not reach the yield
  Value g = it->second;
  Location loc = op.getLoc();
  Value r = op.getResult(0);
  auto binary = [&](Operation &o) {
    return std::pair<Value, Value>{o.getOperand(0), o.getOperand(1)};
  };
  return llvm::TypeSwitch<Operation *, LogicalResult>(&op)
      .Case([&](AddOp) {
        auto [x, y] = binary(op);
        accumulate(loc, x, g);
        accumulate(loc, y, g);
        return success();
      })
      .Case([&](SubOp) {
        auto [x, y] = binary(op);
        accumulate(loc, x, g);
        if (active.contains(y))
          accumulate(loc, y, neg(loc, g));
        return success();
      })
      .Case([&](MulOp) {
        auto [x, y] = binary(op);
        if (active.contains(x))
          accumulate(loc, x, mul(loc, g, asF32(loc, y)));
        if (active.contains(y))
          accumulate(loc, y, mul(loc, g, asF32(loc, x)));
        return success();
      })
      .Case([&](DivOp) {
        // r = x / y: dx = g / y, dy = -g r / y.
        auto [x, y] = binary(op);
        Value yf = asF32(loc, y);
        if (active.contains(x))
          accumulate(loc, x, DivOp::create(b, loc, g, yf));
        if (active.contains(y))
          accumulate(loc, y,
                     neg(loc, DivOp::create(b, loc, mul(loc, g, asF32(loc, r)),
                                            yf)));
        return success();
      })
      .Case<MaxOp, MinOp>([&](Operation *) {
        // The operand the op chose gets the gradient (the first on ties).
        auto [x, y] = binary(op);
        Value firstChosen =
            CmpOp::create(b, loc,
                          isa<MaxOp>(op) ? CmpPredicate::ge : CmpPredicate::le,
                          primal(x), primal(y));
        Value zero = constant(loc, 0.0);
        if (active.contains(x))
          accumulate(loc, x, select(loc, firstChosen, g, zero));
        if (active.contains(y))
          accumulate(loc, y, select(loc, firstChosen, zero, g));
        return success();
      })
      .Case([&](PowOp) {
        // r = x^y: dx = g y x^(y-1), dy = g r log(x).
        auto [x, y] = binary(op);
        Value xf = asF32(loc, x), yf = asF32(loc, y);
        if (active.contains(x)) {
          Value ym1 = SubOp::create(b, loc, yf, constant(loc, 1.0));
          accumulate(loc, x,
                     mul(loc, mul(loc, g, yf), PowOp::create(b, loc, xf, ym1)));
        }
        if (active.contains(y))
          accumulate(loc, y,
                     mul(loc, mul(loc, g, asF32(loc, r)),
                         LogOp::create(b, loc, xf)));
        return success();
      })
      .Case([&](ExpOp e) {
        accumulate(loc, e.getInput(), mul(loc, g, asF32(loc, r)));
        return success();
      })
      .Case([&](LogOp l) {
        accumulate(loc, l.getInput(),
                   DivOp::create(b, loc, g, asF32(loc, l.getInput())));
        return success();
      })
      .Case([&](TanhOp t) {
        // 1 - tanh^2.
        Value rf = asF32(loc, r);
        Value d = SubOp::create(b, loc, constant(loc, 1.0), mul(loc, rf, rf));
        accumulate(loc, t.getInput(), mul(loc, g, d));
        return success();
      })
      .Case([&](NegOp n) {
        accumulate(loc, n.getInput(), neg(loc, g));
        return success();
      })
      .Case([&](AbsOp a) {
        // sign(x) g, 0 at x = 0 (as torch.abs).
        Value x = primal(a.getInput());
        auto type = cast<RankedTensorType>(x.getType());
        Value zeroX = ConstantOp::createSplat(b, loc, type, 0.0);
        Value zero = constant(loc, 0.0);
        Value positive = CmpOp::create(b, loc, CmpPredicate::gt, x, zeroX);
        Value negative = CmpOp::create(b, loc, CmpPredicate::lt, x, zeroX);
        accumulate(loc, a.getInput(),
                   select(loc, positive, g,
                          select(loc, negative, neg(loc, g), zero)));
        return success();
      })
      .Case([&](SqrtOp s) {
        // g / (2 sqrt(x)).
        accumulate(loc, s.getInput(),
                   DivOp::create(b, loc, mul(loc, g, constant(loc, 0.5)),
                                 asF32(loc, r)));
        return success();
      })
      .Case([&](RsqrtOp s) {
        // d x^(-1/2) = -x^(-3/2) / 2 = -r^3 / 2.
        Value rf = asF32(loc, r);
        accumulate(loc, s.getInput(),
                   mul(loc, mul(loc, g, constant(loc, -0.5)),
                       mul(loc, rf, mul(loc, rf, rf))));
        return success();
      })
      .Case([&](RecipOp rc) {
        Value rf = asF32(loc, r);
        accumulate(loc, rc.getInput(), neg(loc, mul(loc, g, mul(loc, rf, rf))));
        return success();
      })
      .Case([&](SigmoidOp s) {
        Value rf = asF32(loc, r);
        Value d = mul(loc, rf, SubOp::create(b, loc, constant(loc, 1.0), rf));
        accumulate(loc, s.getInput(), mul(loc, g, d));
        return success();
      })
      .Case([&](SelectOp s) {
        // A mask that yields -inf where it drops the score: there P = 0,
        // so dS = 0 whatever the gradient says (attention_grad's rule), and
        // the kept branch gets it unmasked.
        bool yielded = r == score.getTerminator()->getOperand(0);
        if (yielded && isNegativeInfinity(s.getOnFalse())) {
          accumulate(loc, s.getOnTrue(), g);
          return success();
        }
        if (yielded && isNegativeInfinity(s.getOnTrue())) {
          accumulate(loc, s.getOnFalse(), g);
          return success();
        }
        Value zero = constant(loc, 0.0);
        Value cond = primal(s.getCond());
        if (active.contains(s.getOnTrue()))
          accumulate(loc, s.getOnTrue(), select(loc, cond, g, zero));
        if (active.contains(s.getOnFalse()))
          accumulate(loc, s.getOnFalse(), select(loc, cond, zero, g));
        return success();
      })
      .Case([&](CastOp c) {
        // Float -> float rounding passes the gradient (straight through).
        if (isFloatValue(c.getInput()))
          accumulate(loc, c.getInput(), g);
        return success();
      })
      .Default([&](Operation *other) {
        if (whyNot)
          *whyNot = (other->getName().getStringRef() +
                     " has no derivative in the score region")
                        .str();
        return failure();
      });
}

FailureOr<std::unique_ptr<Block>>
mlir::tg::deriveScoreGradient(Block &score, unsigned wrt, std::string *whyNot) {
  return deriveScoreGradient(score, score.getArgument(wrt), whyNot);
}

FailureOr<std::unique_ptr<Block>>
mlir::tg::deriveScoreGradient(Block &score, Value wrt, std::string *whyNot) {
  auto out = std::make_unique<Block>();
  for (BlockArgument arg : score.getArguments())
    out->addArgument(arg.getType(), arg.getLoc());
  Differentiator d(score, *out);
  Value dz = out->addArgument(d.f32, score.getTerminator()->getLoc());
  for (auto [from, to] : llvm::zip(score.getArguments(), out->getArguments()))
    d.mapping.map(from, to);
  d.active = activeValues(score, wrt);

  // The primal values, then the adjoints from the yield backwards.
  for (Operation &op : score.without_terminator())
    d.b.clone(op, d.mapping);
  Value result = score.getTerminator()->getOperand(0);
  if (d.active.contains(result))
    d.adjoints[result] = dz;
  for (Operation &op : llvm::reverse(score.without_terminator())) {
    if (llvm::is_contained(op.getResults(), wrt))
      break; // nothing before the seed depends on it
    if (failed(d.backward(op, whyNot)))
      return failure();
  }
  Location loc = score.getTerminator()->getLoc();
  Value gradient = d.adjoints.lookup(wrt);
  if (!gradient)
    gradient = d.constant(loc, 0.0); // the result does not depend on it
  else if (cast<RankedTensorType>(gradient.getType()).getElementType() !=
           d.b.getF32Type())
    gradient = CastOp::create(d.b, loc, d.f32, gradient);
  YieldOp::create(d.b, loc, gradient);

  // Drop the primal ops the derivative does not use (all pointwise ops are
  // pure); backwards, so that a chain goes in one pass.
  SmallVector<Operation *> ops;
  for (Operation &op : out->without_terminator())
    ops.push_back(&op);
  for (Operation *op : llvm::reverse(ops))
    if (op->use_empty())
      op->erase();
  return out;
}

FailureOr<Block *> mlir::tg::scoreGradientBlock(AttentionGradOp op,
                                                std::unique_ptr<Block> &derived,
                                                std::string *whyNot) {
  if (!op.getScoreGrad().empty())
    return &op.getScoreGrad().front();
  FailureOr<std::unique_ptr<Block>> block =
      deriveScoreGradient(op.getScoreBlock(), 0, whyNot);
  if (failed(block))
    return failure();
  derived = std::move(*block);
  return derived.get();
}
