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
  // The fused backward (tg.attention_grad) is not formed until
  // tg-expand-attention can expand it again for NVRTC.
  FuseAttentionOptions fuse;
  fuse.backward = false;
  fn.addPass(createFuseAttention(fuse));
  fn.addPass(createFuseMatmul());
  SelectBackendOptions select;
  select.backend = backend.str();
  select.explain = explain;
  fn.addPass(createSelectBackend(select));
  // Attention that neither cuDNN nor the fused kernel runs (e.g. f32 on
  // NVRTC) runs on the generic kernels instead. Ops it creates carry no
  // tg.backend: they run on NVRTC.
  fn.addPass(createExpandAttention());
  fn.addPass(createCanonicalizerPass());
  fn.addPass(createCSEPass());
}
