#ifndef TG_LIB_CUDNN_TENSORLAYOUT_H
#define TG_LIB_CUDNN_TENSORLAYOUT_H

// Describing tg buffers as cuDNN tensors: cuDNN wants rank >= 3, so lower
// ranks gain leading unit dimensions, and every stride must be positive.

#include "tg/Cudnn/CudnnLowering.h"

#include <string>

namespace mlir::tg::cudnn {

/// The strides a buffer will have when the plan is built, as far as the op
/// alone tells: a graph argument's tg.strides, else dense row-major (the
/// plan gives op results and intermediates dense buffers).
SmallVector<int64_t> staticStridesOf(Value value);

/// `shape` with leading 1s up to `rank` (rank-0 shapes become all ones).
SmallVector<int64_t> padDims(ArrayRef<int64_t> shape, unsigned rank);

/// Binds `value` as a tensor of rank `rank` (leading unit dimensions added)
/// with the strides `stridesOf` reports. Returns 0 and sets `reason` when
/// cuDNN cannot describe the buffer (an empty dimension, a stride that is
/// not positive).
int64_t bindPadded(GraphBuilder &graph, Value value, unsigned rank,
                   StridesFn stridesOf, std::string &reason);

/// Binds `value` with `dims` (its shape with unit dimensions inserted, e.g.
/// a reduction result without keepdim) and strides from `stridesOf` for the
/// dimensions it has; inserted dimensions get any positive stride.
int64_t bindWithUnitDims(GraphBuilder &graph, Value value,
                         ArrayRef<int64_t> dims, ArrayRef<bool> inserted,
                         StridesFn stridesOf, std::string &reason);

/// Packed strides for `dims` with the dimension order of `strides` (the
/// innermost dim of `strides` stays innermost): the layout of a virtual
/// tensor computed element by element from a bound one.
SmallVector<int64_t> packedStridesLike(ArrayRef<int64_t> dims,
                                       ArrayRef<int64_t> strides);

/// The text of a type, for reasons ("tensor<2x3xf16>", "bf16").
std::string typeText(Type type);
/// "an f32", "a bf16": the type's text with its article.
std::string withArticle(Type type);

} // namespace mlir::tg::cudnn

#endif
