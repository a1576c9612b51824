// Building cuDNN operation graphs (tg/Cudnn/GraphBuilder.h).
#include "tg/Cudnn/GraphBuilder.h"

#include "mlir/IR/BuiltinTypes.h"

#include <cassert>

using namespace mlir;
using namespace mlir::tg::cudnn;
using tgc::cudnn::Op;
using tgc::cudnn::OpKind;
using tgc::cudnn::Tensor;
using tgc::cudnn::TensorKind;

std::optional<DType> tg::cudnn::dtypeOf(Type type) {
  if (type.isBF16())
    return DType::BF16;
  if (type.isF16())
    return DType::F16;
  if (type.isF32())
    return DType::F32;
  if (isa<Float8E4M3FNType>(type))
    return DType::F8E4M3FN;
  if (isa<Float8E5M2Type>(type))
    return DType::F8E5M2;
  if (type.isInteger(1))
    return DType::I1;
  if (type.isInteger(8))
    return DType::I8;
  if (type.isInteger(32))
    return DType::I32;
  if (type.isInteger(64))
    return DType::I64;
  return std::nullopt;
}

SmallVector<int64_t> tg::cudnn::denseStrides(ArrayRef<int64_t> dims) {
  SmallVector<int64_t> strides(dims.size(), 1);
  for (int i = int(dims.size()) - 2; i >= 0; --i)
    strides[i] = strides[i + 1] * std::max<int64_t>(dims[i + 1], 1);
  return strides;
}

GraphBuilder::GraphBuilder(std::string name, int minVersion) {
  graph_.name = std::move(name);
  graph_.minVersion = minVersion;
}

int64_t GraphBuilder::addTensor(Tensor tensor) {
  tensor.uid = nextUid_++;
  graph_.tensors.push_back(std::move(tensor));
  return graph_.tensors.back().uid;
}

const Tensor &GraphBuilder::tensor(int64_t uid) const {
  const Tensor *t = graph_.find(uid);
  assert(t && "unknown cuDNN tensor uid");
  return *t;
}

ArrayRef<int64_t> GraphBuilder::dims(int64_t uid) const {
  return tensor(uid).dims;
}

int64_t GraphBuilder::bind(Value value, ArrayRef<int64_t> dims,
                           ArrayRef<int64_t> strides) {
  auto type = cast<RankedTensorType>(value.getType());
  Tensor t;
  t.dtype = *dtypeOf(type.getElementType());
  t.dims.assign(dims.begin(), dims.end());
  t.strides.assign(strides.begin(), strides.end());
  t.kind = TensorKind::Bound;
  int64_t uid = addTensor(std::move(t));
  bindings_.push_back({uid, value});
  return uid;
}

int64_t GraphBuilder::scratch(DType dtype, ArrayRef<int64_t> dims) {
  Tensor t;
  t.dtype = dtype;
  t.dims.assign(dims.begin(), dims.end());
  SmallVector<int64_t> strides = denseStrides(dims);
  t.strides.assign(strides.begin(), strides.end());
  t.kind = TensorKind::Bound;
  int64_t uid = addTensor(std::move(t));
  scratch_.push_back({uid, dtype, SmallVector<int64_t>(dims)});
  return uid;
}

int64_t GraphBuilder::virtualTensor(DType dtype, ArrayRef<int64_t> dims,
                                    ArrayRef<int64_t> strides) {
  Tensor t;
  t.dtype = dtype;
  t.dims.assign(dims.begin(), dims.end());
  SmallVector<int64_t> dense = denseStrides(dims);
  ArrayRef<int64_t> s = strides.empty() ? ArrayRef<int64_t>(dense) : strides;
  t.strides.assign(s.begin(), s.end());
  t.kind = TensorKind::Virtual;
  return addTensor(std::move(t));
}

int64_t GraphBuilder::scalar(DType dtype, double value, unsigned rank) {
  Tensor t;
  t.dtype = dtype;
  t.dims.assign(rank, 1);
  t.strides.assign(rank, 1);
  t.kind = TensorKind::ByValue;
  t.value = value;
  return addTensor(std::move(t));
}

/// The broadcast of two dim lists of equal rank (1 broadcasts).
static SmallVector<int64_t> broadcastDims(ArrayRef<int64_t> a,
                                          ArrayRef<int64_t> b) {
  assert(a.size() == b.size() && "cuDNN pointwise operands need equal rank");
  SmallVector<int64_t> out;
  for (auto [x, y] : llvm::zip(a, b))
    out.push_back(x == 1 ? y : x);
  return out;
}

static Op pointwiseOp(StringRef mode, int64_t x, int64_t b, int64_t t,
                      int64_t y) {
  Op op;
  op.kind = OpKind::Pointwise;
  op.mode = mode.str();
  op.ports.push_back({"x", x});
  if (b)
    op.ports.push_back({"b", b});
  if (t)
    op.ports.push_back({"t", t});
  op.ports.push_back({"y", y});
  return op;
}

int64_t GraphBuilder::unary(StringRef mode, int64_t x, DType resultType) {
  int64_t y = virtualTensor(resultType, dims(x));
  graph_.ops.push_back(pointwiseOp(mode, x, 0, 0, y));
  return y;
}

int64_t GraphBuilder::binary(StringRef mode, int64_t x, int64_t b,
                             DType resultType) {
  int64_t y = virtualTensor(resultType, broadcastDims(dims(x), dims(b)));
  graph_.ops.push_back(pointwiseOp(mode, x, b, 0, y));
  return y;
}

int64_t GraphBuilder::select(int64_t cond, int64_t x, int64_t b,
                             DType resultType) {
  SmallVector<int64_t> out =
      broadcastDims(broadcastDims(dims(x), dims(b)), dims(cond));
  int64_t y = virtualTensor(resultType, out);
  graph_.ops.push_back(pointwiseOp("binary_select", x, b, cond, y));
  return y;
}

int64_t GraphBuilder::genIndex(int64_t like, int64_t axis) {
  int64_t y = virtualTensor(DType::I32, dims(like));
  Op op = pointwiseOp("gen_index", like, 0, 0, y);
  op.axis = axis;
  graph_.ops.push_back(std::move(op));
  return y;
}

void GraphBuilder::pointwiseInto(StringRef mode, int64_t x, int64_t b,
                                 int64_t y) {
  graph_.ops.push_back(pointwiseOp(mode, x, b, 0, y));
}

int64_t GraphBuilder::matmul(int64_t a, int64_t b, DType resultType) {
  ArrayRef<int64_t> da = dims(a), db = dims(b);
  assert(da.size() == db.size() && da.size() >= 2);
  SmallVector<int64_t> out =
      broadcastDims(da.drop_back(2), db.drop_back(2));
  out.push_back(da[da.size() - 2]);
  out.push_back(db.back());
  int64_t c = virtualTensor(resultType, out);
  matmulInto(a, b, c);
  return c;
}

void GraphBuilder::matmulInto(int64_t a, int64_t b, int64_t c) {
  Op op;
  op.kind = OpKind::Matmul;
  op.ports = {{"a", a}, {"b", b}, {"c", c}};
  graph_.ops.push_back(std::move(op));
}

int64_t GraphBuilder::reduce(StringRef mode, int64_t x,
                             ArrayRef<int64_t> resultDims, DType resultType) {
  int64_t y = virtualTensor(resultType, resultDims);
  reduceInto(mode, x, y);
  return y;
}

void GraphBuilder::reduceInto(StringRef mode, int64_t x, int64_t y) {
  Op op;
  op.kind = OpKind::Reduction;
  op.mode = mode.str();
  op.ports = {{"x", x}, {"y", y}};
  graph_.ops.push_back(std::move(op));
}

void GraphBuilder::addOp(Op op) { graph_.ops.push_back(std::move(op)); }
