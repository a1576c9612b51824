// Score regions that only mask (MaskingRegion.h).
#include "MaskingRegion.h"

#include "tg/Dialect/TG/IR/TGOps.h"

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

namespace {
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
