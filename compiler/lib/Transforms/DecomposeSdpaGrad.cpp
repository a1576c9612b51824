// tg.sdpa_grad -> the textbook attention backward graph (part of
// tg-decompose-sdpa).
//
// Forward, per (b, h):  S = masked scores (scale, softcap, bias, ALiBi,
// masks),  P = softmax(S),  Pd = dropout(P) = P * M / (1 - p),  O = Pd.V.
// Backward, given dO and the forward's stats (lse of S):
//   P   = exp(S - lse)                 (recomputed; 0 where masked)
//   dV  = Pdᵀ.dO
//   dPd = dO.Vᵀ;  dP = dPd * M / (1 - p) = dropout(dPd), same seed/offset
//   D   = rowsum(dP * P) = rowsum(dPd * Pd) = rowsum(dO * O)
//   dS  = P * (dP - D)                 (softmax backward; 0 where masked)
//   softcap: dS *= 1 - tanh²(s / softcap);  then dS *= scale
//   dQ  = dS.K,  dK = dSᵀ.Q            (bias and ALiBi are additive)
// With GQA, dK and dV of the G query heads sharing a kv head are summed.
#include "AttentionScores.h"

#include "mlir/IR/PatternMatch.h"

#include <limits>

using namespace mlir;
using namespace mlir::tg;
using namespace mlir::tg::detail;

/// [.., M, N] -> [.., N, M] of a rank-4 tensor.
static Value transposeLast(OpBuilder &b, Location loc, Value x) {
  auto type = cast<RankedTensorType>(x.getType());
  ArrayRef<int64_t> s = type.getShape();
  return TransposeOp::create(
      b, loc, RankedTensorType::get({s[0], s[1], s[3], s[2]},
                                    type.getElementType()),
      x, ArrayRef<int64_t>{0, 1, 3, 2});
}

/// lhs.rhs for every query head, then summed onto the kv heads and rounded
/// once to `resultType`. Without GQA the matmul rounds directly; with GQA it
/// stays f32 until the head sum is done.
static Value gradForKvHeads(OpBuilder &b, Location loc, Value lhs, Value rhs,
                            RankedTensorType resultType) {
  ArrayRef<int64_t> l = cast<RankedTensorType>(lhs.getType()).getShape();
  ArrayRef<int64_t> r = cast<RankedTensorType>(rhs.getType()).getShape();
  int64_t kvHeads = resultType.getDimSize(1);
  if (l[1] == kvHeads)
    return MatmulOp::create(b, loc, resultType, lhs, rhs, /*acc=*/TypeAttr());
  Value perHead = MatmulOp::create(
      b, loc, RankedTensorType::get({l[0], l[1], l[2], r[3]}, b.getF32Type()),
      lhs, rhs, /*acc=*/TypeAttr());
  return castElements(b, loc, sumToKvHeads(b, loc, perHead, kvHeads),
                      resultType.getElementType());
}

namespace {
struct ExpandSdpaGrad : OpRewritePattern<SdpaGradOp> {
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(SdpaGradOp op,
                                PatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    Type f32 = rewriter.getF32Type();
    AttentionConfig config = AttentionConfig::from(op);
    MaskedScores scores = buildMaskedScores(rewriter, loc, config);
    auto scalar = [&](double value) {
      return ConstantOp::createScalar(rewriter, loc, f32, value);
    };
    auto mul = [&](Value x, Value y) -> Value {
      return MulOp::create(rewriter, loc, x, y);
    };
    auto sub = [&](Value x, Value y) -> Value {
      return SubOp::create(rewriter, loc, x, y);
    };

    // P = exp(S - lse). A fully masked row has lse = -inf and S = -inf;
    // subtracting 0 instead keeps exp(-inf) = 0 rather than NaN.
    Value stats = op.getStats();
    Value ninf = scalar(-std::numeric_limits<double>::infinity());
    Value emptyRow = CmpOp::create(rewriter, loc, CmpPredicate::eq, stats, ninf);
    Value safeStats = SelectOp::create(rewriter, loc, emptyRow, scalar(0.0),
                                       stats);
    Value p = ExpOp::create(rewriter, loc, sub(scores.scores, safeStats));
    bool dropout = config.dropout > 0.0;
    auto applyDropout = [&](Value x) -> Value {
      return DropoutOp::create(rewriter, loc, x, config.seed, config.offset,
                               rewriter.getF64FloatAttr(config.dropout));
    };
    Value pDropped = dropout ? applyDropout(p) : p;

    // dV = Pdᵀ.dO (f32 P, unlike the forward's rounded P: the gradient is
    // compared with the exact reference, and no kernel is modelled here).
    Value dO = op.getDO();
    Value dv = gradForKvHeads(rewriter, loc, transposeLast(rewriter, loc,
                                                           pDropped),
                              dO, cast<RankedTensorType>(op.getDv().getType()));

    // dP = dropout(dO.Vᵀ): the same keep mask and 1 / (1 - p) scaling.
    Value vHeads =
        expandKvHeads(rewriter, loc, config.v, config.queryHeads());
    Value dPDropped = MatmulOp::create(
        rewriter, loc, RankedTensorType::get(config.scoreShape(), f32), dO,
        transposeLast(rewriter, loc, vHeads), /*acc=*/TypeAttr());
    Value dP = dropout ? applyDropout(dPDropped) : dPDropped;

    // D = rowsum(dO * O), in f32.
    Value outProduct = mul(castElements(rewriter, loc, dO, f32),
                           castElements(rewriter, loc, op.getO(), f32));
    auto rowType = cast<RankedTensorType>(stats.getType());
    Value delta = ReduceOp::create(rewriter, loc, rowType, ReduceKind::sum,
                                   outProduct, ArrayRef<int64_t>{3},
                                   /*keepdim=*/true);

    // dS = P * (dP - D), then back through softcap and scale.
    Value dS = mul(p, sub(dP, delta));
    if (scores.softcapTanh)
      dS = mul(dS, sub(scalar(1.0), mul(scores.softcapTanh,
                                        scores.softcapTanh)));
    dS = mul(dS, scalar(config.scale));

    Value dq = MatmulOp::create(rewriter, loc, op.getDq().getType(), dS,
                                scores.kHeads, /*acc=*/TypeAttr());
    Value dk = gradForKvHeads(rewriter, loc, transposeLast(rewriter, loc, dS),
                              config.q,
                              cast<RankedTensorType>(op.getDk().getType()));
    rewriter.replaceOp(op, {dq, dk, dv});
    return success();
  }
};
} // namespace

void mlir::tg::detail::populateDecomposeSdpaGradPatterns(
    RewritePatternSet &patterns) {
  patterns.add<ExpandSdpaGrad>(patterns.getContext());
}
