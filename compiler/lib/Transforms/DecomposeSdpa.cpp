// tg-decompose-sdpa: tg.sdpa / tg.sdpa_grad -> primitive tg ops.
// PLACEHOLDER: being written; does nothing yet.
#include "tg/Dialect/TG/IR/TGOps.h"
#include "tg/Transforms/Passes.h"

namespace mlir::tg {
#define GEN_PASS_DEF_DECOMPOSESDPA
#include "tg/Transforms/Passes.h.inc"
} // namespace mlir::tg

using namespace mlir;

namespace {
struct DecomposeSdpaPass : tg::impl::DecomposeSdpaBase<DecomposeSdpaPass> {
  void runOnOperation() override {}
};
} // namespace
