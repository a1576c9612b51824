#ifndef TG_DIALECT_TG_IR_TGOPS_H
#define TG_DIALECT_TG_IR_TGOPS_H

#include "mlir/Bytecode/BytecodeOpInterface.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/TypeUtilities.h"
#include "mlir/IR/OpDefinition.h"
#include "mlir/IR/OpImplementation.h"
#include "mlir/Interfaces/ControlFlowInterfaces.h"
#include "mlir/Interfaces/InferTypeOpInterface.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

#include "tg/Dialect/TG/IR/TGDialect.h"
#include "tg/Dialect/TG/IR/TGShapes.h"

#include "tg/Dialect/TG/IR/TGEnums.h.inc"

namespace mlir::tg {
/// Marks pointwise ops: they act element by element with broadcasting and
/// may appear inside the per-element regions of tg.attention and
/// tg.fused_matmul.
template <typename ConcreteType>
class PointwiseTrait : public OpTrait::TraitBase<ConcreteType, PointwiseTrait> {
};
} // namespace mlir::tg

#define GET_ATTRDEF_CLASSES
#include "tg/Dialect/TG/IR/TGAttrs.h.inc"

#define GET_OP_CLASSES
#include "tg/Dialect/TG/IR/TGOps.h.inc"

namespace mlir::tg {
/// Whether capture `index` of tg.attention / tg.attention_grad is a *table
/// capture*: its argument in the score block has the capture's own type
/// (rank >= 1), so the region reads it only through tg.gather, instead of a
/// rank-0 element taken at the score's position.
bool isTableCapture(Operation *attention, unsigned index);

/// The captured tensors of a tg.attention or tg.attention_grad (the same
/// score region's captures).
OperandRange attentionCaptures(Operation *attention);

/// The type a region argument of capture `capture` has: the capture's own
/// type for a table capture, else its rank-0 element type.
Type captureArgType(Value capture, bool table);

/// The tg.gather ops of `block` that read the table argument `tableArg`,
/// in block order.
SmallVector<GatherOp> gathersOfArgument(Block &block, unsigned tableArg);
} // namespace mlir::tg

#endif // TG_DIALECT_TG_IR_TGOPS_H
