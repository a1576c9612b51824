// tg-expand-attention: tg.attention -> primitive ops, for the attention ops
// the fused kernel cannot run (and, with all=true, for testing), and every
// tg.attention_grad not assigned to cuDNN (no generated kernel runs it).
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

/// A per-score region (tg.attention's `score`, tg.attention_grad's `score`
/// and `score_grad`) applied to whole [B, Hq, Sq, Skv] tensors: each
/// pointwise op of the region is rebuilt on the tensors its operands map
/// to, with the broadcast shape of those operands. The region's score
/// argument maps to `scores`, its captured elements to `captures` (a table
/// capture's argument is the table itself, so its gathers become
/// graph-level tg.gather ops over index tensors), and the arguments after
/// those (score_grad's dz) to `trailing`.
static Value applyRegion(OpBuilder &b, Location loc, Block &block,
                         Value scores, ValueRange captures,
                         ValueRange trailing) {
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
                    b, loc, RankedTensorType::get(indexShape, b.getI64Type()),
                    axis));
  }
  unsigned next = AttentionOp::kNumIndexArgs;
  for (Value capture : captures)
    mapping.map(block.getArgument(next++), capture);
  for (Value value : trailing)
    mapping.map(block.getArgument(next++), value);

  for (Operation &inner : block.without_terminator()) {
    SmallVector<Value> operands;
    SmallVector<ArrayRef<int64_t>> shapes;
    for (Value operand : inner.getOperands()) {
      operands.push_back(mapping.lookup(operand));
      shapes.push_back(
          cast<RankedTensorType>(operands.back().getType()).getShape());
    }
    // A gather's table is read whole: only its indices broadcast.
    ArrayRef<ArrayRef<int64_t>> broadcastOperands = shapes;
    if (isa<GatherOp>(inner))
      broadcastOperands = broadcastOperands.drop_front();
    SmallVector<int64_t> resultShape =
        broadcastOperands.empty() ? SmallVector<int64_t>{}
                                  : *broadcastShapes(broadcastOperands);
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
    yielded = BroadcastOp::create(b, loc, scoreType, yielded);
  return yielded;
}

static void expand(AttentionOp op) {
  OpBuilder b(op);
  Location loc = op.getLoc();
  AttentionConfig config = AttentionConfig::from(op);
  config.afterScale = [&](Value s) {
    return applyRegion(b, loc, op.getScoreBlock(), s, op.getCaptures(), {});
  };
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

/// tg.attention_grad as the textbook backward that tg-decompose-sdpa writes
/// for tg.sdpa_grad, with the score region in place of softcap/bias/ALiBi
/// and the score_grad region (applied to the unmodified scaled scores and
/// dZ) in place of the soft-cap's derivative.
static void expand(AttentionGradOp op) {
  OpBuilder b(op);
  Location loc = op.getLoc();
  AttentionConfig config = AttentionConfig::from(op);
  Value scaled; // s = scale * q.kT, before the score region
  config.afterScale = [&](Value s) {
    scaled = s;
    return applyRegion(b, loc, op.getScoreBlock(), s, op.getCaptures(), {});
  };
  MaskedScores scores = buildMaskedScores(b, loc, config);
  auto throughRegion = [&](Value dz) {
    return applyRegion(b, loc, op.getScoreGrad().front(), scaled,
                       op.getCaptures(), dz);
  };
  AttentionGradInputs in{op.getO(),
                         op.getDO(),
                         op.getStats(),
                         cast<RankedTensorType>(op.getDq().getType()),
                         cast<RankedTensorType>(op.getDk().getType()),
                         cast<RankedTensorType>(op.getDv().getType())};
  // An empty score_grad is the identity.
  AttentionGradients grads = buildAttentionGradients(
      b, loc, config, scores, in,
      op.getScoreGrad().empty() ? function_ref<Value(Value)>()
                                : function_ref<Value(Value)>(throughRegion));
  op.getDq().replaceAllUsesWith(grads.dq);
  op.getDk().replaceAllUsesWith(grads.dk);
  op.getDv().replaceAllUsesWith(grads.dv);
  op.erase();
}

/// cuDNN <= 9.15 computes the attention backward wrongly when Skv is not a
/// multiple of 128 unless the graph has a padding mask (cudnn-frontend then
/// adds one with the full lengths). A tg.attention_grad on cuDNN without
/// sequence lengths gets explicit full-length ones, which mask nothing: the
/// cuDNN lowering binds them in its graph for those versions.
static void addFullLengthsForCudnn(AttentionGradOp op) {
  ArrayRef<int64_t> q = cast<RankedTensorType>(op.getQ().getType()).getShape();
  int64_t skv = cast<RankedTensorType>(op.getK().getType()).getDimSize(2);
  if (skv % 128 == 0 || op.getSeqLenQ() || op.getSeqLenKv())
    return;
  OpBuilder b(op);
  auto type = RankedTensorType::get({q[0]}, b.getI32Type());
  Value lenQ = ConstantOp::createSplat(b, op.getLoc(), type, double(q[2]));
  Value lenKv = ConstantOp::createSplat(b, op.getLoc(), type, double(skv));
  // Operand segments: q k v o d_o stats | seq_len_q seq_len_kv | ...
  op->insertOperands(6, {lenQ, lenKv});
  auto &segments = op.getProperties().operandSegmentSizes;
  segments[6] = 1;
  segments[7] = 1;
}

namespace {
struct ExpandAttentionPass
    : tg::impl::ExpandAttentionBase<ExpandAttentionPass> {
  using ExpandAttentionBase::ExpandAttentionBase;
  void runOnOperation() override {
    SmallVector<AttentionOp> ops;
    // No generated kernel runs tg.attention_grad: every one not on cuDNN is
    // expanded.
    SmallVector<AttentionGradOp> grads;
    SmallVector<AttentionGradOp> onCudnn;
    getOperation().walk([&](Operation *op) {
      if (cudnn::isAssignedToCudnn(op)) {
        if (auto grad = dyn_cast<AttentionGradOp>(op))
          onCudnn.push_back(grad);
        return;
      }
      if (auto attention = dyn_cast<AttentionOp>(op)) {
        if (all || !fusedKernelSupports(attention))
          ops.push_back(attention);
      } else if (auto grad = dyn_cast<AttentionGradOp>(op)) {
        grads.push_back(grad);
      }
    });
    for (AttentionOp op : ops)
      expand(op);
    for (AttentionGradOp op : grads) {
      // The expansion has no scatter-add for the table gradients.
      if (!op.getTableGradCaptures().empty()) {
        op.emitOpError("returns table gradients (table_grads), which no "
                       "backend computes yet: the expansion into tg ops has "
                       "no scatter-add and cuDNN cannot gather; the CPU "
                       "reference (tg-run --ref) computes them");
        return signalPassFailure();
      }
      expand(op);
    }
    for (AttentionGradOp op : onCudnn)
      addFullLengthsForCudnn(op);
  }
};
} // namespace
