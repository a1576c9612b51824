#ifndef TG_LIB_PLAN_DISTANCETERM_H
#define TG_LIB_PLAN_DISTANCETERM_H

// A term of a score region that depends on the score's indices only through
// their distance d = q_idx - kv_idx (relative-position biases, T5 buckets):
// the sm_90a forward tabulates it once per tile and warpgroup in shared
// memory, and the region reads the table instead of computing the term for
// every score (docs/kernels.md, "Distance terms").

#include "tg/Dialect/TG/IR/TGOps.h"
#include "tg/Lowering/ScalarExpr.h"

#include <optional>
#include <string>

namespace mlir::tg {

/// The term and its C++: `statements` assign `float value` from `long long
/// d`, `b`, `h` and the tables (the ops the term needs, cloned with each
/// `q_idx - kv_idx` as d and each `kv_idx - q_idx` as -d); `term` is the op
/// whose result the region reads from the table.
struct DistanceTerm {
  Operation *term;
  std::string statements;
};

/// The costliest float term of `op`'s score region (`argNames` and
/// `argRanges` as for emitScalarRegion, `seqQ`/`seqKv` bound d) that reads
/// b, h, table captures and d only and that a table read makes cheaper: its
/// ops include a tg.gather, a transcendental function or a division.
/// nullopt when there is none (or its C++ cannot be written).
/// Element captures that vary only along b and h (ALiBi's per-head slopes)
/// count as tables; `readElement(name)` is the kernel's read of one at
/// (b, h), which the statements declare first.
std::optional<DistanceTerm> findDistanceTerm(Operation *op, ArrayRef<std::string> argNames,
                                             GatherEmitter emitGather,
                                             ArrayRef<std::optional<IndexRange>> argRanges,
                                             int64_t seqQ, int64_t seqKv, bool approximate,
                                             function_ref<std::string(const std::string &)> readElement);

} // namespace mlir::tg

#endif // TG_LIB_PLAN_DISTANCETERM_H
