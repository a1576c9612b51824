#ifndef TG_PLAN_PASSES_TD
#define TG_PLAN_PASSES_TD

include "mlir/Pass/PassBase.td"

def LowerToPlan : Pass<"tg-lower-to-plan", "func::FuncOp"> {
  let summary = "Lower a compiled graph to the runtime's Plan and print it";
  let description = [{
    Lowers each function (after decomposition, fusion and backend selection)
    to a Plan: buffers for its arguments and results, intermediates in one
    workspace, and the generated kernel launches. The serialised plan is
    written to `output` (a file, or `-` for stdout); the IR is unchanged.
    `tg-compile` runs the whole pipeline and this lowering in one step.
  }];
  let options = [
    Option<"output", "output", "std::string", /*default=*/"\"-\"",
           "Where to write the plan ('-': stdout)">,
    Option<"targetSm", "target-sm", "int", /*default=*/"90",
           "Compute capability the kernels are tuned for (80, 90, ...)">,
  ];
}

#endif // TG_PLAN_PASSES_TD
