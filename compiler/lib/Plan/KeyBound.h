#ifndef TG_LIB_PLAN_KEYBOUND_H
#define TG_LIB_PLAN_KEYBOUND_H

// Finds an upper bound on the visible keys of a row in a score region's
// mask: prefix-LM's `kv_idx < prefix[b] or kv_idx <= q_idx`, so that the
// fused kernels skip the key tiles past it (docs/kernels.md, "Key bounds").

#include "tg/Codegen/AttentionKernel.h"
#include "tg/Dialect/TG/IR/TGOps.h"
#include "tg/Lowering/ScalarExpr.h"

#include <functional>
#include <optional>
#include <string>

namespace mlir::tg {
/// The key bound of `op`'s score region: the region yields
/// `select(keep, x, -inf)` (possibly nested) and a factor of `keep`
/// (conjunctions are `select(a, b, false)`) is a disjunction (`select(a,
/// true, b)` or `select(a, a, b)`) of at most one term `kv_idx < X` (or <=,
/// >, >=; X an expression of b, h, constants and captures that vary along
/// neither index) and at most one term `kv_idx <= q_idx` (or <). Then every
/// key the region keeps for row q lies below max(X, q_idx + rowOffset).
/// `argNames` and `emitGather` as for findDocumentMask; `readElement` reads
/// an element capture at (b, h, 0, 0).
using ScalarCaptureReader = std::function<std::string(const std::string &name)>;
std::optional<::tg::codegen::AttentionForwardSpec::KeyBound>
findKeyBound(Operation *op, ArrayRef<std::string> argNames, GatherEmitter emitGather,
             ScalarCaptureReader readElement);
} // namespace mlir::tg

#endif
