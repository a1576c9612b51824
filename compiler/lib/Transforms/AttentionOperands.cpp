//===- AttentionOperands.cpp - q, k, v behind the two matmuls -------------===//
//
// The QK matmul's operands may carry a constant scale (on Q or K), K may be
// transposed by any permutation that ends in [B, H, D, S], and K and V may
// be expanded from fewer heads (GQA/MQA) by a broadcast of a one-head tensor
// or by the reshape-broadcast-reshape idiom ([B,Hkv,S,D] -> [B,Hkv,1,S,D] ->
// [B,Hkv,G,S,D] -> [B,Hkv*G,S,D], which maps query head h to kv head h/G).
// Other expansions (e.g. tiling, which maps h to h % Hkv) are left in place
// and the expanded tensors are used as they are.
//
//===----------------------------------------------------------------------===//
#include "AttentionMatch.h"

#include <cmath>

using namespace mlir;
using namespace mlir::tg;
using namespace mlir::tg::fusion;

SmallVector<int64_t> OperandPlan::shape() const {
  SmallVector<int64_t> in =
      reshapeTo ? *reshapeTo : llvm::to_vector(shapeOf(source));
  if (perm.empty())
    return in;
  SmallVector<int64_t> out;
  for (int64_t p : perm)
    out.push_back(in[p]);
  return out;
}

/// Strips `x * c`, `c * x` or `x / c` with c a finite non-zero splat
/// constant, multiplying `scale` by its factor.
static bool stripScale(Value &x, double &scale) {
  Operation *def = x.getDefiningOp();
  if (!isa_and_nonnull<MulOp, DivOp>(def))
    return false;
  for (unsigned i = 0; i < 2; ++i) {
    if (isa<DivOp>(def) && i == 1)
      break;
    Value input = def->getOperand(i);
    std::optional<double> c = evalSplatConstant(def->getOperand(1 - i));
    if (!c || !std::isfinite(*c) || *c == 0.0 ||
        shapeOf(input) != shapeOf(def->getResult(0)))
      continue;
    scale *= isa<DivOp>(def) ? 1.0 / *c : *c;
    x = input;
    return true;
  }
  return false;
}

std::optional<OperandPlan> mlir::tg::fusion::stripHeadExpansion(Value x) {
  ArrayRef<int64_t> xs = shapeOf(x);
  if (xs.size() != 4)
    return std::nullopt;
  // MQA: broadcast of a one-head tensor.
  if (auto broadcast = x.getDefiningOp<BroadcastOp>()) {
    Value in = broadcast.getInput();
    ArrayRef<int64_t> is = shapeOf(in);
    if (is.size() == 4 && is[0] == xs[0] && is[1] == 1 && is[2] == xs[2] &&
        is[3] == xs[3])
      return OperandPlan{in, std::nullopt, {}};
    return std::nullopt;
  }
  // GQA: [B,Hkv,G,A,C] reshaped to [B,Hkv*G,A,C], from a broadcast of
  // [B,Hkv,1,A,C].
  auto outer = x.getDefiningOp<ReshapeOp>();
  if (!outer)
    return std::nullopt;
  ArrayRef<int64_t> es = shapeOf(outer.getInput());
  if (es.size() != 5 || es[0] != xs[0] || es[1] * es[2] != xs[1] ||
      es[3] != xs[2] || es[4] != xs[3])
    return std::nullopt;
  auto broadcast = outer.getInput().getDefiningOp<BroadcastOp>();
  if (!broadcast)
    return std::nullopt;
  Value in = broadcast.getInput();
  SmallVector<int64_t> expected{es[0], es[1], 1, es[3], es[4]};
  if (shapeOf(in) != ArrayRef<int64_t>(expected))
    return std::nullopt;
  SmallVector<int64_t> heads{es[0], es[1], es[3], es[4]};
  if (auto inner = in.getDefiningOp<ReshapeOp>())
    if (shapeOf(inner.getInput()) == ArrayRef<int64_t>(heads))
      return OperandPlan{inner.getInput(), std::nullopt, {}};
  return OperandPlan{in, heads, {}};
}

namespace {
/// An operand with and without its head expansion undone.
struct OperandChoice {
  OperandPlan full;
  double fullScale = 1.0;
  std::optional<OperandPlan> grouped;
  double groupedScale = 1.0;
};
} // namespace

static bool isIdentity(ArrayRef<int64_t> perm) {
  for (auto [i, p] : llvm::enumerate(perm))
    if (static_cast<int64_t>(i) != p)
      return false;
  return true;
}

/// K from the QK matmul's right operand ([B, H, D, Skv]).
static OperandChoice matchKey(Value kt) {
  OperandChoice choice;
  Value x = kt;
  // kt = transpose(x, perm) composed over every transpose seen.
  SmallVector<int64_t> perm{0, 1, 2, 3};
  double scale = 1.0;
  while (true) {
    if (stripScale(x, scale))
      continue;
    if (auto transpose = x.getDefiningOp<TransposeOp>()) {
      ArrayRef<int64_t> inner = transpose.getPerm();
      SmallVector<int64_t> composed;
      for (int64_t p : perm)
        composed.push_back(inner[p]);
      perm = composed;
      x = transpose.getInput();
      continue;
    }
    break;
  }
  // k = transpose(kt, [0, 1, 3, 2]) = transpose(x, kPerm).
  SmallVector<int64_t> kPerm{perm[0], perm[1], perm[3], perm[2]};
  if (isIdentity(kPerm))
    kPerm.clear();
  choice.full = OperandPlan{x, std::nullopt, kPerm};
  choice.fullScale = scale;
  bool headsInPlace = kPerm.empty() || (kPerm[0] == 0 && kPerm[1] == 1);
  if (!headsInPlace)
    return choice;
  if (std::optional<OperandPlan> grouped = stripHeadExpansion(x)) {
    double groupedScale = scale;
    if (!grouped->reshapeTo)
      while (stripScale(grouped->source, groupedScale)) {
      }
    grouped->perm = kPerm;
    choice.grouped = grouped;
    choice.groupedScale = groupedScale;
  }
  return choice;
}

FailureOr<OperandsMatch> mlir::tg::fusion::matchOperands(MatmulOp qk,
                                                         MatmulOp pv,
                                                         Refusal &refusal) {
  OperandsMatch match;
  Value q = qk.getA();
  double qScale = 1.0;
  while (stripScale(q, qScale)) {
  }
  match.q = OperandPlan{q, std::nullopt, {}};

  OperandChoice key = matchKey(qk.getB());
  Value v = pv.getB();
  std::optional<OperandPlan> groupedV = stripHeadExpansion(v);

  bool useGrouped = key.grouped && groupedV &&
                    key.grouped->shape()[1] == groupedV->shape()[1];
  match.k = useGrouped ? *key.grouped : key.full;
  match.v = useGrouped ? *groupedV : OperandPlan{v, std::nullopt, {}};
  match.scale = qScale * (useGrouped ? key.groupedScale : key.fullScale);

  SmallVector<int64_t> qs = match.q.shape(), ks = match.k.shape(),
                       vs = match.v.shape();
  if (qs.size() != 4 || ks.size() != 4 || vs.size() != 4)
    return refuse(refusal, qk,
                  "q, k and v must have rank 4 ([B, H, S, D])");
  Type qType = elementTypeOf(match.q.source);
  Type kType = elementTypeOf(match.k.source);
  Type vType = elementTypeOf(match.v.source);
  if (qType != kType || qType != vType || !isScoreFloat(qType))
    return refuse(refusal, qk,
                  "q, k and v have element types " +
                      typeName(qType) + ", " + typeName(kType) +
                      ", " + typeName(vType) +
                      "; attention needs one of bf16, f16, f32 for all three");
  if (ks[0] != qs[0] || vs[0] != qs[0])
    return refuse(refusal, qk,
                  "shapes do not line up: k/v batch (" + Twine(ks[0]) + ", " +
                      Twine(vs[0]) + ") differs from q's (" + Twine(qs[0]) +
                      ")");
  if (ks[1] != vs[1] || ks[1] <= 0 || qs[1] % ks[1] != 0)
    return refuse(refusal, qk,
                  "shapes do not line up: " + Twine(qs[1]) +
                      " query heads with " + Twine(ks[1]) + " key and " +
                      Twine(vs[1]) + " value heads");
  if (ks[2] != vs[2] || qs[3] != ks[3])
    return refuse(refusal, qk,
                  "shapes do not line up: q " + formatShape(qs) + ", k " +
                      formatShape(ks) + ", v " + formatShape(vs));
  SmallVector<int64_t> scores{qs[0], qs[1], qs[2], ks[2]};
  if (shapeOf(qk.getResult()) != ArrayRef<int64_t>(scores))
    return refuse(refusal, qk,
                  "shapes do not line up: the scores are " +
                      formatShape(shapeOf(qk.getResult())) + " but q and k give " +
                      formatShape(scores));
  SmallVector<int64_t> output{qs[0], qs[1], qs[2], vs[3]};
  if (shapeOf(pv.getResult()) != ArrayRef<int64_t>(output))
    return refuse(refusal, pv,
                  "shapes do not line up: the output is " +
                      formatShape(shapeOf(pv.getResult())) + "; expected " +
                      formatShape(output));
  if (!isScoreFloat(elementTypeOf(pv.getResult())))
    return refuse(refusal, pv,
                  "the output is " +
                      typeName(elementTypeOf(pv.getResult())) +
                      "; attention produces bf16, f16 or f32");
  return match;
}
