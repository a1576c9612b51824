#ifndef TG_TOOLS_TG_RUN_GPURUN_H
#define TG_TOOLS_TG_RUN_GPURUN_H

// tg-run's GPU mode: compile the graph to a plan, run it on the first GPU,
// and optionally check it against the CPU reference and time it.

#include "tg/Reference/Interpreter.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/BuiltinOps.h"

#include <string>

namespace mlir::tg::run {

struct GpuRunOptions {
  bool check = false;  // compare every output with the CPU reference
  int benchRuns = 0;   // > 0: time this many runs after warm-up
  std::string backend; // auto | nvrtc | cudnn
  std::string mixedMatmul; // auto | fused | dequant (empty: auto)
  bool printPlan = false;
  bool deterministic = false; // CompileSettings::deterministic
  int repeats = 0; // > 0: run again this many times; every output must be
                   // bitwise identical to the first run's
};

/// Tolerances of --check for an output of element type `type`:
/// |gpu - ref| <= atol + rtol * |ref| for every element, NaN never passes.
std::pair<double, double> checkTolerances(Type type);

/// The tolerances for result `index` of `fn`: those of its element type,
/// but an f32 result of a graph whose float inputs are 16-bit (a bias
/// gradient, the stats) is held to the 16-bit inputs' tolerance: it is
/// computed from values rounded to that precision (P, dO, dS).
/// With `expected` (the reference values), the output o of an FP8
/// attention op also gets an absolute tolerance of half a step of P's fp8
/// format times max |expected| (e4m3 1/16, e5m2 1/8): the kernels round P
/// per kv tile, the definition after normalising (docs/dialect.md, "FP8
/// attention"), and o's error is that of P times |v|, not relative to each
/// element. Its amax_o gets the fp8 tolerance.
std::pair<double, double> resultTolerances(func::FuncOp fn, unsigned index,
                                           const ref::HostTensor *expected = nullptr);

/// Floating-point operations of one run of `fn` (matmuls and attention),
/// the figure behind the reported TFLOP/s. Ragged attention counts each
/// packed sequence's lengths, read from `inputs` (its cu_seqlens must be
/// arguments of `fn`; otherwise the op is not counted).
double countFlops(func::FuncOp fn, ArrayRef<ref::HostTensor> inputs);

/// Runs `fn` (of `module`, which is left as it is) on the GPU with `inputs`;
/// prints a summary per output and, as asked, the check and the timing.
/// Returns the process exit status.
int runOnGpu(ModuleOp module, func::FuncOp fn,
             ArrayRef<ref::HostTensor> inputs, const GpuRunOptions &options,
             llvm::function_ref<void(StringRef, StringRef,
                                     const ref::HostTensor &)>
                 printTensor);

} // namespace mlir::tg::run

#endif // TG_TOOLS_TG_RUN_GPURUN_H
