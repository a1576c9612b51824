#ifndef TG_REFERENCE_WALKER_H
#define TG_REFERENCE_WALKER_H

// Row-major iteration over a shape that keeps, for each of several operands,
// the linear offset of the current element in that operand. Broadcast
// dimensions get stride 0, so one walk serves pointwise broadcasting,
// transposes, reductions and captures.

#include "mlir/Support/LLVM.h"
#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/SmallVector.h"

#include <cstdint>

namespace mlir::tg::ref {

/// Row-major strides of `shape`.
SmallVector<int64_t> contiguousStrides(ArrayRef<int64_t> shape);

/// Strides for reading a tensor of shape `from` at positions of the
/// broadcast shape `to` (same rank or rank 0): 0 where `from` has size 1.
SmallVector<int64_t> broadcastStrides(ArrayRef<int64_t> from,
                                      ArrayRef<int64_t> to);

class StridedWalker {
public:
  StridedWalker(ArrayRef<int64_t> shape,
                ArrayRef<SmallVector<int64_t>> operandStrides)
      : shape(shape), strides(operandStrides), index(shape.size(), 0),
        offsets(operandStrides.size(), 0) {}

  int64_t offset(unsigned operand) const { return offsets[operand]; }
  ArrayRef<int64_t> position() const { return index; }

  /// Moves to the next element in row-major order (wraps to the start
  /// after the last).
  void next() {
    for (int64_t dim = static_cast<int64_t>(shape.size()) - 1; dim >= 0;
         --dim) {
      if (++index[dim] < shape[dim]) {
        for (unsigned o = 0; o < offsets.size(); ++o)
          offsets[o] += strides[o][dim];
        return;
      }
      index[dim] = 0;
      for (unsigned o = 0; o < offsets.size(); ++o)
        offsets[o] -= strides[o][dim] * (shape[dim] - 1);
    }
  }

private:
  SmallVector<int64_t> shape;
  SmallVector<SmallVector<int64_t>> strides;
  SmallVector<int64_t> index;
  SmallVector<int64_t> offsets;
};

} // namespace mlir::tg::ref

#endif // TG_REFERENCE_WALKER_H
