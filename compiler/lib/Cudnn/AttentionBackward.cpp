// tg.attention_grad -> cuDNN: the single fused sdpa_bwd op where nothing
// modifies the scores, then the composite backward graph that
// cudnn-frontend builds (node/scaled_dot_product_flash_attention.h,
// CompositeSDPABackwardNode; read, not copied), which cuDNN's fused
// attention-backward engines recognise:
//
//   D   = rowsum(dO * O) * 1              non-virtual f32 [B,Hq,Sq,1] scratch
//   S   = scale * Q.Kᵀ                    K bound as a transposed view
//   P   = exp(masks(S - stats))           (the padding mask before the sub)
//   dV  = Pᵀ.dO                           Pᵀ: a reshape of P typed like Q
//   dS  = scale * P * (dO.Vᵀ - D)         V bound as a transposed view
//   dK  = dSᵀ.Q                           dSᵀ: a reshape typed like Q
//   dQ  = identity(dS.K)                  f32 accumulator scratch, then dQ
//
// GQA: Pᵀ.dO and dSᵀ.Q per query head ([B,Hq,Skv,D], typed like Q), then an
// add-reduction onto the kv heads.
#include "Lowerings.h"
#include "ScoreRegionToCudnn.h"
#include "ScoreGraph.h"

#include <string>

using namespace mlir;
using namespace mlir::tg;
using namespace mlir::tg::cudnn;
using CudnnOp = tgc::cudnn::Op;
using tgc::cudnn::OpKind;

namespace {
ArrayRef<int64_t> shapeOf(Value v) {
  return cast<RankedTensorType>(v.getType()).getShape();
}
Type elementTypeOf(Value v) {
  return cast<RankedTensorType>(v.getType()).getElementType();
}

struct Dims {
  int64_t b, hq, hkv, sq, skv, d, dv;
  explicit Dims(AttentionGradOp op) {
    ArrayRef<int64_t> q = shapeOf(op.getQ()), k = shapeOf(op.getK()),
                      v = shapeOf(op.getV());
    b = q[0], hq = q[1], sq = q[2], d = q[3];
    hkv = k[1], skv = k[2], dv = v[3];
  }
};

/// The score region yields the score unchanged and score_grad is empty
/// (the identity): nothing but the scale and the attribute masks touches
/// the scores.
bool isIdentityScoreMath(AttentionGradOp op) {
  Block &block = op.getScoreBlock();
  if (!llvm::hasSingleElement(block))
    return false;
  Operation *yield = block.getTerminator();
  return yield->getNumOperands() == 1 &&
         yield->getOperand(0) == block.getArgument(0) &&
         op.getScoreGrad().empty();
}

/// Sequence lengths that mask something: given, and not the full-length
/// constants tg-expand-attention adds for the padding workaround.
bool hasRealPadding(AttentionGradOp op) {
  Dims n(op);
  return (op.getSeqLenQ() && !isFullLength(op.getSeqLenQ(), n.sq)) ||
         (op.getSeqLenKv() && !isFullLength(op.getSeqLenKv(), n.skv));
}

/// cuDNN <= 9.15 computes the backward wrongly when Skv is not a multiple
/// of 128 and there is no padding mask; cudnn-frontend then adds a padding
/// mask with the full lengths.
bool needsPaddingWorkaround(AttentionGradOp op) {
  return Dims(op).skv % 128 != 0;
}

constexpr int kCompositeMinVersion = 91002; // -inf masks; not 9.10.0/9.10.1
constexpr int kUnworkedMinVersion = 91600;  // fixed after 9.15
// CUDNN_BACKEND_OPERATION_SDPA_BWD_DESCRIPTOR: in the 9.19 headers; the
// release that introduced it is not documented where we looked.
constexpr int kFusedMinVersion = 91900;

/// Builds the composite graph of one tg.attention_grad.
class CompositeBackward {
public:
  CompositeBackward(AttentionGradOp op, StridesFn stridesOf)
      : op(op), stridesOf(stridesOf), n(op),
        masks(AttributeMasks::of(op)),
        elem(*dtypeOf(elementTypeOf(op.getQ()))) {}

  /// `padding`: apply the padding mask and the matmul overrides with the
  /// op's sequence lengths (here always the workaround's full lengths).
  GraphBuilder build(std::string name, int minVersion, bool padding) {
    GraphBuilder graph(std::move(name), minVersion);
    g = &graph;
    int64_t q = bindNatural(op.getQ());
    int64_t kT = bindTransposed(op.getK());
    int64_t vT = bindTransposed(op.getV());
    int64_t o = bindNatural(op.getO());
    int64_t dO = bindNatural(op.getDO());
    int64_t stats = bindNatural(op.getStats());
    if (padding) {
      lenQ = g->bind(op.getSeqLenQ(), {n.b, 1, 1, 1}, {1, 1, 1, 1});
      lenKv = g->bind(op.getSeqLenKv(), {n.b, 1, 1, 1}, {1, 1, 1, 1});
    }
    int64_t scale =
        g->scalar(DType::F32, op.getScale().convertToDouble(), 4);

    // D = rowsum(dO * O), times the dropout's 1 - p (here 1), into the
    // non-virtual row-sum scratch.
    int64_t product = g->binary("mul", dO, o);
    int64_t rows = g->reduce("add", product, {n.b, n.hq, n.sq, 1});
    int64_t rowSum = g->scratch(DType::F32, {n.b, n.hq, n.sq, 1});
    g->pointwiseInto("mul", rows, g->scalar(DType::F32, 1.0, 4), rowSum);

    // P = exp(masks(scale * Q.Kᵀ - stats)).
    int64_t s = g->matmul(q, kT);
    overrides(lenQ, lenKv, 0);
    s = g->binary("mul", s, scale);
    if (padding)
      s = paddingMask(*g, s, lenQ, lenKv);
    s = g->binary("sub", s, stats);
    if (masks.any())
      s = diagonalBandMask(*g, s, masks, lenQ, lenKv);
    int64_t p = g->unary("exp", s);

    // dV = Pᵀ.dO.
    gradientForKvHeads(transposedCopy(p), dO, op.getDv());

    // dS = scale * P * (dO.Vᵀ - D).
    int64_t dP = g->matmul(dO, vT);
    overrides(lenQ, lenKv, 0);
    int64_t dS = g->binary("sub", dP, rowSum);
    dS = g->binary("mul", dS, p);
    dS = g->binary("mul", dS, scale);

    // dK = dSᵀ.Q.
    gradientForKvHeads(transposedCopy(dS), q, op.getDk());

    // dQ = dS.K into the f32 accumulator, then converted into dQ. K is a
    // reshape of the transposed view back to [B,Hkv,Skv,D].
    SmallVector<int64_t> kStrides = stridesOf(op.getK());
    int64_t k = g->virtualTensor(*dtypeOf(elementTypeOf(op.getK())),
                                 shapeOf(op.getK()), kStrides);
    addOp(OpKind::Reshape, {{"x", kT}, {"y", k}});
    int64_t accumulator = g->scratch(DType::F32, {n.b, n.hq, n.sq, n.d});
    g->matmulInto(dS, k, accumulator);
    overrides(lenQ, 0, lenKv);
    g->pointwiseInto("identity", accumulator, 0, bindNatural(op.getDq()));
    g = nullptr;
    return graph;
  }

private:
  int64_t bindNatural(Value v) {
    return g->bind(v, shapeOf(v), stridesOf(v));
  }
  /// [B,H,S,D] bound as the view [B,H,D,S] (last dims and strides swapped).
  int64_t bindTransposed(Value v) {
    SmallVector<int64_t> dims(shapeOf(v)), strides = stridesOf(v);
    std::swap(dims[2], dims[3]);
    std::swap(strides[2], strides[3]);
    return g->bind(v, dims, strides);
  }
  void addOp(OpKind kind, SmallVector<tgc::cudnn::Port> ports) {
    CudnnOp cudnnOp;
    cudnnOp.kind = kind;
    cudnnOp.ports.assign(ports.begin(), ports.end());
    g->addOp(std::move(cudnnOp));
  }
  /// The [B,Hq,Sq,Skv] tensor `x` as the transposed [B,Hq,Skv,Sq] view
  /// that the gradient matmuls read, typed like Q.
  int64_t transposedCopy(int64_t x) {
    int64_t y = g->virtualTensor(
        elem, {n.b, n.hq, n.skv, n.sq},
        {n.hq * n.sq * n.skv, n.sq * n.skv, 1, n.skv});
    addOp(OpKind::Reshape, {{"x", x}, {"y", y}});
    return y;
  }
  /// The padding overrides of the last matmul (0: none).
  void overrides(int64_t m, int64_t nOverride, int64_t k) {
    CudnnOp &last = g->graph().ops.back();
    if (m)
      last.ports.push_back({"m_override", m});
    if (nOverride)
      last.ports.push_back({"n_override", nOverride});
    if (k)
      last.ports.push_back({"k_override", k});
  }
  /// lhsᵀ-side gradient (dV or dK) = lhs . rhs, per query head summed onto
  /// the kv heads of `result`.
  void gradientForKvHeads(int64_t lhs, int64_t rhs, Value result) {
    int64_t out = bindNatural(result);
    if (n.hq == n.hkv) {
      g->matmulInto(lhs, rhs, out);
      overrides(lenKv, 0, lenQ);
      return;
    }
    int64_t perHead = g->matmul(lhs, rhs, elem);
    overrides(lenKv, 0, lenQ);
    g->reduceInto("add", perHead, out);
  }

  AttentionGradOp op;
  StridesFn stridesOf;
  Dims n;
  AttributeMasks masks;
  DType elem;
  GraphBuilder *g = nullptr;
  int64_t lenQ = 0, lenKv = 0;
};

/// The single fused op: no masks, no score math.
GraphBuilder buildFused(AttentionGradOp op, StridesFn stridesOf) {
  GraphBuilder g("attention bwd (sdpa_bwd)", kFusedMinVersion);
  auto bind = [&](Value v) { return g.bind(v, shapeOf(v), stridesOf(v)); };
  CudnnOp fused;
  fused.kind = OpKind::SdpaBackward;
  fused.ports = {{"q", bind(op.getQ())},
                 {"k", bind(op.getK())},
                 {"v", bind(op.getV())},
                 {"o", bind(op.getO())},
                 {"do", bind(op.getDO())},
                 {"stats", bind(op.getStats())},
                 {"scale", g.scalar(DType::F32,
                                    op.getScale().convertToDouble(), 4)},
                 {"dq", bind(op.getDq())},
                 {"dk", bind(op.getDk())},
                 {"dv", bind(op.getDv())}};
  g.addOp(std::move(fused));
  return g;
}

std::string headDimReason(StringRef name, int64_t dim) {
  return "cuDNN's attention backward needs head dims that are multiples of "
         "8 and at most 256 (" +
         name.str() + " = " + std::to_string(dim) + ")";
}
} // namespace

std::string cudnn::attentionGradUnsupportedReason(AttentionGradOp op) {
  if (op.isRagged())
    return "the ragged layout (cu_seqlens) is not lowered to cuDNN's ragged "
           "offsets; the fused NVRTC backward runs it";
  std::string table = tableCaptureReason(op, op.getCaptures());
  if (!table.empty())
    return table + (op.getTableGradCaptures().empty()
                        ? ""
                        : ", nor scatter-add the table gradients");
  Type elem = elementTypeOf(op.getQ());
  if (!(elem.isBF16() || elem.isF16()))
    return "cuDNN's attention backward takes bf16/f16 q, k, v (not " +
           [&] {
             std::string s;
             llvm::raw_string_ostream os(s);
             os << elem;
             return s;
           }() +
           ")";
  for (Value v : {op.getK(), op.getV(), op.getO(), op.getDO()})
    if (elementTypeOf(v) != elem)
      return "cuDNN's attention backward needs q, k, v, o and d_o of one "
             "element type";
  Dims n(op);
  if (n.d % 8 != 0 || n.d > 256)
    return headDimReason("D", n.d);
  if (n.dv % 8 != 0 || n.dv > 256)
    return headDimReason("Dv", n.dv);
  if (n.hq % n.hkv != 0)
    return "query heads are not a multiple of the kv heads";
  if (n.sq == 1 && n.skv == 1)
    return "cuDNN's attention backward does not run Sq = Skv = 1 "
           "(cudnn-frontend refuses it)";
  if (op.getDropout().convertToDouble() > 0.0)
    return "cuDNN's dropout mask (its own Philox stream) differs from "
           "tg.dropout's documented keep-bit mapping, so results would not "
           "match the graph";
  if (!op.getCaptureGrads().empty())
    return "gradients of captured tensors (dbias) are not lowered to cuDNN";
  if (!isIdentityScoreMath(op))
    return "the backward's score region (bias, ALiBi, soft-capping or other "
           "score math) is not lowered to cuDNN yet; only the scale and the "
           "attribute masks are (a captured bias may also be -inf on whole "
           "rows, where exp(S - stats) would give NaN instead of tg's zero "
           "gradients)";
  for (Value len : {op.getSeqLenQ(), op.getSeqLenKv()})
    if (len && !elementTypeOf(len).isInteger(32))
      return "cuDNN's padding masks take int32 sequence lengths";
  if (hasRealPadding(op))
    return "with padding, cuDNN's backward skips the padded rows (matmul "
           "overrides) and does not promise the zero gradients tg defines "
           "there";
  struct Named {
    Value value;
    const char *name;
  };
  for (Named v : {Named{op.getQ(), "q"}, Named{op.getK(), "k"},
                  Named{op.getV(), "v"}, Named{op.getO(), "o"},
                  Named{op.getDO(), "d_o"}, Named{op.getStats(), "stats"},
                  Named{op.getDq(), "dq"},
                  Named{op.getDk(), "dk"}, Named{op.getDv(), "dv"}})
    if (std::string reason = headDimLayoutReason(v.value, v.name);
        !reason.empty())
      return reason;
  AttributeMasks masks = AttributeMasks::of(op);
  if (std::string reason = masksUnsupportedReason(masks, /*padded=*/false);
      !reason.empty())
    return reason;
  if (std::optional<int64_t> row = firstEmptyRow(masks))
    return "the masks leave query row " + std::to_string(*row) +
           " without any key; tg gives it zero gradients (stats -inf), "
           "which cuDNN's backward does not promise";
  return "";
}

FailureOr<Lowering> cudnn::lowerAttentionGrad(AttentionGradOp op,
                                              StridesFn stridesOf) {
  for (Value v : {op.getQ(), op.getK(), op.getV(), op.getO(), op.getDO(),
                  op.getStats(), op.getDq(), op.getDk(), op.getDv()}) {
    SmallVector<int64_t> strides = stridesOf(v);
    if (strides.empty() || strides.back() != 1)
      return op.emitOpError("cannot be lowered to cuDNN: an operand's or "
                            "result's head dim is not contiguous in its "
                            "buffer");
  }
  Lowering lowering;
  if (!AttributeMasks::of(op).any())
    lowering.graphs.push_back(buildFused(op, stridesOf));
  CompositeBackward composite(op, stridesOf);
  if (!needsPaddingWorkaround(op)) {
    lowering.graphs.push_back(composite.build(
        "attention bwd (composite)", kCompositeMinVersion, false));
    return lowering;
  }
  lowering.graphs.push_back(composite.build("attention bwd (composite)",
                                            kUnworkedMinVersion, false));
  // The full-length sequence lengths come from tg-expand-attention; without
  // them only cuDNN >= 9.16 can run the op.
  if (op.getSeqLenQ() && op.getSeqLenKv())
    lowering.graphs.push_back(composite.build(
        "attention bwd (composite, full-length padding for cuDNN <= 9.15)",
        kCompositeMinVersion, true));
  return lowering;
}
