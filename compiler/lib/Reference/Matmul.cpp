// tg.matmul and tg.fused_matmul.
#include "Ops.h"
#include "Pointwise.h"
#include "Walker.h"

#include "tg/Dialect/TG/IR/TGShapes.h"

using namespace mlir;
using namespace mlir::tg;
using namespace mlir::tg::ref;

static RankedTensorType typeOf(Value value) {
  return cast<RankedTensorType>(value.getType());
}

/// The batched product of `a` [..., M, K] and `b` [..., K, N] (batch
/// dimensions broadcast) as accumulator values of type `accType`. Float
/// products accumulate in double, integer ones exactly in wrapping int64;
/// the sum is then rounded once to the accumulator's element type.
static HostTensor accumulate(const HostTensor &a, const HostTensor &b,
                             RankedTensorType accType) {
  HostTensor acc = HostTensor::zeros(accType);
  size_t rank = acc.shape.size();
  int64_t m = a.shape[rank - 2], k = a.shape[rank - 1], n = b.shape[rank - 1];
  ArrayRef<int64_t> batchShape = ArrayRef<int64_t>(acc.shape).drop_back(2);
  // Batch strides of each operand in units of whole matrices.
  auto batchStrides = [&](const HostTensor &t) {
    SmallVector<int64_t> strides = broadcastStrides(
        ArrayRef<int64_t>(t.shape).drop_back(2), batchShape);
    return strides;
  };
  StridedWalker walker(batchShape, {batchStrides(a), batchStrides(b)});
  int64_t batches = 1;
  for (int64_t d : batchShape)
    batches *= d;
  bool integer = classifyElement(a.elementType).isInt() &&
                 classifyElement(b.elementType).isInt();
  ElementInfo accInfo = classifyElement(accType.getElementType());
  std::vector<double> row(n);
  std::vector<int64_t> intRow(n);
  for (int64_t batch = 0; batch < batches; ++batch) {
    const double *aMat = a.values.data() + walker.offset(0) * m * k;
    const double *bMat = b.values.data() + walker.offset(1) * k * n;
    double *out = acc.values.data() + batch * m * n;
    walker.next();
    for (int64_t i = 0; i < m; ++i) {
      if (integer) {
        std::fill(intRow.begin(), intRow.end(), 0);
        for (int64_t t = 0; t < k; ++t) {
          auto av = static_cast<uint64_t>(static_cast<int64_t>(aMat[i * k + t]));
          for (int64_t j = 0; j < n; ++j)
            intRow[j] = static_cast<int64_t>(
                static_cast<uint64_t>(intRow[j]) +
                av * static_cast<uint64_t>(
                         static_cast<int64_t>(bMat[t * n + j])));
        }
        for (int64_t j = 0; j < n; ++j)
          out[i * n + j] = roundValue(accInfo, static_cast<double>(intRow[j]));
        continue;
      }
      std::fill(row.begin(), row.end(), 0.0);
      for (int64_t t = 0; t < k; ++t) {
        double av = aMat[i * k + t];
        for (int64_t j = 0; j < n; ++j)
          row[j] += av * bMat[t * n + j];
      }
      for (int64_t j = 0; j < n; ++j)
        out[i * n + j] = roundValue(accInfo, row[j]);
    }
  }
  return acc;
}

Results mlir::tg::ref::evalMatmul(MatmulOp op, ValueLookup lookup) {
  RankedTensorType resultType = typeOf(op.getResult());
  HostTensor acc = accumulate(
      lookup(op.getA()), lookup(op.getB()),
      RankedTensorType::get(resultType.getShape(), op.getAccumulatorType()));
  ElementInfo from = classifyElement(acc.elementType);
  ElementInfo to = classifyElement(resultType.getElementType());
  for (double &value : acc.values)
    value = castValue(value, from, to);
  acc.elementType = resultType.getElementType();
  SmallVector<HostTensor> results;
  results.push_back(std::move(acc));
  return results;
}

/// Applies a per-element region to every element of `input`: arguments
/// are the element and the captures at the same position (broadcast).
/// The result has `input`'s shape and element type `resultElement`.
static FailureOr<HostTensor> mapRegion(Region &region, const HostTensor &input,
                                       ArrayRef<const HostTensor *> captures,
                                       Type resultElement) {
  FailureOr<ScalarProgram> program = ScalarProgram::compile(region.front());
  if (failed(program))
    return failure();
  HostTensor result = HostTensor::zeros(
      RankedTensorType::get(input.shape, resultElement));
  SmallVector<SmallVector<int64_t>> strides;
  for (const HostTensor *capture : captures)
    strides.push_back(broadcastStrides(capture->shape, input.shape));
  StridedWalker walker(input.shape, strides);
  SmallVector<double> args(1 + captures.size());
  for (size_t i = 0; i < input.values.size(); ++i) {
    args[0] = input.values[i];
    for (unsigned c = 0; c < captures.size(); ++c)
      args[1 + c] = captures[c]->values[walker.offset(c)];
    result.values[i] = program->run(args);
    walker.next();
  }
  return result;
}

Results mlir::tg::ref::evalFusedMatmul(FusedMatmulOp op, ValueLookup lookup) {
  auto pointers = [&](ValueRange values) {
    SmallVector<const HostTensor *> tensors;
    for (Value value : values)
      tensors.push_back(&lookup(value));
    return tensors;
  };
  // Prologues (an empty region is the identity).
  auto prologue = [&](Region &region, Value operand, ValueRange captures,
                      unsigned index) -> FailureOr<HostTensor> {
    if (region.empty())
      return lookup(operand);
    return mapRegion(region, lookup(operand), pointers(captures),
                     op.getPrologueResultType(index));
  };
  FailureOr<HostTensor> a =
      prologue(op.getPrologueA(), op.getA(), op.getACaptures(), 0);
  if (failed(a))
    return failure();
  FailureOr<HostTensor> b =
      prologue(op.getPrologueB(), op.getB(), op.getBCaptures(), 1);
  if (failed(b))
    return failure();
  RankedTensorType resultType = typeOf(op.getResult());
  HostTensor acc = accumulate(
      *a, *b,
      RankedTensorType::get(resultType.getShape(), op.getAccumulatorType()));
  SmallVector<HostTensor> results;
  if (op.getEpilogue().empty()) {
    ElementInfo from = classifyElement(acc.elementType);
    ElementInfo to = classifyElement(resultType.getElementType());
    for (double &value : acc.values)
      value = castValue(value, from, to);
    acc.elementType = resultType.getElementType();
    results.push_back(std::move(acc));
    return results;
  }
  FailureOr<HostTensor> out =
      mapRegion(op.getEpilogue(), acc, pointers(op.getEpilogueCaptures()),
                resultType.getElementType());
  if (failed(out))
    return failure();
  results.push_back(std::move(*out));
  return results;
}
