//===- FusionUtils.cpp - Helpers shared by the fusion passes --------------===//
#include "FusionUtils.h"

#include "tg/Dialect/TG/IR/TGShapes.h"

#include "mlir/IR/Matchers.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "llvm/ADT/APFloat.h"
#include "llvm/Support/CommandLine.h"

#include <cmath>

using namespace mlir;
using namespace mlir::tg;

static llvm::cl::opt<bool> clFusionReport(
    "tg-fusion-report",
    llvm::cl::desc("Make tg-fuse-attention and tg-fuse-matmul emit a remark "
                   "for every chain they leave unfused, saying why"),
    llvm::cl::init(false));

namespace mlir::tg::fusion {

bool fusionReportFlag() { return clFusionReport; }

bool isScoreFloat(Type type) {
  return type.isBF16() || type.isF16() || type.isF32();
}

bool readsStorageOnly(Operation *op) {
  return llvm::any_of(op->getOperandTypes(), [](Type type) {
    auto shaped = dyn_cast<ShapedType>(type);
    return shaped && shaped.getElementType().isInteger(4);
  });
}

bool isPrecisionCast(Operation *op) {
  auto cast = dyn_cast_or_null<CastOp>(op);
  return cast && isScoreFloat(elementTypeOf(cast.getInput())) &&
         isScoreFloat(elementTypeOf(cast.getResult()));
}

Value stripPrecisionCasts(Value value, llvm::SetVector<Operation *> *skipped) {
  while (isPrecisionCast(value.getDefiningOp())) {
    if (skipped)
      skipped->insert(value.getDefiningOp());
    value = value.getDefiningOp()->getOperand(0);
  }
  return value;
}

double roundToType(double value, Type type) {
  if (auto floatType = dyn_cast<FloatType>(type)) {
    APFloat converted(value);
    bool losesInfo = false;
    converted.convert(floatType.getFloatSemantics(),
                      APFloat::rmNearestTiesToEven, &losesInfo);
    return converted.convertToDouble();
  }
  if (type.isInteger(1))
    return value != 0.0 ? 1.0 : 0.0;
  if (auto intType = dyn_cast<IntegerType>(type)) {
    if (std::isnan(value))
      return 0.0;
    unsigned width = intType.getWidth();
    // Truncate toward zero, then wrap to the width (two's complement).
    APInt bits(64, static_cast<uint64_t>(static_cast<int64_t>(value)),
               /*isSigned=*/true);
    return static_cast<double>(bits.trunc(width).getSExtValue());
  }
  return value;
}

static std::optional<double> evalImpl(Value value, int depth) {
  if (depth > 16)
    return std::nullopt;
  Operation *op = value.getDefiningOp();
  if (!op)
    return std::nullopt;
  Type type = elementTypeOf(value);
  ElementsAttr elements;
  if (matchPattern(value, m_Constant(&elements))) {
    if (!elements.isSplat())
      return std::nullopt;
    Type elementType = elements.getElementType();
    if (isa<FloatType>(elementType))
      return elements.getSplatValue<APFloat>().convertToDouble();
    if (elementType.isInteger(1))
      return elements.getSplatValue<bool>() ? 1.0 : 0.0;
    if (isa<IntegerType>(elementType))
      return static_cast<double>(
          elements.getSplatValue<APInt>().getSExtValue());
    return std::nullopt;
  }
  auto operand = [&](unsigned i) { return evalImpl(op->getOperand(i), depth + 1); };
  std::optional<double> result;
  if (isa<CastOp>(op)) {
    result = operand(0);
  } else if (isa<NegOp>(op)) {
    if (auto x = operand(0))
      result = -*x;
  } else if (isa<RecipOp>(op)) {
    if (auto x = operand(0))
      result = 1.0 / *x;
  } else if (isa<SqrtOp>(op)) {
    if (auto x = operand(0))
      result = std::sqrt(*x);
  } else if (isa<RsqrtOp>(op)) {
    if (auto x = operand(0))
      result = 1.0 / std::sqrt(*x);
  } else if (isa<AddOp, SubOp, MulOp, DivOp>(op)) {
    auto lhs = operand(0), rhs = operand(1);
    if (!lhs || !rhs)
      return std::nullopt;
    if (isa<AddOp>(op))
      result = *lhs + *rhs;
    else if (isa<SubOp>(op))
      result = *lhs - *rhs;
    else if (isa<MulOp>(op))
      result = *lhs * *rhs;
    else if (isa<IntegerType>(type))
      result = *rhs == 0.0 ? std::optional<double>()
                           : std::trunc(*lhs / *rhs);
    else
      result = *lhs / *rhs;
  }
  if (!result)
    return std::nullopt;
  return roundToType(*result, type);
}

std::optional<double> evalSplatConstant(Value value) {
  return evalImpl(value, 0);
}

bool isPositiveFiniteConstant(Value value, double *out) {
  std::optional<double> c = evalSplatConstant(value);
  if (!c || !std::isfinite(*c) || *c <= 0.0)
    return false;
  if (out)
    *out = *c;
  return true;
}

LogicalResult refuse(Refusal &refusal, Operation *at, const Twine &reason) {
  refusal.at = at;
  refusal.reason = reason.str();
  return failure();
}

std::string typeName(Type type) {
  std::string text;
  llvm::raw_string_ostream os(text);
  type.print(os);
  return text;
}

std::string opName(Operation *op) {
  return op ? op->getName().getStringRef().str() : "a graph argument";
}

void eraseDeadOps(RewriterBase &rewriter, ArrayRef<Operation *> roots,
                  llvm::DenseSet<Operation *> &erased) {
  llvm::SetVector<Operation *> worklist(roots.begin(), roots.end());
  bool changed = true;
  while (changed) {
    changed = false;
    for (Operation *op : worklist.takeVector()) {
      if (erased.contains(op))
        continue;
      if (!op->use_empty() || !isPure(op)) {
        worklist.insert(op);
        continue;
      }
      for (Value operand : op->getOperands())
        if (Operation *def = operand.getDefiningOp())
          worklist.insert(def);
      erased.insert(op);
      rewriter.eraseOp(op);
      changed = true;
    }
  }
}

void rebuildOnTensors(OpBuilder &b, Operation &inner, IRMapping &mapping) {
  SmallVector<Value> operands;
  SmallVector<ArrayRef<int64_t>> shapes;
  for (Value operand : inner.getOperands()) {
    operands.push_back(mapping.lookup(operand));
    shapes.push_back(shapeOf(operands.back()));
  }
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

} // namespace mlir::tg::fusion
