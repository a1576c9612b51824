#ifndef TG_REFERENCE_INTERPRETER_H
#define TG_REFERENCE_INTERPRETER_H

// The CPU reference interpreter: executes any verified tg graph in float64,
// rounding each op's result to its declared element type. It is the oracle
// that passes, kernels and backends are checked against. What it computes,
// op by op, is documented in docs/reference.md.
//
// The interpreter works on logical tensors: `tg.strides` on arguments and
// results is a layout note for code generation and does not change values.

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/Support/LLVM.h"

#include <cstdint>
#include <string>
#include <vector>

namespace mlir::tg::ref {

/// A logical (row-major) host tensor. Values are held as doubles that are
/// exactly representable in `elementType` (bf16, f16, f32, f8E4M3FN,
/// f8E5M2, i4, i8, i32, i64, i1). i64 values are exact up to magnitude 2^53.
struct HostTensor {
  SmallVector<int64_t> shape;
  Type elementType;
  std::vector<double> values;

  int64_t numElements() const;
  RankedTensorType getType() const;
  /// A tensor of `type` filled with zeros.
  static HostTensor zeros(RankedTensorType type);
};

/// How graph inputs are drawn when none are given.
struct RandomInputOptions {
  uint64_t seed = 0;
  /// Floats: normal(0, stddev), then rounded to the element type.
  double stddev = 1.0;
};

/// Random inputs for every argument of `fn`: normal floats; integers
/// uniform in a documented range; sequence-length arguments (1-D integer
/// arguments that feed a seq_len operand, or whose `tg.name` contains
/// "seq_len") get lengths in [1, S]; seed/offset scalars get values in
/// [0, 2^53). Each argument has its own random stream, so one argument's
/// values do not depend on the others'. See docs/reference.md.
SmallVector<HostTensor> makeRandomInputs(func::FuncOp fn,
                                         const RandomInputOptions &options);

/// The most elements a tensor of the reference interpreter holds (each is a
/// double: 16 GiB).
constexpr uint64_t kMaxHostElements = uint64_t(1) << 31;

/// Elements of a static shape, saturating at INT64_MAX.
int64_t elementCount(ArrayRef<int64_t> shape);

/// Whether the interpreter can run `fn`: every argument and value a ranked
/// tensor of a modelled element type, of at most kMaxHostElements elements.
/// Emits a located error otherwise. Call it before making inputs for `fn`.
LogicalResult checkInterpretable(func::FuncOp fn);

/// Runs `fn` on `inputs` (one per argument, in order). Input values are
/// rounded to the argument's element type. Emits a located diagnostic and
/// fails on anything it cannot execute.
FailureOr<SmallVector<HostTensor>> interpret(func::FuncOp fn,
                                             ArrayRef<HostTensor> inputs);

/// True when the interpreter implements the operation `name` (e.g.
/// "tg.sdpa"); used to check that no tg op is left out.
bool canInterpret(StringRef name);

/// Rounds `value` to the nearest value of `elementType` (round to nearest
/// even; fp8 saturates to the largest finite value; integers truncate
/// toward zero and wrap to their width).
double roundToElementType(double value, Type elementType);

/// The display name of an element type as used in summaries and .npy notes:
/// "bf16", "f16", "f32", "f8E4M3FN", "f8E5M2", "i1", "i4", "i8", "i32", "i64".
std::string elementTypeName(Type elementType);

/// The name of argument `index` of `fn`: its `tg.name`, else "arg<index>".
std::string argumentName(func::FuncOp fn, unsigned index);
/// The name of result `index` of `fn`: its `tg.name`, else
/// "result<index>".
std::string resultName(func::FuncOp fn, unsigned index);

/// Element-wise comparison of two tensors of equal shape.
struct Comparison {
  double maxAbsError = 0.0;
  double maxRelError = 0.0; // |a - b| / max(|b|, 1e-6) over all elements
  int64_t mismatches = 0;   // elements outside atol + rtol * |b|
  bool nanOrShapeMismatch = false;
  bool ok() const { return !nanOrShapeMismatch && mismatches == 0; }
};
Comparison compare(const HostTensor &actual, const HostTensor &expected,
                   double atol, double rtol);

} // namespace mlir::tg::ref

#endif // TG_REFERENCE_INTERPRETER_H
