// The pass pipeline tg-compile and the library run before lowering to a plan.
#include "tg/Plan/LowerToPlan.h"
#include "tg/Transforms/Passes.h"

#include "mlir/Transforms/Passes.h"

using namespace mlir;

void tg::buildCompilePipeline(OpPassManager &pm, StringRef backend,
                              bool explain) {
  OpPassManager &fn = pm.nest<func::FuncOp>();
  fn.addPass(createDecomposeSdpa());
  fn.addPass(createCanonicalizerPass());
  fn.addPass(createCSEPass());
  fn.addPass(createFuseAttention());
  fn.addPass(createFuseMatmul());
  // Attention the fused kernel cannot run (e.g. f32) runs on the generic
  // kernels instead.
  fn.addPass(createExpandAttention());
  fn.addPass(createCanonicalizerPass());
  fn.addPass(createCSEPass());
  SelectBackendOptions select;
  select.backend = backend.str();
  select.explain = explain;
  fn.addPass(createSelectBackend(select));
}
