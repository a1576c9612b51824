// The pass pipeline tg-compile and the library run before lowering to a plan.
#include "tg/Plan/LowerToPlan.h"
#include "tg/Transforms/Passes.h"

#include "mlir/Transforms/Passes.h"

using namespace mlir;

void tg::buildCompilePipeline(OpPassManager &pm, StringRef backend,
                              bool explain, bool numerics,
                              bool deterministic, StringRef mixedMatmul,
                              StringRef target) {
  OpPassManager &fn = pm.nest<func::FuncOp>();
  fn.addPass(createDecomposeSdpa());
  fn.addPass(createCanonicalizerPass());
  // The backward fuses into tg.attention_grad: the fused backward kernels or
  // cuDNN run it; tg-expand-attention expands what neither can run.
  FuseAttentionOptions fuse;
  fuse.numerics = numerics;
  fn.addPass(createFuseAttention(fuse));
  // CSE only after attention fusion: in a training step it would merge the
  // backward's recomputed scores with the forward's, and neither chain
  // would then fuse.
  fn.addPass(createCSEPass());
  fn.addPass(createFuseMatmul());
  // After fusion (the prologue it builds is what the dequant plan applies to
  // the whole weight) and before backend selection (which then places the
  // dequantising pointwise ops and the 16-bit matmul like any others).
  MixedMatmulPlanOptions mixed;
  mixed.plan = mixedMatmul.str();
  mixed.backend = backend.str();
  mixed.explain = explain;
  fn.addPass(createMixedMatmulPlan(mixed));
  SelectBackendOptions select;
  select.backend = backend.str();
  select.explain = explain;
  select.deterministic = deterministic;
  select.target = target.str();
  fn.addPass(createSelectBackend(select));
  // Attention (forward or backward) that neither cuDNN nor the fused kernels
  // run (e.g. f32 on NVRTC) runs on the generic kernels instead. Ops it creates carry no
  // tg.backend: they run on NVRTC.
  ExpandAttentionOptions expand;
  expand.target = target.str();
  fn.addPass(createExpandAttention(expand));
  fn.addPass(createCanonicalizerPass());
  fn.addPass(createCSEPass());
}
