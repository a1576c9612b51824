// tg-opt: runs tgc passes (and canonicalize/cse) on tg graphs, like mlir-opt.
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/DialectRegistry.h"
#include "mlir/Tools/mlir-opt/MlirOptMain.h"
#include "mlir/Transforms/Passes.h"

#include "tg/Dialect/TG/IR/TGDialect.h"
#include "tg/Plan/Passes.h"
#include "tg/Transforms/Passes.h"
#include "ToolVersion.h"

int main(int argc, char **argv) {
  tgc::tools::setToolVersionPrinter("tg-opt");
  mlir::DialectRegistry registry;
  registry.insert<mlir::tg::TGDialect, mlir::func::FuncDialect>();
  mlir::tg::registerTGPasses();
  mlir::tg::registerTGPlanPasses();
  mlir::registerCanonicalizerPass();
  mlir::registerCSEPass();
  mlir::registerSymbolDCEPass();
  return mlir::asMainReturnCode(
      mlir::MlirOptMain(argc, argv, "tgc graph optimizer\n", registry));
}
