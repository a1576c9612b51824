// The tg.backend attribute (tg/Dialect/TG/IR/Backend.h).
#include "tg/Dialect/TG/IR/Backend.h"

using namespace mlir;
using namespace mlir::tg;

std::optional<Backend> tg::getBackend(Operation *op) {
  if (auto attr = op->getAttrOfType<BackendAttr>(kBackendAttrName))
    return attr.getValue();
  return std::nullopt;
}

void tg::setBackend(Operation *op, Backend backend) {
  op->setAttr(kBackendAttrName, BackendAttr::get(op->getContext(), backend));
}
