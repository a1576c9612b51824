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
      fused.push_back(rewriteAttention(rewriter, *match, erased));
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
