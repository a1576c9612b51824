#ifndef TG_LIB_PLAN_DOCUMENTMASK_H
#define TG_LIB_PLAN_DOCUMENTMASK_H

#include "tg/Dialect/TG/IR/TGOps.h"
#include "tg/Lowering/ScalarExpr.h"

#include <functional>
#include <optional>
#include <string>

namespace mlir::tg {
/// The document ids of a document mask at the end of `op`'s score region:
/// the region yields `select(keep, x, -inf)` (possibly nested) with a factor
/// `id(q_idx) == id(kv_idx)` of `keep` (conjunctions are
/// `select(a, b, false)`), each id a tg.gather of a table capture or an
/// element capture that depends only on (b, h) and the one index. Returns
/// the ids as C++ expressions over the kernel's `captures, b, h, q_idx` and
/// `captures, b, h, kv_idx` (`argNames` name the region arguments,
/// `emitGather` is the kernel's table reader and `readElement` its reader of
/// an element capture at (b, h, q_idx, 0) or (b, h, 0, kv_idx)), or nullopt.
/// `op` is a tg.attention or a tg.attention_grad (the same score region).
struct DocumentIds {
  std::string query, key;
  /// The test `id(q_idx) == id(kv_idx)` itself (true in a tile that lies in
  /// one document: KnownTrueWhere).
  Operation *equality;
};
/// The reader of element capture `name` at the query (`atQuery`) or the key.
using ElementReader =
    std::function<std::string(const std::string &name, bool atQuery)>;
std::optional<DocumentIds> findDocumentMask(Operation *op,
                                            ArrayRef<std::string> argNames,
                                            GatherEmitter emitGather,
                                            ElementReader readElement);
} // namespace mlir::tg

#endif
