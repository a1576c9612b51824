// Describing tg buffers as cuDNN tensors (TensorLayout.h).
#include "TensorLayout.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/BuiltinTypes.h"
#include "llvm/Support/raw_ostream.h"

using namespace mlir;
using namespace mlir::tg;
using namespace mlir::tg::cudnn;

SmallVector<int64_t> cudnn::staticStridesOf(Value value) {
  auto type = cast<RankedTensorType>(value.getType());
  if (auto arg = dyn_cast<BlockArgument>(value))
    if (auto fn = dyn_cast_or_null<func::FuncOp>(arg.getOwner()->getParentOp()))
      if (auto strides = fn.getArgAttrOfType<DenseI64ArrayAttr>(
              arg.getArgNumber(), "tg.strides"))
        return SmallVector<int64_t>(strides.asArrayRef());
  return denseStrides(type.getShape());
}

SmallVector<int64_t> cudnn::padDims(ArrayRef<int64_t> shape, unsigned rank) {
  SmallVector<int64_t> dims(rank > shape.size() ? rank - shape.size() : 0, 1);
  dims.append(shape.begin(), shape.end());
  return dims;
}

/// A positive stride for a unit dimension placed outside `dims`/`strides`:
/// the span of the whole tensor (any value is valid for a unit dimension;
/// this one keeps the strides ordered).
static int64_t outerStride(ArrayRef<int64_t> dims, ArrayRef<int64_t> strides) {
  int64_t span = 1;
  for (auto [d, s] : llvm::zip(dims, strides))
    span = std::max(span, d * s);
  return span;
}

static bool describable(Value value, ArrayRef<int64_t> strides,
                        std::string &reason) {
  auto type = cast<RankedTensorType>(value.getType());
  if (!dtypeOf(type.getElementType())) {
    reason = "element type " + typeText(type.getElementType()) +
             " has no cuDNN data type";
    return false;
  }
  for (int64_t d : type.getShape())
    if (d <= 0) {
      reason = "a tensor of type " + typeText(type) +
               " is empty (cuDNN dimensions must be positive)";
      return false;
    }
  if (strides.size() != size_t(type.getRank())) {
    reason = "the buffer of a " + typeText(type) + " tensor has " +
             std::to_string(strides.size()) + " strides";
    return false;
  }
  for (auto [d, s] : llvm::zip(type.getShape(), strides))
    if (s <= 0 && d != 1) {
      reason = "the buffer of a " + typeText(type) +
               " tensor has a stride that is not positive (cuDNN strides "
               "must be positive; broadcast buffers cannot be described)";
      return false;
    }
  return true;
}

int64_t cudnn::bindPadded(GraphBuilder &graph, Value value, unsigned rank,
                          StridesFn stridesOf, std::string &reason) {
  auto type = cast<RankedTensorType>(value.getType());
  SmallVector<int64_t> strides = stridesOf(value);
  if (!describable(value, strides, reason))
    return 0;
  // Unit dimensions may carry any stride; cuDNN only takes positive ones.
  ArrayRef<int64_t> shape = type.getShape();
  for (auto [d, s] : llvm::zip(shape, strides))
    if (d == 1 && s <= 0)
      s = 1;
  SmallVector<int64_t> dims = padDims(shape, rank);
  SmallVector<int64_t> padded(dims.size() - shape.size(),
                              outerStride(shape, strides));
  padded.append(strides.begin(), strides.end());
  return graph.bind(value, dims, padded);
}

int64_t cudnn::bindWithUnitDims(GraphBuilder &graph, Value value,
                                ArrayRef<int64_t> dims, ArrayRef<bool> inserted,
                                StridesFn stridesOf, std::string &reason) {
  SmallVector<int64_t> strides = stridesOf(value);
  if (!describable(value, strides, reason))
    return 0;
  // Inserted unit dims take the stride a dense tensor would give them (that
  // of the next kept dim times its size), so the layout reads naturally.
  SmallVector<int64_t> full(dims.size(), 1);
  int64_t inner = 1;
  int next = int(strides.size()) - 1;
  for (int i = int(dims.size()) - 1; i >= 0; --i) {
    if (inserted[i] || next < 0) {
      full[i] = inner;
      continue;
    }
    int64_t s = strides[next--];
    full[i] = s > 0 ? s : inner;
    inner = full[i] * dims[i];
  }
  return graph.bind(value, dims, full);
}

SmallVector<int64_t> cudnn::packedStridesLike(ArrayRef<int64_t> dims,
                                              ArrayRef<int64_t> strides) {
  // Outermost first: larger strides, ties (unit dims) in dim order.
  SmallVector<unsigned> order(dims.size());
  for (unsigned i = 0; i < order.size(); ++i)
    order[i] = i;
  llvm::stable_sort(
      order, [&](unsigned a, unsigned b) { return strides[a] > strides[b]; });
  SmallVector<int64_t> packed(dims.size(), 1);
  int64_t next = 1;
  for (unsigned i = order.size(); i-- > 0;) {
    packed[order[i]] = next;
    next *= std::max<int64_t>(dims[order[i]], 1);
  }
  return packed;
}

std::string cudnn::typeText(Type type) {
  std::string text;
  llvm::raw_string_ostream os(text);
  type.print(os);
  return text;
}

std::string cudnn::withArticle(Type type) {
  std::string text = typeText(type);
  // i8, f16, f8E4M3FN are read "eye-eight", "eff-sixteen".
  bool vowel = !text.empty() && (text[0] == 'i' || text[0] == 'f');
  return (vowel ? "an " : "a ") + text;
}
