#ifndef TG_BACKEND_BACKEND_H
#define TG_BACKEND_BACKEND_H

// The interface each backend (NVRTC, cuDNN) implements, and where the passes
// find the backends of their MLIRContext. The passes (tg-select-backend,
// tg-mixed-matmul-plan) see only this interface, so that compiler/lib/
// Transforms neither includes nor links the cuDNN lowering.

#include "tg/Dialect/TG/IR/Backend.h"

#include "mlir/IR/DialectInterface.h"
#include "mlir/Support/TypeID.h"

#include <string>

namespace mlir::tg {

/// One backend. Implementations are stateless and immutable, so that passes
/// running on several functions at once may share them.
class BackendInterface {
public:
  virtual ~BackendInterface();
  virtual Backend kind() const = 0;
  /// Why this backend cannot run `op` as it is, or "" when it can. cuDNN:
  /// no graph can be built, or its engines were measured to refuse it.
  /// NVRTC: the fused attention kernels' rule (tg-expand-attention expands
  /// what they cannot run into ops the generic kernels run).
  virtual std::string unsupportedReason(Operation *op) const = 0;
};

/// The backends of one MLIRContext, attached to the tg dialect by a
/// DialectRegistry extension (registerBackends(), tg/Plan/LowerToPlan.h):
/// set up before any pass runs, only read by passes.
class BackendsDialectInterface
    : public DialectInterface::Base<BackendsDialectInterface> {
public:
  BackendsDialectInterface(Dialect *dialect, const BackendInterface &nvrtc,
                           const BackendInterface &cudnn);
  const BackendInterface &get(Backend backend) const;

private:
  const BackendInterface &nvrtc;
  const BackendInterface &cudnn;
};

/// The backends of the context `op` lives in; an error on `op` naming
/// `pass` when none were registered.
FailureOr<const BackendsDialectInterface *> backendsFor(Operation *op,
                                                       StringRef pass);

} // namespace mlir::tg

MLIR_DECLARE_EXPLICIT_TYPE_ID(mlir::tg::BackendsDialectInterface)

#endif // TG_BACKEND_BACKEND_H
