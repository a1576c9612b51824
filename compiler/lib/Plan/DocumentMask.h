#ifndef TG_LIB_PLAN_DOCUMENTMASK_H
#define TG_LIB_PLAN_DOCUMENTMASK_H

#include "tg/Dialect/TG/IR/TGOps.h"
#include "tg/Lowering/ScalarExpr.h"

#include <optional>
#include <string>

namespace mlir::tg {
/// The document ids of a document mask at the end of `op`'s score region:
/// the region yields `select(keep, x, -inf)` (possibly nested) with a factor
/// `id(q_idx) == id(kv_idx)` of `keep` (conjunctions are
/// `select(a, b, false)`), each id a tg.gather of a table capture or an
/// element capture that depends only on (b, h) and the one index. Returns
/// the ids as C++ expressions over the kernel's `captures, b, h, q_idx` and
/// `captures, b, h, kv_idx` (`argNames` name the region arguments, and
/// `emitGather` is the kernel's table reader), or nullopt.
struct DocumentIds {
  std::string query, key;
};
std::optional<DocumentIds> findDocumentMask(AttentionOp op,
                                            ArrayRef<std::string> argNames,
                                            GatherEmitter emitGather);
} // namespace mlir::tg

#endif
