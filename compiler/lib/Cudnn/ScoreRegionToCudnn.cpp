// tg.attention's score region -> cuDNN pointwise ops (ScoreRegionToCudnn.h).
//
// Each region value becomes a cuDNN tensor of rank 4 that broadcasts to the
// scores [B,Hq,Sq,Skv]: the score argument is the current score tensor, the
// index arguments are gen_index along axis 0..3, captures are bound tensors
// and constants are by-value scalars. Integer values are int32 in cuDNN (its
// gen_index type) where tg's are i64, so the support check bounds every
// integer value and refuses regions that could leave the int32 range.
#include "ScoreRegionToCudnn.h"

#include "RegionToPointwise.h"

#include "llvm/ADT/StringSwitch.h"
#include "llvm/ADT/TypeSwitch.h"

#include <cmath>

using namespace mlir;
using namespace mlir::tg;
using namespace mlir::tg::cudnn;

namespace {
RankedTensorType typeOf(Value v) { return cast<RankedTensorType>(v.getType()); }
Type elementOf(Value v) { return typeOf(v).getElementType(); }
bool isInt(Type t) { return isa<IntegerType>(t) && !t.isInteger(1); }
bool isFloat16(Type t) { return t.isBF16() || t.isF16(); }

/// [B, Hq, Sq, Skv] of the op's scores.
SmallVector<int64_t, 4> scoreDims(AttentionOp op) {
  ArrayRef<int64_t> q = typeOf(op.getQ()).getShape();
  ArrayRef<int64_t> k = typeOf(op.getK()).getShape();
  return {q[0], q[1], q[2], k[2]};
}

/// The one element of a rank-0 constant, if it is a dense splat.
std::optional<Attribute> constantValue(ConstantOp c) {
  auto dense = dyn_cast<DenseElementsAttr>(c.getValue());
  if (!dense || !dense.isSplat())
    return std::nullopt;
  return dense.getSplatValue<Attribute>();
}

/// Closed range of an integer region value.
struct Range {
  int64_t lo = 0, hi = 0;
};
constexpr int64_t kInt32Max = 2147483647, kInt32Min = -2147483648LL;
bool fitsInt32(Range r) { return r.lo >= kInt32Min && r.hi <= kInt32Max; }

/// The cuDNN pointwise mode of a region op ("" if none).
StringRef modeOf(Operation *op) {
  if (StringRef mode = unaryMode(op); !mode.empty())
    return mode;
  if (StringRef mode = binaryMode(op); !mode.empty())
    return mode;
  return llvm::TypeSwitch<Operation *, StringRef>(op)
      .Case([](CmpOp c) { return cmpMode(c.getPredicate()); })
      .Case([](SelectOp) { return "binary_select"; })
      .Case([](CastOp) { return "identity"; })
      .Default([](Operation *) { return ""; });
}

std::string typeName(Type t) {
  std::string s;
  llvm::raw_string_ostream os(s);
  os << t;
  return s;
}

/// Why one region op cannot be translated; updates the integer ranges.
std::string checkOp(Operation &o, DenseMap<Value, Range> &ranges) {
  std::string name = o.getName().getStringRef().str();
  if (auto c = dyn_cast<ConstantOp>(o)) {
    std::optional<Attribute> value = constantValue(c);
    if (!value)
      return "constant " + name + " is not a splat";
    if (auto i = dyn_cast<IntegerAttr>(*value)) {
      if (elementOf(c).isInteger(1))
        return "boolean constants have no cuDNN by-value form here";
      Range r{i.getInt(), i.getInt()};
      if (!fitsInt32(r))
        return "integer constant " + std::to_string(r.lo) +
               " does not fit cuDNN's int32 index math";
      ranges[c.getResult()] = r;
      return "";
    }
    if (!isa<FloatAttr>(*value))
      return "constant of unsupported kind";
    return "";
  }
  StringRef mode = modeOf(&o);
  if (mode.empty())
    return name + " has no cuDNN pointwise equivalent";
  Value result = o.getResult(0);
  Type resultType = elementOf(result);
  // cuDNN's fused kernels keep virtual tensors in f32 registers, so a 16-bit
  // rounding step inside the region would be lost (a select only picks).
  if (isa<FloatType>(resultType) && !resultType.isF32() && !isa<SelectOp>(o))
    return name + " yields " + typeName(resultType) +
           ": cuDNN does not round virtual intermediates to 16-bit or 8-bit "
           "types, so only f32 arithmetic is translated";
  if (auto cast = dyn_cast<CastOp>(o)) {
    Type from = elementOf(cast.getInput());
    if (isa<FloatType>(from) && isa<IntegerType>(resultType))
      return "tg.cast from " + typeName(from) + " to " + typeName(resultType) +
             " truncates toward zero; cuDNN's identity conversion does not "
             "promise that rounding";
    if (resultType.isInteger(1))
      return "tg.cast to i1 has no cuDNN pointwise equivalent";
    if (isInt(resultType)) {
      Range r =
          from.isInteger(1) ? Range{0, 1} : ranges.lookup(cast.getInput());
      unsigned width = resultType.getIntOrFloatBitWidth();
      int64_t lim = width >= 64 ? kInt32Max : (int64_t(1) << (width - 1)) - 1;
      if (r.lo < -lim - 1 || r.hi > lim)
        return "tg.cast to " + typeName(resultType) +
               " could wrap; cuDNN's int32 math would not";
      ranges[result] = r;
    }
    return "";
  }
  if (isInt(resultType)) {
    if (isa<DivOp, PowOp>(o))
      return name + " on integers has no cuDNN pointwise equivalent with "
                    "tg's rounding";
    auto get = [&](unsigned i) {
      Value v = o.getOperand(i);
      return elementOf(v).isInteger(1) ? Range{0, 1} : ranges.lookup(v);
    };
    Range r;
    if (isa<SelectOp>(o)) {
      Range a = get(1), b = get(2);
      r = {std::min(a.lo, b.lo), std::max(a.hi, b.hi)};
    } else if (isa<NegOp>(o)) {
      Range a = get(0);
      r = {-a.hi, -a.lo};
    } else if (isa<AbsOp>(o)) {
      Range a = get(0);
      int64_t m = std::max(std::abs(a.lo), std::abs(a.hi));
      r = {a.lo >= 0 ? a.lo : (a.hi <= 0 ? -a.hi : 0), m};
    } else {
      Range a = get(0), b = get(1);
      // Operands are within int32, so no product or sum overflows int64.
      if (isa<AddOp>(o)) {
        r = {a.lo + b.lo, a.hi + b.hi};
      } else if (isa<SubOp>(o)) {
        r = {a.lo - b.hi, a.hi - b.lo};
      } else if (isa<MulOp>(o)) {
        int64_t p[] = {a.lo * b.lo, a.lo * b.hi, a.hi * b.lo, a.hi * b.hi};
        r = {*std::min_element(p, p + 4), *std::max_element(p, p + 4)};
      } else if (isa<MaxOp>(o)) {
        r = {std::max(a.lo, b.lo), std::max(a.hi, b.hi)};
      } else if (isa<MinOp>(o)) {
        r = {std::min(a.lo, b.lo), std::min(a.hi, b.hi)};
      } else {
        return name + " on integers has no cuDNN pointwise equivalent";
      }
    }
    if (!fitsInt32(r))
      return name +
             " may leave the int32 range that cuDNN's index math "
             "uses (tg computes it in " +
             typeName(resultType) + ")";
    ranges[result] = r;
  }
  return "";
}

/// The runtime dtype of a region value inside cuDNN (integers are int32).
DType regionDType(Type t) {
  if (t.isInteger(1))
    return DType::I1;
  if (isa<IntegerType>(t))
    return DType::I32;
  return *dtypeOf(t);
}

/// Whether `v` is a constant that is finite and not zero.
bool isFiniteNonZeroConstant(Value v) {
  auto c = v.getDefiningOp<ConstantOp>();
  if (!c)
    return false;
  std::optional<Attribute> value = constantValue(c);
  if (auto f = value ? dyn_cast<FloatAttr>(*value) : FloatAttr())
    return std::isfinite(f.getValueAsDouble()) && f.getValueAsDouble() != 0.0;
  return false;
}
/// Whether `v` is a tg.constant whose elements are all finite (e.g. the
/// ALiBi slopes): captured data that cannot mask a row.
bool isFiniteConstantTensor(Value v) {
  auto c = v.getDefiningOp<ConstantOp>();
  auto dense = c ? dyn_cast<DenseElementsAttr>(c.getValue()) : nullptr;
  if (!dense)
    return false;
  if (!isa<FloatType>(dense.getElementType()))
    return true;
  return llvm::all_of(dense.getValues<APFloat>(),
                      [](const APFloat &f) { return f.isFinite(); });
}
} // namespace

int64_t cudnn::binaryBroadcastingB(GraphBuilder &g, StringRef mode, int64_t x,
                                   int64_t b, DType result) {
  auto volume = [&](int64_t t) {
    int64_t n = 1;
    for (int64_t d : g.dims(t))
      n *= d;
    return n;
  };
  if (volume(x) < volume(b)) {
    StringRef swapped =
        llvm::StringSwitch<StringRef>(mode)
            .Cases({"add", "mul", "max", "min", "cmp_eq", "cmp_neq",
                    "logical_and", "logical_or"},
                   mode)
            .Case("cmp_lt", "cmp_gt")
            .Case("cmp_gt", "cmp_lt")
            .Case("cmp_le", "cmp_ge")
            .Case("cmp_ge", "cmp_le")
            .Default("");
    if (!swapped.empty())
      return g.binary(swapped, b, x, result);
  }
  return g.binary(mode, x, b, result);
}

bool cudnn::isIdentityScoreRegion(AttentionOp op) {
  Block &block = op.getScoreBlock();
  return block.getOperations().size() == 1 &&
         block.getTerminator()->getOperand(0) == block.getArgument(0);
}

std::string cudnn::tableCaptureReason(Operation *attention,
                                      ValueRange captures) {
  for (auto [i, capture] : llvm::enumerate(captures)) {
    if (!isTableCapture(attention, i))
      continue;
    std::string type;
    llvm::raw_string_ostream(type) << capture.getType();
    return "capture #" + std::to_string(i) + " (" + type +
           ") is a table read by tg.gather at computed indices; cuDNN's "
           "pointwise operation graph cannot gather (its operands are read "
           "only at the score's position)";
  }
  return "";
}

std::string cudnn::scoreRegionUnsupportedReason(AttentionOp op) {
  Block &block = op.getScoreBlock();
  SmallVector<int64_t, 4> dims = scoreDims(op);
  std::string table = tableCaptureReason(op, op.getCaptures());
  if (!table.empty())
    return table;
  for (auto [i, capture] : llvm::enumerate(op.getCaptures())) {
    Type t = elementOf(capture);
    if (!t.isF32() && !isFloat16(t))
      return "capture #" + std::to_string(i) + " has element type " +
             typeName(t) +
             "; cuDNN takes only f32, bf16 or f16 score "
             "operands";
  }
  DenseMap<Value, Range> ranges;
  for (unsigned axis = 0; axis < 4; ++axis)
    ranges[block.getArgument(axis + 1)] = {0, dims[axis] - 1};
  llvm::DenseSet<Value> fromScore{block.getArgument(0)};
  // Values with the scores' full [B,Hq,Sq,Skv] dims in the cuDNN graph: the
  // score, the indices (gen_index of the scores), full-shaped captures, and
  // anything computed from one of them.
  llvm::DenseSet<Value> full;
  for (unsigned i = 0; i <= 4; ++i)
    full.insert(block.getArgument(i));
  for (auto [i, capture] : llvm::enumerate(op.getCaptures()))
    if (typeOf(capture).getShape() == ArrayRef<int64_t>(dims))
      full.insert(block.getArgument(AttentionOp::kNumIndexArgs + i));
  for (Operation &o : block.without_terminator()) {
    std::string why = checkOp(o, ranges);
    if (!why.empty())
      return "score region: " + why;
    if (auto select = dyn_cast<SelectOp>(o);
        select && !full.contains(select.getOnTrue()) &&
        !full.contains(select.getOnFalse()))
      return "score region: a tg.select between two values without the "
             "scores' dims (e.g. two constants, a masking idiom that was not "
             "lifted into an attribute mask): cuDNN's binary_select "
             "broadcasts only its second value, and the engines found no "
             "config for it (measured on H200, cuDNN 9.19)";
    if (llvm::any_of(o.getOperands(),
                     [&](Value v) { return full.contains(v); }))
      full.insert(o.getResult(0));
    if (llvm::any_of(o.getOperands(),
                     [&](Value v) { return fromScore.contains(v); }))
      fromScore.insert(o.getResult(0));
  }
  if (!fromScore.contains(block.getTerminator()->getOperand(0)))
    return "score region: the result does not depend on the score";
  return "";
}

bool cudnn::scoreRegionMayYieldNegInf(AttentionOp op) {
  if (isIdentityScoreRegion(op))
    return false;
  Block &block = op.getScoreBlock();
  for (auto [i, capture] : llvm::enumerate(op.getCaptures()))
    if (!block.getArgument(AttentionOp::kNumIndexArgs + i).use_empty() &&
        !isFiniteConstantTensor(capture))
      return true;
  for (Operation &o : block.without_terminator()) {
    if (auto c = dyn_cast<ConstantOp>(o)) {
      std::optional<Attribute> value = constantValue(c);
      if (auto f = value ? dyn_cast<FloatAttr>(*value) : FloatAttr())
        if (!std::isfinite(f.getValueAsDouble()))
          return true;
      continue;
    }
    if (isa<LogOp, RecipOp, RsqrtOp, PowOp, ExpOp>(o))
      return true;
    if (auto div = dyn_cast<DivOp>(o))
      if (!isFiniteNonZeroConstant(div.getRhs()))
        return true;
  }
  return false;
}

int64_t cudnn::emitScoreRegion(GraphBuilder &g, AttentionOp op, int64_t score,
                               StridesFn stridesOf) {
  Block &block = op.getScoreBlock();
  DenseMap<Value, int64_t> uid;
  uid[block.getArgument(0)] = score;
  // Indices and captures are created on first use.
  auto lookup = [&](Value v) -> int64_t {
    auto it = uid.find(v);
    if (it != uid.end())
      return it->second;
    auto arg = cast<BlockArgument>(v);
    unsigned n = arg.getArgNumber();
    int64_t t;
    if (n < AttentionOp::kNumIndexArgs) {
      t = g.genIndex(score, n - 1);
    } else {
      Value capture = op.getCaptures()[n - AttentionOp::kNumIndexArgs];
      ArrayRef<int64_t> shape = typeOf(capture).getShape();
      SmallVector<int64_t> strides = stridesOf(capture);
      // Broadcast dims may carry any stride; cuDNN wants positive ones.
      for (auto [d, s] : llvm::zip(shape, strides))
        if (d == 1 && s <= 0)
          s = 1;
      t = g.bind(capture, shape, strides);
    }
    uid[v] = t;
    return t;
  };
  for (Operation &o : block.without_terminator()) {
    Value result = o.getResult(0);
    Type resultType = elementOf(result);
    DType dtype = regionDType(resultType);
    if (auto c = dyn_cast<ConstantOp>(o)) {
      Attribute value = *constantValue(c);
      double v = isa<IntegerAttr>(value)
                     ? double(cast<IntegerAttr>(value).getInt())
                     : cast<FloatAttr>(value).getValueAsDouble();
      uid[result] = g.scalar(dtype, v, 4);
      continue;
    }
    // A 16-bit float widened to f32 is exact, and every pointwise op reads
    // its inputs in its f32 compute type: no conversion op. (An identity
    // node between the score matmul and the softmax defeats the fused
    // attention engines: a bf16 bias found none on the H200.)
    if (auto cast = dyn_cast<CastOp>(o);
        cast && resultType.isF32() && isFloat16(elementOf(cast.getInput()))) {
      uid[result] = lookup(cast.getInput());
      continue;
    }
    StringRef mode = modeOf(&o);
    int64_t y;
    // Operands are looked up (and indices and captures created) one at a
    // time, last first: as call arguments their order, and so the graph's
    // text, would depend on the C++ compiler.
    if (auto sel = dyn_cast<SelectOp>(o)) {
      int64_t onFalse = lookup(sel.getOnFalse());
      int64_t onTrue = lookup(sel.getOnTrue());
      int64_t cond = lookup(sel.getCond());
      // binary_select broadcasts only its second value: the full one goes
      // first, with the condition negated (the support check saw one).
      if (g.dims(onTrue) != g.dims(score) && g.dims(onFalse) == g.dims(score)) {
        cond = g.unary("logical_not", cond, DType::I1);
        g.setLastCompute(DType::I1);
        std::swap(onTrue, onFalse);
      }
      y = g.select(cond, onTrue, onFalse, dtype);
    } else if (o.getNumOperands() == 1) {
      y = g.unary(mode, lookup(o.getOperand(0)), dtype);
    } else {
      int64_t b = lookup(o.getOperand(1));
      y = binaryBroadcastingB(g, mode, lookup(o.getOperand(0)), b, dtype);
    }
    // Integer math in int32; comparisons of integers in boolean precision
    // (as cudnn-frontend's masks do); everything else in f32.
    DType compute = DType::F32;
    if (isInt(resultType))
      compute = DType::I32;
    else if (auto cmp = dyn_cast<CmpOp>(o))
      if (isa<IntegerType>(elementOf(cmp.getLhs())))
        compute = DType::I1;
    g.setLastCompute(compute);
    uid[result] = y;
  }
  return lookup(block.getTerminator()->getOperand(0));
}
