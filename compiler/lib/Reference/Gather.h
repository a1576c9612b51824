#ifndef TG_REFERENCE_GATHER_H
#define TG_REFERENCE_GATHER_H

// tg.gather's index rule, shared by the graph-level op and the gathers of
// score regions: which element of a table a list of indices reads.

#include "tg/Dialect/TG/IR/TGOps.h"

#include <cstdint>

namespace mlir::tg::ref {

/// The row-major offset in a table of `shape` that tg.gather reads at
/// `indices` (one exact i64 value per dimension): each index clamped to
/// [0, size - 1] in clamp mode; -1 in fill mode when any index is outside
/// its dimension (the fill value is read instead).
int64_t gatherOffset(ArrayRef<int64_t> shape, const double *indices,
                     GatherMode mode);

} // namespace mlir::tg::ref

#endif // TG_REFERENCE_GATHER_H
