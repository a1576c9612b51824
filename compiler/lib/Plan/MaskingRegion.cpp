// The final masks of score regions (MaskingRegion.h).
#include "MaskingRegion.h"

#include "mlir/IR/Matchers.h"
#include "llvm/ADT/SmallPtrSet.h"

#include <limits>

using namespace mlir;
using namespace mlir::tg;

bool mlir::tg::isNegInfConstant(Value value) {
  // A mask value written in a 16-bit type reaches the f32 region through a
  // cast: -inf stays -inf in every float type.
  while (auto cast = value.getDefiningOp<CastOp>()) {
    if (!isa<FloatType>(getElementTypeOrSelf(cast.getInput().getType())))
      break;
    value = cast.getInput();
  }
  ElementsAttr elements;
  if (!matchPattern(value, m_Constant(&elements)) || !elements.isSplat() ||
      !isa<FloatType>(elements.getElementType()))
    return false;
  return elements.getSplatValue<APFloat>().convertToDouble() ==
         -std::numeric_limits<double>::infinity();
}

bool mlir::tg::isBoolConstant(Value value, bool expected) {
  ElementsAttr elements;
  return matchPattern(value, m_Constant(&elements)) && elements.isSplat() &&
         elements.getElementType().isInteger(1) &&
         elements.getSplatValue<APInt>().isZero() != expected;
}

std::optional<std::string>
mlir::tg::gatherExpression(GatherOp gather, GatherEmitter emitGather,
                           function_ref<std::optional<std::string>(Value)> index) {
  SmallVector<std::string> indices;
  for (Value value : gather.getIndices()) {
    std::optional<std::string> expr = index(value);
    if (!expr)
      return std::nullopt;
    indices.push_back(*expr);
  }
  FailureOr<std::string> expr = emitGather(gather, indices);
  if (failed(expr))
    return std::nullopt;
  return *expr;
}

namespace {
/// Calls `factor` on the factors of the conjunction `keep` until one
/// returns true.
bool forEachFactor(Value keep, function_ref<bool(Value)> factor, int depth = 0) {
  if (depth > 16)
    return false;
  if (auto select = keep.getDefiningOp<SelectOp>(); select && isBoolConstant(select.getOnFalse(), false))
    return forEachFactor(select.getCond(), factor, depth + 1) ||
           forEachFactor(select.getOnTrue(), factor, depth + 1);
  return factor(keep);
}

/// Whether `value` is computed without reading `score` (inside `block`).
bool independentOf(Value value, Value score, Block &block,
                   llvm::SmallPtrSetImpl<Operation *> &checked) {
  if (value == score)
    return false;
  Operation *def = value.getDefiningOp();
  if (!def || def->getBlock() != &block || !checked.insert(def).second)
    return true;
  if (def->getNumRegions() != 0)
    return false; // not looked into
  for (Value operand : def->getOperands())
    if (!independentOf(operand, score, block, checked))
      return false;
  return true;
}
} // namespace

void mlir::tg::forEachFinalMaskFactor(Region &score, function_ref<bool(Value)> factor) {
  Value result = score.front().getTerminator()->getOperand(0);
  for (int depth = 0; depth < 16; ++depth) {
    auto select = result.getDefiningOp<SelectOp>();
    if (!select || !isNegInfConstant(select.getOnFalse()) || forEachFactor(select.getCond(), factor))
      return;
    result = select.getOnTrue();
  }
}

bool mlir::tg::scoreRegionOnlyMasks(Region &score) {
  if (!score.hasOneBlock())
    return false;
  Block &block = score.front();
  if (block.getNumArguments() == 0)
    return false;
  Value s = block.getArgument(0);
  Value result = block.getTerminator()->getOperand(0);
  llvm::SmallPtrSet<Operation *, 16> checked;
  while (result != s) {
    auto select = result.getDefiningOp<SelectOp>();
    if (!select || select->getBlock() != &block ||
        !independentOf(select.getCond(), s, block, checked))
      return false;
    if (isNegInfConstant(select.getOnFalse()))
      result = select.getOnTrue();
    else if (isNegInfConstant(select.getOnTrue()))
      result = select.getOnFalse();
    else
      return false;
  }
  return true;
}
