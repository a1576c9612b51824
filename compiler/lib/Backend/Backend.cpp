// The backend interface and the per-context backends (tg/Backend/Backend.h).
#include "tg/Backend/Backend.h"

#include "tg/Dialect/TG/IR/TGDialect.h"

using namespace mlir;
using namespace mlir::tg;

MLIR_DEFINE_EXPLICIT_TYPE_ID(mlir::tg::BackendsDialectInterface)

BackendInterface::~BackendInterface() = default;
PlanSteps::~PlanSteps() = default;

BackendsDialectInterface::BackendsDialectInterface(
    Dialect *dialect, const BackendInterface &nvrtc,
    const BackendInterface &cudnn)
    : Base(dialect), nvrtc(nvrtc), cudnn(cudnn) {}

const BackendInterface &BackendsDialectInterface::get(Backend backend) const {
  switch (backend) {
  case Backend::nvrtc:
    return nvrtc;
  case Backend::cudnn:
    return cudnn;
  }
  llvm_unreachable("unknown backend");
}

FailureOr<const BackendsDialectInterface *>
tg::backendsFor(Operation *op, StringRef pass) {
  auto *dialect = op->getContext()->getLoadedDialect<TGDialect>();
  if (dialect)
    if (auto *backends =
            dialect->getRegisteredInterface<BackendsDialectInterface>())
      return backends;
  return op->emitError() << pass
                         << " needs the backends: no tg::registerBackends() "
                            "in this context's DialectRegistry";
}
