// FP8 tg.attention (forward) -> cuDNN: the composite FP8 SDPA graph as
// cudnn-frontend's sdpa_fp8 builds it for Hopper (per-tensor scaling):
//
//   S = matmul(Q, Kᵀ) * scale * descale_q * descale_k        (f32, virtual)
//   causal top-left mask, softmax (max, sub, exp, sum, log/add stats, div)
//   amax_s = amax(P); P8 = P * scale_s typed as Q's fp8 format (virtual)
//   O_acc = matmul(P8, V) * descale_s * descale_v; amax_o = amax(O_acc)
//   O = O_acc * scale_o                                       (bound)
//
// The scales and amaxes are rank-0 tg values bound as f32 [1,1,1,1].
#include "Lowerings.h"
#include "ScoreGraph.h"
#include "ScoreRegionToCudnn.h"

using namespace mlir;
using namespace mlir::tg;
using namespace mlir::tg::cudnn;

/// cuDNN 9.1 introduced the FP8 forward graph on Hopper.
static constexpr int kFp8MinVersion = 90100;
/// Masks use -inf, which cuDNN takes from 9.10.2 on (cudnn-frontend uses
/// the lowest finite float before 9.10; AttentionForward.cpp does the same).
static constexpr int kFp8MaskedMinVersion = 91002;

static RankedTensorType typeOf(Value value) {
  return cast<RankedTensorType>(value.getType());
}

std::string cudnn::attentionFp8UnsupportedReason(AttentionOp op) {
  for (auto [name, value] :
       {std::pair<const char *, Value>{"q", op.getQ()}, {"v", op.getV()}}) {
    int64_t headDim = typeOf(value).getDimSize(3);
    if (headDim % 16 != 0 || headDim > 256)
      return std::string("FP8 attention needs head dims that are multiples "
                         "of 16 and at most 256; ") +
             name + " has " + std::to_string(headDim);
  }
  Type outElem = typeOf(op.getOutput()).getElementType();
  if (outElem.isBF16() || outElem.isF16())
    return "FP8 attention with a bf16/f16 output needs Blackwell and cuDNN "
           "9.13 (Hopper writes fp8 only), and an FP8 cuDNN step has no "
           "NVRTC fallback";
  if (!op.getCaptures().empty() || !isIdentityScoreRegion(op))
    return "cuDNN's FP8 attention graph takes no score modifiers (bias, "
           "ALiBi, soft-capping, score-region math)";
  if (op.getDropout().convertToDouble() > 0.0)
    return "dropout with FP8 attention is not lowered to cuDNN";
  if (op.getCausal() == CausalMode::bottom_right)
    return "bottom-right causal FP8 attention needs Blackwell in cuDNN "
           "(Hopper has top-left only)";
  if (op.getWindowLeft() || op.getWindowRight())
    return "sliding windows with FP8 attention are not lowered to cuDNN";
  if (op.getSeqLenQ() || op.getSeqLenKv())
    return "padding masks with FP8 attention are not lowered to cuDNN";
  return "";
}

namespace {
/// Builds the FP8 graph of one op, binding its operands and results.
struct Fp8GraphBuilder {
  AttentionOp op;
  StridesFn stridesOf;
  GraphBuilder g;

  Fp8GraphBuilder(AttentionOp op, StridesFn stridesOf, int minVersion)
      : op(op), stridesOf(stridesOf),
        g("attention fwd fp8 (composite)", minVersion) {}

  int64_t bindOwn(Value value) {
    return g.bind(value, typeOf(value).getShape(), stridesOf(value));
  }
  /// The amax result `amax` as a bound tensor, or workspace scratch when
  /// the op does not return it.
  int64_t amaxTensor(Value amax) {
    return amax ? bindScalar(amax) : g.scratch(DType::F32, {1, 1, 1, 1});
  }
  /// A rank-0 scale or amax as the f32 [1,1,1,1] tensor cuDNN wants.
  int64_t bindScalar(Value value) {
    return g.bind(value, {1, 1, 1, 1}, {1, 1, 1, 1});
  }

  LogicalResult build() {
    for (Value value : {op.getQ(), op.getK(), op.getV(), op.getOutput()})
      if (stridesOf(value).back() != 1)
        return op.emitOpError("cannot run on cuDNN: the head dim of every "
                              "attention tensor must have stride 1");
    ArrayRef<int64_t> qShape = typeOf(op.getQ()).getShape();
    int64_t batch = qShape[0], heads = qShape[1], seqQ = qShape[2];
    DType pType = *dtypeOf(typeOf(op.getQ()).getElementType());

    int64_t q = bindOwn(op.getQ());
    // K as the transposed view [B, Hkv, D, Skv]: no copy.
    ArrayRef<int64_t> k = typeOf(op.getK()).getShape();
    SmallVector<int64_t> kStrides = stridesOf(op.getK());
    int64_t kT = g.bind(op.getK(), {k[0], k[1], k[3], k[2]},
                        {kStrides[0], kStrides[1], kStrides[3], kStrides[2]});
    int64_t v = bindOwn(op.getV());
    int64_t descaleQ = bindScalar(op.getDescaleQ());
    int64_t descaleK = bindScalar(op.getDescaleK());
    int64_t descaleV = bindScalar(op.getDescaleV());
    int64_t descaleS = bindScalar(op.getDescaleS());
    int64_t scaleS = bindScalar(op.getScaleS());
    int64_t scaleO = bindScalar(op.getScaleO());

    // S = Q Kᵀ * scale * descale_q * descale_k, in f32.
    int64_t s = g.matmul(q, kT);
    s = g.binary("mul", s,
                 g.scalar(DType::F32, op.getScale().convertToDouble(), 4));
    s = g.binary("mul", s, descaleQ);
    s = g.binary("mul", s, descaleK);

    // The masks through the shared diagonal band builder (ScoreGraph.h);
    // attentionFp8UnsupportedReason lets only causal top-left through, so
    // this keeps kv_idx <= q_idx.
    AttributeMasks masks = AttributeMasks::of(op);
    if (masks.any())
      s = diagonalBandMask(g, s, masks, /*lenQ=*/0, /*lenKv=*/0);

    // Softmax over kv as cudnn-frontend spells it: max, sub, exp, sum, then
    // stats = max + log(sum) (bound in training, else virtual), then div.
    SmallVector<int64_t> rowDims{batch, heads, seqQ, 1};
    int64_t max = g.reduce("max", s, rowDims);
    int64_t e = g.unary("exp", g.binary("sub", s, max));
    int64_t sum = g.reduce("add", e, rowDims);
    int64_t logSum = g.unary("log", sum);
    if (Value stats = op.getStats())
      g.pointwiseInto("add", max, logSum, bindOwn(stats));
    else
      g.binary("add", max, logSum);
    int64_t p = g.binary("div", e, sum);

    // amax of P before its scale; P8 in Q's fp8 format (virtual).
    // The engines want both amaxes in the graph (measured on H200, cuDNN
    // 9.19: without them no engine config); unread ones go to scratch.
    g.reduceInto("amax", p, amaxTensor(op.getAmaxS()));
    int64_t p8 = g.binary("mul", p, scaleS, pType);

    // O = (P8 V) * descale_s * descale_v, amax of it, then scale_o.
    int64_t o = g.matmul(p8, v);
    o = g.binary("mul", o, descaleS);
    o = g.binary("mul", o, descaleV);
    g.reduceInto("amax", o, amaxTensor(op.getAmaxO()));
    g.pointwiseInto("mul", o, scaleO, bindOwn(op.getOutput()));
    return success();
  }
};
} // namespace

FailureOr<Lowering> cudnn::lowerAttentionFp8(AttentionOp op,
                                            StridesFn stridesOf) {
  Fp8GraphBuilder builder(op, stridesOf,
                          op.getCausal() == CausalMode::none
                              ? kFp8MinVersion
                              : kFp8MaskedMinVersion);
  if (failed(builder.build()))
    return failure();
  Lowering lowering;
  lowering.graphs.push_back(std::move(builder.g));
  return lowering;
}
