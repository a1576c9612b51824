//===- ScalarExpr.cpp - Pointwise tg ops as CUDA C++ expressions ----------===//
//
// One function per concern: type names, literals, rounding, casts, one op,
// one region. Float ops compute in f32 and round to the declared type;
// integer ops compute in 64 bits with wrap-around and wrap to the width.
//
//===----------------------------------------------------------------------===//

#include "tg/Lowering/ScalarExpr.h"

#include "tg/Dialect/TG/IR/TGOps.h"

#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/BuiltinTypes.h"
#include "llvm/ADT/TypeSwitch.h"
#include "llvm/Support/raw_ostream.h"

#include <algorithm>
#include <cmath>
#include <cstdio>

using namespace mlir;
using namespace mlir::tg;

static bool isFloat(Type type) { return isa<FloatType>(type); }
static bool isBool(Type type) { return type.isInteger(1); }

StringRef tg::cudaComputeType(Type type) {
  if (isFloat(type))
    return "float";
  if (isBool(type))
    return "bool";
  return "long long";
}

StringRef tg::cudaStorageType(Type type) {
  if (type.isBF16())
    return "__nv_bfloat16";
  if (type.isF16())
    return "__half";
  if (type.isF32())
    return "float";
  if (isa<Float8E4M3FNType>(type))
    return "__nv_fp8_e4m3";
  if (isa<Float8E5M2Type>(type))
    return "__nv_fp8_e5m2";
  if (type.isInteger(1))
    return "unsigned char";
  if (type.isInteger(4))
    return "tg_i4x2"; // packed two per byte; read-only (elementwise.cuh)
  if (type.isInteger(8))
    return "signed char";
  if (type.isInteger(32))
    return "int";
  return "long long";
}

// cudaLiteral(const APFloat &): CudaLiteral.cpp.

std::string tg::cudaLiteral(const APInt &value, Type elementType) {
  if (elementType.isInteger(1))
    return value.isZero() ? "false" : "true";
  int64_t v = value.getSExtValue();
  if (v == INT64_MIN)
    return "TG_I64_MIN";
  std::string text = std::to_string(v) + "LL";
  return v < 0 ? "(" + text + ")" : text;
}

std::string tg::cudaRoundTo(StringRef expr, Type type) {
  auto call = [&](StringRef fn) { return (fn + "(" + expr + ")").str(); };
  if (type.isBF16())
    return call("tg_round_bf16");
  if (type.isF16())
    return call("tg_round_f16");
  if (isa<Float8E4M3FNType>(type))
    return call("tg_round_f8e4m3");
  if (isa<Float8E5M2Type>(type))
    return call("tg_round_f8e5m2");
  if (type.isInteger(4))
    return call("tg_wrap_i4");
  if (type.isInteger(8))
    return call("tg_wrap_i8");
  if (type.isInteger(32))
    return call("tg_wrap_i32");
  return expr.str(); // f32, i64, i1: already exact
}

/// Saturation bounds of tg.cast float -> integer.
static std::string intBounds(Type type) {
  if (type.isInteger(4))
    return "-8LL, 7LL";
  if (type.isInteger(8))
    return "-128LL, 127LL";
  if (type.isInteger(32))
    return "-2147483648LL, 2147483647LL";
  return "TG_I64_MIN, TG_I64_MAX";
}

std::string tg::cudaRoundFromDouble(StringRef expr, Type type) {
  auto call = [&](StringRef fn) { return (fn + "(" + expr + ")").str(); };
  if (type.isBF16())
    return call("tg_dround_bf16");
  if (type.isF16())
    return call("tg_dround_f16");
  if (isa<Float8E4M3FNType>(type))
    return call("tg_dround_f8e4m3");
  if (isa<Float8E5M2Type>(type))
    return call("tg_dround_f8e5m2");
  return call("tg_dround_f32");
}

/// An integer (compute type long long) converted to a float type, rounding
/// once to nearest even.
static std::string intToFloat(StringRef expr, Type from, Type to) {
  // i4/i8 values are exact in f32, so one rounding from f32 is exact
  // rounding; i32/i64 -> f32 rounds once in the conversion itself.
  if (from.isInteger(4) || from.isInteger(8) || to.isF32())
    return cudaRoundTo(("(float)(" + expr + ")").str(), to);
  return cudaRoundFromDouble(("(double)(" + expr + ")").str(), to);
}

std::string tg::cudaCast(StringRef expr, Type from, Type to) {
  if (from == to)
    return expr.str();
  if (isBool(to))
    return ("(" + expr + (isFloat(from) ? " != 0.0f)" : " != 0)")).str();
  if (isBool(from))
    return ("(" + expr + (isFloat(to) ? " ? 1.0f : 0.0f)" : " ? 1LL : 0LL)"))
        .str();
  if (isFloat(from) && isFloat(to))
    return cudaRoundTo(expr, to);
  if (isFloat(from))
    return ("tg_f2i_sat(" + expr + ", " + intBounds(to) + ")").str();
  if (isFloat(to))
    return intToFloat(expr, from, to);
  if (to.getIntOrFloatBitWidth() >= from.getIntOrFloatBitWidth())
    return expr.str(); // widening integers is exact
  return cudaRoundTo(expr, to); // narrowing integers wrap
}

static Type resultElementType(Operation *op) {
  return cast<ShapedType>(op->getResult(0).getType()).getElementType();
}
static Type operandElementType(Operation *op, unsigned i) {
  return cast<ShapedType>(op->getOperand(i).getType()).getElementType();
}

static StringRef comparison(CmpPredicate predicate) {
  switch (predicate) {
  case CmpPredicate::lt:
    return "<";
  case CmpPredicate::le:
    return "<=";
  case CmpPredicate::gt:
    return ">";
  case CmpPredicate::ge:
    return ">=";
  case CmpPredicate::eq:
    return "==";
  case CmpPredicate::ne:
    return "!=";
  }
  llvm_unreachable("unknown predicate");
}

FailureOr<std::string> tg::emitScalarOp(Operation *op,
                                        ArrayRef<std::string> operands,
                                        bool approximate) {
  Type type = resultElementType(op);
  bool fp = isFloat(type);
  auto binary = [&](StringRef floatOp, StringRef intFn) {
    std::string expr =
        fp ? operands[0] + " " + floatOp.str() + " " + operands[1]
           : (intFn + "(" + operands[0] + ", " + operands[1] + ")").str();
    return cudaRoundTo(expr, type);
  };
  auto call = [&](StringRef fn) {
    return cudaRoundTo((fn + "(" + operands[0] + ")").str(), type);
  };
  auto call2 = [&](StringRef fn) {
    return (fn + "(" + operands[0] + ", " + operands[1] + ")").str();
  };
  std::optional<std::string> expr =
      llvm::TypeSwitch<Operation *, std::optional<std::string>>(op)
          .Case([&](AddOp) { return binary("+", "tg_iadd"); })
          .Case([&](SubOp) { return binary("-", "tg_isub"); })
          .Case([&](MulOp) { return binary("*", "tg_imul"); })
          .Case([&](DivOp) { return binary("/", "tg_idiv"); })
          // max/min return one of their operands: nothing to round.
          .Case([&](MaxOp) { return call2(fp ? "tg_fmax" : "tg_imax"); })
          .Case([&](MinOp) { return call2(fp ? "tg_fmin" : "tg_imin"); })
          .Case([&](PowOp) { return cudaRoundTo(call2("powf"), type); })
          .Case([&](ExpOp) { return call(approximate ? "tg_exp_approx" : "expf"); })
          .Case([&](LogOp) { return call(approximate ? "tg_log_approx" : "logf"); })
          .Case([&](TanhOp) { return call(approximate ? "tg_tanh_approx" : "tanhf"); })
          .Case([&](SqrtOp) { return call("sqrtf"); })
          .Case([&](RsqrtOp) {
            return cudaRoundTo("1.0f / sqrtf(" + operands[0] + ")", type);
          })
          .Case([&](RecipOp) {
            return cudaRoundTo("1.0f / " + operands[0], type);
          })
          .Case([&](SigmoidOp) {
            return cudaRoundTo((approximate ? "tg_sigmoid_approx(" + operands[0] + ")"
                                            : "1.0f / (1.0f + expf(-" + operands[0] + "))"),
                               type);
          })
          // Float neg/abs are exact; integers wrap (-(-128) in i8).
          .Case([&](NegOp) {
            return fp ? "-" + operands[0] : call("tg_ineg");
          })
          .Case([&](AbsOp) {
            return fp ? "fabsf(" + operands[0] + ")" : call("tg_iabs");
          })
          .Case([&](CmpOp cmp) {
            return operands[0] + " " + comparison(cmp.getPredicate()).str() +
                   " " + operands[1];
          })
          .Case([&](SelectOp) {
            return operands[0] + " ? " + operands[1] + " : " + operands[2];
          })
          .Case([&](CastOp) {
            return cudaCast(operands[0], operandElementType(op, 0), type);
          })
          .Default([](Operation *) { return std::nullopt; });
  if (!expr)
    return failure();
  return *expr;
}

/// The literal of a rank-0 (or splat) tg.constant.
static FailureOr<std::string> splatLiteral(ConstantOp op) {
  auto elements = dyn_cast<DenseElementsAttr>(op.getValue());
  if (!elements || !elements.isSplat())
    return failure();
  Type type = elements.getElementType();
  if (isFloat(type))
    return cudaLiteral(elements.getSplatValue<APFloat>());
  return cudaLiteral(elements.getSplatValue<APInt>(), type);
}

std::string tg::cudaFillLiteral(GatherOp op) {
  Type type = cast<ShapedType>(op.getTable().getType()).getElementType();
  double value = op.getFillValue() ? op.getFillValue()->convertToDouble() : 0.0;
  if (isFloat(type))
    return cudaLiteral(APFloat(value));
  // The verifier made it an exact integer of the type.
  return cudaLiteral(APInt(64, static_cast<int64_t>(value), /*isSigned=*/true),
                     type);
}

SmallVector<std::optional<IndexRange>> tg::scoreRegionRanges(size_t numArgs, ArrayRef<int64_t> sizes) {
  SmallVector<std::optional<IndexRange>> ranges(numArgs);
  for (size_t d = 0; d < 4 && d < sizes.size() && d + 1 < numArgs; ++d)
    if (sizes[d] >= 1)
      ranges[d + 1] = IndexRange{0, sizes[d] - 1};
  return ranges;
}

/// The range of an integer op's result from its operands' (none when an
/// operand's is unknown, the op is not one of the tracked ones, or the
/// bounds leave the range where int64 arithmetic is exact here).
static std::optional<IndexRange>
resultRange(Operation *op, ArrayRef<std::optional<IndexRange>> operands) {
  for (const std::optional<IndexRange> &r : operands)
    if (!r)
      return std::nullopt;
  constexpr int64_t kLimit = int64_t(1) << 40; // products of two stay exact
  auto bounded = [&](int64_t lo, int64_t hi) -> std::optional<IndexRange> {
    if (lo < -kLimit || hi > kLimit)
      return std::nullopt;
    return IndexRange{lo, hi};
  };
  auto in = [&](int i) { return *operands[i]; };
  return llvm::TypeSwitch<Operation *, std::optional<IndexRange>>(op)
      .Case([&](AddOp) { return bounded(in(0).lo + in(1).lo, in(0).hi + in(1).hi); })
      .Case([&](SubOp) { return bounded(in(0).lo - in(1).hi, in(0).hi - in(1).lo); })
      .Case([&](MulOp) -> std::optional<IndexRange> {
        constexpr int64_t kFactor = int64_t(1) << 31; // the bounds' products stay exact
        for (int i = 0; i < 2; ++i)
          if (in(i).lo < -kFactor || in(i).hi > kFactor)
            return std::nullopt;
        int64_t c[] = {in(0).lo * in(1).lo, in(0).lo * in(1).hi, in(0).hi * in(1).lo,
                       in(0).hi * in(1).hi};
        return bounded(*std::min_element(c, c + 4), *std::max_element(c, c + 4));
      })
      .Case([&](NegOp) { return bounded(-in(0).hi, -in(0).lo); })
      .Case([&](MaxOp) {
        return bounded(std::max(in(0).lo, in(1).lo), std::max(in(0).hi, in(1).hi));
      })
      .Case([&](MinOp) {
        return bounded(std::min(in(0).lo, in(1).lo), std::min(in(0).hi, in(1).hi));
      })
      .Default([](Operation *) { return std::nullopt; });
}

static bool fitsInt32(const std::optional<IndexRange> &r) {
  return r && r->lo >= INT32_MIN && r->hi <= INT32_MAX;
}

/// The 32-bit expression of an integer op whose operands and result fit
/// int32 (resultRange), or none.
static std::optional<std::string> narrowExpr(Operation *op, ArrayRef<std::string> operands) {
  auto i32 = [&](int i) { return "(int)(" + operands[i] + ")"; };
  return llvm::TypeSwitch<Operation *, std::optional<std::string>>(op)
      .Case([&](AddOp) { return i32(0) + " + " + i32(1); })
      .Case([&](SubOp) { return i32(0) + " - " + i32(1); })
      .Case([&](MulOp) { return i32(0) + " * " + i32(1); })
      .Case([&](NegOp) { return "-" + i32(0); })
      .Case([&](MaxOp) { return "max(" + i32(0) + ", " + i32(1) + ")"; })
      .Case([&](MinOp) { return "min(" + i32(0) + ", " + i32(1) + ")"; })
      .Default([](Operation *) { return std::nullopt; });
}

FailureOr<std::string> tg::emitScalarRegion(Region &region,
                                            ArrayRef<std::string> argNames,
                                            StringRef resultVar,
                                            GatherEmitter emitGather,
                                            ArrayRef<std::optional<IndexRange>> argRanges,
                                            bool approximate,
                                            ArrayRef<ExprRewrite> rewrites) {
  if (region.empty())
    return ("{ " + resultVar + " = " + argNames[0] + "; }").str();
  Block &block = region.front();
  if (block.getNumArguments() != argNames.size())
    return emitError(region.getLoc())
           << "region has " << block.getNumArguments()
           << " arguments but " << argNames.size() << " names were given";
  llvm::DenseMap<Value, std::string> names;
  for (auto [arg, name] : llvm::zip(block.getArguments(), argNames))
    names[arg] = name;
  // Integer ranges (argRanges, constants, then the tracked ops).
  llvm::DenseMap<Value, IndexRange> ranges;
  for (auto [i, arg] : llvm::enumerate(block.getArguments()))
    if (i < argRanges.size() && argRanges[i])
      ranges[arg] = *argRanges[i];
  auto rangeOf = [&](Value v) -> std::optional<IndexRange> {
    auto it = ranges.find(v);
    if (it == ranges.end())
      return std::nullopt;
    return it->second;
  };
  // Ops whose values nothing reads once the rewrites replaced some
  // expressions are not written.
  llvm::DenseSet<Operation *> dead;
  if (llvm::any_of(rewrites, [](const ExprRewrite &r) { return r.replacesOperands; })) {
    llvm::DenseSet<Value> live;
    for (Operation &op : llvm::reverse(block)) {
      bool needed = isa<YieldOp>(op) ||
                    llvm::any_of(op.getResults(), [&](Value v) { return live.contains(v); });
      if (!needed) {
        dead.insert(&op);
        continue;
      }
      bool replaced = llvm::any_of(
          rewrites, [&](const ExprRewrite &r) { return r.op == &op && r.replacesOperands; });
      if (!replaced)
        for (Value operand : op.getOperands())
          live.insert(operand);
    }
  }
  std::string text;
  llvm::raw_string_ostream os(text);
  os << "{\n";
  unsigned counter = 0;
  for (Operation &op : block) {
    if (dead.contains(&op))
      continue;
    if (auto yield = dyn_cast<YieldOp>(op)) {
      if (yield.getValues().size() != 1)
        return yield.emitOpError("must yield one value to be translated");
      os << "  " << resultVar << " = " << names[yield.getValues()[0]]
         << ";\n";
      continue;
    }
    if (auto constant = dyn_cast<ConstantOp>(op)) {
      FailureOr<std::string> literal = splatLiteral(constant);
      if (failed(literal))
        return constant.emitOpError(
            "cannot be translated to CUDA (expected a splat constant)");
      names[constant.getResult()] = *literal;
      if (auto elements = dyn_cast<DenseElementsAttr>(constant.getValue());
          elements && elements.isSplat() && isa<IntegerType>(elements.getElementType()) &&
          elements.getElementType().getIntOrFloatBitWidth() > 1) {
        int64_t v = elements.getSplatValue<APInt>().getSExtValue();
        ranges[constant.getResult()] = IndexRange{v, v};
      }
      continue;
    }
    SmallVector<std::string> operands;
    for (Value operand : op.getOperands())
      operands.push_back(names.lookup(operand));
    FailureOr<std::string> expr = failure();
    if (auto gather = dyn_cast<GatherOp>(op)) {
      if (!emitGather)
        return gather.emitOpError(
            "cannot be translated to CUDA here (tg.gather reads table "
            "captures of tg.attention only)");
      expr = emitGather(gather, ArrayRef<std::string>(operands).drop_front());
      if (failed(expr))
        return failure();
    } else {
      expr = emitScalarOp(&op, operands, approximate);
    }
    if (op.getNumResults() != 1 || failed(expr))
      return op.emitOpError("cannot be translated to CUDA (expected a "
                            "pointwise tg op in a per-element region)");
    // Narrow integer ops (and their casts to float) to 32 bits where the
    // ranges prove the values equal.
    std::string type = cudaComputeType(resultElementType(&op)).str();
    SmallVector<std::optional<IndexRange>> operandRanges;
    for (Value operand : op.getOperands())
      operandRanges.push_back(rangeOf(operand));
    bool narrowOperands = llvm::all_of(operandRanges, fitsInt32);
    if (isa<IntegerType>(resultElementType(&op)) &&
        resultElementType(&op).getIntOrFloatBitWidth() == 64) {
      std::optional<IndexRange> range = resultRange(&op, operandRanges);
      if (range)
        ranges[op.getResult(0)] = *range;
      if (narrowOperands && fitsInt32(range))
        if (std::optional<std::string> narrow = narrowExpr(&op, operands)) {
          expr = *narrow;
          type = "int";
        }
    } else if (auto cast = dyn_cast<CastOp>(op);
               cast && narrowOperands && isFloat(resultElementType(&op)) &&
               resultElementType(&op).isF32() && isa<IntegerType>(operandElementType(&op, 0))) {
      expr = "(float)((int)(" + operands[0] + "))";  // int32 -> f32 rounds as int64 -> f32 does
    }
    for (const ExprRewrite &r : rewrites)
      if (r.op == &op)
        expr = r.rewrite(*expr);
    std::string name = (resultVar + "_" + Twine(counter++)).str();
    os << "  const " << type << " " << name << " = " << *expr << "; // " << op.getName() << "\n";
    names[op.getResult(0)] = name;
  }
  os << "}";
  return text;
}
