// The cuDNN backend behind tg/Backend/Backend.h (tg/Cudnn/CudnnLowering.h).
#include "tg/Cudnn/CudnnLowering.h"

using namespace mlir;
using namespace mlir::tg;

namespace {
class CudnnBackend final : public BackendInterface {
public:
  Backend kind() const override { return Backend::cudnn; }
  std::string unsupportedReason(Operation *op) const override {
    return cudnn::unsupportedReason(op);
  }
};
} // namespace

const BackendInterface &cudnn::backend() {
  static const CudnnBackend backend;
  return backend;
}
