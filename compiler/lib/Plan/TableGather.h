#ifndef TG_LIB_PLAN_TABLEGATHER_H
#define TG_LIB_PLAN_TABLEGATHER_H

// tg.gather of a table capture in the attention kernels' score regions, for
// the forward (AttentionStep) and the fused backward (AttentionGradStep):
// the C++ of a read through the kernel's clamping reader
// (compiler/lib/Codegen/TableCaptures.h) and the table's kernel arguments.

#include "tg/Lowering/KernelStep.h"

#include <string>

namespace mlir::tg {
class GatherOp;

/// The compute-type expression of `gather` given its index expressions:
/// `<table>_at(captures, i..)`, and in fill mode the fill value where
/// `<table>_in_range` fails. `argNames` names the region's arguments.
std::string emitTableGather(GatherOp gather, ArrayRef<std::string> argNames,
                            ArrayRef<std::string> indices);

/// Appends a table capture's arguments: its buffer, sizes (the clamp), then
/// its strides.
void appendTableArgs(SmallVectorImpl<KernelArg> &args, Value table,
                     ArrayRef<int64_t> strides);

} // namespace mlir::tg

#endif // TG_LIB_PLAN_TABLEGATHER_H
