// tg-lower-to-plan on a multi-function module under the threaded pass
// manager: every function's plan is printed, once, in module order, every
// time. (As a function pass, its parallel instances all wrote one output:
// corrupted heaps, crashes and lost plans.)

#include "tg/Driver/Compile.h"
#include "tg/Plan/LowerToPlan.h"
#include "tg/Plan/Passes.h"

#include "mlir/IR/MLIRContext.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Pass/PassManager.h"

#include <gtest/gtest.h>

#include <cstdio>
#include <fstream>
#include <sstream>
#include <unistd.h>

using namespace mlir;

namespace {
/// `count` functions, each a softmax (several kernels) of its own shape.
std::string module(int count) {
  std::string text;
  for (int i = 0; i < count; ++i) {
    std::string type = "tensor<" + std::to_string(i + 2) + "x32xf32>";
    text += "func.func @f" + std::to_string(i) + "(%x: " + type +
            " {tg.name = \"x\"}) -> (" + type + " {tg.name = \"y\"}) {\n"
            "  %e = tg.exp %x : " + type + "\n"
            "  %s = tg.softmax %e axis = 1 : " + type + "\n"
            "  return %s : " + type + "\n}\n";
  }
  return text;
}

std::string readAll(const std::string &path) {
  std::ifstream in(path);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}
} // namespace

TEST(LowerToPlanPass, ThreadedPipelinePrintsEveryPlanInOrder) {
  const int functions = 16, runs = 20;
  char pathTemplate[] = "/tmp/tgc-plans-XXXXXX";
  int fd = mkstemp(pathTemplate);
  ASSERT_GE(fd, 0);
  close(fd);
  std::string path = pathTemplate;

  DialectRegistry registry;
  tg::registerCompilerDialects(registry);
  MLIRContext context(registry);
  ASSERT_TRUE(context.isMultithreadingEnabled());
  std::string text = module(functions);
  for (int run = 0; run < runs; ++run) {
    OwningOpRef<ModuleOp> parsed = parseSourceString<ModuleOp>(text, &context);
    ASSERT_TRUE(parsed);
    PassManager pm(&context);
    tg::buildCompilePipeline(pm, "nvrtc");
    tg::LowerToPlanOptions options;
    options.output = path;
    options.target = "sm_80";
    pm.addPass(tg::createLowerToPlan(options));
    ASSERT_TRUE(succeeded(pm.run(*parsed))) << "run " << run;

    // One complete, loadable plan per function, in module order.
    std::string plans = readAll(path);
    std::vector<std::string> names;
    size_t start = 0;
    while (start < plans.size()) {
      size_t end = plans.find("\nend sha256 ", start);
      ASSERT_NE(end, std::string::npos) << "run " << run;
      end = plans.find('\n', end + 1) + 1;
      tgc::Expected<tgc::Plan> plan = tgc::parsePlan(plans.substr(start, end - start));
      ASSERT_TRUE(plan.hasValue()) << "run " << run << ": " << plan.status().message();
      names.push_back(plan->name);
      start = end;
    }
    ASSERT_EQ(names.size(), size_t(functions)) << "run " << run;
    for (int i = 0; i < functions; ++i)
      EXPECT_EQ(names[i], "f" + std::to_string(i)) << "run " << run;
  }
  std::remove(path.c_str());
}

TEST(LowerToPlanPass, ErrorsInOneFunctionPrintNothing) {
  DialectRegistry registry;
  tg::registerCompilerDialects(registry);
  MLIRContext context(registry);
  std::string diagnostics;
  context.getDiagEngine().registerHandler([&](Diagnostic &diag) {
    diagnostics += diag.str() + "\n";
  });
  // @bad still holds a tg.sdpa, which only the compile pipeline decomposes.
  std::string text = module(2) + R"(
func.func @bad(%q: tensor<1x1x8x8xf16>) -> tensor<1x1x8x8xf16> {
  %o = tg.sdpa %q, %q, %q : tensor<1x1x8x8xf16>, tensor<1x1x8x8xf16>, tensor<1x1x8x8xf16> -> tensor<1x1x8x8xf16>
  return %o : tensor<1x1x8x8xf16>
})";
  OwningOpRef<ModuleOp> parsed = parseSourceString<ModuleOp>(text, &context);
  ASSERT_TRUE(parsed);
  char pathTemplate[] = "/tmp/tgc-plans-XXXXXX";
  int fd = mkstemp(pathTemplate);
  ASSERT_GE(fd, 0);
  close(fd);
  PassManager pm(&context);
  tg::LowerToPlanOptions options;
  options.output = pathTemplate;
  pm.addPass(tg::createLowerToPlan(options));
  EXPECT_TRUE(failed(pm.run(*parsed)));
  EXPECT_NE(diagnostics.find("tg.sdpa"), std::string::npos) << diagnostics;
  EXPECT_EQ(readAll(pathTemplate), "");
  std::remove(pathTemplate);
}
