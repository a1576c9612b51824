//===- FuseAttention.cpp - tg-fuse-attention ------------------------------===//
//
// Anchors on every tg.matmul and asks the matchers whether it is the output
// matmul of an attention chain (AttentionMatch.h describes the pieces). A
// chain is replaced only when every piece matched; otherwise the IR is left
// alone and, when reporting, a remark says why.
//
//===----------------------------------------------------------------------===//
#include "AttentionGradMatch.h"
#include "LayoutAbsorption.h"
#include "tg/Transforms/Passes.h"

#include "llvm/ADT/StringExtras.h"

namespace mlir::tg {
#define GEN_PASS_DEF_FUSEATTENTION
#include "tg/Transforms/Passes.h.inc"
} // namespace mlir::tg

using namespace mlir;
using namespace mlir::tg;
using namespace mlir::tg::fusion;

namespace {
/// The same rewrite as a pattern, for pipelines that use a pattern driver.
struct FuseAttentionPattern : OpRewritePattern<MatmulOp> {
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(MatmulOp pv,
                                PatternRewriter &rewriter) const override {
    Refusal refusal;
    FailureOr<AttentionMatch> match = matchAttention(pv, refusal);
    if (failed(match))
      return rewriter.notifyMatchFailure(pv, refusal.reason);
    llvm::DenseSet<Operation *> erased;
    rewriteAttention(rewriter, *match, erased);
    return success();
  }
};

/// The backward rewrite as a pattern, anchored on the recomputed
/// probabilities.
struct FuseAttentionGradPattern : OpRewritePattern<ExpOp> {
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(ExpOp exp,
                                PatternRewriter &rewriter) const override {
    Refusal refusal;
    FailureOr<AttentionGradMatch> match = matchAttentionGrad(exp, refusal);
    if (failed(match))
      return rewriter.notifyMatchFailure(exp, refusal.reason);
    llvm::DenseSet<Operation *> erased;
    rewriteAttentionGrad(rewriter, *match, erased);
    return success();
  }
};

/// A 16-bit float type a value of the score chain is rounded to, or null.
static Type lowPrecisionScoreType(Value value) {
  Type type = elementTypeOf(value);
  return type.isBF16() || type.isF16() ? type : Type();
}

/// The roundings to bf16/f16 between the QK matmul and the softmax that the
/// fused op (scores and softmax in f32) leaves out, as "bf16 after tg.mul
/// (loc)" items in graph order.
static SmallVector<std::string> droppedRoundings(const AttentionMatch &match) {
  llvm::SetVector<Operation *> rounded;
  auto note = [&](Operation *op) {
    if (op->getNumResults() == 1 && lowPrecisionScoreType(op->getResult(0)))
      rounded.insert(op);
  };
  note(match.chain.qk);
  for (Operation *op : match.chain.scaleOps)
    note(op);
  for (Operation *op : match.chain.ops)
    note(op);
  // The softmax (one op or decomposed) and casts around it, but not the
  // casts and dropout that take P to the PV matmul: the kernels round P to
  // V's element type too.
  llvm::DenseSet<Operation *> kept;
  Value p = const_cast<MatmulOp &>(match.pv).getA();
  while (Operation *def = p.getDefiningOp()) {
    if (!match.probs.ops.contains(def) ||
        !(isPrecisionCast(def) || isa<DropoutOp>(def)))
      break;
    kept.insert(def);
    p = def->getOperand(0);
  }
  for (Operation *op : match.probs.ops)
    if (!kept.contains(op))
      note(op);
  SmallVector<std::string> items;
  for (Operation *op : rounded) {
    std::string item;
    llvm::raw_string_ostream os(item);
    os << (lowPrecisionScoreType(op->getResult(0)).isBF16() ? "bf16" : "f16")
       << " after " << op->getName();
    if (auto loc = dyn_cast<FileLineColLoc>(op->getLoc()))
      os << " at " << loc.getLine() << ":" << loc.getColumn();
    items.push_back(item);
  }
  return items;
}

struct FuseAttentionPass : tg::impl::FuseAttentionBase<FuseAttentionPass> {
  using FuseAttentionBase::FuseAttentionBase;

  void runOnOperation() override {
    func::FuncOp fn = getOperation();
    bool emitRemarks = report || fusionReportFlag();
    IRRewriter rewriter(&getContext());
    llvm::DenseSet<Operation *> erased;
    // Backward chains first: their matmuls would otherwise be looked at as
    // forward candidates.
    if (backward) {
      SmallVector<ExpOp> exps;
      fn.walk([&](ExpOp op) { exps.push_back(op); });
      for (ExpOp exp : exps) {
        if (erased.contains(exp))
          continue;
        Refusal refusal;
        FailureOr<AttentionGradMatch> match = matchAttentionGrad(exp, refusal);
        if (failed(match)) {
          if (emitRemarks && looksLikeAttentionGrad(exp))
            (refusal.at ? refusal.at : exp.getOperation())->emitRemark()
                << "not fused into tg.attention_grad: " << refusal.reason;
          continue;
        }
        rewriteAttentionGrad(rewriter, *match, erased);
      }
    }
    SmallVector<MatmulOp> candidates;
    fn.walk([&](MatmulOp op) { candidates.push_back(op); });
    SmallVector<AttentionOp> fused;
    for (MatmulOp pv : candidates) {
      if (erased.contains(pv))
        continue;
      Refusal refusal;
      FailureOr<AttentionMatch> match = matchAttention(pv, refusal);
      if (failed(match)) {
        if (emitRemarks && looksLikeAttention(pv))
          (refusal.at ? refusal.at : pv.getOperation())->emitRemark()
              << "not fused into tg.attention: " << refusal.reason;
        continue;
      }
      SmallVector<std::string> roundings;
      if (emitRemarks || numerics)
        roundings = droppedRoundings(*match);
      AttentionOp op = rewriteAttention(rewriter, *match, erased);
      if (!roundings.empty())
        emitRemark(op.getLoc()) << "fused with the scores in f32; the graph as "
                           "written rounds them "
                        << roundings.size() << " time(s), which the fused op "
                           "does not: "
                        << llvm::join(roundings, ", ");
      fused.push_back(op);
    }
    if (absorbLayout)
      absorbLayouts(rewriter, fn, fused);
  }
};
} // namespace

void mlir::tg::populateFuseAttentionPatterns(RewritePatternSet &patterns) {
  patterns.add<FuseAttentionPattern>(patterns.getContext());
  // Backward chains first (their matmuls look like forward candidates).
  patterns.add<FuseAttentionGradPattern>(patterns.getContext(),
                                         /*benefit=*/2);
}
