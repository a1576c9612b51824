#ifndef TGC_TEST_UNIT_INTERPRETERFIXTURE_H
#define TGC_TEST_UNIT_INTERPRETERFIXTURE_H
// The fixture of the reference interpreter's tests: a context with the tg
// and func dialects, graphs parsed from text, runs that fail the test on
// errors, and host tensors built from values.
#include "tg/Dialect/TG/IR/TGDialect.h"
#include "tg/Reference/Interpreter.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Parser/Parser.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

class InterpreterFixture : public ::testing::Test {
protected:
  InterpreterFixture() {
    mlir::DialectRegistry registry;
    registry.insert<mlir::tg::TGDialect, mlir::func::FuncDialect>();
    context.appendDialectRegistry(registry);
    context.loadAllAvailableDialects();
  }

  /// Parses `source` (fails the test on errors); the function `name`, or
  /// the first one.
  mlir::func::FuncOp parse(const std::string &source, llvm::StringRef name = "") {
    module = mlir::parseSourceString<mlir::ModuleOp>(source, &context);
    EXPECT_TRUE(module) << source;
    if (!module)
      return nullptr;
    if (!name.empty())
      return module->lookupSymbol<mlir::func::FuncOp>(name);
    return *module->getOps<mlir::func::FuncOp>().begin();
  }

  llvm::SmallVector<mlir::tg::ref::HostTensor>
  run(mlir::func::FuncOp fn, llvm::ArrayRef<mlir::tg::ref::HostTensor> inputs) {
    mlir::FailureOr<llvm::SmallVector<mlir::tg::ref::HostTensor>> out =
        mlir::tg::ref::interpret(fn, inputs);
    EXPECT_TRUE(mlir::succeeded(out));
    return mlir::succeeded(out) ? *out : llvm::SmallVector<mlir::tg::ref::HostTensor>{};
  }

  mlir::tg::ref::HostTensor tensor(llvm::ArrayRef<int64_t> shape, mlir::Type element,
                                   std::vector<double> values) {
    mlir::tg::ref::HostTensor t;
    t.shape.assign(shape.begin(), shape.end());
    t.elementType = element;
    t.values = std::move(values);
    return t;
  }

  mlir::MLIRContext context;
  mlir::OwningOpRef<mlir::ModuleOp> module;
};

#endif // TGC_TEST_UNIT_INTERPRETERFIXTURE_H
