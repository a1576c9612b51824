//===- KernelEmitters.h - Internals of the generic kernel generator -------===//
//
// How the partitioner (GenericKernels.cpp) and the per-kind emitters share
// state: every tensor a kernel reads is described by a TensorView (a
// materialised buffer, a splat literal, or generated indices, seen through
// compile-time strides that fold transpose/broadcast/reshape), and every
// emitter appends KernelSteps to one LoweringState.
//
//===----------------------------------------------------------------------===//

#ifndef TG_LIB_LOWERING_KERNELEMITTERS_H
#define TG_LIB_LOWERING_KERNELEMITTERS_H

#include "tg/Dialect/TG/IR/TGOps.h"
#include "tg/Lowering/KernelStep.h"

#include "llvm/ADT/DenseMap.h"

#include <optional>
#include <string>

namespace mlir::tg::lowering {

/// How kernels read a tensor: logical coordinates `c` map to the linear
/// position `sum(c[d] * strides[d])` in the row-major element order of
/// `source` (a buffer, a splat or a gen_index result).
struct TensorView {
  enum class Kind { Buffer, Splat, Index };
  Kind kind = Kind::Buffer;
  /// Buffer: the tensor whose device buffer is read. Splat: the constant.
  /// Index: the tg.gen_index result.
  Value source;
  Type elementType;
  SmallVector<int64_t> shape;   // logical shape
  SmallVector<int64_t> strides; // per logical dimension, in elements
  /// Per logical dimension: index i reads source position i / divisor
  /// (times the stride). 1 except where a reshape merged a broadcast
  /// dimension into the one outside it: a [K / G, 1, N] group scale seen as
  /// [K, N] has divisor G on K (row k reads group k / G).
  SmallVector<int64_t> divisors;
  std::string literal;          // Splat: the value in compute type
  SmallVector<int64_t> sourceShape;
  int64_t axis = 0; // Index: the gen_index axis (in sourceShape)

  static TensorView ofBuffer(Value value);
  static TensorView ofSplat(Value value, std::string literal);
  static TensorView ofIndex(GenIndexOp op);
  /// True when this view reads `value`'s own buffer in row-major order.
  bool isDenseBufferOf(Value value) const;
  /// True when logical row-major order is the source's element order.
  bool isRowMajor() const;
  /// True when some dimension has a divisor other than 1.
  bool hasDivisors() const;
};

TensorView transposeView(const TensorView &view, ArrayRef<int64_t> perm);
TensorView broadcastView(const TensorView &view, ArrayRef<int64_t> shape);
/// The view of a row-major reshape, or nullopt when the new shape cannot be
/// addressed by strides over the same source (then the reshape is copied).
std::optional<TensorView> reshapeView(const TensorView &view,
                                      ArrayRef<int64_t> shape);

/// The buffer parameters of one kernel: inputs (read-only) then outputs.
class KernelParams {
public:
  /// The parameter name for reading `value`'s buffer (added on first use).
  std::string input(Value value);
  /// The parameter name for writing `value`'s buffer.
  std::string output(Value value);
  /// The parameter list, e.g. `const float *__restrict__ in0, ...`.
  std::string declaration() const;
  /// Sets `step.args` and `step.outputs` in parameter order.
  void fill(KernelStep &step) const;

private:
  struct Param {
    Value value;
    bool isOutput;
    std::string name;
  };
  SmallVector<Param> params;
};

/// The element offset of logical coordinates `coords` in a Buffer view's
/// source (C++ expression; "0" when every term is zero).
std::string offsetExpr(const TensorView &view, ArrayRef<std::string> coords);

/// A compute-type expression reading `view` at logical coordinates `coords`
/// (C++ expressions of type long long, or "0"). `linear`, when given, is the
/// row-major linear index of `coords` in view.shape; a view that reads its
/// buffer in row-major order then loads at `linear` directly.
std::string emitLoad(const TensorView &view, ArrayRef<std::string> coords,
                     KernelParams &params, StringRef linear = "");

/// Coordinates of a row-major linear index over a shape: `coords[d]` is a
/// variable name, or "0" for dimensions of size 1.
struct Coordinates {
  SmallVector<std::string> coords;
  SmallVector<std::pair<std::string, std::string>> definitions;
  /// `const long long <name> = <expr>;` lines (indented by `indent`) for
  /// the coordinates that `body` mentions.
  std::string declare(StringRef body, unsigned indent) const;
};
/// Splits the expression `linear` over `shape`, naming the coordinate of
/// dimension d `<prefix><d>`, or `names[d]`.
Coordinates delinearize(StringRef linear, ArrayRef<int64_t> shape,
                        StringRef prefix);
Coordinates delinearize(StringRef linear, ArrayRef<int64_t> shape,
                        ArrayRef<std::string> names);

/// The coordinates of an operand of shape `operandShape` (same rank as
/// `coords`, or rank 0) broadcast to the iteration space: "0" where the
/// operand has size 1.
SmallVector<std::string> broadcastCoords(ArrayRef<std::string> coords,
                                         ArrayRef<int64_t> operandShape);

/// Helpers for writing sources.
std::string indentText(StringRef text, unsigned spaces);
bool mentionsIdentifier(StringRef text, StringRef identifier);
int64_t numElements(ArrayRef<int64_t> shape);
std::string shapeString(ArrayRef<int64_t> shape); // "2x8x128", "scalar"
std::string typeString(Type elementType);           // "bf16", "i1"
std::string i64Literal(int64_t value);               // "128LL"
ArrayRef<int64_t> shapeOf(Value value);
Type elementTypeOf(Value value);
/// The number of blocks for a grid-stride loop over `work` items with
/// `perBlock` items per block (at least 1, capped).
unsigned gridFor(int64_t work, int64_t perBlock);

/// What the partitioner knows while walking a function.
struct LoweringState {
  DenseMap<Value, TensorView> views;
  SmallVector<KernelStep, 0> steps;

  /// The view of `value`; every value read by a kernel has one.
  const TensorView &view(Value value) const;
  /// A fresh entry name `tg_<kind>_<step index>`.
  std::string entryName(StringRef kind) const;
  /// Appends `step` after prefixing the prelude to its source.
  void addStep(KernelStep step);
};

// Each emitter appends at most one step (none when the result is empty) and
// records the views of what it wrote.

/// A fused chain of pointwise ops (and tg.dropout), all of the same result
/// shape, in program order; the last one's result is stored.
LogicalResult emitPointwiseKernel(ArrayRef<Operation *> ops,
                                  LoweringState &state);
/// Writes `dest` (row-major) from `source`, which has the same number of
/// elements, reading element i at the coordinates of i in source.shape.
void emitCopyKernel(Value dest, const TensorView &source, StringRef reason,
                    LoweringState &state);
LogicalResult emitConstantKernel(ConstantOp op, LoweringState &state);
LogicalResult emitReduceKernel(ReduceOp op, LoweringState &state);
LogicalResult emitSoftmaxKernel(SoftmaxOp op, LoweringState &state);
/// tg.matmul or tg.fused_matmul: on the mixed-input kernel when
/// `mixedKernel` (mixedMatmulKernelRefusal accepted the op, it is not on
/// cuDNN, and its operands are buffers), else the generic tiled kernel.
LogicalResult emitMatmulKernel(Operation *op, bool mixedKernel,
                               LoweringState &state);

} // namespace mlir::tg::lowering

#endif // TG_LIB_LOWERING_KERNELEMITTERS_H
