// Reductions, index generation, layout ops, softmax and dropout.
#include "Ops.h"
#include "Walker.h"

#include "device/philox.cuh" // the kernels' dropout keep bit

#include <cmath>
#include <limits>

using namespace mlir;
using namespace mlir::tg;
using namespace mlir::tg::ref;

static RankedTensorType typeOf(Value value) {
  return cast<RankedTensorType>(value.getType());
}

static SmallVector<HostTensor> single(HostTensor tensor) {
  SmallVector<HostTensor> results;
  results.push_back(std::move(tensor));
  return results;
}

uint64_t mlir::tg::ref::rngScalar(const HostTensor &tensor) {
  return static_cast<uint64_t>(tgc::doubleToInt64Wrapping(tensor.values[0]));
}

//===----------------------------------------------------------------------===//
// Reduce
//===----------------------------------------------------------------------===//

Results mlir::tg::ref::evalReduce(ReduceOp op, ValueLookup lookup) {
  const HostTensor &input = lookup(op.getInput());
  HostTensor result = HostTensor::zeros(typeOf(op.getResult()));
  ElementInfo info = classifyElement(input.elementType);
  // Walk the input; each element lands in the output element that has the
  // same index with the reduced dimensions dropped (stride 0).
  SmallVector<int64_t> outStrides(input.shape.size(), 0);
  {
    SmallVector<bool> reduced(input.shape.size(), false);
    for (int64_t dim : op.getDims())
      reduced[dim] = true;
    int64_t stride = 1;
    for (int64_t dim = static_cast<int64_t>(input.shape.size()) - 1; dim >= 0;
         --dim) {
      if (reduced[dim])
        continue;
      outStrides[dim] = stride;
      stride *= input.shape[dim];
    }
  }
  ReduceKind kind = op.getKind();
  bool isFloat = info.isFloat();
  // Floats accumulate in double; integers in wrapping int64.
  std::vector<double> acc(result.values.size());
  std::vector<int64_t> intAcc(result.values.size());
  const double inf = std::numeric_limits<double>::infinity();
  for (size_t i = 0; i < acc.size(); ++i) {
    acc[i] = kind == ReduceKind::sum ? 0.0
             : kind == ReduceKind::max ? -inf
                                       : inf;
    intAcc[i] = kind == ReduceKind::sum ? 0
                : kind == ReduceKind::max ? std::numeric_limits<int64_t>::min()
                                          : std::numeric_limits<int64_t>::max();
  }
  StridedWalker walker(input.shape, {outStrides});
  for (double value : input.values) {
    int64_t out = walker.offset(0);
    walker.next();
    if (isFloat) {
      double &a = acc[out];
      if (kind == ReduceKind::sum)
        a += value;
      else if (std::isnan(value) || std::isnan(a))
        a = std::numeric_limits<double>::quiet_NaN();
      else if (kind == ReduceKind::max)
        a = value > a ? value : a;
      else
        a = value < a ? value : a;
      continue;
    }
    int64_t v = tgc::doubleToInt64Wrapping(value);
    int64_t &a = intAcc[out];
    if (kind == ReduceKind::sum)
      a = static_cast<int64_t>(static_cast<uint64_t>(a) +
                               static_cast<uint64_t>(v));
    else if (kind == ReduceKind::max)
      a = v > a ? v : a;
    else
      a = v < a ? v : a;
  }
  for (size_t i = 0; i < acc.size(); ++i)
    result.values[i] = roundValue(
        info, isFloat ? acc[i] : static_cast<double>(intAcc[i]));
  return single(std::move(result));
}

//===----------------------------------------------------------------------===//
// gen_index and layout
//===----------------------------------------------------------------------===//

Results mlir::tg::ref::evalGenIndex(GenIndexOp op, ValueLookup) {
  HostTensor result = HostTensor::zeros(typeOf(op.getResult()));
  ElementInfo info = classifyElement(result.elementType);
  uint64_t axis = op.getAxis();
  SmallVector<int64_t> strides = contiguousStrides(result.shape);
  for (size_t i = 0; i < result.values.size(); ++i) {
    int64_t index = (static_cast<int64_t>(i) / strides[axis]) %
                    result.shape[axis];
    result.values[i] = roundValue(info, static_cast<double>(index));
  }
  return single(std::move(result));
}

Results mlir::tg::ref::evalTranspose(TransposeOp op, ValueLookup lookup) {
  const HostTensor &input = lookup(op.getInput());
  HostTensor result = HostTensor::zeros(typeOf(op.getResult()));
  // Result dimension i walks input dimension perm[i].
  SmallVector<int64_t> inStrides = contiguousStrides(input.shape);
  SmallVector<int64_t> strides;
  for (int64_t p : op.getPerm())
    strides.push_back(inStrides[p]);
  StridedWalker walker(result.shape, {strides});
  for (double &out : result.values) {
    out = input.values[walker.offset(0)];
    walker.next();
  }
  return single(std::move(result));
}

Results mlir::tg::ref::evalReshape(ReshapeOp op, ValueLookup lookup) {
  HostTensor result = lookup(op.getInput());
  result.shape.assign(typeOf(op.getResult()).getShape().begin(),
                      typeOf(op.getResult()).getShape().end());
  return single(std::move(result));
}

Results mlir::tg::ref::evalBroadcast(BroadcastOp op, ValueLookup lookup) {
  const HostTensor &input = lookup(op.getInput());
  HostTensor result = HostTensor::zeros(typeOf(op.getResult()));
  StridedWalker walker(result.shape,
                       {broadcastStrides(input.shape, result.shape)});
  for (double &out : result.values) {
    out = input.values[walker.offset(0)];
    walker.next();
  }
  return single(std::move(result));
}

//===----------------------------------------------------------------------===//
// Softmax and dropout
//===----------------------------------------------------------------------===//

Results mlir::tg::ref::evalSoftmax(SoftmaxOp op, ValueLookup lookup) {
  const HostTensor &input = lookup(op.getInput());
  HostTensor output = HostTensor::zeros(typeOf(op.getOutput()));
  std::optional<HostTensor> stats;
  if (Value s = op.getStats())
    stats = HostTensor::zeros(typeOf(s));
  ElementInfo info = classifyElement(input.elementType);
  ElementInfo f32 = classifyElement(Float32Type::get(op.getContext()));
  uint64_t axis = op.getAxis();
  int64_t outer = 1, n = input.shape[axis], inner = 1;
  for (uint64_t d = 0; d < axis; ++d)
    outer *= input.shape[d];
  for (size_t d = axis + 1; d < input.shape.size(); ++d)
    inner *= input.shape[d];
  const double inf = std::numeric_limits<double>::infinity();
  std::vector<double> exps(n);
  for (int64_t o = 0; o < outer; ++o) {
    for (int64_t in = 0; in < inner; ++in) {
      auto at = [&](int64_t t) { return (o * n + t) * inner + in; };
      double max = -inf;
      bool nan = false;
      for (int64_t t = 0; t < n; ++t) {
        double x = input.values[at(t)];
        nan |= std::isnan(x);
        max = x > max ? x : max;
      }
      double lse;
      if (nan) {
        for (int64_t t = 0; t < n; ++t)
          output.values[at(t)] = std::numeric_limits<double>::quiet_NaN();
        lse = std::numeric_limits<double>::quiet_NaN();
      } else if (max == -inf) {
        // Fully masked slice (or empty): zeros, and -inf stats.
        lse = -inf;
      } else {
        double sum = 0.0;
        for (int64_t t = 0; t < n; ++t) {
          exps[t] = std::exp(input.values[at(t)] - max);
          sum += exps[t];
        }
        for (int64_t t = 0; t < n; ++t)
          output.values[at(t)] = roundValue(info, exps[t] / sum);
        lse = max + std::log(sum);
      }
      if (stats)
        stats->values[o * inner + in] = roundValue(f32, lse);
    }
  }
  SmallVector<HostTensor> results;
  results.push_back(std::move(output));
  if (stats)
    results.push_back(std::move(*stats));
  return results;
}

Results mlir::tg::ref::evalDropout(DropoutOp op, ValueLookup lookup) {
  const HostTensor &input = lookup(op.getInput());
  uint64_t seed = rngScalar(lookup(op.getSeed()));
  uint64_t offset = rngScalar(lookup(op.getOffset()));
  double p = op.getProb().convertToDouble();
  uint32_t threshold = dropout_threshold(p);
  double scale = op.getUnscaled() ? 1.0 : 1.0 / (1.0 - p);
  ElementInfo info = classifyElement(input.elementType);
  HostTensor result = HostTensor::zeros(typeOf(op.getResult()));
  for (size_t i = 0; i < input.values.size(); ++i)
    result.values[i] =
        dropout_keep(seed, offset, i, threshold)
            ? roundValue(info, input.values[i] * scale)
            : 0.0;
  return single(std::move(result));
}
