#ifndef TG_PLAN_PASSES_TD
#define TG_PLAN_PASSES_TD

include "mlir/Pass/PassBase.td"

def LowerToPlan : Pass<"tg-lower-to-plan", "ModuleOp"> {
  let summary = "Lower each compiled graph function to the runtime's Plan and print it";
  let description = [{
    Lowers every function with a body (after decomposition, fusion and
    backend selection) to a Plan: buffers for its arguments and results,
    intermediates in one workspace, and the generated kernel launches. The
    serialised plans are written to `output` (a file, or `-` for stdout)
    once, in the order the functions appear in the module; each is a
    complete plan text (docs/plan.md), and a plan file holds one, so for a
    loadable file of a multi-function module pick the function with
    `tg-compile --entry=NAME`. The IR is unchanged.

    It is a module pass: the plans of all functions go to one output, which
    function-pass instances running in parallel could not share.
  }];
  let options = [
    Option<"output", "output", "std::string", /*default=*/"\"-\"",
           "Where to write the plans ('-': stdout)">,
    Option<"target", "target", "std::string", /*default=*/"\"\"",
           "Target the kernels are generated for: sm_80, sm_90, sm_90a, "
           "compute_80, ... (empty: tgc's default, sm_90a)">,
  ];
}

#endif // TG_PLAN_PASSES_TD
