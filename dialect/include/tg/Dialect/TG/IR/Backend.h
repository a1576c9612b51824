#ifndef TG_DIALECT_TG_IR_BACKEND_H
#define TG_DIALECT_TG_IR_BACKEND_H

// The backend of an op: the discardable attribute `tg.backend`
// (#tg<backend nvrtc|cudnn>). Every reader and writer goes through these two
// functions, so that the spelling lives in one place.

#include "tg/Dialect/TG/IR/TGOps.h"

#include <optional>

namespace mlir::tg {

/// The name of the attribute on the op.
inline constexpr llvm::StringLiteral kBackendAttrName = "tg.backend";

/// The backend `op` is placed on, or none when it carries no `tg.backend`
/// (the verifier rejects any other value than a #tg<backend ...>).
std::optional<Backend> getBackend(Operation *op);

/// Places `op` on `backend`.
void setBackend(Operation *op, Backend backend);

} // namespace mlir::tg

#endif // TG_DIALECT_TG_IR_BACKEND_H
