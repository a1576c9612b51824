// The masked attention scores shared by the tg.sdpa and tg.sdpa_grad
// decompositions, following tg.sdpa's documented order: scale, softcap,
// bias, ALiBi, masks.
#include "AttentionScores.h"

#include <cmath>
#include <limits>

using namespace mlir;
using namespace mlir::tg;
using namespace mlir::tg::detail;

static ArrayRef<int64_t> shapeOf(Value value) {
  return cast<RankedTensorType>(value.getType()).getShape();
}

/// tg.sdpa, tg.sdpa_grad and tg.attention name their shared operands and
/// mask options identically.
template <typename OpTy> static AttentionConfig sharedConfigOf(OpTy op) {
  AttentionConfig c;
  c.q = op.getQ();
  c.k = op.getK();
  c.v = op.getV();
  c.seqLenQ = op.getSeqLenQ();
  c.seqLenKv = op.getSeqLenKv();
  c.seed = op.getSeed();
  c.offset = op.getOffset();
  c.causal = op.getCausal();
  c.windowLeft = op.getWindowLeft();
  c.windowRight = op.getWindowRight();
  c.dropout = op.getDropout().convertToDouble();
  return c;
}

/// The score options only tg.sdpa and tg.sdpa_grad have as attributes.
template <typename OpTy> static AttentionConfig configOf(OpTy op) {
  AttentionConfig c = sharedConfigOf(op);
  c.bias = op.getBias();
  c.scale = op.getScaleOrDefault();
  if (auto softcap = op.getSoftcap())
    c.softcap = softcap->convertToDouble();
  c.alibi = op.getAlibi();
  return c;
}

AttentionConfig AttentionConfig::from(SdpaOp op) {
  AttentionConfig c = configOf(op);
  c.descaleQ = op.getDescaleQ();
  c.descaleK = op.getDescaleK();
  return c;
}
AttentionConfig AttentionConfig::from(SdpaGradOp op) { return configOf(op); }
/// tg.attention and tg.attention_grad: the scale is an attribute, the rest
/// of the score math is the region (the caller's afterScale).
template <typename OpTy> static AttentionConfig regionConfigOf(OpTy op) {
  AttentionConfig c = sharedConfigOf(op);
  c.scale = op.getScale().convertToDouble();
  return c;
}

AttentionConfig AttentionConfig::from(AttentionOp op) {
  AttentionConfig c = regionConfigOf(op);
  c.descaleQ = op.getDescaleQ();
  c.descaleK = op.getDescaleK();
  return c;
}
AttentionConfig AttentionConfig::from(AttentionGradOp op) {
  return regionConfigOf(op);
}

int64_t AttentionConfig::batch() const { return shapeOf(q)[0]; }
int64_t AttentionConfig::queryHeads() const { return shapeOf(q)[1]; }
int64_t AttentionConfig::kvHeads() const { return shapeOf(k)[1]; }
int64_t AttentionConfig::seqQ() const { return shapeOf(q)[2]; }
int64_t AttentionConfig::seqKv() const { return shapeOf(k)[2]; }
SmallVector<int64_t> AttentionConfig::scoreShape() const {
  return {batch(), queryHeads(), seqQ(), seqKv()};
}

Value mlir::tg::detail::castElements(OpBuilder &b, Location loc, Value value,
                                     Type elementType) {
  auto type = cast<RankedTensorType>(value.getType());
  if (type.getElementType() == elementType)
    return value;
  return CastOp::create(b, loc, type.clone(elementType), value);
}

Value mlir::tg::detail::expandKvHeads(OpBuilder &b, Location loc, Value kv,
                                      int64_t queryHeads) {
  auto type = cast<RankedTensorType>(kv.getType());
  ArrayRef<int64_t> s = type.getShape();
  int64_t group = queryHeads / s[1];
  if (group == 1)
    return kv;
  Type elem = type.getElementType();
  Value split = ReshapeOp::create(
      b, loc, RankedTensorType::get({s[0], s[1], 1, s[2], s[3]}, elem), kv);
  Value repeated = BroadcastOp::create(
      b, loc, RankedTensorType::get({s[0], s[1], group, s[2], s[3]}, elem),
      split);
  return ReshapeOp::create(
      b, loc, RankedTensorType::get({s[0], queryHeads, s[2], s[3]}, elem),
      repeated);
}

Value mlir::tg::detail::sumToKvHeads(OpBuilder &b, Location loc, Value x,
                                     int64_t kvHeads) {
  auto type = cast<RankedTensorType>(x.getType());
  ArrayRef<int64_t> s = type.getShape();
  int64_t group = s[1] / kvHeads;
  if (group == 1)
    return x;
  Type elem = type.getElementType();
  Value split = ReshapeOp::create(
      b, loc, RankedTensorType::get({s[0], kvHeads, group, s[2], s[3]}, elem),
      x);
  return ReduceOp::create(
      b, loc, RankedTensorType::get({s[0], kvHeads, s[2], s[3]}, elem),
      ReduceKind::sum, split, ArrayRef<int64_t>{2}, /*keepdim=*/false);
}

namespace {
/// Terse broadcasting arithmetic for the score graph.
struct Emitter {
  OpBuilder &b;
  Location loc;

  Value scalar(Type elem, double value) {
    return ConstantOp::createScalar(b, loc, elem, value);
  }
  Value add(Value x, Value y) { return AddOp::create(b, loc, x, y); }
  Value sub(Value x, Value y) { return SubOp::create(b, loc, x, y); }
  Value mul(Value x, Value y) { return MulOp::create(b, loc, x, y); }
  Value cmp(CmpPredicate p, Value x, Value y) {
    return CmpOp::create(b, loc, p, x, y);
  }
  /// Logical and of two i1 masks (broadcasting): a ? b : false.
  Value both(Value x, Value y) {
    if (!x)
      return y;
    return SelectOp::create(b, loc, x, y, scalar(b.getI1Type(), 0.0));
  }
};
} // namespace

/// seq_len [B] (i32 or i64) -> [B, 1, 1, 1] in the index type, so that it
/// broadcasts against the gen_index tensors.
static Value lengthPerBatch(OpBuilder &b, Location loc, Value seqLen,
                            Type indexType) {
  auto type = cast<RankedTensorType>(seqLen.getType());
  Value reshaped = ReshapeOp::create(
      b, loc,
      RankedTensorType::get({type.getDimSize(0), 1, 1, 1},
                            type.getElementType()),
      seqLen);
  return castElements(b, loc, reshaped, indexType);
}

/// ALiBi slopes 2^(-8 (h + 1) / Hq) as a [1, Hq, 1, 1] f32 constant.
static Value alibiSlopes(OpBuilder &b, Location loc, int64_t heads) {
  SmallVector<float> slopes;
  for (int64_t h = 0; h < heads; ++h)
    slopes.push_back(static_cast<float>(
        std::exp2(-8.0 * static_cast<double>(h + 1) / heads)));
  auto type = RankedTensorType::get({1, heads, 1, 1}, b.getF32Type());
  return ConstantOp::create(
      b, loc, cast<ElementsAttr>(DenseElementsAttr::get(type,
                                                        ArrayRef(slopes))));
}

MaskedScores mlir::tg::detail::buildMaskedScores(OpBuilder &b, Location loc,
                                                 const AttentionConfig &c) {
  Emitter e{b, loc};
  Type f32 = b.getF32Type();
  // i64 indices: exact for any length, and seq_len casts to it losslessly.
  Type index = b.getI64Type();
  int64_t heads = c.queryHeads(), sq = c.seqQ(), skv = c.seqKv();
  ArrayRef<int64_t> kShape = shapeOf(c.k);
  MaskedScores result;

  // 1. s = scale * q.kT, in f32.
  result.kHeads = expandKvHeads(b, loc, c.k, heads);
  auto kElem = cast<RankedTensorType>(c.k.getType()).getElementType();
  Value kT = TransposeOp::create(
      b, loc,
      RankedTensorType::get({kShape[0], heads, kShape[3], skv}, kElem),
      result.kHeads, ArrayRef<int64_t>{0, 1, 3, 2});
  Value s = MatmulOp::create(b, loc, RankedTensorType::get(c.scoreShape(), f32),
                             c.q, kT, /*acc=*/TypeAttr());
  s = e.mul(s, e.scalar(f32, c.scale));
  if (c.descaleQ)
    s = e.mul(e.mul(s, c.descaleQ), c.descaleK);
  if (c.afterScale)
    s = c.afterScale(s);

  // 2. softcap * tanh(s / softcap).
  if (c.softcap) {
    Value cap = e.scalar(f32, *c.softcap);
    result.softcapTanh = TanhOp::create(b, loc, DivOp::create(b, loc, s, cap));
    s = e.mul(result.softcapTanh, cap);
  }

  // 3. bias, in f32.
  if (c.bias)
    s = e.add(s, castElements(b, loc, c.bias, f32));

  // Index tensors for ALiBi and the masks; they broadcast to the scores.
  ::tgc::masks::AttentionMasks masks = c.masks();
  bool needsDiagonal = c.alibi || masks.anyDiagonal();
  if (!needsDiagonal && !masks.padded()) {
    result.scores = s;
    return result;
  }
  Value qIdx = GenIndexOp::create(
      b, loc, RankedTensorType::get({1, 1, sq, 1}, index), 2);
  Value kvIdx = GenIndexOp::create(
      b, loc, RankedTensorType::get({1, 1, 1, skv}, index), 3);
  Value lenQ = c.seqLenQ ? lengthPerBatch(b, loc, c.seqLenQ, index) : Value();
  Value lenKv =
      c.seqLenKv ? lengthPerBatch(b, loc, c.seqLenKv, index) : Value();

  // The diagonal kv index of each query row: q_idx for top-left alignment
  // (also used when only a window or ALiBi is given), q_idx + Lkv - Lq for
  // bottom-right, with the actual lengths when padding gives them.
  Value diag = qIdx;
  if (masks.bottomRight()) {
    if (lenQ || lenKv) {
      Value lq = lenQ ? lenQ : e.scalar(index, sq);
      Value lkv = lenKv ? lenKv : e.scalar(index, skv);
      diag = e.add(qIdx, e.sub(lkv, lq));
    } else if (skv != sq) {
      diag = e.add(qIdx, e.scalar(index, skv - sq));
    }
  }

  // 4. ALiBi: s += slope(h) * (kv_idx - diag).
  if (c.alibi) {
    Value distance = e.sub(kvIdx, diag);
    s = e.add(s, e.mul(castElements(b, loc, distance, f32),
                       alibiSlopes(b, loc, heads)));
  }

  // 5. Masks: one i1 "keep" tensor, then -inf where it is false; the
  // diagonal band is the masks' rule (kv_idx <= diag + right bound,
  // kv_idx >= diag - window_left).
  Value keep;
  if (std::optional<int64_t> right = masks.rightBound())
    keep = e.both(keep, e.cmp(CmpPredicate::le, kvIdx,
                              *right ? e.add(diag, e.scalar(index, *right))
                                     : diag));
  if (masks.windowLeft)
    keep = e.both(keep, e.cmp(CmpPredicate::ge, kvIdx,
                              e.sub(diag, e.scalar(index, *masks.windowLeft))));
  // Padding rows are fully masked, so safe softmax gives them zeros (and
  // -inf stats) exactly as tg.sdpa specifies.
  if (lenQ)
    keep = e.both(keep, e.cmp(CmpPredicate::lt, qIdx, lenQ));
  if (lenKv)
    keep = e.both(keep, e.cmp(CmpPredicate::lt, kvIdx, lenKv));
  if (keep)
    s = SelectOp::create(
        b, loc, keep, s,
        e.scalar(f32, -std::numeric_limits<double>::infinity()));
  result.scores = s;
  return result;
}
