//===- TGAttentionGrad.cpp - tg.attention_grad verification ---------------===//
//
// The backward of tg.attention: the same operand rules as tg.attention (q, k,
// v, masks, dropout, captures) plus o/d_o/stats, and two per-element regions
// with fixed signatures. Kept in its own file (the op was added by the
// fusion work).
//
//===----------------------------------------------------------------------===//
#include "tg/Dialect/TG/IR/TGOps.h"

#include "AttentionCaptures.h"

using namespace mlir;
using namespace mlir::tg;

static ArrayRef<int64_t> shapeOf(Value value) {
  return cast<RankedTensorType>(value.getType()).getShape();
}
static Type elementOf(Value value) {
  return cast<RankedTensorType>(value.getType()).getElementType();
}

LogicalResult AttentionGradOp::verify() {
  // q, k, v as [B, H, S, D]: their shapes, or the ragged layout's views.
  SmallVector<int64_t> qView, kView, vView;
  if (getCuSeqlensQ() || getCuSeqlensKv()) {
    std::optional<uint64_t> maxQ, maxKv;
    if (auto max = getMaxSeqlenQ())
      maxQ = *max;
    if (auto max = getMaxSeqlenKv())
      maxKv = *max;
    if (failed(detail::verifyRaggedAttention(
            *this, getQ(), getK(), getV(), getSeqLenQ(), getSeqLenKv(),
            getCuSeqlensQ(), getCuSeqlensKv(), maxQ, maxKv, qView, kView,
            vView)))
      return failure();
  } else {
    if (getMaxSeqlenQ() || getMaxSeqlenKv())
      return emitOpError("max_seqlen_q/max_seqlen_kv belong to the ragged "
                         "layout (cu_seqlens_q, cu_seqlens_kv)");
    for (auto [name, value] : {std::pair<StringRef, Value>{"q", getQ()},
                               {"k", getK()},
                               {"v", getV()}})
      if (shapeOf(value).size() != 4)
        return emitOpError(name)
               << " must have rank 4 ([B, H, S, D]), got rank "
               << shapeOf(value).size();
    qView.assign(shapeOf(getQ()).begin(), shapeOf(getQ()).end());
    kView.assign(shapeOf(getK()).begin(), shapeOf(getK()).end());
    vView.assign(shapeOf(getV()).begin(), shapeOf(getV()).end());
  }
  const bool ragged = isRagged();
  ArrayRef<int64_t> q = qView, k = kView, v = vView;
  if (elementOf(getQ()) != elementOf(getK()) ||
      elementOf(getQ()) != elementOf(getV()))
    return emitOpError("q, k and v must have the same element type, got ")
           << elementOf(getQ()) << ", " << elementOf(getK()) << ", "
           << elementOf(getV());
  if (k[0] != q[0] || v[0] != q[0] || k[1] != v[1] || k[1] <= 0 ||
      q[1] % k[1] != 0 || k[2] != v[2] || q[3] != k[3])
    return emitOpError("q ")
           << formatShape(q) << ", k " << formatShape(k) << " and v "
           << formatShape(v)
           << " do not line up (expected equal batch, k/v heads dividing q's, "
              "equal k/v lengths and q/k head dims)";
  // [B, Hq, Sq, *] dense, [Tq, Hq, *] ragged.
  SmallVector<int64_t> rows(shapeOf(getQ()).drop_back());
  SmallVector<int64_t> output(rows), stats(rows);
  output.push_back(v[3]);
  stats.push_back(1);
  if (shapeOf(getO()) != ArrayRef<int64_t>(output))
    return emitOpError("o shape ")
           << formatShape(shapeOf(getO())) << " does not match; expected "
           << formatShape(output)
           << (ragged ? " ([Tq, Hq, Dv])" : " ([B, Hq, Sq, Dv])");
  if (getDO().getType() != getO().getType())
    return emitOpError("d_o type ")
           << getDO().getType() << " differs from o's " << getO().getType();
  if (shapeOf(getStats()) != ArrayRef<int64_t>(stats))
    return emitOpError("stats shape ")
           << formatShape(shapeOf(getStats())) << " does not match; expected "
           << formatShape(stats)
           << (ragged ? " ([Tq, Hq, 1])" : " ([B, Hq, Sq, 1])");
  for (auto [name, value] :
       {std::pair<StringRef, Value>{"seq_len_q", getSeqLenQ()},
        {"seq_len_kv", getSeqLenKv()}})
    if (value && shapeOf(value)[0] != q[0])
      return emitOpError(name) << " has " << shapeOf(value)[0]
                               << " entries; expected one per batch (" << q[0]
                               << ")";
  double p = getDropout().convertToDouble();
  if (!(p >= 0.0 && p < 1.0))
    return emitOpError("dropout probability ")
           << p << " is out of range (expected 0 <= p < 1)";
  if (static_cast<bool>(getSeed()) != static_cast<bool>(getOffset()))
    return emitOpError("seed and offset must be given together");
  if (p > 0.0 && !getSeed())
    return emitOpError("dropout needs seed and offset operands");
  for (auto [name, size] :
       {std::pair<StringRef, std::optional<int64_t>>{"window_left",
                                                     getWindowLeft()},
        {"window_right", getWindowRight()}})
    if (size && *size < 0)
      return emitOpError(name) << " must be >= 0, got " << *size;
  // Capture gradients: listed captures, one result each, of its type.
  ArrayRef<int64_t> gradCaptures;
  if (auto listed = getGradCaptures())
    gradCaptures = *listed;
  if (gradCaptures.size() != getCaptureGrads().size())
    return emitOpError("grad_captures lists ")
           << gradCaptures.size() << " captures but the op has "
           << getCaptureGrads().size() << " capture_grads results";
  for (auto [i, index] : llvm::enumerate(gradCaptures)) {
    if (index < 0 || index >= int64_t(getCaptures().size()))
      return emitOpError("grad_captures entry ")
             << index << " is not a capture index (there are "
             << getCaptures().size() << " captures)";
    if (i > 0 && index <= gradCaptures[i - 1])
      return emitOpError("grad_captures must be ascending without repeats");
    Value capture = getCaptures()[index];
    if (!isa<FloatType>(elementOf(capture)))
      return emitOpError("capture ")
             << index << " of type " << capture.getType()
             << " has no gradient (expected a float tensor)";
    if (getCaptureGrads()[i].getType() != capture.getType())
      return emitOpError("capture_grads result ")
             << i << " has type " << getCaptureGrads()[i].getType()
             << "; expected its capture's type " << capture.getType();
  }
  SmallVector<int64_t> scores{q[0], q[1], q[2], k[2]};
  if (failed(detail::verifyAttentionCaptures(*this, getCaptures(), scores)))
    return failure();
  return success();
}

SmallVector<int64_t> AttentionGradOp::getTableGradCaptures() {
  SmallVector<int64_t> tables;
  if (auto listed = getGradCaptures())
    for (int64_t index : *listed)
      if (index >= 0 && index < int64_t(getCaptures().size()) &&
          isTableCapture(*this, static_cast<unsigned>(index)))
        tables.push_back(index);
  return tables;
}

/// Checks one per-element region: its argument types, rank-0 pointwise ops
/// and gathers only, and a tg.yield of one rank-0 f32.
static LogicalResult verifyRegion(AttentionGradOp op, Region &region,
                                  StringRef name, ArrayRef<Type> argTypes) {
  Block &block = region.front();
  if (block.getNumArguments() != argTypes.size())
    return op.emitOpError("region '")
           << name << "' has " << block.getNumArguments()
           << " arguments; expected " << argTypes.size();
  for (auto [i, arg, expected] :
       llvm::enumerate(block.getArguments(), argTypes))
    if (arg.getType() != expected)
      return op.emitOpError("region '")
             << name << "' argument " << i << " has type " << arg.getType()
             << "; expected " << expected;
  for (Operation &inner : block.without_terminator()) {
    if (!inner.hasTrait<PointwiseTrait>() && !isa<GatherOp>(inner))
      return inner.emitOpError("is not allowed in region '")
             << name << "' of tg.attention_grad (expected pointwise tg ops "
                        "and tg.gather)";
    for (Type type : inner.getResultTypes())
      if (cast<RankedTensorType>(type).getRank() != 0)
        return inner.emitOpError("in region '")
               << name << "' must produce rank-0 tensors, got " << type;
  }
  auto yield = dyn_cast<YieldOp>(block.getTerminator());
  if (!yield || yield.getValues().size() != 1)
    return op.emitOpError("region '")
           << name << "' must end in a tg.yield of one value";
  auto type = cast<RankedTensorType>(yield.getValues()[0].getType());
  if (type.getRank() != 0 || !type.getElementType().isF32())
    return yield.emitOpError("must yield a rank-0 f32 tensor in region '")
           << name << "', got " << type;
  return success();
}

LogicalResult AttentionGradOp::verifyRegions() {
  Builder builder(getContext());
  Type f32 = RankedTensorType::get({}, builder.getF32Type());
  SmallVector<Type> argTypes =
      detail::scoreRegionArgTypes(*this, getCaptures());
  if (getScoreBlock().getNumArguments() == argTypes.size() &&
      failed(detail::verifyTableUses(*this, getScoreBlock(), "score",
                                     getCaptures())))
    return failure();
  if (failed(verifyRegion(*this, getScore(), "score", argTypes)))
    return failure();
  if (getScoreGrad().empty())
    return success();
  argTypes.push_back(f32);
  Block &grad = getScoreGrad().front();
  if (grad.getNumArguments() == argTypes.size() &&
      failed(detail::verifyTableUses(*this, grad, "score_grad",
                                     getCaptures())))
    return failure();
  return verifyRegion(*this, getScoreGrad(), "score_grad", argTypes);
}
