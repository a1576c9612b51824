#include "tg/Dialect/TG/IR/TGShapes.h"

#include "mlir/IR/Diagnostics.h"
#include "llvm/Support/raw_ostream.h"

using namespace mlir;

std::optional<SmallVector<int64_t>>
tg::broadcastShapes(ArrayRef<ArrayRef<int64_t>> shapes) {
  SmallVector<int64_t> result;
  bool haveRank = false;
  for (ArrayRef<int64_t> shape : shapes) {
    if (shape.empty())
      continue;
    if (!haveRank) {
      result.assign(shape.begin(), shape.end());
      haveRank = true;
      continue;
    }
    if (shape.size() != result.size())
      return std::nullopt;
    for (auto [out, dim] : llvm::zip(result, shape)) {
      if (out == dim || dim == 1)
        continue;
      if (out != 1)
        return std::nullopt;
      out = dim;
    }
  }
  return result;
}

std::string tg::formatShape(ArrayRef<int64_t> shape) {
  std::string text;
  llvm::raw_string_ostream os(text);
  os << "[";
  llvm::interleaveComma(shape, os);
  os << "]";
  return text;
}

LogicalResult tg::inferBroadcastResult(std::optional<Location> loc,
                                       ArrayRef<Type> operandTypes,
                                       Type elementType,
                                       SmallVectorImpl<Type> &inferred) {
  SmallVector<ArrayRef<int64_t>> shapes;
  for (Type type : operandTypes)
    shapes.push_back(cast<ShapedType>(type).getShape());
  std::optional<SmallVector<int64_t>> shape = broadcastShapes(shapes);
  if (!shape) {
    if (loc) {
      InFlightDiagnostic diag = emitError(*loc)
                                << "operand shapes do not broadcast:";
      for (ArrayRef<int64_t> s : shapes)
        diag << " " << formatShape(s);
      diag << " (expected equal ranks, or rank 0, and each dimension equal "
              "or 1)";
    }
    return failure();
  }
  inferred.push_back(RankedTensorType::get(*shape, elementType));
  return success();
}

bool tg::isBroadcastableTo(ArrayRef<int64_t> from, ArrayRef<int64_t> to) {
  if (from.empty())
    return true;
  if (from.size() != to.size())
    return false;
  for (auto [f, t] : llvm::zip(from, to))
    if (f != t && f != 1)
      return false;
  return true;
}

SmallVector<int64_t> tg::rowMajorStrides(ArrayRef<int64_t> shape) {
  SmallVector<int64_t> strides(shape.size(), 1);
  for (int64_t i = static_cast<int64_t>(shape.size()) - 2; i >= 0; --i)
    strides[i] = strides[i + 1] * shape[i + 1];
  return strides;
}
