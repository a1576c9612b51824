// tg.sdpa, tg.sdpa_grad and tg.attention. All three share one model of a
// score row (AttentionProblem::row): s = scale * q.kᵀ (rounded to f32), then
// the op's score modifier (softcap, bias, ALiBi, or the score region), then
// the attribute masks, then safe softmax. The order is the one the dialect
// documents for tg.sdpa, FP8 scaling included.
#include <type_traits>
#include "Ops.h"
#include "Pointwise.h"
#include "Walker.h"

#include "tg/Dialect/TG/IR/ScoreGradient.h"
#include "tg/Masks/OpMasks.h"
#include "device/philox.cuh" // the kernels' dropout keep bit

#include <cmath>
#include <functional>
#include <limits>
#include <memory>

using namespace mlir;
using namespace mlir::tg;
using namespace mlir::tg::ref;

namespace {
const double kInf = std::numeric_limits<double>::infinity();

RankedTensorType typeOf(Value value) {
  return cast<RankedTensorType>(value.getType());
}

/// One row of attention scores for query (b, h, i).
struct ScoreRow {
  std::vector<double> raw;   // scale * q.k, rounded to f32
  std::vector<double> score; // after the modifier and the masks (-inf)
  bool fullyMasked = true;
};

/// Everything that decides a score row, gathered from an op's operands and
/// attributes.
struct AttentionProblem {
  const HostTensor *q = nullptr, *k = nullptr, *v = nullptr;
  int64_t batch = 0, heads = 0, kvHeads = 0, seqQ = 0, seqKv = 0, dim = 0,
          dimV = 0;
  double scale = 1.0;
  /// The attribute masks (tg/Masks/AttentionMasks.h: the rule every
  /// backend follows).
  ::tgc::masks::AttentionMasks masks;
  const HostTensor *seqLenQ = nullptr, *seqLenKv = nullptr;
  double dropout = 0.0;
  uint64_t seed = 0, offset = 0;
  /// Maps the raw score of (b, h, i, j) to the modified one (before masks).
  std::function<double(int64_t, int64_t, int64_t, int64_t, double)> modify;
  /// FP8 scaling (tg.sdpa's fp8_scales), when q, k and v are fp8: p is
  /// quantized to `pFormat` (q's format) before the second matmul.
  struct Fp8 {
    double descaleQ = 1, descaleK = 1, descaleV = 1, descaleS = 1,
           scaleS = 1, scaleO = 1;
    tgc::Format pFormat = tgc::Format::F8E4M3FN;
  };
  std::optional<Fp8> fp8;

  /// The ragged layout (tg.sdpa's cu_seqlens): q, o [Tq, H, D], k, v
  /// [Tkv, Hkv, D], the stats [Tq, H, 1]; seqQ and seqKv are then the
  /// max_seqlen attributes.
  const HostTensor *cuQ = nullptr, *cuKv = nullptr;
  int64_t tokensQ = 0, tokensKv = 0;
  /// A paged K/V cache (tg.sdpa's page_table): k, v [numPages, pageSize,
  /// Hkv, D]; seqKv is max_pages * pageSize.
  const HostTensor *pageTable = nullptr;
  int64_t numPages = 0, pageSize = 0;

  int64_t kvHead(int64_t h) const { return h / (heads / kvHeads); }
  /// Row-major offset of (b, h, s, 0) in a [B, H, S, D] tensor.
  static int64_t at(int64_t b, int64_t h, int64_t s, int64_t numHeads,
                    int64_t seq, int64_t d) {
    return ((b * numHeads + h) * seq + s) * d;
  }
  /// Sequence b of a ragged tensor: its first token and its length, with
  /// the kernels' clamping of malformed offsets (TGOps.td).
  static std::pair<int64_t, int64_t> sequence(const HostTensor &cu, int64_t b,
                                              int64_t tokens, int64_t max) {
    int64_t start = std::clamp<int64_t>(static_cast<int64_t>(cu.values[b]), 0,
                                        tokens);
    int64_t end = std::clamp<int64_t>(static_cast<int64_t>(cu.values[b + 1]),
                                      start, tokens);
    return {start, std::min(end - start, max)};
  }
  int64_t lengthQ(int64_t b) const {
    if (cuQ)
      return sequence(*cuQ, b, tokensQ, seqQ).second;
    return seqLenQ ? static_cast<int64_t>(seqLenQ->values[b]) : seqQ;
  }
  int64_t lengthKv(int64_t b) const {
    if (cuKv)
      return sequence(*cuKv, b, tokensKv, seqKv).second;
    return seqLenKv ? static_cast<int64_t>(seqLenKv->values[b]) : seqKv;
  }
  /// Offsets of row (b, h, i) in q or o (head dim `d`), of key row
  /// (b, kv head hk, j) in k or v, and of the stats of (b, h, i).
  int64_t queryRow(int64_t b, int64_t h, int64_t i, int64_t d) const {
    if (cuQ)
      return ((sequence(*cuQ, b, tokensQ, seqQ).first + i) * heads + h) * d;
    return at(b, h, i, heads, seqQ, d);
  }
  int64_t keyRow(int64_t b, int64_t hk, int64_t j, int64_t d) const {
    if (pageTable) {
      int64_t maxPages = static_cast<int64_t>(pageTable->shape[1]);
      int64_t page = std::clamp<int64_t>(
          static_cast<int64_t>(pageTable->values[b * maxPages + j / pageSize]), 0,
          numPages - 1);
      return ((page * pageSize + j % pageSize) * kvHeads + hk) * d;
    }
    if (cuKv)
      return ((sequence(*cuKv, b, tokensKv, seqKv).first + j) * kvHeads + hk) *
             d;
    return at(b, hk, j, kvHeads, seqKv, d);
  }
  int64_t statsIndex(int64_t b, int64_t h, int64_t i) const {
    return queryRow(b, h, i, 1);
  }
  /// The diagonal kv index of query row i: i for top-left alignment (and
  /// when there is no causal mask), i + Lkv - Lq for bottom-right.
  int64_t diagonal(int64_t b, int64_t i) const {
    return masks.diagonal(i, lengthQ(b), lengthKv(b));
  }
  bool masked(int64_t b, int64_t i, int64_t j) const {
    return !masks.visible(i, j, lengthQ(b), lengthKv(b));
  }
  uint64_t dropoutIndex(int64_t b, int64_t h, int64_t i, int64_t j) const {
    return static_cast<uint64_t>(((b * heads + h) * seqQ + i) * seqKv + j);
  }
  /// The factor dropout applies to p(b, h, i, j): 0 or 1 / (1 - p).
  double dropoutFactor(int64_t b, int64_t h, int64_t i, int64_t j,
                       uint32_t threshold) const {
    if (dropout == 0.0)
      return 1.0;
    return dropout_keep(seed, offset, dropoutIndex(b, h, i, j), threshold)
               ? 1.0 / (1.0 - dropout)
               : 0.0;
  }

  void row(int64_t b, int64_t h, int64_t i, ScoreRow &out) const {
    out.raw.assign(seqKv, 0.0);
    out.score.assign(seqKv, -kInf);
    out.fullyMasked = true;
    const double *qRow = q->values.data() + queryRow(b, h, i, dim);
    int64_t hk = kvHead(h);
    // Keys past a ragged sequence belong to the next one, past a paged
    // one's length to no one (masked anyway).
    int64_t keys = cuKv || pageTable ? std::min(lengthKv(b), seqKv) : seqKv;
    for (int64_t j = 0; j < keys; ++j) {
      const double *kRow = k->values.data() + keyRow(b, hk, j, dim);
      double dot = 0.0;
      for (int64_t d = 0; d < dim; ++d)
        dot += qRow[d] * kRow[d];
      double scaled = scale * dot;
      if (fp8)
        scaled *= fp8->descaleQ * fp8->descaleK;
      double raw = tgc::roundTo(tgc::Format::F32, scaled);
      out.raw[j] = raw;
      if (masked(b, i, j))
        continue;
      double s = modify ? modify(b, h, i, j, raw) : raw;
      out.score[j] = s;
      if (s != -kInf)
        out.fullyMasked = false;
    }
  }
};

/// Reads the options tg.sdpa, tg.sdpa_grad and tg.attention share.
template <typename OpTy>
AttentionProblem makeProblem(OpTy op, ValueLookup lookup) {
  AttentionProblem p;
  p.q = &lookup(op.getQ());
  p.k = &lookup(op.getK());
  p.v = &lookup(op.getV());
  ArrayRef<int64_t> qs = p.q->shape, ks = p.k->shape, vs = p.v->shape;
  if (op.isRagged()) {
    // [T, H, D]: B and S from the offsets and the maximum lengths.
    p.cuQ = &lookup(op.getCuSeqlensQ());
    p.cuKv = &lookup(op.getCuSeqlensKv());
    p.batch = static_cast<int64_t>(p.cuQ->values.size()) - 1;
    p.tokensQ = qs[0];
    p.tokensKv = ks[0];
    p.heads = qs[1];
    p.dim = qs[2];
    p.kvHeads = ks[1];
    p.dimV = vs[2];
    p.seqQ = static_cast<int64_t>(*op.getMaxSeqlenQ());
    p.seqKv = static_cast<int64_t>(*op.getMaxSeqlenKv());
  } else {
    p.batch = qs[0];
    p.heads = qs[1];
    p.seqQ = qs[2];
    p.dim = qs[3];
    p.kvHeads = ks[1];
    p.seqKv = ks[2];
    p.dimV = vs[3];
  }
  if constexpr (std::is_same_v<OpTy, SdpaOp> ||
                std::is_same_v<OpTy, AttentionOp>) {
    if (op.isPaged()) {
      p.pageTable = &lookup(op.getPageTable());
      p.numPages = ks[0];
      p.pageSize = ks[1];
      p.kvHeads = ks[2];
      p.seqKv = p.pageTable->shape[1] * ks[1];
    }
  }
  p.masks = attentionMasks(op);
  if (Value len = op.getSeqLenQ())
    p.seqLenQ = &lookup(len);
  if (Value len = op.getSeqLenKv())
    p.seqLenKv = &lookup(len);
  p.dropout = op.getDropout().convertToDouble();
  if (Value seed = op.getSeed())
    p.seed = rngScalar(lookup(seed));
  if (Value offset = op.getOffset())
    p.offset = rngScalar(lookup(offset));
  return p;
}

/// Reads the fp8_scales of an fp8 tg.sdpa or tg.attention.
template <typename OpTy>
void setFp8Scales(AttentionProblem &p, OpTy op, ValueLookup lookup) {
  if (!op.isFp8())
    return;
  auto scalar = [&](Value v) { return lookup(v).values[0]; };
  AttentionProblem::Fp8 f;
  f.descaleQ = scalar(op.getDescaleQ());
  f.descaleK = scalar(op.getDescaleK());
  f.descaleV = scalar(op.getDescaleV());
  f.descaleS = scalar(op.getDescaleS());
  f.scaleS = scalar(op.getScaleS());
  f.scaleO = scalar(op.getScaleO());
  f.pFormat = classifyElement(typeOf(op.getQ()).getElementType()).format;
  p.fp8 = f;
}

/// The ALiBi slope of query head h: 2^(-8 (h + 1) / Hq).
double alibiSlope(int64_t h, int64_t heads) {
  return std::exp2(-8.0 * static_cast<double>(h + 1) /
                   static_cast<double>(heads));
}

/// tg.sdpa's score modifier: softcap, then bias, then ALiBi.
template <typename OpTy>
void setSdpaModifier(AttentionProblem &p, OpTy op, ValueLookup lookup) {
  std::optional<double> softcap;
  if (auto cap = op.getSoftcap())
    softcap = cap->convertToDouble();
  const HostTensor *bias = op.getBias() ? &lookup(op.getBias()) : nullptr;
  SmallVector<int64_t> biasStrides;
  if (bias) {
    SmallVector<int64_t> scores{p.batch, p.heads, p.seqQ, p.seqKv};
    biasStrides = broadcastStrides(bias->shape, scores);
  }
  bool alibi = op.getAlibi();
  if (!softcap && !bias && !alibi)
    return;
  const AttentionProblem *problem = &p;
  // Each step rounds to f32, as the scores are f32 (docs/ops.md) in the
  // decomposition, the fused op's region and every kernel: a bias of -1e9
  // then absorbs the raw score (-1e9 + s == -1e9 in f32), so a row masked
  // by it is uniform, as in PyTorch's SDPA and HF's eager attention.
  auto f32 = [](double x) { return tgc::roundTo(tgc::Format::F32, x); };
  p.modify = [=](int64_t b, int64_t h, int64_t i, int64_t j, double s) {
    if (softcap)
      s = f32(*softcap * std::tanh(s / *softcap));
    if (bias)
      s = f32(s + bias->values[b * biasStrides[0] + h * biasStrides[1] +
                               i * biasStrides[2] + j * biasStrides[3]]);
    if (alibi)
      s = f32(s + alibiSlope(h, problem->heads) *
                      static_cast<double>(j - problem->diagonal(b, i)));
    return s;
  };
}

/// max(a, |x|), propagating NaN (for the fp8 amax results).
double maxAbs(double a, double x) {
  return std::isnan(a) || std::isnan(x) ? std::nan("") : std::max(a, std::fabs(x));
}

/// The forward pass: o = dropout(softmax(scores)) . v and the log-sum-exp
/// stats, for every (b, h, i). With fp8 scaling, p is scaled and quantized
/// before p . v, the product descaled, then scaled into o; amax_s and
/// amax_o are the largest |p| and |o| before those scales.
SmallVector<HostTensor> forward(const AttentionProblem &p, Value output,
                                Value stats, Value amaxS = Value(),
                                Value amaxO = Value()) {
  const tgc::Format f32 = tgc::Format::F32;
  HostTensor o = HostTensor::zeros(typeOf(output));
  ElementInfo oInfo = classifyElement(o.elementType);
  std::optional<HostTensor> lse;
  if (stats)
    lse = HostTensor::zeros(typeOf(stats));
  double maxP = 0.0, maxO = 0.0;
  uint32_t threshold = dropout_threshold(p.dropout);
  ScoreRow row;
  std::vector<double> acc(p.dimV), probs(p.seqKv);
  for (int64_t b = 0; b < p.batch; ++b) {
    for (int64_t h = 0; h < p.heads; ++h) {
      int64_t hk = p.kvHead(h);
      // Rows past a ragged sequence belong to the next one.
      int64_t rows = p.cuQ ? p.lengthQ(b) : p.seqQ;
      for (int64_t i = 0; i < rows; ++i) {
        p.row(b, h, i, row);
        int64_t rowIndex = p.statsIndex(b, h, i);
        if (row.fullyMasked) {
          // Output stays zero; stats are -inf.
          if (lse)
            lse->values[rowIndex] = -kInf;
          continue;
        }
        double max = -kInf;
        for (double s : row.score)
          max = std::isnan(s) || s > max ? s : max;
        double sum = 0.0;
        for (int64_t j = 0; j < p.seqKv; ++j) {
          probs[j] = std::exp(row.score[j] - max);
          sum += probs[j];
        }
        std::fill(acc.begin(), acc.end(), 0.0);
        for (int64_t j = 0; j < static_cast<int64_t>(row.score.size()); ++j) {
          double weight = probs[j] / sum * p.dropoutFactor(b, h, i, j, threshold);
          if (p.fp8) {
            maxP = maxAbs(maxP, weight);
            weight = tgc::roundTo(p.fp8->pFormat,
                                  tgc::roundTo(f32, weight * p.fp8->scaleS));
          }
          if (weight == 0.0)
            continue;
          const double *vRow = p.v->values.data() + p.keyRow(b, hk, j, p.dimV);
          for (int64_t d = 0; d < p.dimV; ++d)
            acc[d] += weight * vRow[d];
        }
        double *oRow = o.values.data() + p.queryRow(b, h, i, p.dimV);
        for (int64_t d = 0; d < p.dimV; ++d) {
          if (!p.fp8) {
            oRow[d] = roundValue(oInfo, acc[d]);
            continue;
          }
          double unscaled = tgc::roundTo(
              f32, acc[d] * p.fp8->descaleS * p.fp8->descaleV);
          maxO = maxAbs(maxO, unscaled);
          oRow[d] = roundValue(oInfo,
                               tgc::roundTo(f32, unscaled * p.fp8->scaleO));
        }
        if (lse)
          lse->values[rowIndex] =
              tgc::roundTo(tgc::Format::F32, max + std::log(sum));
      }
    }
  }
  SmallVector<HostTensor> results;
  results.push_back(std::move(o));
  if (lse)
    results.push_back(std::move(*lse));
  for (auto [value, amax] : {std::pair{amaxS, maxP}, {amaxO, maxO}}) {
    if (!value)
      continue;
    HostTensor t = HostTensor::zeros(typeOf(value));
    t.values[0] = tgc::roundTo(f32, amax);
    results.push_back(std::move(t));
  }
  return results;
}
} // namespace

Results mlir::tg::ref::evalSdpa(SdpaOp op, ValueLookup lookup) {
  AttentionProblem p = makeProblem(op, lookup);
  p.scale = op.getScaleOrDefault();
  setSdpaModifier(p, op, lookup);
  setFp8Scales(p, op, lookup);
  return forward(p, op.getOutput(), op.getStats(), op.getAmaxS(),
                 op.getAmaxO());
}

namespace {
/// Evaluates a per-score region (tg.attention's `score`, tg.attention_grad's
/// `score` and `score_grad`) with arguments score, b, h, q_idx, kv_idx, the
/// captured elements (table captures are bound to the program instead) and
/// any `extra` trailing values.
struct ScoreRegionEvaluator {
  std::shared_ptr<ScalarProgram> program;
  SmallVector<const HostTensor *> captures; // null for table captures
  SmallVector<SmallVector<int64_t>> captureStrides;
  std::shared_ptr<SmallVector<double>> args;

  static FailureOr<ScoreRegionEvaluator>
  create(Operation *attention, Block &block, ValueRange captureValues,
         const AttentionProblem &p, ValueLookup lookup, unsigned extra,
         unsigned numYields = 1) {
    FailureOr<ScalarProgram> program =
        ScalarProgram::compile(block, numYields);
    if (failed(program))
      return failure();
    ScoreRegionEvaluator e;
    SmallVector<int64_t> scores{p.batch, p.heads, p.seqQ, p.seqKv};
    for (auto [i, capture] : llvm::enumerate(captureValues)) {
      const HostTensor *tensor = &lookup(capture);
      if (isTableCapture(attention, i)) {
        program->bindTable(AttentionOp::kNumIndexArgs + i, tensor);
        e.captures.push_back(nullptr);
        e.captureStrides.emplace_back();
        continue;
      }
      e.captures.push_back(tensor);
      e.captureStrides.push_back(broadcastStrides(tensor->shape, scores));
    }
    e.program = std::make_shared<ScalarProgram>(std::move(*program));
    e.args = std::make_shared<SmallVector<double>>(
        AttentionOp::kNumIndexArgs + e.captures.size() + extra);
    return e;
  }

  double operator()(int64_t b, int64_t h, int64_t i, int64_t j, double s,
                    ArrayRef<double> extra = {}) const {
    SmallVector<double> &a = *args;
    a[0] = s;
    a[1] = static_cast<double>(b);
    a[2] = static_cast<double>(h);
    a[3] = static_cast<double>(i);
    a[4] = static_cast<double>(j);
    for (unsigned c = 0; c < captures.size(); ++c) {
      if (!captures[c])
        continue; // a table: read by the region's gathers
      ArrayRef<int64_t> st = captureStrides[c];
      a[AttentionOp::kNumIndexArgs + c] =
          captures[c]->values[b * st[0] + h * st[1] + i * st[2] + j * st[3]];
    }
    for (auto [n, value] : llvm::enumerate(extra))
      a[AttentionOp::kNumIndexArgs + captures.size() + n] = value;
    return program->run(a);
  }
};
} // namespace

Results mlir::tg::ref::evalAttention(AttentionOp op, ValueLookup lookup) {
  AttentionProblem p = makeProblem(op, lookup);
  p.scale = op.getScale().convertToDouble();
  // Region arguments: score, b, h, q_idx, kv_idx, then one element of each
  // capture, broadcast over [B, Hq, Sq, Skv].
  FailureOr<ScoreRegionEvaluator> region = ScoreRegionEvaluator::create(
      op, op.getScoreBlock(), op.getCaptures(), p, lookup, /*extra=*/0);
  if (failed(region))
    return failure();
  p.modify = [region = *region](int64_t b, int64_t h, int64_t i, int64_t j,
                                double s) { return region(b, h, i, j, s); };
  setFp8Scales(p, op, lookup);
  return forward(p, op.getOutput(), op.getStats(), op.getAmaxS(),
                 op.getAmaxO());
}

//===----------------------------------------------------------------------===//
// sdpa_grad: the direct analytic backward
//===----------------------------------------------------------------------===//

namespace {
/// Maps the gradient of a modified score (dS) at (b, h, i, j) with raw score
/// `raw` to the gradient of the raw score.
using GradThrough =
    std::function<double(int64_t, int64_t, int64_t, int64_t, double, double)>;

/// A gradient of a captured tensor: the derivative of the modified score
/// with respect to the captured element at (b, h, i, j), given dZ, summed
/// into the capture's shape (its broadcast dimensions collapse).
struct CaptureGrad {
  GradThrough through; // (b, h, i, j, raw, dZ) -> contribution
  SmallVector<int64_t> strides; // into the capture's elements, 0 where broadcast
  Value like;                   // the result it becomes
  std::vector<double> sum;
  /// A table capture's instead: adds (b, h, i, j, raw, dZ)'s contributions
  /// into `sum` at the positions its gathers read.
  std::function<void(int64_t, int64_t, int64_t, int64_t, double, double,
                     std::vector<double> &sum)>
      scatter;
};

/// The analytic backward shared by tg.sdpa_grad and tg.attention_grad.
SmallVector<HostTensor> backward(const AttentionProblem &p, const HostTensor &o,
                                 const HostTensor &dO, const HostTensor &stats,
                                 const GradThrough &through, Value dqLike,
                                 Value dkLike, Value dvLike,
                                 MutableArrayRef<CaptureGrad> captureGrads = {}) {
  std::vector<double> dq(p.q->values.size()), dk(p.k->values.size()),
      dv(p.v->values.size());
  uint32_t threshold = dropout_threshold(p.dropout);
  ScoreRow row;
  for (int64_t b = 0; b < p.batch; ++b) {
    for (int64_t h = 0; h < p.heads; ++h) {
      int64_t hk = p.kvHead(h);
      // Rows past a ragged sequence belong to the next one.
      int64_t rows = p.cuQ ? p.lengthQ(b) : p.seqQ;
      for (int64_t i = 0; i < rows; ++i) {
        p.row(b, h, i, row);
        int64_t rowIndex = p.statsIndex(b, h, i);
        double lse = stats.values[rowIndex];
        if (row.fullyMasked || lse == -kInf)
          continue; // P = 0: no gradient flows through this row
        const double *dORow = dO.values.data() + rowIndex * p.dimV;
        const double *oRow = o.values.data() + rowIndex * p.dimV;
        // D_i = rowsum(dO * O) = sum_j P_ij dP_ij.
        double rowDot = 0.0;
        for (int64_t d = 0; d < p.dimV; ++d)
          rowDot += dORow[d] * oRow[d];
        const double *qRow = p.q->values.data() + rowIndex * p.dim;
        double *dqRow = dq.data() + rowIndex * p.dim;
        for (int64_t j = 0; j < static_cast<int64_t>(row.score.size()); ++j) {
          if (row.score[j] == -kInf)
            continue; // masked: P = 0 and dS = 0
          double prob = std::exp(row.score[j] - lse);
          double factor = p.dropoutFactor(b, h, i, j, threshold);
          // Row index of (b, hk, j) in k and v.
          int64_t kvOffset = p.keyRow(b, hk, j, 1);
          const double *vRow = p.v->values.data() + kvOffset * p.dimV;
          const double *kRow = p.k->values.data() + kvOffset * p.dim;
          // dV_j += P_dropped_ij * dO_i; dP_ij = factor * (dO_i . V_j).
          double dPd = 0.0;
          double weight = prob * factor;
          double *dvRow = dv.data() + kvOffset * p.dimV;
          for (int64_t d = 0; d < p.dimV; ++d) {
            dPd += dORow[d] * vRow[d];
            dvRow[d] += weight * dORow[d];
          }
          double dZ = prob * (factor * dPd - rowDot);
          for (CaptureGrad &g : captureGrads) {
            if (g.scatter) {
              g.scatter(b, h, i, j, row.raw[j], dZ, g.sum);
              continue;
            }
            g.sum[b * g.strides[0] + h * g.strides[1] + i * g.strides[2] +
                  j * g.strides[3]] += g.through(b, h, i, j, row.raw[j], dZ);
          }
          double dS = through ? through(b, h, i, j, row.raw[j], dZ) : dZ;
          double dRaw = dS * p.scale;
          double *dkRow = dk.data() + kvOffset * p.dim;
          for (int64_t d = 0; d < p.dim; ++d) {
            dqRow[d] += dRaw * kRow[d];
            dkRow[d] += dRaw * qRow[d];
          }
        }
      }
    }
  }
  auto finish = [](std::vector<double> &grad, Value like) {
    HostTensor t = HostTensor::zeros(typeOf(like));
    ElementInfo info = classifyElement(t.elementType);
    for (size_t i = 0; i < grad.size(); ++i)
      t.values[i] = roundValue(info, grad[i]);
    return t;
  };
  SmallVector<HostTensor> results;
  results.push_back(finish(dq, dqLike));
  results.push_back(finish(dk, dkLike));
  results.push_back(finish(dv, dvLike));
  for (CaptureGrad &g : captureGrads)
    results.push_back(finish(g.sum, g.like));
  return results;
}
} // namespace

Results mlir::tg::ref::evalSdpaGrad(SdpaGradOp op, ValueLookup lookup) {
  AttentionProblem p = makeProblem(op, lookup);
  p.scale = op.getScaleOrDefault();
  setSdpaModifier(p, op, lookup);
  GradThrough through;
  // Through the soft-cap: d(c tanh(x / c))/dx = 1 - tanh^2(x / c). Bias and
  // ALiBi are additive and pass the gradient unchanged.
  if (auto cap = op.getSoftcap()) {
    double softcap = cap->convertToDouble();
    through = [softcap](int64_t, int64_t, int64_t, int64_t, double raw,
                        double dS) {
      double t = std::tanh(raw / softcap);
      return dS * (1.0 - t * t);
    };
  }
  // dbias: the bias is added after the soft-cap, so its gradient is dZ.
  SmallVector<CaptureGrad> biasGrad;
  if (Value dbias = op.getDbias()) {
    const HostTensor &bias = lookup(op.getBias());
    CaptureGrad g;
    g.through = [](int64_t, int64_t, int64_t, int64_t, double, double dZ) {
      return dZ;
    };
    SmallVector<int64_t> dense = rowMajorStrides(bias.shape);
    for (int d = 0; d < 4; ++d)
      g.strides.push_back(bias.shape[d] == 1 ? 0 : dense[d]);
    g.like = dbias;
    g.sum.assign(bias.values.size(), 0.0);
    biasGrad.push_back(std::move(g));
  }
  return backward(p, lookup(op.getO()), lookup(op.getDO()),
                  lookup(op.getStats()), through, op.getDq(), op.getDk(),
                  op.getDv(), biasGrad);
}

Results mlir::tg::ref::evalAttentionGrad(AttentionGradOp op,
                                         ValueLookup lookup) {
  AttentionProblem p = makeProblem(op, lookup);
  p.scale = op.getScale().convertToDouble();
  FailureOr<ScoreRegionEvaluator> region = ScoreRegionEvaluator::create(
      op, op.getScoreBlock(), op.getCaptures(), p, lookup, /*extra=*/0);
  if (failed(region))
    return failure();
  p.modify = [region = *region](int64_t b, int64_t h, int64_t i, int64_t j,
                                double s) { return region(b, h, i, j, s); };
  // score_grad gets the region's arguments and the gradient of its result;
  // an empty one is the chain rule through `score` (ScoreGradient.h).
  std::unique_ptr<Block> derived;
  std::string whyNot;
  FailureOr<Block *> gradBlock = scoreGradientBlock(op, derived, &whyNot);
  if (failed(gradBlock)) {
    op.emitOpError("cannot derive the gradient of the score region: ")
        << whyNot << "; give a score_grad region";
    return failure();
  }
  FailureOr<ScoreRegionEvaluator> grad = ScoreRegionEvaluator::create(
      op, **gradBlock, op.getCaptures(), p, lookup, /*extra=*/1);
  if (failed(grad))
    return failure();
  // The evaluator compiled the block: the derived one may go.
  auto keep = std::shared_ptr<Block>(std::move(derived));
  GradThrough through = [grad = *grad, keep](int64_t b, int64_t h, int64_t i,
                                             int64_t j, double raw, double dS) {
    return grad(b, h, i, j, raw, {dS});
  };
  // The derivative of the region's result with respect to `wrt` (a capture
  // argument or a gather's result), as (b, h, i, j, raw, dZ) -> value.
  auto derive = [&](Value wrt,
                    StringRef what) -> FailureOr<GradThrough> {
    FailureOr<std::unique_ptr<Block>> block =
        deriveScoreGradient(op.getScoreBlock(), wrt, &whyNot);
    if (failed(block)) {
      op.emitOpError("cannot derive the gradient of ") << what << ": " << whyNot;
      return failure();
    }
    FailureOr<ScoreRegionEvaluator> eval = ScoreRegionEvaluator::create(
        op, **block, op.getCaptures(), p, lookup, /*extra=*/1);
    if (failed(eval))
      return failure();
    auto owner = std::shared_ptr<Block>(std::move(*block));
    return GradThrough([eval = *eval, owner](int64_t b, int64_t h, int64_t i,
                                             int64_t j, double raw, double dZ) {
      return eval(b, h, i, j, raw, {dZ});
    });
  };
  // Gradients of listed captures: an element capture's is the region's
  // derivative with respect to the captured element, summed over broadcast
  // dims; a table's is scatter-added where each of its gathers read.
  SmallVector<CaptureGrad> captureGrads;
  ArrayRef<int64_t> listed;
  if (auto indices = op.getGradCaptures())
    listed = *indices;
  Block &score = op.getScoreBlock();
  for (auto [n, index] : llvm::enumerate(listed)) {
    const HostTensor &capture = lookup(op.getCaptures()[index]);
    CaptureGrad g;
    g.like = op.getCaptureGrads()[n];
    g.sum.assign(capture.values.size(), 0.0);
    unsigned arg = AttentionOp::kNumIndexArgs + index;
    if (!isTableCapture(op, index)) {
      FailureOr<GradThrough> through =
          derive(score.getArgument(arg), "capture " + std::to_string(index));
      if (failed(through))
        return failure();
      g.through = *through;
      SmallVector<int64_t> dense = rowMajorStrides(capture.shape);
      for (int d = 0; d < 4; ++d)
        g.strides.push_back(capture.shape[d] == 1 ? 0 : dense[d]);
      captureGrads.push_back(std::move(g));
      continue;
    }
    // A table: one derivative per tg.gather of it (the program numbers the
    // gathers in block order).
    SmallVector<std::pair<unsigned, GradThrough>> gathers;
    unsigned ordinal = 0;
    for (Operation &inner : score.without_terminator()) {
      auto gather = dyn_cast<GatherOp>(inner);
      if (!gather)
        continue;
      if (gather.getTable() == score.getArgument(arg)) {
        FailureOr<GradThrough> through = derive(
            gather.getResult(), "table capture " + std::to_string(index));
        if (failed(through))
          return failure();
        gathers.emplace_back(ordinal, *through);
      }
      ++ordinal;
    }
    g.scatter = [forward = *region, gathers](int64_t b, int64_t h, int64_t i,
                                             int64_t j, double raw, double dZ,
                                             std::vector<double> &sum) {
      // Where did the score region read? Evaluate it again for this score.
      forward(b, h, i, j, raw);
      SmallVector<int64_t> offsets;
      for (auto &[ordinal, through] : gathers)
        offsets.push_back(forward.program->gatherOffset(ordinal));
      for (auto [k, entry] : llvm::enumerate(gathers))
        if (offsets[k] >= 0)
          sum[offsets[k]] += entry.second(b, h, i, j, raw, dZ);
    };
    captureGrads.push_back(std::move(g));
  }
  return backward(p, lookup(op.getO()), lookup(op.getDO()),
                  lookup(op.getStats()), through, op.getDq(), op.getDk(),
                  op.getDv(), captureGrads);
}
