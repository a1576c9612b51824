#ifndef TG_CUDNN_GRAPHBUILDER_H
#define TG_CUDNN_GRAPHBUILDER_H

// Builds one tgc::cudnn::Graph (runtime/include/tgc/CudnnGraph.h) while
// remembering which graph tensors are the buffers of which SSA values, so
// that the plan builder can name them.

#include "mlir/IR/Types.h"
#include "mlir/IR/Value.h"
#include "mlir/Support/LLVM.h"
#include "tgc/CudnnGraph.h"

#include <string>

namespace mlir::tg::cudnn {

using tgc::DType;

/// A workspace tensor of the step that is no SSA value (e.g. the backward's
/// row sums): dense row-major, live only during the step.
struct ScratchTensor {
  int64_t uid = 0;
  DType dtype = DType::F32;
  SmallVector<int64_t> shape;
};

class GraphBuilder {
public:
  GraphBuilder(std::string name, int minVersion = 0);

  /// A tensor bound to the buffer of `value` (its dtype), described with
  /// `dims`/`strides` (elements): the buffer's own layout, or a view of it
  /// such as K transposed.
  int64_t bind(Value value, ArrayRef<int64_t> dims, ArrayRef<int64_t> strides);
  /// A workspace tensor that no SSA value owns (dense row-major).
  int64_t scratch(DType dtype, ArrayRef<int64_t> dims);
  /// A virtual tensor (dense row-major strides unless given).
  int64_t virtualTensor(DType dtype, ArrayRef<int64_t> dims,
                        ArrayRef<int64_t> strides = {});
  /// A host scalar passed by value, as a tensor of `rank` ones.
  int64_t scalar(DType dtype, double value, unsigned rank);

  /// Pointwise ops; the result is a virtual tensor of `resultType` whose
  /// dims are the broadcast of the operands' dims. `mode` is a cuDNN
  /// pointwise mode name (tgc/CudnnGraph.h).
  int64_t unary(StringRef mode, int64_t x, DType resultType = DType::F32);
  int64_t binary(StringRef mode, int64_t x, int64_t b,
                 DType resultType = DType::F32);
  /// binary_select: y = cond ? x : b (t is the i1 condition).
  int64_t select(int64_t cond, int64_t x, int64_t b,
                 DType resultType = DType::F32);
  /// Indices along `axis` of a tensor shaped like `like` (i32 result).
  int64_t genIndex(int64_t like, int64_t axis);
  /// Writes y = mode(x[, b]) into an existing tensor `y` (e.g. a bound
  /// output).
  void pointwiseInto(StringRef mode, int64_t x, int64_t b, int64_t y);
  /// c = a @ b over the last two dims, batched over the leading ones; the
  /// result is virtual (f32) unless written into an existing `c`.
  int64_t matmul(int64_t a, int64_t b, DType resultType = DType::F32);
  void matmulInto(int64_t a, int64_t b, int64_t c);
  /// Reduction of x to the dims of `resultDims` (1 where reduced).
  int64_t reduce(StringRef mode, int64_t x, ArrayRef<int64_t> resultDims,
                 DType resultType = DType::F32);
  void reduceInto(StringRef mode, int64_t x, int64_t y);
  /// Appends a raw op (for sdpa_fwd/sdpa_bwd/rng).
  void addOp(tgc::cudnn::Op op);
  /// Sets the math precision of the last op (e.g. int32 for index math,
  /// boolean for comparisons, as cudnn-frontend does).
  void setLastCompute(DType compute) { graph_.ops.back().compute = compute; }

  const tgc::cudnn::Tensor &tensor(int64_t uid) const;
  ArrayRef<int64_t> dims(int64_t uid) const;

  /// The finished graph and its bindings.
  tgc::cudnn::Graph &graph() { return graph_; }
  ArrayRef<std::pair<int64_t, Value>> bindings() const { return bindings_; }
  ArrayRef<ScratchTensor> scratchTensors() const { return scratch_; }

private:
  int64_t addTensor(tgc::cudnn::Tensor tensor);
  tgc::cudnn::Graph graph_;
  SmallVector<std::pair<int64_t, Value>> bindings_;
  SmallVector<ScratchTensor> scratch_;
  int64_t nextUid_ = 1;
};

/// The runtime dtype of a tg element type (bf16 ... i1), if it has one.
std::optional<DType> dtypeOf(Type elementType);

/// Dense row-major strides of `dims`.
SmallVector<int64_t> denseStrides(ArrayRef<int64_t> dims);

} // namespace mlir::tg::cudnn

#endif // TG_CUDNN_GRAPHBUILDER_H
