//===- FusionUtils.h - Helpers shared by the fusion passes -----*- C++ -*-===//
//
// Small queries on tg values used by tg-fuse-attention and tg-fuse-matmul:
// shapes, constant evaluation, cast stripping, refusal reasons and dead-op
// cleanup. Internal to compiler/lib/Transforms.
//
//===----------------------------------------------------------------------===//
#ifndef TG_TRANSFORMS_FUSIONUTILS_H
#define TG_TRANSFORMS_FUSIONUTILS_H

#include "tg/Dialect/TG/IR/TGOps.h"

#include "mlir/IR/IRMapping.h"
#include "mlir/IR/PatternMatch.h"
#include "llvm/ADT/DenseSet.h"
#include "llvm/ADT/SetVector.h"

#include <optional>
#include <string>

namespace mlir::tg::fusion {

inline ArrayRef<int64_t> shapeOf(Value value) {
  return cast<RankedTensorType>(value.getType()).getShape();
}
inline Type elementTypeOf(Value value) {
  return cast<RankedTensorType>(value.getType()).getElementType();
}
inline int64_t rankOf(Value value) { return shapeOf(value).size(); }

/// bf16, f16 or f32: the float types scores may be computed in.
bool isScoreFloat(Type type);

/// Whether `op` reads an i4 tensor: weight storage, which only tg.cast and
/// the matmuls (and fused_matmul's prologues) take, so a region that inlines
/// `op` would capture an operand no other region op may have. Such an op
/// stays a graph op and its result is the capture.
bool readsStorageOnly(Operation *op);

/// A float-to-float cast between bf16, f16 and f32: a pure change of
/// precision.
bool isPrecisionCast(Operation *op);

/// Skips precision casts; each skipped op is added to `skipped` when given.
Value stripPrecisionCasts(Value value,
                          llvm::SetVector<Operation *> *skipped = nullptr);

/// `value` rounded to `type` (round to nearest even for floats, wrapping
/// for integers, `!= 0` for i1).
double roundToType(double value, Type type);

/// The value of `value` when it is a splat constant, or a small expression
/// of splat constants (casts, neg, recip, sqrt, rsqrt, add, sub, mul, div),
/// each step rounded to its element type. Shapes are ignored: callers check
/// that broadcasting does not enlarge anything.
std::optional<double> evalSplatConstant(Value value);

/// True when `value` evaluates (as above) to a finite number > 0.
bool isPositiveFiniteConstant(Value value, double *out = nullptr);

/// Why a chain was not fused, and where.
struct Refusal {
  Operation *at = nullptr;
  std::string reason;
};

/// Records the reason and returns failure, for `return refuse(...)`.
LogicalResult refuse(Refusal &refusal, Operation *at, const Twine &reason);

/// A type as printed, e.g. "bf16".
std::string typeName(Type type);

/// Spelled op name for messages, e.g. "tg.reduce".
std::string opName(Operation *op);

/// Erases `roots` and then every pure op that became unused through them,
/// recording erased ops in `erased`.
void eraseDeadOps(RewriterBase &rewriter, ArrayRef<Operation *> roots,
                  llvm::DenseSet<Operation *> &erased);

/// True when `--tg-fusion-report` was given on the command line.
bool fusionReportFlag();

/// Rebuilds `inner`, a pointwise op of a per-element region (rank-0
/// values), on the whole tensors its operands map to in `mapping`, with the
/// broadcast shape of those operands (a gather's table is read whole: only
/// its indices broadcast), and maps its results to the new op's. How
/// tg-expand-attention and tg-mixed-matmul-plan apply a region to tensors.
void rebuildOnTensors(OpBuilder &b, Operation &inner, IRMapping &mapping);

} // namespace mlir::tg::fusion

#endif // TG_TRANSFORMS_FUSIONUTILS_H
