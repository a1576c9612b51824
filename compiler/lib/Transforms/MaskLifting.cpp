//===- MaskLifting.cpp - region masks -> causal/window/padding attributes -===//
//
// tg.attention applies its attribute masks after the score region, so only
// masks at the end of the region (followed at most by multiplications with a
// positive constant, which keep -inf) can move into attributes. A mask is
//
//   select(keep, x, -inf)   select(masked, -inf, x)
//   x + select(keep, 0, -inf)   x + C   (C a captured constant of 0 / -inf)
//
// and it is lifted only when its condition is provably one of:
//   * a band lo <= kv_idx - q_idx <= hi: comparisons of integer-linear
//     expressions of the indices, or a constant boolean / 0,-inf tensor whose
//     values form such a band (checked element by element);
//   * padding: q_idx < L[b] or kv_idx < L[b] with L a [B] integer tensor
//     captured as [B, 1, 1, 1].
// Bands combine into causal (top-left or bottom-right) plus window sizes when
// the combination is exactly representable; otherwise every band mask stays
// in the region. Additive masks with finite values (-1e9, the dtype's
// lowest) never move: a fully masked row then gives a uniform distribution,
// which attribute masks (-inf) would turn into zeros.
//
//===----------------------------------------------------------------------===//
#include "ScoreRegion.h"

#include <cmath>
#include <limits>

using namespace mlir;
using namespace mlir::tg;
using namespace mlir::tg::fusion;

static Value seqLenSource(Value capture, int64_t batch);

namespace {
/// a*q_idx + b*kv_idx + c.
struct Linear {
  int64_t q = 0, kv = 0, c = 0;
  // Coefficients of the lifted padding lengths Lq[b] and Lkv[b].
  int64_t lq = 0, lkv = 0;
};

/// kept positions: lo <= kv_idx - diag <= hi, with diag = q_idx, or with
/// diag = q_idx + Lkv[b] - Lq[b] for `bottomRight` (the padded bottom-right
/// diagonal; a length that is not a padding operand is its static size).
struct Band {
  int64_t lo, hi;
  bool bottomRight = false;
};

struct PaddingMask {
  bool isQuery;
  Value seqLen; // the [B] tensor
};

/// One factor of a mask's keep condition (`a && b` is written
/// `select(a, b, false)`).
struct Conjunct {
  Value keep;            // i1 region value, or null for a constant capture
  bool negated = false;  // keep is the negation of `keep`
  Value constantCapture; // an additive 0/-inf constant capture
  std::optional<Band> band;
  std::optional<PaddingMask> padding;
  bool lifted = false;
};

/// One trailing mask of the region.
struct TrailingMask {
  Operation *op;
  Value passthrough; // the score the mask applies to
  SmallVector<Conjunct> conjuncts;
};

class MaskLifter {
public:
  MaskLifter(ScoreRegion &region, ArrayRef<int64_t> scoreShape)
      : region(region), block(*region.block), sq(scoreShape[2]),
        skv(scoreShape[3]), batch(scoreShape[0]) {}

  LiftedMasks run();

private:
  bool isNegInf(Value v) {
    std::optional<double> c = evalSplatConstant(v);
    return c && *c == -std::numeric_limits<double>::infinity();
  }
  bool isZero(Value v) {
    std::optional<double> c = evalSplatConstant(v);
    return c && *c == 0.0;
  }
  Value captureOf(Value regionValue) {
    auto arg = dyn_cast<BlockArgument>(regionValue);
    if (!arg || arg.getOwner() != &block ||
        arg.getArgNumber() < kFirstCaptureArg)
      return {};
    return region.captures[arg.getArgNumber() - kFirstCaptureArg];
  }
  bool fits(const Linear &l, Type type);
  std::optional<Linear> linear(Value v, int depth = 0);
  void peel(SmallVectorImpl<TrailingMask> &masks);
  void addCondition(Value keep, bool negated, TrailingMask &mask);
  bool matchAdditive(Value m, TrailingMask &mask);
  void classify(Conjunct &conjunct);
  void rebuild(TrailingMask &mask);
  std::optional<Band> bandOfCompare(CmpOp cmp, bool negated);
  std::optional<Band> bandOfConstant(Value capture, bool additive,
                                     bool invert);
  std::optional<PaddingMask> paddingOf(CmpOp cmp, bool negated);

  ScoreRegion &region;
  Block &block;
  int64_t sq, skv, batch;
  // Padding lengths already lifted; linear() resolves captures of them.
  Value liftedLq, liftedLkv;
};
} // namespace

bool MaskLifter::fits(const Linear &l, Type type) {
  // Largest magnitude over the grid; exact when it fits the type.
  // Lengths are at most the static sizes (tg.sdpa's contract).
  double bound = std::abs(static_cast<double>(l.q)) * (sq - 1) +
                 std::abs(static_cast<double>(l.kv)) * (skv - 1) +
                 std::abs(static_cast<double>(l.lq)) * sq +
                 std::abs(static_cast<double>(l.lkv)) * skv +
                 std::abs(static_cast<double>(l.c));
  if (auto intType = dyn_cast<IntegerType>(type))
    return intType.getWidth() > 1 &&
           bound < std::ldexp(1.0, intType.getWidth() - 1);
  if (auto floatType = dyn_cast<FloatType>(type))
    return bound <= std::ldexp(1.0, floatType.getFPMantissaWidth());
  return false;
}

std::optional<Linear> MaskLifter::linear(Value v, int depth) {
  if (depth > 32)
    return std::nullopt;
  std::optional<Linear> result;
  if (auto arg = dyn_cast<BlockArgument>(v)) {
    if (arg.getOwner() != &block)
      return std::nullopt;
    if (arg.getArgNumber() == kQueryArg)
      result = Linear{1, 0, 0};
    else if (arg.getArgNumber() == kKeyArg)
      result = Linear{0, 1, 0};
    else if (Value capture = captureOf(arg)) {
      Value length = seqLenSource(capture, batch);
      if (length && length == liftedLq)
        result = Linear{0, 0, 0, 1, 0};
      else if (length && length == liftedLkv)
        result = Linear{0, 0, 0, 0, 1};
    }
  } else if (std::optional<double> c = evalSplatConstant(v)) {
    if (std::isfinite(*c) && *c == std::trunc(*c) && std::abs(*c) < 1e15)
      result = Linear{0, 0, static_cast<int64_t>(*c)};
  } else if (Operation *def = v.getDefiningOp()) {
    auto operand = [&](unsigned i) {
      return linear(def->getOperand(i), depth + 1);
    };
    if (isa<CastOp>(def)) {
      Type from = elementTypeOf(def->getOperand(0));
      if (isa<IntegerType>(from) && !from.isInteger(1))
        result = operand(0);
    } else if (isa<NegOp>(def)) {
      if (auto x = operand(0))
        result = Linear{-x->q, -x->kv, -x->c};
    } else if (isa<AddOp, SubOp>(def)) {
      auto a = operand(0), b = operand(1);
      if (a && b) {
        int64_t sign = isa<SubOp>(def) ? -1 : 1;
        result = Linear{a->q + sign * b->q, a->kv + sign * b->kv,
                        a->c + sign * b->c, a->lq + sign * b->lq,
                        a->lkv + sign * b->lkv};
      }
    } else if (isa<MulOp>(def)) {
      auto a = operand(0), b = operand(1);
      auto constant = [](const Linear &l) {
        return l.q == 0 && l.kv == 0 && l.lq == 0 && l.lkv == 0;
      };
      auto scaled = [](const Linear &l, int64_t k) {
        return Linear{k * l.q, k * l.kv, k * l.c, k * l.lq, k * l.lkv};
      };
      if (a && b && constant(*a))
        result = scaled(*b, a->c);
      else if (a && b && constant(*b))
        result = scaled(*a, b->c);
    }
  }
  if (result && !fits(*result, elementTypeOf(v)))
    return std::nullopt;
  return result;
}

static CmpPredicate negate(CmpPredicate p) {
  switch (p) {
  case CmpPredicate::lt: return CmpPredicate::ge;
  case CmpPredicate::le: return CmpPredicate::gt;
  case CmpPredicate::gt: return CmpPredicate::le;
  case CmpPredicate::ge: return CmpPredicate::lt;
  case CmpPredicate::eq: return CmpPredicate::ne;
  case CmpPredicate::ne: return CmpPredicate::eq;
  }
  return p;
}

/// The predicate with its operands swapped (a < b  <=>  b > a).
static CmpPredicate swapped(CmpPredicate p) {
  switch (p) {
  case CmpPredicate::lt: return CmpPredicate::gt;
  case CmpPredicate::le: return CmpPredicate::ge;
  case CmpPredicate::gt: return CmpPredicate::lt;
  case CmpPredicate::ge: return CmpPredicate::le;
  default: return p;
  }
}

std::optional<Band> MaskLifter::bandOfCompare(CmpOp cmp, bool negated) {
  std::optional<Linear> lhs = linear(cmp.getLhs());
  std::optional<Linear> rhs = linear(cmp.getRhs());
  if (!lhs || !rhs)
    return std::nullopt;
  CmpPredicate pred = negated ? negate(cmp.getPredicate()) : cmp.getPredicate();
  // d = lhs - rhs = dq*q + dkv*kv + c (+ lengths), compared with 0.
  Linear d{lhs->q - rhs->q, lhs->kv - rhs->kv, lhs->c - rhs->c,
           lhs->lq - rhs->lq, lhs->lkv - rhs->lkv};
  // With one query row (decode) q_idx is 0, and canonicalisation folds it
  // away: a condition on kv_idx alone is then a band on kv - q as well.
  if (sq == 1 && d.q == 0 && (d.kv == 1 || d.kv == -1))
    d.q = -d.kv;
  if (d.kv == -1 && d.q == 1) {
    d = Linear{-1, 1, -d.c, -d.lq, -d.lkv};
    pred = swapped(pred);
  }
  if (d.kv != 1 || d.q != -1)
    return std::nullopt;
  // With t' = kv - (q + Lkv - Lq), d = t' + c' when the length terms are
  // exactly -Lkv + Lq (a length that is not lifted being its static size).
  bool bottomRight = d.lq != 0 || d.lkv != 0;
  if (bottomRight) {
    if (d.lkv != (liftedLkv ? -1 : 0) || d.lq != (liftedLq ? 1 : 0))
      return std::nullopt;
    d.c += (liftedLkv ? 0 : skv) - (liftedLq ? 0 : sq);
  }
  // t = kv - q; the condition is t + c pred 0.
  Band band{std::numeric_limits<int64_t>::min() / 4,
            std::numeric_limits<int64_t>::max() / 4};
  switch (pred) {
  case CmpPredicate::lt: band.hi = -d.c - 1; break;
  case CmpPredicate::le: band.hi = -d.c; break;
  case CmpPredicate::gt: band.lo = -d.c + 1; break;
  case CmpPredicate::ge: band.lo = -d.c; break;
  case CmpPredicate::eq: band.lo = band.hi = -d.c; break;
  case CmpPredicate::ne: return std::nullopt;
  }
  band.bottomRight = bottomRight;
  return band;
}

std::optional<Band> MaskLifter::bandOfConstant(Value capture, bool additive,
                                               bool invert) {
  auto constant = capture.getDefiningOp<ConstantOp>();
  if (!constant || rankOf(capture) != 4)
    return std::nullopt;
  auto dense = dyn_cast<DenseElementsAttr>(constant.getValue());
  if (!dense)
    return std::nullopt;
  Type element = dense.getElementType();
  if (additive ? !isa<FloatType>(element) : !element.isInteger(1))
    return std::nullopt;
  ArrayRef<int64_t> shape = shapeOf(capture);
  SmallVector<int64_t> strides = rowMajorStrides(shape);
  auto at = [&](int64_t b, int64_t h, int64_t q, int64_t kv) -> int64_t {
    int64_t idx[4] = {b, h, q, kv};
    int64_t offset = 0;
    for (int d = 0; d < 4; ++d)
      offset += (shape[d] == 1 ? 0 : idx[d]) * strides[d];
    return offset;
  };
  // Decode every element once: 1 keep, 0 masked, -1 neither.
  SmallVector<int8_t> keep;
  keep.reserve(dense.getNumElements());
  if (additive) {
    for (APFloat v : dense.getValues<APFloat>()) {
      double x = v.convertToDouble();
      keep.push_back(x == 0.0 ? 1
                     : x == -std::numeric_limits<double>::infinity() ? 0
                                                                      : -1);
    }
  } else {
    for (bool v : dense.getValues<bool>())
      keep.push_back(v != invert ? 1 : 0);
  }
  if (llvm::is_contained(keep, -1))
    return std::nullopt;
  // The band must not depend on the batch or head.
  for (int64_t b = 0; b < shape[0]; ++b)
    for (int64_t h = 0; h < shape[1]; ++h)
      for (int64_t q = 0; q < shape[2]; ++q)
        for (int64_t kv = 0; kv < shape[3]; ++kv)
          if (keep[at(b, h, q, kv)] != keep[at(0, 0, q, kv)])
            return std::nullopt;
  int64_t lo = std::numeric_limits<int64_t>::max();
  int64_t hi = std::numeric_limits<int64_t>::min();
  for (int64_t q = 0; q < sq; ++q)
    for (int64_t kv = 0; kv < skv; ++kv)
      if (keep[at(0, 0, q, kv)]) {
        lo = std::min(lo, kv - q);
        hi = std::max(hi, kv - q);
      }
  if (lo > hi)
    return std::nullopt; // nothing kept: not a band worth lifting
  for (int64_t q = 0; q < sq; ++q)
    for (int64_t kv = 0; kv < skv; ++kv)
      if (static_cast<bool>(keep[at(0, 0, q, kv)]) !=
          (lo <= kv - q && kv - q <= hi))
        return std::nullopt;
  return Band{lo, hi};
}

/// Follows reshapes and widening integer casts from a capture back to a
/// [B] sequence-length tensor.
static Value seqLenSource(Value capture, int64_t batch) {
  ArrayRef<int64_t> shape = shapeOf(capture);
  if (shape.size() != 4 || shape[0] != batch || shape[1] != 1 ||
      shape[2] != 1 || shape[3] != 1)
    return {};
  Value v = capture;
  while (true) {
    if (auto reshape = v.getDefiningOp<ReshapeOp>()) {
      v = reshape.getInput();
      continue;
    }
    if (auto cast = v.getDefiningOp<CastOp>()) {
      auto from = dyn_cast<IntegerType>(elementTypeOf(cast.getInput()));
      auto to = dyn_cast<IntegerType>(elementTypeOf(cast.getResult()));
      if (from && to && from.getWidth() >= 32 && to.getWidth() >= 32) {
        v = cast.getInput();
        continue;
      }
    }
    break;
  }
  Type element = elementTypeOf(v);
  if (rankOf(v) != 1 || shapeOf(v)[0] != batch ||
      !(element.isInteger(32) || element.isInteger(64)))
    return {};
  return v;
}

std::optional<PaddingMask> MaskLifter::paddingOf(CmpOp cmp, bool negated) {
  CmpPredicate pred = negated ? negate(cmp.getPredicate()) : cmp.getPredicate();
  Value index = cmp.getLhs(), bound = cmp.getRhs();
  if (pred == CmpPredicate::gt) {
    std::swap(index, bound);
    pred = CmpPredicate::lt;
  }
  if (pred != CmpPredicate::lt)
    return std::nullopt;
  std::optional<Linear> idx = linear(index);
  if (!idx || idx->c != 0)
    return std::nullopt;
  bool isQuery;
  if (idx->q == 1 && idx->kv == 0)
    isQuery = true;
  else if (idx->q == 0 && idx->kv == 1)
    isQuery = false;
  else
    return std::nullopt;
  // The bound: a captured length, possibly widened inside the region.
  while (auto cast = bound.getDefiningOp<CastOp>()) {
    auto from = dyn_cast<IntegerType>(elementTypeOf(cast.getInput()));
    auto to = dyn_cast<IntegerType>(elementTypeOf(cast.getResult()));
    if (!from || !to || from.getWidth() < 32 || to.getWidth() < from.getWidth())
      return std::nullopt;
    bound = cast.getInput();
  }
  Value capture = captureOf(bound);
  if (!capture)
    return std::nullopt;
  Value seqLen = seqLenSource(capture, batch);
  if (!seqLen)
    return std::nullopt;
  return PaddingMask{isQuery, seqLen};
}

bool MaskLifter::matchAdditive(Value m, TrailingMask &mask) {
  m = stripPrecisionCasts(m);
  if (auto select = m.getDefiningOp<SelectOp>()) {
    if (isZero(select.getOnTrue()) && isNegInf(select.getOnFalse())) {
      addCondition(select.getCond(), /*negated=*/false, mask);
      return true;
    }
    if (isNegInf(select.getOnTrue()) && isZero(select.getOnFalse())) {
      addCondition(select.getCond(), /*negated=*/true, mask);
      return true;
    }
    return false;
  }
  if (Value capture = captureOf(m)) {
    Conjunct conjunct;
    conjunct.constantCapture = capture;
    mask.conjuncts.push_back(conjunct);
    return true;
  }
  return false;
}

void MaskLifter::peel(SmallVectorImpl<TrailingMask> &masks) {
  Value tail = block.getTerminator()->getOperand(0);
  while (Operation *def = tail.getDefiningOp()) {
    if (!tail.hasOneUse())
      break;
    TrailingMask mask{def, {}, {}};
    if (isa<AddOp>(def))
      for (unsigned i = 0; i < 2 && !mask.passthrough; ++i) {
        mask.conjuncts.clear();
        if (matchAdditive(def->getOperand(1 - i), mask))
          mask.passthrough = def->getOperand(i);
      }
    if (auto select = dyn_cast<SelectOp>(def)) {
      if (isNegInf(select.getOnFalse())) {
        addCondition(select.getCond(), /*negated=*/false, mask);
        mask.passthrough = select.getOnTrue();
      } else if (isNegInf(select.getOnTrue())) {
        addCondition(select.getCond(), /*negated=*/true, mask);
        mask.passthrough = select.getOnFalse();
      } else {
        break;
      }
    } else if (isa<AddOp>(def)) {
      if (!mask.passthrough)
        break;
    } else if (isa<MulOp>(def) &&
               (isPositiveFiniteConstant(def->getOperand(1)) ||
                isPositiveFiniteConstant(def->getOperand(0)))) {
      // -inf * c = -inf for c > 0: masks commute with this.
      tail = def->getOperand(isPositiveFiniteConstant(def->getOperand(1)) ? 0
                                                                          : 1);
      continue;
    } else {
      break;
    }
    masks.push_back(mask);
    tail = mask.passthrough;
  }
}

void MaskLifter::addCondition(Value keep, bool negated, TrailingMask &mask) {
  // keep = a && b is select(a, b, false); a negated condition is not split.
  if (!negated)
    if (auto select = keep.getDefiningOp<SelectOp>()) {
      std::optional<double> onFalse = evalSplatConstant(select.getOnFalse());
      if (onFalse && *onFalse == 0.0 &&
          elementTypeOf(select.getOnFalse()).isInteger(1)) {
        addCondition(select.getCond(), false, mask);
        addCondition(select.getOnTrue(), false, mask);
        return;
      }
    }
  Conjunct conjunct;
  conjunct.keep = keep;
  conjunct.negated = negated;
  mask.conjuncts.push_back(conjunct);
}

void MaskLifter::classify(Conjunct &conjunct) {
  if (conjunct.constantCapture) {
    conjunct.band = bandOfConstant(conjunct.constantCapture, /*additive=*/true,
                                   /*invert=*/false);
    return;
  }
  if (Value capture = captureOf(conjunct.keep)) {
    conjunct.band =
        bandOfConstant(capture, /*additive=*/false, conjunct.negated);
    return;
  }
  if (auto cmp = conjunct.keep.getDefiningOp<CmpOp>())
    conjunct.band = bandOfCompare(cmp, conjunct.negated);
}

/// Replaces a partly lifted mask by `select(remaining conjuncts, x, -inf)`.
void MaskLifter::rebuild(TrailingMask &mask) {
  OpBuilder builder(mask.op);
  Location loc = mask.op->getLoc();
  auto i1 = RankedTensorType::get({}, builder.getI1Type());
  Value keep;
  for (Conjunct &conjunct : mask.conjuncts) {
    if (conjunct.lifted)
      continue;
    Value factor = conjunct.keep;
    if (conjunct.negated)
      factor = CmpOp::create(builder, loc, CmpPredicate::eq, factor,
                             ConstantOp::createScalar(builder, loc,
                                                      builder.getI1Type(), 0));
    if (keep)
      factor = SelectOp::create(
          builder, loc, i1, keep, factor,
          ConstantOp::createScalar(builder, loc, builder.getI1Type(), 0));
    keep = factor;
  }
  Value ninf = ConstantOp::createScalar(
      builder, loc, builder.getF32Type(),
      -std::numeric_limits<double>::infinity());
  Value masked = SelectOp::create(builder, loc, keep, mask.passthrough, ninf);
  mask.op->getResult(0).replaceAllUsesWith(masked);
  mask.op->erase();
}

LiftedMasks MaskLifter::run() {
  LiftedMasks lifted;
  SmallVector<TrailingMask> masks;
  peel(masks);
  SmallVector<Conjunct *> conjuncts;
  for (TrailingMask &mask : masks)
    for (Conjunct &conjunct : mask.conjuncts)
      conjuncts.push_back(&conjunct);

  // Padding first: bottom-right bands may refer to the lifted lengths.
  for (Conjunct *conjunct : conjuncts) {
    auto cmp = conjunct->keep ? conjunct->keep.getDefiningOp<CmpOp>() : CmpOp();
    if (!cmp)
      continue;
    conjunct->padding = paddingOf(cmp, conjunct->negated);
    if (!conjunct->padding)
      continue;
    Value &slot = conjunct->padding->isQuery ? lifted.seqLenQ : lifted.seqLenKv;
    if (slot && slot != conjunct->padding->seqLen)
      continue;
    slot = conjunct->padding->seqLen;
    conjunct->lifted = true;
  }
  liftedLq = lifted.seqLenQ;
  liftedLkv = lifted.seqLenKv;
  bool padded = liftedLq || liftedLkv;
  for (Conjunct *conjunct : conjuncts)
    if (!conjunct->lifted)
      classify(*conjunct);

  // Bands relative to the padded bottom-right diagonal: only causal (hi = 0)
  // with an optional left window is expressible.
  int64_t brLo = std::numeric_limits<int64_t>::min() / 4;
  int64_t brHi = std::numeric_limits<int64_t>::max() / 4;
  SmallVector<Conjunct *> brBands, tlBands;
  for (Conjunct *conjunct : conjuncts)
    if (conjunct->band && conjunct->band->bottomRight) {
      brLo = std::max(brLo, conjunct->band->lo);
      brHi = std::min(brHi, conjunct->band->hi);
      brBands.push_back(conjunct);
    } else if (conjunct->band) {
      tlBands.push_back(conjunct);
    }
  if (!brBands.empty()) {
    if (brHi == 0 && brLo <= 0) {
      lifted.causal = CausalMode::bottom_right;
      if (brLo > std::numeric_limits<int64_t>::min() / 4)
        lifted.windowLeft = -brLo;
      for (Conjunct *conjunct : brBands)
        conjunct->lifted = true;
    }
  }

  // Intersect the static bands, clipped to the grid: kv - q in
  // [-(sq-1), skv-1].
  int64_t minD = -(sq - 1), maxD = skv - 1;
  int64_t lo = minD, hi = maxD;
  for (Conjunct *conjunct : tlBands) {
    lo = std::max(lo, conjunct->band->lo);
    hi = std::min(hi, conjunct->band->hi);
  }
  bool hasLo = lo > minD, hasHi = hi < maxD;
  int64_t shift = skv - sq; // static bottom-right diagonal offset
  bool representable = true;
  LiftedMasks bands;
  if (!hasLo && !hasHi) {
    // No band, or bands that keep everything.
  } else if (lo > hi) {
    representable = false; // everything masked
  } else if (hasHi && hi == 0) {
    bands.causal = CausalMode::top_left;
    if (hasLo)
      bands.windowLeft = -lo;
  } else if (hasHi && hi == shift && !padded) {
    // With padding, bottom-right alignment uses the actual lengths.
    bands.causal = CausalMode::bottom_right;
    if (hasLo)
      bands.windowLeft = shift - lo;
  } else if (lo <= 0 && hi >= 0) {
    // Without causal masking a window is top-left aligned (diag = q_idx).
    if (hasLo)
      bands.windowLeft = -lo;
    if (hasHi)
      bands.windowRight = hi;
  } else {
    representable = false;
  }
  if (bands.windowLeft && *bands.windowLeft < 0)
    representable = false;
  // The static bands can join only if the padded bottom-right bands took no
  // attributes (both sets are rare together; the rest stays in the region).
  bool attributesFree = lifted.causal == CausalMode::none &&
                        !lifted.windowLeft && !lifted.windowRight;
  bool needsAttributes =
      bands.causal != CausalMode::none || bands.windowLeft || bands.windowRight;
  if (representable && (attributesFree || !needsAttributes)) {
    if (needsAttributes) {
      lifted.causal = bands.causal;
      lifted.windowLeft = bands.windowLeft;
      lifted.windowRight = bands.windowRight;
    }
    for (Conjunct *conjunct : tlBands)
      conjunct->lifted = true;
  }

  for (TrailingMask &mask : masks) {
    bool all = llvm::all_of(mask.conjuncts,
                            [](const Conjunct &c) { return c.lifted; });
    bool any = llvm::any_of(mask.conjuncts,
                            [](const Conjunct &c) { return c.lifted; });
    if (all) {
      mask.op->getResult(0).replaceAllUsesWith(mask.passthrough);
      mask.op->erase();
    } else if (any) {
      rebuild(mask);
    }
  }
  return lifted;
}

LiftedMasks mlir::tg::fusion::liftMasks(ScoreRegion &region,
                                        ArrayRef<int64_t> scoreShape,
                                        Block *grad) {
  LiftedMasks lifted = MaskLifter(region, scoreShape).run();
  pruneScoreRegion(region, grad);
  return lifted;
}
