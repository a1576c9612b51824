//===- AttentionRewrite.cpp - replace a matched chain by tg.attention -----===//
#include "ScoreRegion.h"

using namespace mlir;
using namespace mlir::tg;
using namespace mlir::tg::fusion;

Value mlir::tg::fusion::materializeOperand(RewriterBase &rewriter,
                                          Location loc,
                                          const OperandPlan &plan) {
  Value value = plan.source;
  Type element = elementTypeOf(value);
  if (plan.reshapeTo)
    value = ReshapeOp::create(
        rewriter, loc, RankedTensorType::get(*plan.reshapeTo, element), value);
  if (!plan.perm.empty())
    value = TransposeOp::create(
        rewriter, loc, RankedTensorType::get(plan.shape(), element), value,
        rewriter.getDenseI64ArrayAttr(plan.perm));
  return value;
}

AttentionOp mlir::tg::fusion::rewriteAttention(
    RewriterBase &rewriter, AttentionMatch &match,
    llvm::DenseSet<Operation *> &erased) {
  MatmulOp pv = match.pv;
  MLIRContext *ctx = pv.getContext();
  Location loc = rewriter.getFusedLoc({match.chain.qk.getLoc(), pv.getLoc()});
  rewriter.setInsertionPoint(pv);
  Value q = materializeOperand(rewriter, loc, match.operands.q);
  Value k = materializeOperand(rewriter, loc, match.operands.k);
  Value v = materializeOperand(rewriter, loc, match.operands.v);

  double scale = match.operands.scale * match.chain.scale;
  double factor = match.probs.inputFactor;
  // With no score math left, the exponent factor is just more scale.
  if (match.probs.input == match.chain.scaledScore) {
    scale *= factor;
    factor = 1.0;
  }
  ScoreRegion region =
      buildScoreRegion(ctx, loc, match.chain, match.probs.input, factor);
  LiftedMasks masks =
      liftMasks(region, shapeOf(match.chain.qk.getResult()));

  SmallVector<Value> captures;
  for (Value capture : region.captures) {
    if (rankOf(capture) == 0)
      capture = ReshapeOp::create(
          rewriter, loc,
          RankedTensorType::get({1, 1, 1, 1}, elementTypeOf(capture)),
          capture);
    captures.push_back(capture);
  }

  Value stats = match.probs.stats;
  Value seed, offset;
  if (match.probs.dropout) {
    seed = match.probs.dropout->op.getSeed();
    offset = match.probs.dropout->op.getOffset();
  }
  auto attention = AttentionOp::create(
      rewriter, loc, pv.getType(), stats ? stats.getType() : Type(), q, k, v,
      masks.seqLenQ, masks.seqLenKv, seed, offset, captures);
  Region &score = attention.getScore();
  score.front().erase();
  score.push_back(region.block.release());
  attention.setScaleAttr(rewriter.getF64FloatAttr(scale));
  attention.setCausalAttr(CausalModeAttr::get(ctx, masks.causal));
  if (masks.windowLeft)
    attention.setWindowLeftAttr(rewriter.getI64IntegerAttr(*masks.windowLeft));
  if (masks.windowRight)
    attention.setWindowRightAttr(
        rewriter.getI64IntegerAttr(*masks.windowRight));
  if (match.probs.dropout)
    attention.setDropoutAttr(
        rewriter.getF64FloatAttr(match.probs.dropout->prob()));

  rewriter.replaceAllUsesWith(pv.getResult(), attention.getOutput());
  if (stats)
    rewriter.replaceAllUsesWith(stats, attention.getStats());

  SmallVector<Operation *> roots{pv, match.chain.qk};
  roots.append(match.chain.ops.begin(), match.chain.ops.end());
  roots.append(match.probs.ops.begin(), match.probs.ops.end());
  eraseDeadOps(rewriter, roots, erased);
  return attention;
}
