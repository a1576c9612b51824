// Per-element tg regions -> cuDNN pointwise ops (RegionToPointwise.h).
#include "RegionToPointwise.h"
#include "TensorLayout.h"

#include "tg/Dialect/TG/IR/TGOps.h"

#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/TypeSwitch.h"

using namespace mlir;
using namespace mlir::tg;
using namespace mlir::tg::cudnn;
using CudnnOp = tgc::cudnn::Op;
using tgc::cudnn::OpKind;

static Type elementOf(Value value) {
  return cast<ShapedType>(value.getType()).getElementType();
}

/// Types cuDNN pointwise results may have here: the 16/32-bit floats
/// (rounding to nearest even, as tg does) and i1 from comparisons.
static bool isWideFloat(Type t) { return t.isBF16() || t.isF16() || t.isF32(); }
static bool isFp8(Type t) { return isa<Float8E4M3FNType, Float8E5M2Type>(t); }

/// Why cuDNN's identity conversion would not give tg.cast's value, or "".
static std::string castProblem(Type from, Type to) {
  if (!isWideFloat(to))
    return "a cast to " + typeText(to) +
           " (tg saturates or wraps; cuDNN's conversion is not specified "
           "to match)";
  if (isWideFloat(from) || isFp8(from))
    return ""; // float -> float rounds to nearest even; fp8 widens exactly
  if (from.isInteger(8))
    return ""; // every i8 value is exact in f16, bf16 and f32
  if (from.isInteger(32) && to.isF32())
    return ""; // one rounding, as in tg
  return "a cast from " + typeText(from) + " to " + typeText(to) +
         " (not exact, and cuDNN may round twice)";
}

StringRef cudnn::cmpMode(CmpPredicate p) {
  switch (p) {
  case CmpPredicate::lt:
    return "cmp_lt";
  case CmpPredicate::le:
    return "cmp_le";
  case CmpPredicate::gt:
    return "cmp_gt";
  case CmpPredicate::ge:
    return "cmp_ge";
  case CmpPredicate::eq:
    return "cmp_eq";
  case CmpPredicate::ne:
    return "cmp_neq";
  }
  llvm_unreachable("unknown predicate");
}

/// The comparison with its operands swapped (a < b == b > a).
static StringRef swappedCmpMode(CmpPredicate p) {
  switch (p) {
  case CmpPredicate::lt:
    return "cmp_gt";
  case CmpPredicate::le:
    return "cmp_ge";
  case CmpPredicate::gt:
    return "cmp_lt";
  case CmpPredicate::ge:
    return "cmp_le";
  default:
    return cmpMode(p);
  }
}

StringRef cudnn::unaryMode(Operation *op) {
  return llvm::TypeSwitch<Operation *, StringRef>(op)
      .Case([](ExpOp) { return "exp"; })
      .Case([](LogOp) { return "log"; })
      .Case([](TanhOp) { return "tanh_fwd"; })
      .Case([](NegOp) { return "neg"; })
      .Case([](AbsOp) { return "abs"; })
      .Case([](SqrtOp) { return "sqrt"; })
      .Case([](RsqrtOp) { return "rsqrt"; })
      .Case([](RecipOp) { return "reciprocal"; })
      .Case([](SigmoidOp) { return "sigmoid_fwd"; })
      .Default([](Operation *) { return ""; });
}

StringRef cudnn::binaryMode(Operation *op) {
  return llvm::TypeSwitch<Operation *, StringRef>(op)
      .Case([](AddOp) { return "add"; })
      .Case([](SubOp) { return "sub"; })
      .Case([](MulOp) { return "mul"; })
      .Case([](DivOp) { return "div"; })
      .Case([](MaxOp) { return "max"; })
      .Case([](MinOp) { return "min"; })
      .Case([](PowOp) { return "pow"; })
      .Default([](Operation *) { return ""; });
}

namespace {
class Translator {
public:
  Translator(GraphBuilder &graph, Block &block, ArrayRef<int64_t> args,
             int64_t into, std::string &reason)
      : g(graph), block(block), into(into), reason(reason) {
    for (auto [arg, uid] : llvm::zip(block.getArguments(), args))
      uids[arg] = uid;
    const tgc::cudnn::Tensor &element = g.tensor(args[0]);
    fullDims.assign(element.dims.begin(), element.dims.end());
    fullStrides = packedStridesLike(element.dims, element.strides);
  }

  int64_t run();

private:
  bool refuse(Operation *op, const Twine &why) {
    reason = (op->getName().getStringRef() + ": " + why).str();
    return false;
  }
  /// y = mode(x, b, t) into a new virtual tensor of `dtype`, or into `into`
  /// when `result` is the yielded value (or `toInto` is set). Returns false
  /// with `reason` set when x lacks the dims of `into`.
  bool emit(Value result, StringRef mode, int64_t x, int64_t b, int64_t t,
            DType dtype, bool toInto = false);
  /// Strides of a virtual tensor with the dims of `like`: the element's
  /// order for full-size values, dense otherwise.
  ArrayRef<int64_t> stridesFor(int64_t like) {
    return g.dims(like) == ArrayRef<int64_t>(fullDims)
               ? ArrayRef<int64_t>(fullStrides)
               : ArrayRef<int64_t>();
  }
  SmallVector<int64_t> broadcast(ArrayRef<int64_t> a, ArrayRef<int64_t> b) {
    SmallVector<int64_t> out;
    for (auto [x, y] : llvm::zip(a, b))
      out.push_back(x == 1 ? y : x);
    return out;
  }
  bool translate(Operation *op);
  bool translateBinary(Operation *op, StringRef mode);
  bool translateCmp(CmpOp op);
  bool translateSelect(SelectOp op);

  GraphBuilder &g;
  Block &block;
  int64_t into;
  std::string &reason;
  llvm::DenseMap<Value, int64_t> uids;
  SmallVector<int64_t> fullDims;
  /// Virtual tensors of the element's dims keep its dimension order (a
  /// column-major weight stays column-major through its prologue).
  SmallVector<int64_t> fullStrides;
  Value yielded;
};
} // namespace

bool Translator::emit(Value result, StringRef mode, int64_t x, int64_t b,
                      int64_t t, DType dtype, bool toInto) {
  int64_t y;
  if (into && (toInto || (result && result == yielded))) {
    if (g.dims(x) != g.dims(into)) {
      reason = "the region's result does not depend on its element";
      return false;
    }
    y = into;
  } else {
    SmallVector<int64_t> dims(g.dims(x));
    y = g.virtualTensor(dtype, dims, stridesFor(x));
  }
  CudnnOp op;
  op.kind = OpKind::Pointwise;
  op.mode = mode.str();
  op.ports.push_back({"x", x});
  if (b)
    op.ports.push_back({"b", b});
  if (t)
    op.ports.push_back({"t", t});
  op.ports.push_back({"y", y});
  g.addOp(std::move(op));
  if (result)
    uids[result] = y;
  return true;
}

bool Translator::translateBinary(Operation *op, StringRef mode) {
  Value lhs = op->getOperand(0), rhs = op->getOperand(1);
  Value result = op->getResult(0);
  Type type = elementOf(result);
  if (!isWideFloat(type))
    return refuse(op, "arithmetic on " + typeText(type) +
                          " (cuDNN pointwise ops compute in float; tg " +
                          (isFp8(type) ? "rounds to fp8 with saturation"
                                       : "integers wrap") +
                          ")");
  int64_t x = uids.lookup(lhs), b = uids.lookup(rhs);
  SmallVector<int64_t> out = broadcast(g.dims(x), g.dims(b));
  DType dtype = *dtypeOf(type);
  if (g.dims(x) == ArrayRef<int64_t>(out)) {
    return emit(result, mode, x, b, 0, dtype);
  }
  if (g.dims(b) != ArrayRef<int64_t>(out))
    return refuse(op, "neither operand has the result's shape (cuDNN "
                      "broadcasts only the second operand)");
  // Only b has the result's dims: swap where that is exact.
  if (isa<AddOp, MulOp, MaxOp, MinOp>(op)) {
    return emit(result, mode, b, x, 0, dtype);
  }
  if (isa<SubOp>(op)) { // x - b == (-b) + x, negation being exact
    int64_t negB = g.virtualTensor(DType::F32, g.dims(b), stridesFor(b));
    CudnnOp neg;
    neg.kind = OpKind::Pointwise;
    neg.mode = "neg";
    neg.ports = {{"x", b}, {"y", negB}};
    g.addOp(std::move(neg));
    return emit(result, "add", negB, x, 0, dtype);
  }
  return refuse(op, "only the second operand has the result's shape, and "
                    "cuDNN broadcasts only the second operand");
}

bool Translator::translateCmp(CmpOp op) {
  Type type = elementOf(op.getLhs());
  if (!isWideFloat(type))
    return refuse(op, "comparison of " + typeText(type) +
                          " (cuDNN compares in float)");
  int64_t x = uids.lookup(op.getLhs()), b = uids.lookup(op.getRhs());
  SmallVector<int64_t> out = broadcast(g.dims(x), g.dims(b));
  if (g.dims(x) == ArrayRef<int64_t>(out)) {
    return emit(op.getResult(), cmpMode(op.getPredicate()), x, b, 0, DType::I1);
  }
  if (g.dims(b) == ArrayRef<int64_t>(out)) {
    return emit(op.getResult(), swappedCmpMode(op.getPredicate()), b, x, 0,
                DType::I1);
  }
  return refuse(op, "neither operand has the result's shape (cuDNN "
                    "broadcasts only the second operand)");
}

bool Translator::translateSelect(SelectOp op) {
  Type type = elementOf(op.getResult());
  if (!isWideFloat(type))
    return refuse(op, "a choice between " + typeText(type) +
                          " values (only 16/32-bit floats are translated)");
  int64_t cond = uids.lookup(op.getCond());
  int64_t onTrue = uids.lookup(op.getOnTrue());
  int64_t onFalse = uids.lookup(op.getOnFalse());
  SmallVector<int64_t> out =
      broadcast(broadcast(g.dims(onTrue), g.dims(onFalse)), g.dims(cond));
  DType dtype = *dtypeOf(type);
  // binary_select: y = t ? x : b.
  if (g.dims(onTrue) == ArrayRef<int64_t>(out)) {
    return emit(op.getResult(), "binary_select", onTrue, onFalse, cond, dtype);
  }
  if (g.dims(onFalse) == ArrayRef<int64_t>(out)) {
    int64_t notCond =
        g.virtualTensor(DType::I1, g.dims(cond), stridesFor(cond));
    CudnnOp negate;
    negate.kind = OpKind::Pointwise;
    negate.mode = "logical_not";
    negate.ports = {{"x", cond}, {"y", notCond}};
    g.addOp(std::move(negate));
    return emit(op.getResult(), "binary_select", onFalse, onTrue, notCond,
                dtype);
  }
  return refuse(op, "neither value has the result's shape (cuDNN broadcasts "
                    "only the second value and the condition)");
}

bool Translator::translate(Operation *op) {
  if (auto constant = dyn_cast<ConstantOp>(op)) {
    auto elements = dyn_cast<DenseElementsAttr>(constant.getValue());
    Type type = elementOf(constant.getResult());
    if (!elements || !elements.isSplat() || !isWideFloat(type))
      return refuse(op, "only splat 16/32-bit float constants become cuDNN "
                        "scalars, got " +
                            typeText(constant.getResult().getType()));
    // The constant's value is exact in f32.
    uids[constant.getResult()] = g.scalar(
        DType::F32, elements.getSplatValue<APFloat>().convertToDouble(),
        fullDims.size());
    return true;
  }
  if (auto castOp = dyn_cast<CastOp>(op)) {
    Type from = elementOf(castOp.getInput()),
         to = elementOf(castOp.getResult());
    std::string problem = castProblem(from, to);
    if (!problem.empty())
      return refuse(op, problem);
    int64_t x = uids.lookup(castOp.getInput());
    // A 16-bit float widened to f32 is exact, and every pointwise op reads
    // its inputs in its f32 compute type: no conversion op. An extra
    // identity node between the score matmul and the softmax defeats the
    // fused attention engines (a bf16 bias, measured on the H200).
    if (to.isF32() && (from.isBF16() || from.isF16())) {
      uids[castOp.getResult()] = x;
      return true;
    }
    return emit(castOp.getResult(), "identity", x, 0, 0, *dtypeOf(to));
  }
  if (auto cmp = dyn_cast<CmpOp>(op))
    return translateCmp(cmp);
  if (auto select = dyn_cast<SelectOp>(op))
    return translateSelect(select);
  StringRef mode = binaryMode(op);
  if (!mode.empty())
    return translateBinary(op, mode);
  mode = unaryMode(op);
  if (mode.empty())
    return refuse(op, "has no cuDNN pointwise mode");
  Type type = elementOf(op->getResult(0));
  if (!isWideFloat(type))
    return refuse(op, "on " + typeText(type) +
                          " (only 16/32-bit floats are translated)");
  return emit(op->getResult(0), mode, uids.lookup(op->getOperand(0)), 0, 0,
              *dtypeOf(type));
}

int64_t Translator::run() {
  auto yield = dyn_cast<YieldOp>(block.getTerminator());
  if (!yield || yield.getValues().size() != 1) {
    reason = "the region does not yield one value";
    return 0;
  }
  yielded = yield.getValues()[0];
  for (Operation &op : block.without_terminator())
    if (!translate(&op))
      return 0;
  int64_t result = uids.lookup(yielded);
  if (!into || result == into)
    return result;
  // The block yields an argument or a constant: copy it into `into`.
  if (!emit(Value(), "identity", result, 0, 0, g.tensor(into).dtype,
            /*toInto=*/true))
    return 0;
  return into;
}

int64_t cudnn::translateRegion(GraphBuilder &graph, Block &block,
                               ArrayRef<int64_t> args, int64_t into,
                               std::string &reason) {
  if (args.size() != block.getNumArguments()) {
    reason = "the region takes " + std::to_string(block.getNumArguments()) +
             " arguments, " + std::to_string(args.size()) + " given";
    return 0;
  }
  return Translator(graph, block, args, into, reason).run();
}
