// FP8 and ragged tg.sdpa -> tg.attention, directly. tg-decompose-sdpa calls
// this instead of decomposing: the fp8 scaling (descales after the first
// matmul, P quantized with scale_s, descales and scale_o after the second)
// and packed sequences (cu_seqlens) have no primitive form
// tg-fuse-attention recognises, so the op keeps its fp8_scales and amax
// results, or its cu_seqlens and max_seqlen attributes. softcap, bias and ALiBi become the score
// region; masks, dropout and training stay attributes and operands.
#include "AttentionScores.h"

#include <cmath>

using namespace mlir;
using namespace mlir::tg;
using namespace mlir::tg::detail;

namespace {
/// Where the optional captures sit among the score block's arguments.
struct CaptureSlots {
  std::optional<unsigned> bias, slopes, lengthQ, lengthKv;
};
} // namespace

static RankedTensorType tensorOf(Type element, ArrayRef<int64_t> shape = {}) {
  return RankedTensorType::get(shape, element);
}

/// seq_len [B] -> [B, 1, 1, 1], a capture broadcasting over the scores.
static Value perBatch(OpBuilder &b, Location loc, Value seqLen) {
  auto type = cast<RankedTensorType>(seqLen.getType());
  return ReshapeOp::create(
      b, loc, tensorOf(type.getElementType(), {type.getDimSize(0), 1, 1, 1}),
      seqLen);
}

/// ALiBi slopes 2^(-8 (h + 1) / Hq) as a [1, Hq, 1, 1] f32 constant.
static Value slopesConstant(OpBuilder &b, Location loc, int64_t heads) {
  SmallVector<float> slopes;
  for (int64_t h = 0; h < heads; ++h)
    slopes.push_back(static_cast<float>(
        std::exp2(-8.0 * static_cast<double>(h + 1) / heads)));
  auto type = tensorOf(b.getF32Type(), {1, heads, 1, 1});
  return ConstantOp::create(
      b, loc, cast<ElementsAttr>(DenseElementsAttr::get(type, ArrayRef(slopes))));
}

/// Fills an identity score block (it yields its score argument) with
/// tg.sdpa's score modifiers in its order: softcap, bias, ALiBi.
static void buildScoreBody(OpBuilder &b, Location loc, Block &block,
                           const AttentionConfig &c, const CaptureSlots &slots) {
  auto yield = cast<YieldOp>(block.getTerminator());
  b.setInsertionPoint(yield);
  Type f32 = b.getF32Type(), i64 = b.getI64Type();
  auto arg = [&](unsigned n) { return block.getArgument(n); };
  auto capture = [&](unsigned slot) {
    return arg(AttentionOp::kNumIndexArgs + slot);
  };
  Value s = arg(0);
  if (c.softcap) {
    Value cap = ConstantOp::createScalar(b, loc, f32, *c.softcap);
    Value t = TanhOp::create(b, loc, DivOp::create(b, loc, s, cap));
    s = MulOp::create(b, loc, t, cap);
  }
  if (slots.bias)
    s = AddOp::create(b, loc, s,
                      castElements(b, loc, capture(*slots.bias), f32));
  if (slots.slopes) {
    Value qIdx = arg(3), kvIdx = arg(4);
    Value diag = qIdx;
    if (c.causal == CausalMode::bottom_right) {
      auto length = [&](std::optional<unsigned> slot, int64_t full) {
        return slot ? castElements(b, loc, capture(*slot), i64)
                    : Value(ConstantOp::createScalar(b, loc, i64, full));
      };
      Value shift = SubOp::create(b, loc, length(slots.lengthKv, c.seqKv()),
                                  length(slots.lengthQ, c.seqQ()));
      diag = AddOp::create(b, loc, qIdx, shift);
    }
    Value distance = castElements(b, loc, SubOp::create(b, loc, kvIdx, diag),
                                  f32);
    s = AddOp::create(b, loc, s,
                      MulOp::create(b, loc, distance, capture(*slots.slopes)));
  }
  yield->setOperand(0, s);
}

/// The captures tg.sdpa's score modifiers need (the bias, ALiBi's slopes
/// and, aligned bottom-right, the lengths ALiBi measures from), and where
/// they sit.
static SmallVector<Value> sdpaCaptures(OpBuilder &b, Location loc,
                                       const AttentionConfig &c,
                                       CaptureSlots &slots) {
  SmallVector<Value> captures;
  auto addCapture = [&](Value value) {
    captures.push_back(value);
    return static_cast<unsigned>(captures.size() - 1);
  };
  if (c.bias)
    slots.bias = addCapture(c.bias);
  if (c.alibi) {
    slots.slopes = addCapture(slopesConstant(b, loc, c.queryHeads()));
    // Bottom-right ALiBi measures from the diagonal of the actual lengths
    // (the verifier refuses it in the ragged and paged layouts).
    if (c.causal == CausalMode::bottom_right) {
      if (c.seqLenQ)
        slots.lengthQ = addCapture(perBatch(b, loc, c.seqLenQ));
      if (c.seqLenKv)
        slots.lengthKv = addCapture(perBatch(b, loc, c.seqLenKv));
    }
  }
  return captures;
}

LogicalResult mlir::tg::detail::rewriteFp8SdpaToAttention(
    SdpaOp op, PatternRewriter &rewriter) {
  Location loc = op.getLoc();
  AttentionConfig c = AttentionConfig::from(op);
  CaptureSlots slots;
  SmallVector<Value> captures = sdpaCaptures(rewriter, loc, c, slots);
  Type statsType = op.getStats() ? op.getStats().getType() : Type();
  auto attention = AttentionOp::create(
      rewriter, loc, op.getOutput().getType(), statsType, c.q, c.k, c.v,
      c.seqLenQ, c.seqLenKv, c.seed, c.offset, captures, op.getFp8Scales(),
      /*amax=*/static_cast<bool>(op.getAmaxS()), op.getCuSeqlensQ(),
      op.getCuSeqlensKv(), op.getPageTable());
  attention.setMaxSeqlenQAttr(op.getMaxSeqlenQAttr());
  attention.setMaxSeqlenKvAttr(op.getMaxSeqlenKvAttr());
  attention.setScaleAttr(rewriter.getF64FloatAttr(c.scale));
  attention.setCausalAttr(CausalModeAttr::get(op.getContext(), c.causal));
  if (c.windowLeft)
    attention.setWindowLeftAttr(rewriter.getI64IntegerAttr(*c.windowLeft));
  if (c.windowRight)
    attention.setWindowRightAttr(rewriter.getI64IntegerAttr(*c.windowRight));
  attention.setDropoutAttr(op.getDropoutAttr());
  {
    OpBuilder::InsertionGuard guard(rewriter);
    buildScoreBody(rewriter, loc, attention.getScoreBlock(), c, slots);
  }
  rewriter.replaceOp(op, attention.getResults());
  return success();
}

LogicalResult mlir::tg::detail::rewriteRaggedSdpaGradToAttentionGrad(
    SdpaGradOp op, PatternRewriter &rewriter) {
  Location loc = op.getLoc();
  MLIRContext *ctx = op.getContext();
  AttentionConfig c = AttentionConfig::from(op);
  CaptureSlots slots;
  SmallVector<Value> captures = sdpaCaptures(rewriter, loc, c, slots);

  OperationState state(loc, AttentionGradOp::getOperationName());
  state.addOperands({op.getQ(), op.getK(), op.getV(), op.getO(), op.getDO(),
                     op.getStats(), op.getCuSeqlensQ(), op.getCuSeqlensKv()});
  if (c.seed)
    state.addOperands({c.seed, c.offset});
  state.addOperands(captures);
  state.addTypes({op.getDq().getType(), op.getDk().getType(),
                  op.getDv().getType()});
  if (Value dbias = op.getDbias())
    state.addTypes(dbias.getType());
  auto &props = state.getOrAddProperties<AttentionGradOp::Properties>();
  props.operandSegmentSizes = {1, 1, 1, 1, 1, 1, 0, 0, 1, 1,
                               c.seed ? 1 : 0, c.offset ? 1 : 0,
                               static_cast<int32_t>(captures.size())};
  props.scale = rewriter.getF64FloatAttr(c.scale);
  props.max_seqlen_q = op.getMaxSeqlenQAttr();
  props.max_seqlen_kv = op.getMaxSeqlenKvAttr();
  props.causal = CausalModeAttr::get(ctx, c.causal);
  if (c.windowLeft)
    props.window_left = rewriter.getI64IntegerAttr(*c.windowLeft);
  if (c.windowRight)
    props.window_right = rewriter.getI64IntegerAttr(*c.windowRight);
  props.dropout = op.getDropoutAttr();
  // dbias: the gradient of the bias capture (derived from the region).
  if (op.getDbias())
    props.grad_captures = rewriter.getDenseI64ArrayAttr({*slots.bias});

  // The score region (an identity block filled with the modifiers) and an
  // empty score_grad: the compiler derives it.
  Region *score = state.addRegion();
  Block *block = new Block();
  score->push_back(block);
  Type f32Scalar = RankedTensorType::get({}, rewriter.getF32Type());
  Type i64Scalar = RankedTensorType::get({}, rewriter.getI64Type());
  block->addArgument(f32Scalar, loc);
  for (int i = 0; i < 4; ++i)
    block->addArgument(i64Scalar, loc);
  for (Value capture : captures)
    block->addArgument(
        RankedTensorType::get({}, cast<RankedTensorType>(capture.getType())
                                      .getElementType()),
        loc);
  {
    OpBuilder::InsertionGuard guard(rewriter);
    rewriter.setInsertionPointToStart(block);
    YieldOp::create(rewriter, loc, ValueRange{block->getArgument(0)});
    buildScoreBody(rewriter, loc, *block, c, slots);
  }
  state.addRegion();
  Operation *grad = rewriter.create(state);
  rewriter.replaceOp(op, grad->getResults());
  return success();
}
