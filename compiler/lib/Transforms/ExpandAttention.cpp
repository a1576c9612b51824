// tg-expand-attention: tg.attention and tg.attention_grad -> primitive ops,
// for the ops neither cuDNN nor the fused kernels run (and, with all=true,
// every one not on cuDNN, for testing).
#include "AttentionScores.h"
#include "FusionUtils.h"

#include "tg/Dialect/TG/IR/Backend.h"
#include "tg/Dialect/TG/IR/ScoreGradient.h"
#include "tg/Dialect/TG/IR/TGOps.h"
#include "tg/Transforms/NvrtcSupport.h"
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

  for (Operation &inner : block.without_terminator())
    fusion::rebuildOnTensors(b, inner, mapping);
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
/// and the score_grad region (or, when it is empty, the chain rule derived
/// through the score region), applied to the unmodified scaled scores and
/// dZ, in place of the soft-cap's derivative.
static LogicalResult expand(AttentionGradOp op) {
  // An empty score_grad is the chain rule through the score region.
  std::unique_ptr<Block> derived;
  std::string whyNot;
  FailureOr<Block *> gradBlock = scoreGradientBlock(op, derived, &whyNot);
  if (failed(gradBlock))
    return op.emitOpError("cannot derive the gradient of the score region: ")
           << whyNot << "; give a score_grad region";
  OpBuilder b(op);
  Location loc = op.getLoc();
  AttentionConfig config = AttentionConfig::from(op);
  Value scaled; // s = scale * q.kT, before the score region
  config.afterScale = [&](Value s) {
    scaled = s;
    return applyRegion(b, loc, op.getScoreBlock(), s, op.getCaptures(), {});
  };
  MaskedScores scores = buildMaskedScores(b, loc, config);
  Value dZ; // P * (dP - D), the gradient of the modified scores
  auto throughRegion = [&](Value dz) {
    dZ = dz;
    return applyRegion(b, loc, **gradBlock, scaled, op.getCaptures(), dz);
  };
  AttentionGradInputs in{op.getO(),
                         op.getDO(),
                         op.getStats(),
                         cast<RankedTensorType>(op.getDq().getType()),
                         cast<RankedTensorType>(op.getDk().getType()),
                         cast<RankedTensorType>(op.getDv().getType())};
  AttentionGradients grads = buildAttentionGradients(
      b, loc, config, scores, in, function_ref<Value(Value)>(throughRegion));
  op.getDq().replaceAllUsesWith(grads.dq);
  op.getDk().replaceAllUsesWith(grads.dk);
  op.getDv().replaceAllUsesWith(grads.dv);
  // Gradients of listed captures: the region's derivative with respect to
  // the captured element times dZ, summed over the capture's broadcast
  // dimensions, rounded once.
  ArrayRef<int64_t> listed;
  if (auto indices = op.getGradCaptures())
    listed = *indices;
  for (auto [n, index] : llvm::enumerate(listed)) {
    FailureOr<std::unique_ptr<Block>> block = deriveScoreGradient(
        op.getScoreBlock(), AttentionOp::kNumIndexArgs + index, &whyNot);
    if (failed(block))
      return op.emitOpError("cannot derive the gradient of capture ")
             << index << ": " << whyNot;
    Value perScore =
        applyRegion(b, loc, **block, scaled, op.getCaptures(), dZ);
    auto captureType = cast<RankedTensorType>(op.getCaptures()[index].getType());
    SmallVector<int64_t> dims;
    for (int d = 0; d < 4; ++d)
      if (captureType.getDimSize(d) == 1)
        dims.push_back(d);
    Value sum = perScore;
    if (!dims.empty())
      sum = ReduceOp::create(
          b, loc, RankedTensorType::get(captureType.getShape(), b.getF32Type()),
          ReduceKind::sum, perScore, dims, /*keepdim=*/true);
    op.getCaptureGrads()[n].replaceAllUsesWith(
        castElements(b, loc, sum, captureType.getElementType()));
  }
  op.erase();
  return success();
}

/// Adds a full-length sequence-length constant (`length` for each batch
/// entry, which masks nothing) as operand segment `segment` of `op` (its
/// missing seq_len_q or seq_len_kv).
template <typename AttentionLikeOp>
static void addFullLength(AttentionLikeOp op, unsigned segment, int64_t length) {
  OpBuilder b(op);
  int64_t batch = cast<RankedTensorType>(op.getQ().getType()).getDimSize(0);
  auto type = RankedTensorType::get({batch}, b.getI32Type());
  Value full = ConstantOp::createSplat(b, op.getLoc(), type, double(length));
  auto &segments = op.getProperties().operandSegmentSizes;
  unsigned index = 0;
  for (unsigned s = 0; s < segment; ++s)
    index += segments[s];
  op->insertOperands(index, {full});
  segments[segment] = 1;
}

/// cuDNN <= 9.15 computes the attention backward wrongly when Skv is not a
/// multiple of 128 unless the graph has a padding mask (cudnn-frontend then
/// adds one with the full lengths). A tg.attention_grad on cuDNN without
/// sequence lengths gets explicit full-length ones, which mask nothing: the
/// cuDNN lowering binds them in its graph for those versions.
static void addFullLengthsForCudnn(AttentionGradOp op) {
  int64_t sq = cast<RankedTensorType>(op.getQ().getType()).getDimSize(2);
  int64_t skv = cast<RankedTensorType>(op.getK().getType()).getDimSize(2);
  if (skv % 128 == 0 || op.getSeqLenQ() || op.getSeqLenKv())
    return;
  // Operand segments: q k v o d_o stats | seq_len_q seq_len_kv | ...
  addFullLength(op, 6, sq);
  addFullLength(op, 7, skv);
}

/// cuDNN's forward with one padding length and not the other computes
/// rows as if everything were masked (measured on the H200, cuDNN 9.19: a
/// graph with seq_len_kv alone gave -inf stats on 4080 of 4096 rows and zero
/// outputs). A tg.attention on cuDNN with one length gets the other as an
/// explicit full-length constant, which masks nothing.
static void completeLengthsForCudnn(AttentionOp op) {
  // Operand segments: q k v | seq_len_q seq_len_kv | ...
  if (op.getSeqLenKv() && !op.getSeqLenQ())
    addFullLength(op, 3, cast<RankedTensorType>(op.getQ().getType()).getDimSize(2));
  else if (op.getSeqLenQ() && !op.getSeqLenKv())
    addFullLength(op, 4, cast<RankedTensorType>(op.getK().getType()).getDimSize(2));
}

namespace {
struct ExpandAttentionPass
    : tg::impl::ExpandAttentionBase<ExpandAttentionPass> {
  using ExpandAttentionBase::ExpandAttentionBase;
  void runOnOperation() override {
    SmallVector<AttentionOp> ops;
    SmallVector<AttentionGradOp> grads;
    SmallVector<AttentionGradOp> onCudnn;
    SmallVector<AttentionOp> forwardsOnCudnn;
    getOperation().walk([&](Operation *op) {
      if (getBackend(op) == Backend::cudnn) {
        if (auto grad = dyn_cast<AttentionGradOp>(op))
          onCudnn.push_back(grad);
        if (auto attention = dyn_cast<AttentionOp>(op))
          forwardsOnCudnn.push_back(attention);
        return;
      }
      if (auto attention = dyn_cast<AttentionOp>(op)) {
        if (all || !nvrtcAttentionUnsupportedReason(attention, target).empty())
          ops.push_back(attention);
      } else if (auto grad = dyn_cast<AttentionGradOp>(op)) {
        if (all || !nvrtcBackend().unsupportedReason(grad).empty())
          grads.push_back(grad);
      }
    });
    for (AttentionOp op : ops) {
      // The expansion builds dense [B, H, S, S] scores; packed sequences
      // run only on the fused kernel.
      if (op.isRagged() || op.isPaged()) {
        std::string reason = nvrtcAttentionUnsupportedReason(op, target);
        op.emitOpError(op.isPaged()
                           ? "a paged K/V cache (page_table) runs only on the "
                             "fused NVRTC kernel and cannot be expanded into "
                             "tg ops"
                           : "the ragged layout (cu_seqlens) runs only on the "
                             "fused NVRTC kernel and cannot be expanded into "
                             "tg ops")
            << (reason.empty() ? std::string(" (all=true asked for it)")
                               : "; the fused kernel cannot run it: " + reason);
        signalPassFailure();
        continue;
      }
      expand(op);
    }
    for (AttentionGradOp op : grads) {
      if (op.isRagged()) {
        std::string reason = nvrtcBackend().unsupportedReason(op);
        op.emitOpError("the ragged layout (cu_seqlens) runs only on the "
                       "fused NVRTC backward and cannot be expanded into tg "
                       "ops")
            << (reason.empty() ? std::string(" (all=true asked for it)")
                               : "; the fused backward cannot run it: " +
                                     reason);
        signalPassFailure();
        continue;
      }
      // The expansion has no scatter-add for the table gradients.
      if (SmallVector<int64_t> tables = op.getTableGradCaptures();
          !tables.empty()) {
        std::string whyNotFused = nvrtcBackend().unsupportedReason(op);
        InFlightDiagnostic diag =
            op.emitOpError("returns the gradient of table capture ")
            << tables.front()
            << " (grad_captures), which the expansion into tg ops cannot "
               "compute (it has no scatter-add) and cuDNN cannot gather; "
               "only the fused NVRTC backward computes it";
        if (whyNotFused.empty())
          diag << " (leave this op to it: do not expand every attention)";
        else
          diag << ", which does not take this op: " << whyNotFused;
        return signalPassFailure();
      }
      if (failed(expand(op)))
        return signalPassFailure();
    }
    for (AttentionGradOp op : onCudnn)
      addFullLengthsForCudnn(op);
    for (AttentionOp op : forwardsOnCudnn)
      completeLengthsForCudnn(op);
  }
};
} // namespace
