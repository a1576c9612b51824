// The passes that ask the backends (tg/Backend/Backend.h) fail with a clear
// error in a context without tg::registerBackends(), and run with it.
#include "tg/Dialect/TG/IR/Backend.h"
#include "tg/Dialect/TG/IR/TGDialect.h"
#include "tg/Plan/LowerToPlan.h"
#include "tg/Transforms/Passes.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Pass/PassManager.h"

#include <gtest/gtest.h>

#include <vector>

using namespace mlir;

namespace {
constexpr const char *kGraph = R"mlir(
func.func @f(%a: tensor<4x8xf16>, %b: tensor<8x8xf16>) -> tensor<4x8xf32> {
  %m = tg.matmul %a, %b : tensor<4x8xf16>, tensor<8x8xf16> -> tensor<4x8xf32>
  %p = tg.softmax %m axis = 1 : tensor<4x8xf32>
  return %p : tensor<4x8xf32>
}
)mlir";

/// Runs tg-select-backend (backend=cudnn) on kGraph; the diagnostics it
/// printed go to `errors`, the backend of each op, in order, to `chosen`.
LogicalResult selectBackend(bool registerBackends, std::string &errors,
                            std::vector<tg::Backend> &chosen) {
  DialectRegistry registry;
  registry.insert<tg::TGDialect, func::FuncDialect>();
  if (registerBackends)
    tg::registerBackends(registry);
  MLIRContext context(registry);
  context.loadAllAvailableDialects();
  ScopedDiagnosticHandler handler(&context, [&](Diagnostic &d) {
    errors += d.str();
    return success();
  });
  OwningOpRef<ModuleOp> module = parseSourceString<ModuleOp>(kGraph, &context);
  if (!module)
    return failure();
  PassManager pm(&context);
  tg::SelectBackendOptions options;
  options.backend = "cudnn";
  pm.addNestedPass<func::FuncOp>(tg::createSelectBackend(options));
  LogicalResult result = pm.run(*module);
  module->walk([&](Operation *op) {
    if (std::optional<tg::Backend> b = tg::getBackend(op))
      chosen.push_back(*b);
  });
  return result;
}

TEST(BackendRegistry, SelectBackendNeedsRegisteredBackends) {
  std::string errors;
  std::vector<tg::Backend> chosen;
  EXPECT_TRUE(failed(selectBackend(false, errors, chosen)));
  EXPECT_NE(errors.find("tg-select-backend needs the backends: no "
                        "tg::registerBackends() in this context's "
                        "DialectRegistry"),
            std::string::npos)
      << errors;
  EXPECT_TRUE(chosen.empty());
}

// The plan lowering hands each step to its backend: without the registry
// it fails with the same message, naming itself.
TEST(BackendRegistry, PlanLoweringNeedsRegisteredBackends) {
  DialectRegistry registry;
  registry.insert<tg::TGDialect, func::FuncDialect>();
  MLIRContext context(registry);
  context.loadAllAvailableDialects();
  std::string errors;
  ScopedDiagnosticHandler handler(&context, [&](Diagnostic &d) {
    errors += d.str();
    return success();
  });
  OwningOpRef<ModuleOp> module = parseSourceString<ModuleOp>(kGraph, &context);
  ASSERT_TRUE(module);
  auto fn = *module->getOps<func::FuncOp>().begin();
  EXPECT_TRUE(failed(tg::lowerToPlan(fn, tg::PlanOptions())));
  EXPECT_NE(errors.find("the plan lowering needs the backends: no "
                        "tg::registerBackends() in this context's "
                        "DialectRegistry"),
            std::string::npos)
      << errors;
}

// cuDNN's own rule decides: it takes the matmul and refuses the softmax
// (no engine for a softmax without a matmul in its graph).
TEST(BackendRegistry, SelectBackendAsksTheCudnnBackend) {
  std::string errors;
  std::vector<tg::Backend> chosen;
  ASSERT_TRUE(succeeded(selectBackend(true, errors, chosen))) << errors;
  EXPECT_EQ(chosen, (std::vector<tg::Backend>{tg::Backend::cudnn,
                                              tg::Backend::nvrtc}));
}
} // namespace
