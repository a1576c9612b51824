// tg-decompose-softmax: tg.softmax -> reduce max, sub, exp, reduce sum, div.
#include "tg/Dialect/TG/IR/TGOps.h"
#include "tg/Transforms/Passes.h"

#include "mlir/IR/PatternMatch.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

#include <limits>

namespace mlir::tg {
#define GEN_PASS_DEF_DECOMPOSESOFTMAX
#include "tg/Transforms/Passes.h.inc"
} // namespace mlir::tg

using namespace mlir;
using namespace mlir::tg;

namespace {
struct ExpandSoftmax : OpRewritePattern<SoftmaxOp> {
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(SoftmaxOp op,
                                PatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    auto type = cast<RankedTensorType>(op.getInput().getType());
    // bf16/f16 slices are computed in f32 and rounded once at the end: the
    // exponentials and their sum would otherwise each round to 8 or 11 bits
    // (and the stats inherit the sum's error), unlike tg.softmax itself.
    Type elem = rewriter.getF32Type();
    auto computeType = type.clone(elem);
    SmallVector<int64_t> reducedShape(type.getShape());
    reducedShape[op.getAxis()] = 1;
    auto reducedType = RankedTensorType::get(reducedShape, elem);
    SmallVector<int64_t> dims{static_cast<int64_t>(op.getAxis())};
    Value input = op.getInput();
    if (type != computeType)
      input = CastOp::create(rewriter, loc, computeType, input);

    Value max = ReduceOp::create(rewriter, loc, reducedType, ReduceKind::max,
                                 input, dims, /*keepdim=*/true);
    // A fully masked slice has max = -inf; subtracting 0 instead keeps
    // exp(-inf - 0) = 0 rather than NaN.
    Value ninf = ConstantOp::createScalar(
        rewriter, loc, elem, -std::numeric_limits<double>::infinity());
    Value zero = ConstantOp::createScalar(rewriter, loc, elem, 0.0);
    Value isMasked = CmpOp::create(rewriter, loc, CmpPredicate::eq, max, ninf);
    Value safeMax = SelectOp::create(rewriter, loc, isMasked, zero, max);
    Value shifted = SubOp::create(rewriter, loc, input, safeMax);
    Value exps = ExpOp::create(rewriter, loc, shifted);
    Value sum = ReduceOp::create(rewriter, loc, reducedType, ReduceKind::sum,
                                 exps, dims, /*keepdim=*/true);
    // The slice maximum contributes exp(0) = 1, so sum >= 1 unless the slice
    // is fully masked (sum = 0); max(sum, 1) turns 0/0 into 0/1.
    Value one = ConstantOp::createScalar(rewriter, loc, elem, 1.0);
    Value denominator = MaxOp::create(rewriter, loc, sum, one);
    Value probs = DivOp::create(rewriter, loc, exps, denominator);
    if (type != computeType)
      probs = CastOp::create(rewriter, loc, type, probs);

    SmallVector<Value> results{probs};
    // Stats: max + log(sum), which is log(0) = -inf for a masked slice.
    if (op.getStats())
      results.push_back(AddOp::create(
          rewriter, loc, LogOp::create(rewriter, loc, sum), safeMax));
    rewriter.replaceOp(op, results);
    return success();
  }
};

struct DecomposeSoftmaxPass
    : tg::impl::DecomposeSoftmaxBase<DecomposeSoftmaxPass> {
  void runOnOperation() override {
    RewritePatternSet patterns(&getContext());
    patterns.add<ExpandSoftmax>(&getContext());
    if (failed(applyPatternsGreedily(getOperation(), std::move(patterns))))
      signalPassFailure();
  }
};
} // namespace
