// The pass pipeline tg-compile and the library run before lowering to a plan.
#include "tg/Plan/LowerToPlan.h"
#include "tg/Transforms/Passes.h"

#include "mlir/Transforms/Passes.h"

using namespace mlir;

void tg::buildCompilePipeline(OpPassManager &pm, StringRef backend,
                              bool explain, bool numerics) {
  OpPassManager &fn = pm.nest<func::FuncOp>();
  fn.addPass(createDecomposeSdpa());
  fn.addPass(createCanonicalizerPass());
  // The fused backward (tg.attention_grad) runs only on cuDNN; where cuDNN
  // cannot take it, tg-expand-attention expands it again for the generated
  // kernels. With nvrtc only, it is not formed at all.
  FuseAttentionOptions fuse;
  fuse.backward = backend != "nvrtc";
  fuse.numerics = numerics;
  fn.addPass(createFuseAttention(fuse));
  // CSE only after attention fusion: in a training step it would merge the
  // backward's recomputed scores with the forward's, and neither chain
  // would then fuse.
  fn.addPass(createCSEPass());
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
