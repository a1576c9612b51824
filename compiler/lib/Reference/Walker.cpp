#include "Walker.h"

using namespace mlir;

SmallVector<int64_t> mlir::tg::ref::contiguousStrides(ArrayRef<int64_t> shape) {
  SmallVector<int64_t> strides(shape.size(), 1);
  for (int64_t i = static_cast<int64_t>(shape.size()) - 2; i >= 0; --i)
    strides[i] = strides[i + 1] * shape[i + 1];
  return strides;
}

SmallVector<int64_t> mlir::tg::ref::broadcastStrides(ArrayRef<int64_t> from,
                                                     ArrayRef<int64_t> to) {
  SmallVector<int64_t> strides(to.size(), 0);
  if (from.empty())
    return strides; // a scalar: every position reads element 0
  SmallVector<int64_t> own = contiguousStrides(from);
  for (size_t i = 0; i < to.size(); ++i)
    strides[i] = from[i] == 1 ? 0 : own[i];
  return strides;
}
