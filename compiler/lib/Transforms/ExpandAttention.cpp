// tg-expand-attention: tg.attention -> primitive ops, for the attention ops
// the fused kernel cannot run (and, with all=true, for testing).
#include "AttentionScores.h"

#include "tg/Cudnn/CudnnLowering.h"
#include "tg/Dialect/TG/IR/TGOps.h"
#include "tg/Transforms/Passes.h"

#include "mlir/IR/IRMapping.h"

namespace mlir::tg {
#define GEN_PASS_DEF_EXPANDATTENTION
#include "tg/Transforms/Passes.h.inc"
} // namespace mlir::tg

using namespace mlir;
using namespace mlir::tg;
using namespace mlir::tg::detail;

static Type elementTypeOf(Value value) {
  return cast<RankedTensorType>(value.getType()).getElementType();
}

/// Whether the generated attention kernel (tg::codegen) takes `op`; keep in
/// step with validateAttentionSpec and the plan lowering's checks.
static bool fusedKernelSupports(AttentionOp op) {
  Type elem = elementTypeOf(op.getQ());
  if (!(elem.isBF16() || elem.isF16()) || elementTypeOf(op.getOutput()) != elem)
    return false;
  for (Value v : {op.getQ(), op.getV()}) {
    int64_t headDim = cast<RankedTensorType>(v.getType()).getDimSize(3);
    if (headDim % 8 != 0 || headDim > 256)
      return false;
  }
  for (Value len : {op.getSeqLenQ(), op.getSeqLenKv()})
    if (len && !elementTypeOf(len).isInteger(32))
      return false;
  for (Value capture : op.getCaptures())
    if (isa<Float8E4M3FNType, Float8E5M2Type>(elementTypeOf(capture)))
      return false;
  return true;
}

/// The score region applied to whole [B, Hq, Sq, Skv] tensors: each
/// pointwise op of the region is rebuilt on the tensors its operands map to,
/// with the broadcast shape of those operands.
static Value applyScoreRegion(OpBuilder &b, AttentionOp op, Value scores) {
  Block &block = op.getScoreBlock();
  auto scoreType = cast<RankedTensorType>(scores.getType());
  ArrayRef<int64_t> shape = scoreType.getShape();
  IRMapping mapping;
  mapping.map(block.getArgument(0), scores);
  // b, h, q_idx, kv_idx as index tensors that broadcast to the scores.
  for (int axis = 0; axis < 4; ++axis) {
    SmallVector<int64_t> indexShape(4, 1);
    indexShape[axis] = shape[axis];
    mapping.map(block.getArgument(1 + axis),
                GenIndexOp::create(
                    b, op.getLoc(),
                    RankedTensorType::get(indexShape, b.getI64Type()), axis));
  }
  for (auto [i, capture] : llvm::enumerate(op.getCaptures()))
    mapping.map(block.getArgument(AttentionOp::kNumIndexArgs + i), capture);

  for (Operation &inner : block.without_terminator()) {
    SmallVector<Value> operands;
    SmallVector<ArrayRef<int64_t>> shapes;
    for (Value operand : inner.getOperands()) {
      operands.push_back(mapping.lookup(operand));
      shapes.push_back(
          cast<RankedTensorType>(operands.back().getType()).getShape());
    }
    SmallVector<int64_t> resultShape =
        operands.empty() ? SmallVector<int64_t>{}
                         : *broadcastShapes(shapes);
    OperationState state(inner.getLoc(), inner.getName());
    state.addOperands(operands);
    state.addAttributes(inner.getAttrs());
    state.propertiesAttr = inner.getPropertiesAsAttribute();
    for (Type type : inner.getResultTypes())
      state.addTypes(RankedTensorType::get(
          resultShape, cast<RankedTensorType>(type).getElementType()));
    Operation *rebuilt = b.create(state);
    mapping.map(inner.getResults(), rebuilt->getResults());
  }
  Value yielded = mapping.lookup(block.getTerminator()->getOperand(0));
  // A region yielding a value that does not depend on the score (e.g. a
  // constant) still gives one score per element.
  if (cast<RankedTensorType>(yielded.getType()).getShape() != shape)
    yielded = BroadcastOp::create(b, op.getLoc(), scoreType, yielded);
  return yielded;
}

static void expand(AttentionOp op) {
  OpBuilder b(op);
  Location loc = op.getLoc();
  AttentionConfig config = AttentionConfig::from(op);
  config.afterScale = [&](Value s) { return applyScoreRegion(b, op, s); };
  MaskedScores scores = buildMaskedScores(b, loc, config);

  auto scoreType = cast<RankedTensorType>(scores.scores.getType());
  Type statsType = op.getStats() ? op.getStats().getType() : Type();
  auto softmax = SoftmaxOp::create(b, loc, scoreType, statsType, scores.scores,
                                   /*axis=*/3);
  Value p = softmax.getOutput();
  if (config.dropout > 0.0)
    p = DropoutOp::create(b, loc, p, config.seed, config.offset,
                          b.getF64FloatAttr(config.dropout));
  Value vHeads = expandKvHeads(b, loc, config.v, config.queryHeads());
  if (op.isFp8()) {
    // P quantized to q's fp8 format, then the fp8 second matmul and scales.
    Fp8Tail tail = buildFp8Tail(
        b, loc, p, vHeads, cast<RankedTensorType>(op.getOutput().getType()),
        elementTypeOf(config.q), op.getFp8Scales());
    op.getOutput().replaceAllUsesWith(tail.output);
    if (Value amax = op.getAmaxS())
      amax.replaceAllUsesWith(tail.amaxS);
    if (Value amax = op.getAmaxO())
      amax.replaceAllUsesWith(tail.amaxO);
  } else {
    // P in v's precision, as tg-decompose-sdpa and the kernels have it.
    Value pCast = castElements(b, loc, p, elementTypeOf(config.v));
    Value o = MatmulOp::create(b, loc, op.getOutput().getType(), pCast,
                               vHeads, /*acc=*/TypeAttr());
    op.getOutput().replaceAllUsesWith(o);
  }
  if (Value stats = op.getStats())
    stats.replaceAllUsesWith(softmax.getStats());
  op.erase();
}

namespace {
struct ExpandAttentionPass
    : tg::impl::ExpandAttentionBase<ExpandAttentionPass> {
  using ExpandAttentionBase::ExpandAttentionBase;
  void runOnOperation() override {
    SmallVector<AttentionOp> ops;
    getOperation().walk([&](AttentionOp op) {
      if (cudnn::isAssignedToCudnn(op))
        return;
      if (all || !fusedKernelSupports(op))
        ops.push_back(op);
    });
    for (AttentionOp op : ops)
      expand(op);
  }
};
} // namespace
