//===- RaiseBatchedAttention.cpp - [B·H, S, D] attention to rank 4 --------===//
//
// Bloom, OPT, GPT-NeoX and older GPT-J/T5 code write attention on tensors
// whose heads are folded into the batch dimension:
//
//   s = baddbmm(alibi, q, kᵀ, beta=1, alpha=1/sqrt(D))     [B·H, Sq, Skv]
//   s = s.view(B, H, Sq, Skv) (+ mask, masked_fill)
//   p = softmax(s, -1)
//   o = bmm(p.view(B·H, Sq, Skv), v)                      [B·H, Sq, D]
//
// tg-fuse-attention matches rank-4 [B, H, S, D] chains. These rewrites move
// the views to the operands, so that the chain is rank 4 from the QK matmul
// to the PV matmul and the views end up on q, k, v, the captured tensors
// and the output, where layout absorption and the plan treat them as free:
//
//   view4(ew(x, y))        -> ew(view4(x), view4(y))     (the split view of
//                                                         dim 0 into [B, H])
//   view4(transpose(x))    -> transpose(view4(x))        (kᵀ, dim 0 kept)
//   view4(matmul(a, b))    -> matmul(view4(a), view4(b)) (when the scores
//                                                         reach a softmax)
//   matmul(view3(p), v)    -> view3(matmul(p, view4(v))) (when p comes from
//                                                         a softmax)
//   softmax(view3(x))      -> view3(softmax(x))          (OPT's view back
//                                                         before the softmax;
//                                                         also casts, dropout)
//
// An operand whose dim 0 is 1 (broadcast over B·H) becomes [1, 1, ...].
// Nothing changes unless a rank-3 matmul's result is viewed as rank 4, so
// other graphs are left as they are.
//
//===----------------------------------------------------------------------===//
#include "AttentionMatch.h"

#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

using namespace mlir;
using namespace mlir::tg;
using namespace mlir::tg::fusion;

namespace {
/// `to` is `from` with dim 0 split into two (rank + 1, the rest equal).
bool isLeadingSplit(ArrayRef<int64_t> from, ArrayRef<int64_t> to) {
  return !from.empty() && to.size() == from.size() + 1 &&
         to[0] * to[1] == from[0] && to.drop_front(2) == from.drop_front(1);
}

/// `value` (rank r, dim 0 = N or 1) viewed with dim 0 split as the first two
/// dims of `split` ([B, H] for N = B·H, [1, 1] for 1). Rank-0 scalars stay.
/// Null if neither.
Value splitLeading(PatternRewriter &rewriter, Location loc, Value value,
                   ArrayRef<int64_t> split) {
  auto type = cast<RankedTensorType>(value.getType());
  if (type.getRank() == 0)
    return value;
  int64_t n = type.getDimSize(0);
  SmallVector<int64_t> shape;
  if (n == split[0] * split[1])
    shape.assign({split[0], split[1]});
  else if (n == 1)
    shape.assign({1, 1});
  else
    return Value();
  llvm::append_range(shape, type.getShape().drop_front());
  return ReshapeOp::create(rewriter, loc, type.clone(shape), value);
}

/// Follows pointwise users (reshapes, transposes and the QK matmul, for
/// q and k) of `value` to a softmax or the max reduction a decomposed
/// softmax starts with.
bool reachesSoftmax(Value value, int depth = 0) {
  if (depth > 24)
    return false;
  for (Operation *user : value.getUsers()) {
    if (isa<SoftmaxOp, ReduceOp>(user))
      return true;
    if ((user->hasTrait<PointwiseTrait>() ||
         isa<ReshapeOp, TransposeOp, MatmulOp>(user)) &&
        user->getNumResults() == 1 && reachesSoftmax(user->getResult(0), depth + 1))
      return true;
  }
  return false;
}

/// `value` is (through precision casts, dropout and scaling) a softmax or
/// its decomposed normalisation.
bool comesFromSoftmax(Value value) {
  for (int depth = 0; depth < 8; ++depth) {
    Operation *def = value.getDefiningOp();
    if (!def)
      return false;
    if (isa<SoftmaxOp, DivOp>(def))
      return true;
    if (!isPrecisionCast(def) && !isa<DropoutOp, MulOp>(def))
      return false;
    value = def->getOperand(0);
  }
  return false;
}

/// view4(ew(x, y, ...)) -> ew(view4(x), view4(y), ...).
struct HoistViewThroughPointwise : OpRewritePattern<ReshapeOp> {
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(ReshapeOp view,
                                PatternRewriter &rewriter) const override {
    Operation *ew = view.getInput().getDefiningOp();
    if (!ew || !ew->hasTrait<PointwiseTrait>() || isa<ConstantOp>(ew) ||
        ew->getNumResults() != 1 || !ew->getResult(0).hasOneUse() ||
        ew->getNumRegions() != 0)
      return rewriter.notifyMatchFailure(view, "not a pointwise op used once");
    ArrayRef<int64_t> from = shapeOf(view.getInput()), to = shapeOf(view);
    if (!isLeadingSplit(from, to) || !reachesSoftmax(view.getResult()))
      return rewriter.notifyMatchFailure(view, "not a split of attention scores");
    SmallVector<Value> operands;
    for (Value operand : ew->getOperands()) {
      Value split = splitLeading(rewriter, ew->getLoc(), operand, to);
      if (!split)
        return rewriter.notifyMatchFailure(view, "an operand does not split");
      operands.push_back(split);
    }
    OperationState state(ew->getLoc(), ew->getName(), operands,
                         {view.getType().clone(elementTypeOf(ew->getResult(0)))},
                         ew->getAttrs());
    Operation *raised = rewriter.create(state);
    rewriter.replaceOp(view, raised->getResults());
    return success();
  }
};

/// view4(transpose(x)) -> transpose(view4(x)) when the transpose keeps dim
/// 0 (kᵀ of [B·H, S, D]): layout absorption then sees the rank-4 K.
struct HoistViewThroughTranspose : OpRewritePattern<ReshapeOp> {
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(ReshapeOp view,
                                PatternRewriter &rewriter) const override {
    auto transpose = view.getInput().getDefiningOp<TransposeOp>();
    if (!transpose || !transpose->hasOneUse())
      return rewriter.notifyMatchFailure(view, "not a transpose used once");
    ArrayRef<int64_t> perm = transpose.getPerm();
    ArrayRef<int64_t> to = shapeOf(view);
    if (perm.empty() || perm[0] != 0 ||
        !isLeadingSplit(shapeOf(transpose.getResult()), to))
      return rewriter.notifyMatchFailure(view, "not a split of a kept dim 0");
    Value x = splitLeading(rewriter, view.getLoc(), transpose.getInput(), to);
    SmallVector<int64_t> raised{0, 1};
    for (int64_t p : perm.drop_front())
      raised.push_back(p + 1);
    rewriter.replaceOpWithNewOp<TransposeOp>(view, view.getType(), x, raised);
    return success();
  }
};

/// view4(matmul(a, b)) -> matmul(view4(a), view4(b)) for attention scores.
struct RaiseScoreMatmul : OpRewritePattern<ReshapeOp> {
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(ReshapeOp view,
                                PatternRewriter &rewriter) const override {
    auto matmul = view.getInput().getDefiningOp<MatmulOp>();
    if (!matmul || !matmul->hasOneUse() || rankOf(matmul.getResult()) != 3)
      return rewriter.notifyMatchFailure(view, "not a rank-3 matmul used once");
    ArrayRef<int64_t> to = shapeOf(view);
    if (!isLeadingSplit(shapeOf(matmul.getResult()), to) ||
        !reachesSoftmax(view.getResult()))
      return rewriter.notifyMatchFailure(view, "not attention scores");
    Value a = splitLeading(rewriter, matmul.getLoc(), matmul.getA(), to);
    Value b = splitLeading(rewriter, matmul.getLoc(), matmul.getB(), to);
    if (!a || !b)
      return rewriter.notifyMatchFailure(view, "operands do not split");
    OperationState state(matmul.getLoc(), matmul->getName(), {a, b},
                         {view.getType()}, matmul->getAttrs());
    rewriter.replaceOp(view, rewriter.create(state)->getResults());
    return success();
  }
};

/// matmul(view3(p), v) -> view3(matmul(p, view4(v))) for attention outputs.
struct RaiseOutputMatmul : OpRewritePattern<MatmulOp> {
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(MatmulOp matmul,
                                PatternRewriter &rewriter) const override {
    auto view = matmul.getA().getDefiningOp<ReshapeOp>();
    if (!view || rankOf(matmul.getResult()) != 3)
      return rewriter.notifyMatchFailure(matmul, "not a rank-3 matmul of a view");
    ArrayRef<int64_t> split = shapeOf(view.getInput());
    if (!isLeadingSplit(shapeOf(view.getResult()), split) ||
        !comesFromSoftmax(view.getInput()))
      return rewriter.notifyMatchFailure(matmul, "not attention probabilities");
    Value v = splitLeading(rewriter, matmul.getLoc(), matmul.getB(), split);
    if (!v)
      return rewriter.notifyMatchFailure(matmul, "v does not split");
    auto resultType = cast<RankedTensorType>(matmul.getType());
    SmallVector<int64_t> shape(split.take_front(2));
    llvm::append_range(shape, resultType.getShape().drop_front());
    OperationState state(matmul.getLoc(), matmul->getName(),
                         {view.getInput(), v}, {resultType.clone(shape)},
                         matmul->getAttrs());
    Operation *raised = rewriter.create(state);
    rewriter.replaceOpWithNewOp<ReshapeOp>(matmul, resultType,
                                           raised->getResult(0));
    return success();
  }
};
/// OPT and GPT-NeoX view the scores back to rank 3 before the softmax:
/// softmax3(view3(x)), cast3(view3(x)) and dropout3(view3(x)) become
/// view3(op4(x)) (the softmax axis is the last one; dropout's mask index is
/// the row-major linear index, the same for both views).
struct SinkMergedView : RewritePattern {
  SinkMergedView(MLIRContext *context)
      : RewritePattern(MatchAnyOpTypeTag(), /*benefit=*/1, context) {}

  LogicalResult matchAndRewrite(Operation *op,
                                PatternRewriter &rewriter) const override {
    auto softmax = dyn_cast<SoftmaxOp>(op);
    if (!(softmax && !softmax.getStats() &&
          softmax.getAxis() == static_cast<uint64_t>(rankOf(softmax.getInput()) - 1)) &&
        !isPrecisionCast(op) && !isa<DropoutOp>(op))
      return failure();
    auto view = op->getOperand(0).getDefiningOp<ReshapeOp>();
    if (!view || !view->hasOneUse() ||
        !isLeadingSplit(shapeOf(view.getResult()), shapeOf(view.getInput())))
      return rewriter.notifyMatchFailure(op, "not a merged view");
    // Scores on their way to the softmax, or probabilities after it.
    if (!softmax && !reachesSoftmax(op->getResult(0)) &&
        !comesFromSoftmax(view.getInput()))
      return rewriter.notifyMatchFailure(op, "not in an attention chain");
    SmallVector<Value> operands(op->getOperands());
    operands[0] = view.getInput();
    auto type = cast<RankedTensorType>(op->getResult(0).getType());
    SmallVector<NamedAttribute> attrs(op->getAttrs());
    if (softmax)
      for (NamedAttribute &attr : attrs)
        if (attr.getName() == softmax.getAxisAttrName())
          attr.setValue(rewriter.getI64IntegerAttr(rankOf(view.getInput()) - 1));
    OperationState state(op->getLoc(), op->getName(), operands,
                         {type.clone(shapeOf(view.getInput()))}, attrs);
    Operation *raised = rewriter.create(state);
    rewriter.replaceOpWithNewOp<ReshapeOp>(op, type, raised->getResult(0));
    return success();
  }
};
} // namespace

void mlir::tg::fusion::raiseBatchedAttention(func::FuncOp fn) {
  RewritePatternSet patterns(fn.getContext());
  patterns.add<HoistViewThroughPointwise, HoistViewThroughTranspose,
               RaiseScoreMatmul, RaiseOutputMatmul, SinkMergedView>(
      fn.getContext());
  ReshapeOp::getCanonicalizationPatterns(patterns, fn.getContext());
  // Only these rewrites: no folding or constant CSE of the rest of the
  // function (the matchers see the graph as written).
  GreedyRewriteConfig config;
  config.setRegionSimplificationLevel(GreedySimplifyRegionLevel::Disabled)
      .enableFolding(false)
      .enableConstantCSE(false);
  (void)applyPatternsGreedily(fn, std::move(patterns), config);
}
