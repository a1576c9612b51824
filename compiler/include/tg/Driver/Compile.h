#ifndef TG_DRIVER_COMPILE_H
#define TG_DRIVER_COMPILE_H

// Shared by tg-compile, tg-run and the library API: find the entry function,
// run the compile pipeline, lower to a Plan.

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/DialectRegistry.h"
#include "tgc/Target.h"
#include "tgc/tgc.hpp"

#include <optional>
#include <string>

namespace mlir::tg {

struct CompileSettings {
  std::string entry; // empty: the module's only function
  /// Parsed once where the user gave it (tgc::parseTarget).
  tgc::CompileTarget target = tgc::kDefaultTarget;
  std::string backend = "auto"; // auto | nvrtc | cudnn (tg-select-backend)
  bool explainBackend = false;
  /// tg-fuse-attention remarks on the roundings of the graph as written that
  /// the fused op drops (docs/fusion.md, "Numerics").
  bool fusionNumerics = false;
  bool deterministic = false; // reproducible kernels (PlanOptions)
  bool fastMath = false;      // approximate score-region math (PlanOptions)
  std::string attentionTile;  // the forward kernels' tile (PlanOptions)
  /// auto | fused | dequant: how mixed-input matmuls run
  /// (tg-mixed-matmul-plan).
  std::string mixedMatmul = "auto";
};

void registerCompilerDialects(DialectRegistry &registry);

/// The function named `entry`, or the only function when `entry` is empty.
FailureOr<func::FuncOp> findEntry(ModuleOp module, StringRef entry);

/// Runs the compile pipeline (decomposition, fusion, backend selection).
LogicalResult runCompilePipeline(ModuleOp module,
                                 const CompileSettings &settings);

/// Runs the compile pipeline on `module` and lowers the entry to a Plan.
/// `afterPipeline`, when given, sees the compiled entry before lowering
/// (tg-run interprets it there).
FailureOr<tgc::Plan>
compileModule(ModuleOp module, const CompileSettings &settings,
              llvm::function_ref<LogicalResult(func::FuncOp)> afterPipeline =
                  nullptr);

} // namespace mlir::tg

#endif // TG_DRIVER_COMPILE_H
