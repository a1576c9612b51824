#ifndef TG_PLAN_LOWERTOPLAN_H
#define TG_PLAN_LOWERTOPLAN_H

// Lowering of a compiled tg graph (after decomposition, fusion and backend
// selection) into the runtime's Plan: buffers for graph arguments and
// results, intermediates packed into one workspace, and kernel launches.

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Pass/PassManager.h"
#include "tgc/Plan.h"
#include "tgc/Target.h"

#include <string>

namespace mlir::tg {

struct PlanOptions {
  /// The target the kernels are generated for (tgc::parseTarget): tuned for
  /// its arch, with its arch-specific kernels (wgmma) when it has the `a`
  /// suffix. Every plan also has portable kernels (sm_80 and newer, PTX
  /// fallback) whatever this is.
  tgc::CompileTarget target = tgc::kDefaultTarget;
  /// Reproducible results run to run: the fused attention backward adds dQ
  /// in a fixed order (tg-compile --deterministic).
  bool deterministic = false;
  /// Score regions of the fused attention kernels (forward and backward)
  /// use the GPU's approximate exp, log, tanh and sigmoid (tg-compile
  /// --fast-math; ScalarExpr.h gives the errors).
  bool fastMath = false;
  /// The tile of every fused attention forward kernel in the plan
  /// (tg-compile --attention-tile, cg::parseAttentionTile's syntax), for
  /// tile sweeps; empty: the tile table's. A wgmma tile (`:wg`) replaces the
  /// sm_90a variant's tile, any other the portable variants'.
  std::string attentionTile;
};

/// Makes the NVRTC and cuDNN backends (tg/Backend/Backend.h) available to
/// the passes of every context built from `registry` (tg-select-backend and
/// tg-mixed-matmul-plan fail without them).
void registerBackends(DialectRegistry &registry);

/// The passes that prepare a graph for lowering: sdpa decomposition,
/// canonicalisation, attention and matmul fusion, backend selection
/// (`backend`: auto, nvrtc or cudnn; `explain`: remarks with the reasons;
/// `numerics`: tg-fuse-attention's remarks on the roundings it drops;
/// `deterministic`: tg.attention_grad on the deterministic fused backward;
/// `mixedMatmul`: auto, fused or dequant, the plan of mixed-input matmuls,
/// tg-mixed-matmul-plan; `target`: the compile target as tg-compile's --arch
/// names it, which decides whether FP8 attention on NVRTC runs on its fused
/// sm_90a kernel or is expanded; empty: expanded).
void buildCompilePipeline(OpPassManager &pm, StringRef backend = "auto",
                          bool explain = false, bool numerics = false,
                          bool deterministic = false,
                          StringRef mixedMatmul = "auto",
                          StringRef target = "");

/// Lowers `fn` to a Plan. Emits located diagnostics and fails on anything
/// it cannot lower.
FailureOr<tgc::Plan> lowerToPlan(func::FuncOp fn, const PlanOptions &options);

/// The binding name of argument `index` of `fn`: its `tg.name`, else
/// "arg<index>". Results likewise ("result<index>").
std::string argumentName(func::FuncOp fn, unsigned index);
std::string resultName(func::FuncOp fn, unsigned index);

/// Physical strides of a graph argument or result (`tg.strides`, else
/// row-major).
SmallVector<int64_t> argumentStrides(func::FuncOp fn, unsigned index);
SmallVector<int64_t> resultStrides(func::FuncOp fn, unsigned index);

/// The runtime dtype of a tg element type.
std::optional<tgc::DType> toRuntimeDType(Type elementType);

} // namespace mlir::tg

#endif // TG_PLAN_LOWERTOPLAN_H
