// tg-decompose-sdpa: tg.sdpa -> transpose, matmul, scale, softcap, bias,
// ALiBi, gen_index masks, softmax (with stats), dropout, cast, matmul. An
// FP8 tg.sdpa becomes a tg.attention instead (SdpaFp8ToAttention.cpp).
// tg.sdpa_grad's rewrite lives in DecomposeSdpaGrad.cpp and runs in the same
// pass.
#include "AttentionScores.h"

#include "tg/Dialect/TG/IR/TGOps.h"
#include "tg/Transforms/Passes.h"

#include "mlir/IR/PatternMatch.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

namespace mlir::tg {
#define GEN_PASS_DEF_DECOMPOSESDPA
#include "tg/Transforms/Passes.h.inc"
} // namespace mlir::tg

using namespace mlir;
using namespace mlir::tg;
using namespace mlir::tg::detail;

namespace {
struct ExpandSdpa : OpRewritePattern<SdpaOp> {
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(SdpaOp op,
                                PatternRewriter &rewriter) const override {
    // FP8, ragged and paged attention are not decomposed (no dense graph
    // of tg ops expresses them): they become tg.attention directly.
    if (op.isFp8() || op.isRagged() || op.isPaged())
      return rewriteFp8SdpaToAttention(op, rewriter);
    Location loc = op.getLoc();
    AttentionConfig config = AttentionConfig::from(op);
    MaskedScores scores = buildMaskedScores(rewriter, loc, config);

    // 6. Safe softmax over kv. Its log-sum-exp stats are exactly sdpa's
    // training stats (of the masked scores, -inf for fully masked rows).
    auto scoreType = cast<RankedTensorType>(scores.scores.getType());
    Type statsType = op.getStats() ? op.getStats().getType() : Type();
    auto softmax = SoftmaxOp::create(rewriter, loc, scoreType, statsType,
                                     scores.scores, /*axis=*/3);
    Value p = softmax.getOutput();

    // 7. Dropout over [B, Hq, Sq, Skv]: tg.dropout's linear index is the
    // one tg.sdpa specifies, so the keep mask is identical.
    if (config.dropout > 0.0)
      p = DropoutOp::create(rewriter, loc, p, config.seed, config.offset,
                            rewriter.getF64FloatAttr(config.dropout));

    // 8. o = p.v. P is rounded to v's element type first: the reference
    // rounding mirrors what attention kernels do (their second matmul takes
    // P in the input precision), so the decomposed graph models the kernels
    // rather than the exact product.
    auto vType = cast<RankedTensorType>(config.v.getType());
    Value pCast = castElements(rewriter, loc, p, vType.getElementType());
    Value vHeads = expandKvHeads(rewriter, loc, config.v, config.queryHeads());
    Value o = MatmulOp::create(rewriter, loc, op.getOutput().getType(), pCast,
                               vHeads, /*acc=*/TypeAttr());

    SmallVector<Value> results{o};
    if (op.getStats())
      results.push_back(softmax.getStats());
    rewriter.replaceOp(op, results);
    return success();
  }
};

struct DecomposeSdpaPass : tg::impl::DecomposeSdpaBase<DecomposeSdpaPass> {
  void runOnOperation() override {
    RewritePatternSet patterns(&getContext());
    patterns.add<ExpandSdpa>(&getContext());
    populateDecomposeSdpaGradPatterns(patterns);
    if (failed(applyPatternsGreedily(getOperation(), std::move(patterns))))
      signalPassFailure();
  }
};
} // namespace
