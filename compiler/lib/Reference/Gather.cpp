// tg.gather at graph level: the index tensors broadcast to the result, each
// element reads the table through gatherOffset.
#include "Gather.h"
#include "Ops.h"
#include "Walker.h"

using namespace mlir;
using namespace mlir::tg;
using namespace mlir::tg::ref;

int64_t mlir::tg::ref::gatherOffset(ArrayRef<int64_t> shape,
                                    const double *indices, GatherMode mode) {
  int64_t offset = 0;
  for (size_t d = 0; d < shape.size(); ++d) {
    // Indices are exact integers; compare as doubles so that huge values
    // (beyond int64) cannot overflow a conversion.
    double index = indices[d];
    double last = static_cast<double>(shape[d] - 1);
    if (index < 0.0 || index > last) {
      if (mode == GatherMode::fill)
        return -1;
      index = index < 0.0 ? 0.0 : last;
    }
    offset = offset * shape[d] + static_cast<int64_t>(index);
  }
  return offset;
}

Results mlir::tg::ref::evalGather(GatherOp op, ValueLookup lookup) {
  const HostTensor &table = lookup(op.getTable());
  HostTensor result =
      HostTensor::zeros(cast<RankedTensorType>(op.getResult().getType()));
  SmallVector<const HostTensor *> indices;
  SmallVector<SmallVector<int64_t>> strides;
  for (Value index : op.getIndices()) {
    indices.push_back(&lookup(index));
    strides.push_back(broadcastStrides(indices.back()->shape, result.shape));
  }
  double fill = 0.0;
  if (auto value = op.getFillValue())
    fill = value->convertToDouble();
  StridedWalker walker(result.shape, strides);
  SmallVector<double> at(indices.size());
  for (double &out : result.values) {
    for (unsigned d = 0; d < indices.size(); ++d)
      at[d] = indices[d]->values[walker.offset(d)];
    int64_t offset = gatherOffset(table.shape, at.data(), op.getMode());
    out = offset < 0 ? fill : table.values[offset];
    walker.next();
  }
  SmallVector<HostTensor> results;
  results.push_back(std::move(result));
  return results;
}
