#ifndef TG_REFERENCE_POINTWISE_H
#define TG_REFERENCE_POINTWISE_H

// Pointwise ops on single values, used both for whole tensors (with
// broadcasting) and for the per-element regions of tg.attention and
// tg.fused_matmul.

#include "Elements.h"

#include "tg/Dialect/TG/IR/TGOps.h"
#include "tg/Reference/Interpreter.h"

#include <vector>

namespace mlir::tg::ref {

/// One pointwise op, decoded once so that applying it per element is a
/// switch rather than a chain of casts.
struct PointwiseFn {
  enum Code {
    Add, Sub, Mul, Div, Max, Min, Pow,
    Exp, Log, Tanh, Neg, Abs, Sqrt, Rsqrt, Recip, Sigmoid,
    Cmp, Select, Cast
  } code = Add;
  CmpPredicate predicate = CmpPredicate::eq;
  ElementInfo operand; // element type of the (first compared) operand(s)
  ElementInfo result;

  /// `args` holds one value per operand. The result is rounded to the
  /// result element type.
  double apply(const double *args) const;
};

/// Decodes a pointwise op other than tg.constant; emits an error on `op`
/// and fails for anything else.
FailureOr<PointwiseFn> decodePointwise(Operation *op);

/// Applies `fn` to broadcast operands, giving a tensor of `resultType`.
HostTensor evalPointwise(const PointwiseFn &fn,
                         ArrayRef<const HostTensor *> operands,
                         RankedTensorType resultType);

/// A per-element region compiled to a flat list of steps over value slots:
/// block arguments first, then constants, then one slot per op result.
/// tg.gather steps read tables bound to table-typed block arguments.
class ScalarProgram {
public:
  /// Compiles `block` (pointwise ops, tg.gather of table arguments and
  /// rank-0 constants, ending in a tg.yield of `numYields` values). Emits
  /// located errors and fails otherwise.
  static FailureOr<ScalarProgram> compile(Block &block,
                                          unsigned numYields = 1);

  /// Binds the tensor that block argument `arg` (a table) stands for.
  void bindTable(unsigned arg, const HostTensor *table);

  /// Evaluates the region for one element; `args` has one value per block
  /// argument (table arguments are ignored). Returns the first yielded
  /// value. Not reentrant (reuses its slots).
  double run(ArrayRef<double> args) const;
  /// The value of yield operand `i` after the last run.
  double yielded(unsigned i) const { return slots[yields[i]]; }

  /// The number of tg.gather steps, in block order, and the block argument
  /// each reads.
  unsigned numGathers() const { return gatherTables.size(); }
  unsigned gatherTable(unsigned g) const { return gatherTables[g]; }
  /// The table offset gather `g` read in the last run (-1: a fill value).
  int64_t gatherOffset(unsigned g) const { return gatherOffsets[g]; }

private:
  struct Step {
    PointwiseFn fn;
    SmallVector<unsigned, 3> operands;
    unsigned result;
    /// >= 0 for a tg.gather: its index in gatherTables.
    int gather = -1;
    GatherMode mode = GatherMode::clamp;
    double fill = 0.0;
  };
  unsigned numArgs = 0;
  SmallVector<Step> steps;
  SmallVector<unsigned> yields;
  SmallVector<unsigned> gatherTables;
  SmallVector<const HostTensor *> tables; // per block argument
  mutable std::vector<double> slots;
  mutable SmallVector<int64_t> gatherOffsets;
};

/// The value of a tg.constant (or any elements attribute) as a host tensor;
/// emits an error on `op` and fails for storage it cannot read.
FailureOr<HostTensor> readConstant(Operation *op, ElementsAttr value);

} // namespace mlir::tg::ref

#endif // TG_REFERENCE_POINTWISE_H
