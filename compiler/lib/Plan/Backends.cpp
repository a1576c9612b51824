// The backends a compilation places ops on (registerBackends in
// tg/Plan/LowerToPlan.h): the one place that knows both, so that the passes
// in compiler/lib/Transforms see only tg/Backend/Backend.h.
#include "tg/Plan/LowerToPlan.h"

#include "tg/Backend/Backend.h"
#include "tg/Cudnn/CudnnLowering.h"
#include "tg/Dialect/TG/IR/TGDialect.h"
#include "tg/Transforms/NvrtcSupport.h"

#include "mlir/IR/DialectRegistry.h"

using namespace mlir;
using namespace mlir::tg;

namespace {
/// Attaches the backends to the tg dialect when a context loads it, before
/// any pass can run there; a DialectExtension is applied once per context
/// however often it is added.
struct BackendsExtension
    : public DialectExtension<BackendsExtension, TGDialect> {
  MLIR_DEFINE_EXPLICIT_INTERNAL_INLINE_TYPE_ID(BackendsExtension)
  void apply(MLIRContext *, TGDialect *dialect) const override {
    dialect->addInterface<BackendsDialectInterface>(nvrtcBackend(),
                                                    cudnn::backend());
  }
};
} // namespace

void tg::registerBackends(DialectRegistry &registry) {
  registry.insert<TGDialect>();
  registry.addExtensions<BackendsExtension>();
}
