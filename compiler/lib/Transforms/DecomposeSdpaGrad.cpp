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
//   dbias (if asked for) = P * (dP - D) summed over the bias's broadcast dims
// With GQA, dK and dV of the G query heads sharing a kv head are summed.
// buildAttentionGradients is shared with tg-expand-attention, which expands
// tg.attention_grad (its score_grad region takes the soft-cap's place).
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

AttentionGradients mlir::tg::detail::buildAttentionGradients(
    OpBuilder &b, Location loc, const AttentionConfig &config,
    const MaskedScores &scores, const AttentionGradInputs &in,
    function_ref<Value(Value)> throughScores) {
  Type f32 = b.getF32Type();
  auto scalar = [&](double value) {
    return ConstantOp::createScalar(b, loc, f32, value);
  };
  auto mul = [&](Value x, Value y) -> Value {
    return MulOp::create(b, loc, x, y);
  };
  auto sub = [&](Value x, Value y) -> Value {
    return SubOp::create(b, loc, x, y);
  };

  // P = exp(S - lse). A fully masked row has lse = -inf and S = -inf;
  // subtracting 0 instead keeps exp(-inf) = 0 rather than NaN.
  Value ninf = scalar(-std::numeric_limits<double>::infinity());
  Value emptyRow = CmpOp::create(b, loc, CmpPredicate::eq, in.stats, ninf);
  Value safeStats = SelectOp::create(b, loc, emptyRow, scalar(0.0), in.stats);
  Value p = ExpOp::create(b, loc, sub(scores.scores, safeStats));
  bool dropout = config.dropout > 0.0;
  auto applyDropout = [&](Value x) -> Value {
    return DropoutOp::create(b, loc, x, config.seed, config.offset,
                             b.getF64FloatAttr(config.dropout));
  };
  Value pDropped = dropout ? applyDropout(p) : p;

  // dV = Pdᵀ.dO (f32 P, unlike the forward's rounded P: the gradient is
  // compared with the exact reference, and no kernel is modelled here).
  AttentionGradients grads;
  grads.dv = gradForKvHeads(b, loc, transposeLast(b, loc, pDropped), in.dO,
                            in.dvType);

  // dP = dropout(dO.Vᵀ): the same keep mask and 1 / (1 - p) scaling.
  Value vHeads = expandKvHeads(b, loc, config.v, config.queryHeads());
  Value dPDropped = MatmulOp::create(
      b, loc, RankedTensorType::get(config.scoreShape(), f32), in.dO,
      transposeLast(b, loc, vHeads), /*acc=*/TypeAttr());
  Value dP = dropout ? applyDropout(dPDropped) : dPDropped;

  // D = rowsum(dO * O), in f32.
  Value outProduct = mul(castElements(b, loc, in.dO, f32),
                         castElements(b, loc, in.o, f32));
  auto rowType = cast<RankedTensorType>(in.stats.getType());
  Value delta = ReduceOp::create(b, loc, rowType, ReduceKind::sum, outProduct,
                                 ArrayRef<int64_t>{3}, /*keepdim=*/true);

  // dS = P * (dP - D), then back through the score math and the scale.
  Value dS = mul(p, sub(dP, delta));
  grads.dz = dS;
  if (throughScores)
    dS = throughScores(dS);
  dS = mul(dS, scalar(config.scale));

  grads.dq = MatmulOp::create(b, loc, in.dqType, dS, scores.kHeads,
                              /*acc=*/TypeAttr());
  grads.dk = gradForKvHeads(b, loc, transposeLast(b, loc, dS), config.q,
                            in.dkType);
  return grads;
}

namespace {
struct ExpandSdpaGrad : OpRewritePattern<SdpaGradOp> {
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(SdpaGradOp op,
                                PatternRewriter &rewriter) const override {
    // Packed sequences have no dense form: tg.attention_grad directly.
    if (op.isRagged())
      return rewriteRaggedSdpaGradToAttentionGrad(op, rewriter);
    Location loc = op.getLoc();
    AttentionConfig config = AttentionConfig::from(op);
    MaskedScores scores = buildMaskedScores(rewriter, loc, config);
    // Through the soft-cap: d(c tanh(s / c))/ds = 1 - tanh²(s / c). Bias
    // and ALiBi are additive and pass the gradient unchanged.
    auto throughSoftcap = [&](Value dS) -> Value {
      Value one = ConstantOp::createScalar(rewriter, loc,
                                           rewriter.getF32Type(), 1.0);
      Value t = scores.softcapTanh;
      Value squared = MulOp::create(rewriter, loc, t, t);
      return MulOp::create(rewriter, loc, dS,
                           SubOp::create(rewriter, loc, one, squared));
    };
    AttentionGradInputs in{op.getO(),
                           op.getDO(),
                           op.getStats(),
                           cast<RankedTensorType>(op.getDq().getType()),
                           cast<RankedTensorType>(op.getDk().getType()),
                           cast<RankedTensorType>(op.getDv().getType())};
    AttentionGradients grads = buildAttentionGradients(
        rewriter, loc, config, scores, in,
        scores.softcapTanh ? function_ref<Value(Value)>(throughSoftcap)
                           : function_ref<Value(Value)>());
    SmallVector<Value> results{grads.dq, grads.dk, grads.dv};
    if (Value dbias = op.getDbias()) {
      // The bias is added after the soft-cap: its gradient is dZ, summed
      // over its broadcast dimensions, rounded once.
      auto biasType = cast<RankedTensorType>(dbias.getType());
      SmallVector<int64_t> dims;
      for (int d = 0; d < 4; ++d)
        if (biasType.getDimSize(d) == 1 && config.scoreShape()[d] != 1)
          dims.push_back(d);
      Value sum = grads.dz;
      if (!dims.empty())
        sum = ReduceOp::create(
            rewriter, loc,
            RankedTensorType::get(biasType.getShape(), rewriter.getF32Type()),
            ReduceKind::sum, sum, dims, /*keepdim=*/true);
      results.push_back(castElements(rewriter, loc, sum, biasType.getElementType()));
    }
    rewriter.replaceOp(op, results);
    return success();
  }
};
} // namespace

void mlir::tg::detail::populateDecomposeSdpaGradPatterns(
    RewritePatternSet &patterns) {
  patterns.add<ExpandSdpaGrad>(patterns.getContext());
}
