//===- TensorView.cpp - Layout ops folded into load index computations ----===//
//
// transpose and broadcast always fold into strides; a reshape folds when
// each run of mutually contiguous source dimensions is split or merged
// whole (as for views of contiguous tensors), or when it merges a broadcast
// run into the dimension outside it (a divisor: group-wise scales
// [K / G, 1, N] viewed as [K, N]); otherwise the partitioner copies it.
//
//===----------------------------------------------------------------------===//

#include "KernelEmitters.h"

#include "tg/Lowering/ScalarExpr.h"

using namespace mlir;
using namespace mlir::tg;
using namespace mlir::tg::lowering;

TensorView TensorView::ofBuffer(Value value) {
  TensorView view;
  view.kind = Kind::Buffer;
  view.source = value;
  view.elementType = elementTypeOf(value);
  view.shape.assign(shapeOf(value).begin(), shapeOf(value).end());
  view.strides = rowMajorStrides(view.shape);
  view.divisors.assign(view.shape.size(), 1);
  view.sourceShape = view.shape;
  return view;
}

TensorView TensorView::ofSplat(Value value, std::string literal) {
  TensorView view = ofBuffer(value);
  view.kind = Kind::Splat;
  view.literal = std::move(literal);
  view.strides.assign(view.shape.size(), 0);
  return view;
}

TensorView TensorView::ofIndex(GenIndexOp op) {
  TensorView view = ofBuffer(op.getResult());
  view.kind = Kind::Index;
  view.axis = op.getAxis();
  return view;
}

bool TensorView::isDenseBufferOf(Value value) const {
  return kind == Kind::Buffer && source == value && isRowMajor();
}

bool TensorView::hasDivisors() const {
  return llvm::any_of(llvm::zip(shape, divisors), [](auto pair) {
    return std::get<0>(pair) != 1 && std::get<1>(pair) != 1;
  });
}

bool TensorView::isRowMajor() const {
  if (hasDivisors())
    return false;
  SmallVector<int64_t> dense = rowMajorStrides(shape);
  for (auto [size, stride, expected] : llvm::zip(shape, strides, dense))
    if (size != 1 && stride != expected)
      return false;
  return true;
}

TensorView lowering::transposeView(const TensorView &view,
                                   ArrayRef<int64_t> perm) {
  TensorView result = view;
  for (auto [i, from] : llvm::enumerate(perm)) {
    result.shape[i] = view.shape[from];
    result.strides[i] = view.strides[from];
    result.divisors[i] = view.divisors[from];
  }
  return result;
}

TensorView lowering::broadcastView(const TensorView &view,
                                   ArrayRef<int64_t> shape) {
  TensorView result = view;
  result.shape.assign(shape.begin(), shape.end());
  result.strides.assign(shape.size(), 0);
  result.divisors.assign(shape.size(), 1);
  if (view.shape.empty()) // a scalar repeats everywhere
    return result;
  for (auto [i, size] : llvm::enumerate(shape))
    if (view.shape[i] == size) {
      result.strides[i] = view.strides[i];
      result.divisors[i] = view.divisors[i];
    }
  return result;
}

std::optional<TensorView> lowering::reshapeView(const TensorView &view,
                                                ArrayRef<int64_t> shape) {
  TensorView result = view;
  result.shape.assign(shape.begin(), shape.end());
  result.strides.assign(shape.size(), 0);
  result.divisors.assign(shape.size(), 1);
  if (numElements(shape) == 0)
    return result; // nothing is ever read
  if (view.hasDivisors())
    return std::nullopt; // not addressable by a second divisor: copied

  // Runs of source dimensions (innermost first) whose elements are laid out
  // as one contiguous block of `size` elements with step `innerStride`.
  struct Run {
    int64_t size;
    int64_t innerStride;
  };
  SmallVector<Run> runs;
  for (int64_t d = static_cast<int64_t>(view.shape.size()) - 1; d >= 0; --d) {
    if (view.shape[d] == 1)
      continue; // size-1 dimensions do not affect addressing
    if (!runs.empty() &&
        view.strides[d] == runs.back().innerStride * runs.back().size)
      runs.back().size *= view.shape[d];
    else
      runs.push_back({view.shape[d], view.strides[d]});
  }

  // Give the new dimensions, innermost first, to the runs in order; a new
  // dimension must not straddle two runs, except that one may start with a
  // whole broadcast run (stride 0): every index of it reads the same
  // element, so the dimension reads the next run at index / run size.
  size_t run = 0;
  int64_t filled = 1; // elements of runs[run] covered so far
  for (int64_t d = static_cast<int64_t>(shape.size()) - 1; d >= 0; --d) {
    if (shape[d] == 1)
      continue;
    if (run == runs.size())
      return std::nullopt;
    int64_t repeat = runs[run].size;
    if (runs[run].innerStride == 0 && filled == 1 && shape[d] > repeat &&
        shape[d] % repeat == 0 && run + 1 < runs.size() &&
        runs[run + 1].size % (shape[d] / repeat) == 0) {
      ++run;
      result.strides[d] = runs[run].innerStride;
      result.divisors[d] = repeat;
      filled = shape[d] / repeat;
      if (filled == runs[run].size) {
        ++run;
        filled = 1;
      }
      continue;
    }
    result.strides[d] = runs[run].innerStride * filled;
    filled *= shape[d];
    if (filled == runs[run].size) {
      ++run;
      filled = 1;
    } else if (runs[run].size % filled != 0) {
      return std::nullopt;
    }
  }
  if (run != runs.size())
    return std::nullopt;
  return result;
}

/// `sum(coords[d] / divisors[d] * strides[d])` without zero terms.
std::string lowering::offsetExpr(const TensorView &view,
                                 ArrayRef<std::string> coords) {
  std::string expr;
  for (auto [size, stride, divisor, coord] :
       llvm::zip(view.shape, view.strides, view.divisors, coords)) {
    if (size == 1 || stride == 0 || coord == "0")
      continue;
    if (!expr.empty())
      expr += " + ";
    std::string index =
        divisor == 1 ? coord : "(" + coord + " / " + std::to_string(divisor) + ")";
    expr += stride == 1 ? index : index + " * " + std::to_string(stride);
  }
  return expr.empty() ? "0" : expr;
}

/// For views that only permute or broadcast the gen_index shape: the logical
/// dimension that walks the index axis (-1 if none). nullopt when the view
/// mixes dimensions (after a reshape).
static std::optional<int64_t> indexDimension(const TensorView &view) {
  if (view.hasDivisors())
    return std::nullopt;
  SmallVector<int64_t> sourceStrides = rowMajorStrides(view.sourceShape);
  int64_t axisDim = -1;
  SmallVector<bool> used(view.sourceShape.size(), false);
  for (auto [d, size, stride] : llvm::enumerate(view.shape, view.strides)) {
    if (size == 1 || stride == 0)
      continue;
    std::optional<size_t> match;
    for (auto [j, sourceSize, sourceStride] :
         llvm::enumerate(view.sourceShape, sourceStrides))
      if (!used[j] && sourceSize == size && sourceStride == stride)
        match = j;
    if (!match)
      return std::nullopt;
    used[*match] = true;
    if (static_cast<int64_t>(*match) == view.axis)
      axisDim = d;
  }
  return axisDim;
}

std::string lowering::emitLoad(const TensorView &view,
                               ArrayRef<std::string> coords,
                               KernelParams &params, StringRef linear) {
  auto offset = [&] {
    return !linear.empty() && view.isRowMajor() ? linear.str()
                                                 : offsetExpr(view, coords);
  };
  switch (view.kind) {
  case TensorView::Kind::Splat:
    return view.literal;
  case TensorView::Kind::Buffer:
    return "tg_load(" + params.input(view.source) + ", " + offset() + ")";
  case TensorView::Kind::Index:
    break;
  }
  int64_t axisSize = view.sourceShape[view.axis];
  if (axisSize == 1)
    return "0LL";
  std::string index;
  if (std::optional<int64_t> dim = indexDimension(view)) {
    index = *dim < 0 ? "0LL" : coords[*dim];
  } else {
    int64_t axisStride = rowMajorStrides(view.sourceShape)[view.axis];
    index = offset();
    if (index.find(' ') != std::string::npos)
      index = "(" + index + ")";
    if (axisStride != 1)
      index = "(" + index + " / " + std::to_string(axisStride) + ")";
    index = "(" + index + " % " + std::to_string(axisSize) + ")";
  }
  // Indices beyond the element type's range wrap like any integer result.
  unsigned width = view.elementType.getIntOrFloatBitWidth();
  if (width < 64 && axisSize > (int64_t(1) << (width - 1)))
    return cudaRoundTo(index, view.elementType);
  return index;
}
