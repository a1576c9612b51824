#ifndef TG_PLAN_PASSES_H
#define TG_PLAN_PASSES_H

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Pass/Pass.h"

namespace mlir::tg {
#define GEN_PASS_DECL
#include "tg/Plan/Passes.h.inc"

#define GEN_PASS_REGISTRATION
#include "tg/Plan/Passes.h.inc"
} // namespace mlir::tg

#endif // TG_PLAN_PASSES_H
