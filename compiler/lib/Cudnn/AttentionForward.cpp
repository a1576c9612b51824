// tg.attention (forward) -> cuDNN: the single fused SDPA op where it
// applies, then the composite graph (docs/cudnn.md, "Attention forward").
#include "Lowerings.h"
#include "ScoreGraph.h"
#include "ScoreRegionToCudnn.h"

#include <cmath>

using namespace mlir;
using namespace mlir::tg;
using namespace mlir::tg::cudnn;

namespace {

RankedTensorType typeOf(Value v) { return cast<RankedTensorType>(v.getType()); }
ArrayRef<int64_t> shapeOf(Value v) { return typeOf(v).getShape(); }
Type elementOf(Value v) { return typeOf(v).getElementType(); }

std::string typeName(Type t) {
  std::string s;
  llvm::raw_string_ostream os(s);
  os << t;
  return s;
}

/// The attention's sizes.
struct Dims {
  int64_t b, hq, hkv, sq, skv, d, dv;
  explicit Dims(AttentionOp op) {
    ArrayRef<int64_t> q = shapeOf(op.getQ()), k = shapeOf(op.getK()),
                      v = shapeOf(op.getV());
    b = q[0], hq = q[1], sq = q[2], d = q[3];
    hkv = k[1], skv = k[2], dv = v[3];
  }
};

bool hasPadding(AttentionOp op) { return op.getSeqLenQ() || op.getSeqLenKv(); }
bool hasMasks(AttentionOp op) {
  return op.getCausal() != CausalMode::none || op.getWindowLeft() ||
         op.getWindowRight() || hasPadding(op);
}

/// Whether the single fused SDPA op computes exactly this attention.
bool fusedOpApplies(AttentionOp op) {
  return isIdentityScoreRegion(op) && !hasMasks(op);
}

/// The oldest cuDNN the composite graph may run on (cuDNN's version notes
/// and cudnn-frontend's checks, docs/cudnn.md).
int compositeMinVersion(AttentionOp op) {
  Dims n(op);
  int version = 90000;
  // -inf as the mask value (older versions want the lowest finite float),
  // sliding windows with a bias, and no fp16/bf16 forward on 9.10.0/9.10.1.
  if (hasMasks(op) || scoreRegionMayYieldNegInf(op))
    version = 91002;
  // cuDNN 9.14 computes non-causal sliding windows wrongly past 1024 kv.
  bool window = op.getWindowLeft() || op.getWindowRight();
  if (window && op.getCausal() == CausalMode::none && n.skv > 1024)
    version = std::max(version, 91500);
  return version;
}

/// The composite graph, op by op (its shape follows cudnn-frontend's SDPA
/// forward so that cuDNN's fused-attention engines recognise it).
class CompositeBuilder {
public:
  CompositeBuilder(AttentionOp op, StridesFn stridesOf)
      : op(op), stridesOf(stridesOf), n(op) {}

  GraphBuilder build() {
    GraphBuilder graph("attention fwd (composite)", compositeMinVersion(op));
    g = &graph;
    DType io = *dtypeOf(elementOf(op.getQ()));
    int64_t q = bindNatural(op.getQ());
    // K as a transposed view [B,Hkv,D,Skv]: swap the last dims and strides.
    SmallVector<int64_t> kDims(shapeOf(op.getK())),
        kStrides = stridesOf(op.getK());
    std::swap(kDims[2], kDims[3]);
    std::swap(kStrides[2], kStrides[3]);
    int64_t kt = g->bind(op.getK(), kDims, kStrides);
    int64_t v = bindNatural(op.getV());

    int64_t s = g->matmul(q, kt);
    // With padding, the matmuls stop at the sequence lengths (as
    // cudnn-frontend does): the padded rows of K and V may hold anything,
    // and 0 * NaN in P . V would leak into valid rows.
    overrideLengths({{"m_override", true}, {"n_override", false}});
    s = g->binary("mul", s,
                  g->scalar(DType::F32, op.getScale().convertToDouble(), 4));
    if (!isIdentityScoreRegion(op))
      s = emitScoreRegion(*g, op, s, stridesOf);
    s = paddingMask(s);
    s = diagonalMasks(s);

    // Softmax as cudnn-frontend spells it: max, sub, exp, sum, div, with
    // stats = max + log(sum) (virtual when not training).
    SmallVector<int64_t> rowDims{n.b, n.hq, n.sq, 1};
    int64_t max = g->reduce("max", s, rowDims);
    int64_t e = g->unary("exp", g->binary("sub", s, max));
    int64_t sum = g->reduce("add", e, rowDims);
    int64_t logSum = g->unary("log", sum);
    // Stats right after the sum, as in the graph measured on the H200.
    // Nothing may follow the second matmul: a select there (e.g. to force
    // zeros into fully masked rows) makes the engines reject the graph
    // (measured on the H200). Rows past seq_len_q are not computed at all
    // (m_override): the plan zeroes the output first (Lowering::zeroFirst).
    if (Value stats = op.getStats())
      g->pointwiseInto("add", max, logSum, bindNatural(stats));
    else
      g->binary("add", max, logSum);
    int64_t p = g->binary("div", e, sum, io);
    g->matmulInto(p, v, bindNatural(op.getOutput()));
    overrideLengths({{"m_override", true}, {"k_override", false}});
    return std::move(graph);
  }

private:
  int64_t bindNatural(Value v) { return g->bind(v, shapeOf(v), stridesOf(v)); }
  /// Sequence lengths as [B,1,1,1] int32, or the static length.
  int64_t lengthQ() {
    if (!lenQ)
      lenQ = op.getSeqLenQ()
                 ? g->bind(op.getSeqLenQ(), {n.b, 1, 1, 1}, {1, 1, 1, 1})
                 : g->scalar(DType::I32, double(n.sq), 4);
    return lenQ;
  }
  int64_t lengthKv() {
    if (!lenKv)
      lenKv = op.getSeqLenKv()
                  ? g->bind(op.getSeqLenKv(), {n.b, 1, 1, 1}, {1, 1, 1, 1})
                  : g->scalar(DType::I32, double(n.skv), 4);
    return lenKv;
  }
  /// Binds the given sequence lengths (true: q, false: kv) to override
  /// ports of the last op, a matmul.
  void overrideLengths(ArrayRef<std::pair<const char *, bool>> ports) {
    for (auto [port, isQ] : ports) {
      Value len = isQ ? op.getSeqLenQ() : op.getSeqLenKv();
      if (!len)
        continue;
      int64_t uid = isQ ? lengthQ() : lengthKv();
      g->graph().ops.back().ports.push_back({port, uid});
    }
  }
  /// Padding: rows q_idx >= seq_len_q[b] and columns kv_idx >= seq_len_kv[b]
  /// (a length not given is the full one), the rule shared with the
  /// backward (ScoreGraph.h).
  int64_t paddingMask(int64_t s) {
    if (!op.getSeqLenQ() && !op.getSeqLenKv())
      return s;
    return cudnn::paddingMask(*g, s, lengthQ(), lengthKv());
  }

  /// Causal and sliding-window masks as cuDNN's diagonal band, the rule
  /// shared with the backward (ScoreGraph.h): bottom-right alignment reads
  /// the sequence-length tensors when padding is given; the left bound is
  /// spelled as the forward's engines take it.
  int64_t diagonalMasks(int64_t s) {
    AttributeMasks masks = AttributeMasks::of(op);
    if (!masks.any())
      return s;
    bool padded = op.getSeqLenQ() || op.getSeqLenKv();
    return diagonalBandMask(*g, s, masks, padded ? lengthQ() : 0,
                            padded ? lengthKv() : 0, LeftBoundSpelling::Forward);
  }

  AttentionOp op;
  StridesFn stridesOf;
  Dims n;
  GraphBuilder *g = nullptr;
  int64_t lenQ = 0, lenKv = 0;
};

/// The single fused SDPA op (cuDNN >= 9.13.1): K in its natural layout.
GraphBuilder buildFused(AttentionOp op, StridesFn stridesOf) {
  GraphBuilder g("attention fwd (sdpa_fwd)", 91301);
  auto bindNatural = [&](Value v) {
    return g.bind(v, shapeOf(v), stridesOf(v));
  };
  tgc::cudnn::Op sdpa;
  sdpa.kind = tgc::cudnn::OpKind::SdpaForward;
  sdpa.ports = {{"q", bindNatural(op.getQ())},
                {"k", bindNatural(op.getK())},
                {"v", bindNatural(op.getV())},
                {"o", bindNatural(op.getOutput())}};
  if (Value stats = op.getStats())
    sdpa.ports.push_back({"stats", bindNatural(stats)});
  sdpa.ports.push_back(
      {"scale", g.scalar(DType::F32, op.getScale().convertToDouble(), 4)});
  g.addOp(std::move(sdpa));
  return g;
}
} // namespace

std::string cudnn::attentionUnsupportedReason(AttentionOp op) {
  // cuDNN takes packed sequences through ragged offset tensors (element
  // offsets, [B+1, 1, 1, 1]); tgc does not build them yet.
  if (op.isRagged())
    return "the ragged layout (cu_seqlens) is not lowered to cuDNN's ragged "
           "offsets; the fused NVRTC kernel runs it";
  // cuDNN 9.5+ reads paged caches through page-table tensors in its SDPA
  // graph; tgc does not build them yet.
  if (op.isPaged())
    return "a paged K/V cache (page_table) is not lowered to cuDNN's paged "
           "attention; the fused NVRTC kernel runs it";
  if (isFp8(op)) return attentionFp8UnsupportedReason(op);
  Type t = elementOf(op.getQ());
  if (!t.isBF16() && !t.isF16())
    return "q/k/v are " + typeName(t) +
           "; cuDNN's fused attention takes only bf16 or f16";
  if (elementOf(op.getK()) != t || elementOf(op.getV()) != t)
    return "q, k and v have different element types";
  if (elementOf(op.getOutput()) != t)
    return "the output is " + typeName(elementOf(op.getOutput())) +
           " while q/k/v are " + typeName(t) +
           "; cuDNN writes the output in the input type";
  Dims n(op);
  for (auto [name, d] :
       {std::pair<const char *, int64_t>{"D", n.d}, {"Dv", n.dv}})
    if (d % 8 != 0 || d > 256)
      return std::string("head dim ") + name + " = " + std::to_string(d) +
             "; cuDNN needs a multiple of 8 and at most 256";
  if (n.hq % n.hkv != 0)
    return "query heads (" + std::to_string(n.hq) +
           ") are not a multiple of kv heads (" + std::to_string(n.hkv) + ")";
  for (Value len : {op.getSeqLenQ(), op.getSeqLenKv()})
    if (len && !elementOf(len).isInteger(32))
      return "sequence lengths are " + typeName(elementOf(len)) +
             "; cuDNN's padding masks take int32";
  if (op.getDropout().convertToDouble() > 0.0)
    return "cuDNN's dropout mask (its own Philox stream) differs from "
           "tg.dropout's documented keep-bit mapping, so results would not "
           "match the graph";
  for (auto [v, name] : {std::pair<Value, StringRef>{op.getQ(), "q"},
                         {op.getK(), "k"},
                         {op.getV(), "v"},
                         {op.getOutput(), "the output"}}) {
    std::string why = headDimLayoutReason(v, name);
    if (!why.empty())
      return why;
  }
  std::string region = scoreRegionUnsupportedReason(op);
  if (!region.empty())
    return region;
  for (auto [i, capture] : llvm::enumerate(op.getCaptures()))
    for (ArrayRef<int64_t> strides : declaredStrides(capture))
      for (auto [d, s] : llvm::zip(shapeOf(capture), strides))
        if (d != 1 && s <= 0)
          return "capture #" + std::to_string(i) +
                 " has a non-positive stride (tg.strides), which cuDNN "
                 "tensors cannot describe";
  if (!hasPadding(op))
    if (std::optional<int64_t> row = firstEmptyRow(AttributeMasks::of(op)))
      return "the masks leave query row " + std::to_string(*row) +
             " without any kv position (Sq = " + std::to_string(n.sq) +
             ", Skv = " + std::to_string(n.skv) +
             "); tg gives zero output and -inf stats there, which cuDNN's "
             "fused attention does not promise";
  if (n.sq == 1 && n.skv == 1 && !fusedOpApplies(op))
    return "Sq = Skv = 1 with masks or score math: cuDNN found no engine "
           "config for the composite graph (measured on H200, cuDNN 9.19)";
  // (A full-length seq_len_q, which tg-expand-attention adds beside a
  // seq_len_kv, pads nothing.)
  if (op.getStats() && op.getSeqLenQ() && !isFullLength(op.getSeqLenQ(), n.sq))
    return "training stats with seq_len_q: cuDNN leaves the rows past "
           "seq_len_q unwritten, and tg's stats there are -inf";
  if (op.getWindowLeft() && !hasPadding(op) && n.sq > n.skv)
    return "cuDNN's sliding window needs Sq <= Skv without padding (Sq = " +
           std::to_string(n.sq) + ", Skv = " + std::to_string(n.skv) +
           "; cudnn-frontend refuses it)";
  if (op.getCausal() == CausalMode::bottom_right && !isIdentityScoreRegion(op))
    return "cuDNN's fused attention has no bottom-right causal mask together "
           "with a bias or score modifier (cudnn-frontend refuses it)";
  return "";
}

FailureOr<Lowering> cudnn::lowerAttention(AttentionOp op, StridesFn stridesOf) {
  if (isFp8(op)) return lowerAttentionFp8(op, stridesOf);
  for (Value v : {op.getQ(), op.getK(), op.getV(), op.getOutput()}) {
    SmallVector<int64_t> strides = stridesOf(v);
    if (strides.empty() || strides.back() != 1)
      return op.emitOpError("cannot be lowered to cuDNN: an operand's head "
                            "dim is not contiguous in its buffer");
  }
  Lowering lowering;
  if (fusedOpApplies(op))
    lowering.graphs.push_back(buildFused(op, stridesOf));
  lowering.graphs.push_back(CompositeBuilder(op, stridesOf).build());
  // The composite graph does not compute the rows past seq_len_q, whose
  // output tg defines as zero.
  if (op.getSeqLenQ() &&
      !isFullLength(op.getSeqLenQ(), shapeOf(op.getQ())[2]))
    lowering.zeroFirst.push_back(op.getOutput());
  return lowering;
}
