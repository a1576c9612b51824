//===- AttentionGradRewrite.cpp - replace a backward by tg.attention_grad -===//
#include "AttentionGradMatch.h"
#include "ScoreRegion.h"

using namespace mlir;
using namespace mlir::tg;
using namespace mlir::tg::fusion;

AttentionGradOp mlir::tg::fusion::rewriteAttentionGrad(
    RewriterBase &rewriter, AttentionGradMatch &match,
    llvm::DenseSet<Operation *> &erased) {
  MLIRContext *ctx = rewriter.getContext();
  MatmulOp qk = match.chain.qk;
  Location loc =
      rewriter.getFusedLoc({qk.getLoc(), match.insertionPoint->getLoc()});
  rewriter.setInsertionPoint(match.insertionPoint);
  Value q = materializeOperand(rewriter, loc, match.operands.q);
  Value k = materializeOperand(rewriter, loc, match.operands.k);
  Value v = materializeOperand(rewriter, loc, match.operands.v);

  ScoreRegion region = buildScoreRegion(ctx, loc, match.chain, match.z, 1.0);
  std::unique_ptr<Block> grad;
  if (match.hasGradMath)
    grad = buildScoreGradRegion(ctx, loc, match.gradChain, match.dz,
                                match.gradient, match.gradFactor, region);
  LiftedMasks masks =
      liftMasks(region, shapeOf(qk.getResult()), grad.get());

  SmallVector<Value> captures;
  for (Value capture : region.captures) {
    if (rankOf(capture) == 0)
      capture = ReshapeOp::create(
          rewriter, loc,
          RankedTensorType::get({1, 1, 1, 1}, elementTypeOf(capture)),
          capture);
    captures.push_back(capture);
  }
  Value seed, offset;
  if (match.dropout) {
    seed = match.dropout.getSeed();
    offset = match.dropout.getOffset();
  }

  OperationState state(loc, AttentionGradOp::getOperationName());
  state.addOperands({q, k, v, match.o, match.dO, match.stats});
  for (Value optional : {masks.seqLenQ, masks.seqLenKv, seed, offset})
    if (optional)
      state.addOperands(optional);
  state.addOperands(captures);
  state.addTypes({match.dq.getType(), match.dk.getType(), match.dv.getType()});
  // Captured tensors' gradients: their indices among the final captures.
  SmallVector<std::pair<int64_t, Value>> gradCaptures;
  for (auto [grad, source] :
       llvm::zip(match.captureGrads, match.captureGradSources)) {
    auto it = llvm::find(region.captures, source);
    assert(it != region.captures.end() && "a summed capture stays captured");
    gradCaptures.push_back({it - region.captures.begin(), grad});
  }
  llvm::sort(gradCaptures, [](auto &a, auto &b) { return a.first < b.first; });
  for (auto &[index, grad] : gradCaptures)
    state.addTypes(grad.getType());
  auto &props = state.getOrAddProperties<AttentionGradOp::Properties>();
  props.operandSegmentSizes = {1,
                               1,
                               1,
                               1,
                               1,
                               1,
                               masks.seqLenQ ? 1 : 0,
                               masks.seqLenKv ? 1 : 0,
                               /*cu_seqlens_q=*/0,
                               /*cu_seqlens_kv=*/0,
                               seed ? 1 : 0,
                               offset ? 1 : 0,
                               static_cast<int32_t>(captures.size())};
  props.scale = rewriter.getF64FloatAttr(match.chain.scale);
  if (!gradCaptures.empty()) {
    SmallVector<int64_t> indices;
    for (auto &[index, grad] : gradCaptures)
      indices.push_back(index);
    props.grad_captures = rewriter.getDenseI64ArrayAttr(indices);
  }
  props.causal = CausalModeAttr::get(ctx, masks.causal);
  if (masks.windowLeft)
    props.window_left = rewriter.getI64IntegerAttr(*masks.windowLeft);
  if (masks.windowRight)
    props.window_right = rewriter.getI64IntegerAttr(*masks.windowRight);
  if (match.dropout)
    props.dropout = rewriter.getF64FloatAttr(
        match.dropout.getProb().convertToDouble());
  Region *score = state.addRegion();
  score->push_back(region.block.release());
  Region *scoreGrad = state.addRegion();
  if (grad)
    scoreGrad->push_back(grad.release());
  auto op = cast<AttentionGradOp>(rewriter.create(state));

  rewriter.replaceAllUsesWith(match.dq, op.getDq());
  rewriter.replaceAllUsesWith(match.dk, op.getDk());
  rewriter.replaceAllUsesWith(match.dv, op.getDv());
  for (auto [n, entry] : llvm::enumerate(gradCaptures))
    rewriter.replaceAllUsesWith(entry.second, op.getCaptureGrads()[n]);
  SmallVector<Operation *> roots(match.ops.begin(), match.ops.end());
  eraseDeadOps(rewriter, roots, erased);
  return op;
}
