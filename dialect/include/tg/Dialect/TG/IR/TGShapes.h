#ifndef TG_DIALECT_TG_IR_TGSHAPES_H
#define TG_DIALECT_TG_IR_TGSHAPES_H

#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/Location.h"
#include "mlir/Support/LLVM.h"
#include <optional>

namespace mlir::tg {

/// The broadcast shape of `shapes` under tg's rule: equal ranks (rank-0
/// shapes are scalars that broadcast to anything) and each dimension equal
/// or 1. Returns std::nullopt when the shapes do not broadcast.
std::optional<SmallVector<int64_t>>
broadcastShapes(ArrayRef<ArrayRef<int64_t>> shapes);

/// Shared by the binary pointwise ops: infers the broadcast result type of
/// `operandTypes` with element type `elementType`, or emits an error at `loc`
/// naming the incompatible shapes.
LogicalResult inferBroadcastResult(std::optional<Location> loc,
                                   ArrayRef<Type> operandTypes,
                                   Type elementType,
                                   SmallVectorImpl<Type> &inferred);

/// True when a tensor of shape `from` broadcasts to `to` (same rank or rank
/// 0, each dimension equal or 1).
bool isBroadcastableTo(ArrayRef<int64_t> from, ArrayRef<int64_t> to);

/// The row-major (contiguous) strides of `shape`, in elements.
SmallVector<int64_t> rowMajorStrides(ArrayRef<int64_t> shape);

/// Formats a shape as `[2, 8, 128]` for diagnostics.
std::string formatShape(ArrayRef<int64_t> shape);

} // namespace mlir::tg

#endif // TG_DIALECT_TG_IR_TGSHAPES_H
