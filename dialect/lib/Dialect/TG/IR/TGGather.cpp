//===- TGGather.cpp - tg.gather and the table captures of attention -------===//
//
// tg.gather reads a table at computed indices, at graph level (index tensors
// broadcast together) and inside the score regions of tg.attention and
// tg.attention_grad, where the table is a region argument of a table capture.
//
//===----------------------------------------------------------------------===//
#include "tg/Dialect/TG/IR/TGOps.h"

#include "AttentionCaptures.h"

#include "mlir/IR/Builders.h"
#include "llvm/Support/Format.h"

#include <cmath>

using namespace mlir;
using namespace mlir::tg;

static RankedTensorType tensorTypeOf(Value value) {
  return cast<RankedTensorType>(value.getType());
}

LogicalResult GatherOp::inferReturnTypes(MLIRContext *,
                                         std::optional<Location> loc,
                                         Adaptor adaptor,
                                         SmallVectorImpl<Type> &types) {
  SmallVector<Type> indexTypes(adaptor.getIndices().getTypes());
  return inferBroadcastResult(
      loc, indexTypes,
      cast<ShapedType>(adaptor.getTable().getType()).getElementType(), types);
}

/// Why `value` is not exactly an element of `type`, or an empty string.
static std::string unrepresentable(double value, Type type) {
  std::string why;
  llvm::raw_string_ostream os(why);
  if (std::isnan(value)) {
    os << "must not be NaN";
    return why;
  }
  if (auto floatType = dyn_cast<FloatType>(type)) {
    APFloat converted(value);
    bool losesInfo = false;
    APFloat::opStatus status = converted.convert(
        floatType.getFloatSemantics(), APFloat::rmNearestTiesToEven,
        &losesInfo);
    bool overflow = (status & APFloat::opOverflow) != 0 ||
                    (converted.isInfinity() && !std::isinf(value));
    if (losesInfo || overflow)
      os << llvm::format("%g", value) << " is not exactly representable in "
         << type;
    return why;
  }
  unsigned width = type.getIntOrFloatBitWidth();
  double lo = width == 1 ? 0.0 : -std::ldexp(1.0, width - 1);
  double hi = width == 1 ? 1.0 : std::ldexp(1.0, width - 1) - 1.0;
  if (std::trunc(value) != value || value < lo || value > hi)
    os << llvm::format("%g", value) << " is not a value of " << type;
  return why;
}

LogicalResult GatherOp::verify() {
  RankedTensorType table = tensorTypeOf(getTable());
  if (table.getRank() == 0)
    return emitOpError("needs a table of rank >= 1, got ") << table;
  if (llvm::is_contained(table.getShape(), 0))
    return emitOpError("cannot gather from the empty table ")
           << table << " (every dimension must have at least one element)";
  if (static_cast<int64_t>(getIndices().size()) != table.getRank())
    return emitOpError("indexes a rank-")
           << table.getRank() << " table with " << getIndices().size()
           << " indices; expected one index per dimension ("
           << table.getRank() << ")";
  bool fill = getMode() == GatherMode::fill;
  if (fill != getFillValue().has_value())
    return emitOpError(fill ? "in fill mode needs a fill value"
                            : "has a fill value but is not in fill mode");
  if (fill) {
    std::string why = unrepresentable(
        getFillValue()->convertToDouble(), table.getElementType());
    if (!why.empty())
      return emitOpError("fill value ") << why;
  }

  Operation *parent = (*this)->getParentOp();
  if (isa<FusedMatmulOp>(parent))
    return emitOpError("is not allowed in the regions of tg.fused_matmul");
  if (!isa<AttentionOp, AttentionGradOp>(parent))
    return success();
  // In a score region: rank-0 indices and a table capture's argument.
  for (Value index : getIndices())
    if (tensorTypeOf(index).getRank() != 0)
      return emitOpError("in a score region takes rank-0 indices, got ")
             << index.getType();
  auto arg = dyn_cast<BlockArgument>(getTable());
  if (!arg || arg.getOwner() != (*this)->getBlock() ||
      arg.getArgNumber() < AttentionOp::kNumIndexArgs)
    return emitOpError("in a score region reads a table capture (a region "
                       "argument with the captured tensor's own type)");
  return success();
}

static Block *scoreBlockOf(Operation *attention) {
  Region *region = nullptr;
  if (auto op = dyn_cast<AttentionOp>(attention))
    region = &op.getScore();
  else if (auto grad = dyn_cast<AttentionGradOp>(attention))
    region = &grad.getScore();
  if (!region || region->empty())
    return nullptr;
  return &region->front();
}

OperandRange mlir::tg::attentionCaptures(Operation *attention) {
  if (auto forward = dyn_cast<AttentionOp>(attention))
    return forward.getCaptures();
  return cast<AttentionGradOp>(attention).getCaptures();
}

bool mlir::tg::isTableCapture(Operation *attention, unsigned index) {
  Block *block = scoreBlockOf(attention);
  ValueRange captures = attentionCaptures(attention);
  unsigned arg = AttentionOp::kNumIndexArgs + index;
  if (!block || index >= captures.size() || arg >= block->getNumArguments())
    return false;
  Value capture = captures[index];
  return tensorTypeOf(capture).getRank() >= 1 &&
         block->getArgument(arg).getType() == capture.getType();
}

Type mlir::tg::captureArgType(Value capture, bool table) {
  if (table)
    return capture.getType();
  return RankedTensorType::get({}, tensorTypeOf(capture).getElementType());
}

SmallVector<GatherOp> mlir::tg::gathersOfArgument(Block &block,
                                                  unsigned tableArg) {
  SmallVector<GatherOp> gathers;
  Value table = block.getArgument(tableArg);
  for (Operation &op : block)
    if (auto gather = dyn_cast<GatherOp>(op); gather && gather.getTable() == table)
      gathers.push_back(gather);
  return gathers;
}

LogicalResult mlir::tg::detail::verifyAttentionCaptures(
    Operation *op, ValueRange captures, ArrayRef<int64_t> scores) {
  for (auto [i, capture] : llvm::enumerate(captures)) {
    ArrayRef<int64_t> shape = tensorTypeOf(capture).getShape();
    if (isTableCapture(op, i))
      continue; // any shape: read by tg.gather at computed indices
    if (shape.size() != 4 || !isBroadcastableTo(shape, scores))
      return op->emitOpError("capture of shape ")
             << formatShape(shape) << " does not broadcast to the scores "
             << formatShape(scores)
             << " (expected rank 4 with each dimension equal or 1, or a "
                "table capture read by tg.gather)";
  }
  return success();
}

SmallVector<Type> mlir::tg::detail::scoreRegionArgTypes(Operation *op,
                                                        ValueRange captures) {
  Builder builder(op->getContext());
  Type i64 = RankedTensorType::get({}, builder.getI64Type());
  SmallVector<Type> types{RankedTensorType::get({}, builder.getF32Type()), i64,
                          i64, i64, i64};
  for (auto [i, capture] : llvm::enumerate(captures))
    types.push_back(captureArgType(capture, isTableCapture(op, i)));
  return types;
}

LogicalResult mlir::tg::detail::verifyTableUses(Operation *op, Block &block,
                                                StringRef regionName,
                                                ValueRange captures) {
  for (auto [i, capture] : llvm::enumerate(captures)) {
    if (!isTableCapture(op, i))
      continue;
    for (OpOperand &use :
         block.getArgument(AttentionOp::kNumIndexArgs + i).getUses()) {
      auto gather = dyn_cast<GatherOp>(use.getOwner());
      if (!gather || use.getOperandNumber() != 0)
        return use.getOwner()->emitOpError("uses table capture ")
               << i << " of type " << capture.getType() << " in region '"
               << regionName
               << "' (a table capture is read only as the table of "
                  "tg.gather)";
    }
  }
  return success();
}
