// The generic kernel generator on representative graphs: the steps form a
// valid dataflow (every buffer read was written before or is an argument,
// every result gets written), sources are consistent with their launch
// descriptions, and every kernel compiles with NVRTC for sm_80, sm_90a and
// compute_80 PTX without warnings.
#include "KernelGraphs.h"

#include "tg/Dialect/TG/IR/TGDialect.h"
#include "tg/Dialect/TG/IR/TGOps.h"
#include "tg/Lowering/KernelStep.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Parser/Parser.h"
#include "llvm/ADT/DenseSet.h"
#include "llvm/Support/raw_ostream.h"

#include <gtest/gtest.h>

#ifdef TGC_HAVE_NVRTC
#include <nvrtc.h>
#endif

using namespace mlir;
using tgc::test::KernelGraph;

namespace {

struct Lowered {
  std::string function;
  SmallVector<tg::KernelStep, 0> steps;
};

/// Parses `graph` and lowers each function; fails the test on any error.
class GraphFixture {
public:
  explicit GraphFixture(const KernelGraph &graph) {
    DialectRegistry registry;
    registry.insert<tg::TGDialect, func::FuncDialect>();
    context.appendDialectRegistry(registry);
    context.loadAllAvailableDialects();
    context.getDiagEngine().registerHandler([this](Diagnostic &diag) {
      llvm::raw_string_ostream(diagnostics) << diag << "\n";
    });
    module = parseSourceString<ModuleOp>(graph.mlir, &context);
  }

  MLIRContext context;
  OwningOpRef<ModuleOp> module;
  std::string diagnostics;
};

auto noAttention = [](tg::AttentionOp op) -> FailureOr<SmallVector<tg::KernelStep, 0>> {
  return op.emitOpError("no attention generator in this test");
};

class GenericKernels : public ::testing::TestWithParam<KernelGraph> {};

TEST_P(GenericKernels, StepsFormAValidDataflow) {
  GraphFixture fixture(GetParam());
  ASSERT_TRUE(fixture.module) << fixture.diagnostics;
  for (func::FuncOp fn : fixture.module->getOps<func::FuncOp>()) {
    FailureOr<SmallVector<tg::KernelStep, 0>> steps =
        tg::emitGenericKernels(fn, noAttention);
    ASSERT_TRUE(succeeded(steps)) << fixture.diagnostics;
    llvm::DenseSet<Value> written(fn.getArguments().begin(),
                                  fn.getArguments().end());
    for (const tg::KernelStep &step : *steps) {
      SCOPED_TRACE(step.name);
      EXPECT_NE(step.source.find("void __launch_bounds__"), std::string::npos);
      EXPECT_NE(step.source.find("\n" + step.entry + "("), std::string::npos)
          << "entry " << step.entry << " not defined";
      EXPECT_GE(step.grid[0], 1u);
      EXPECT_GE(step.block[0], 1u);
      EXPECT_LE(step.block[0], 1024u);
      unsigned buffers = 0;
      for (const tg::KernelArg &arg : step.args) {
        // The op's own workspace (split-K partial sums) comes last.
        if (arg.kind == tg::KernelArg::Kind::Scratch) {
          EXPECT_EQ(&arg, &step.args.back());
          continue;
        }
        ASSERT_EQ(arg.kind, tg::KernelArg::Kind::Buffer);
        bool isOutput = llvm::is_contained(step.outputs, arg.value);
        if (!isOutput) {
          EXPECT_TRUE(written.contains(arg.value))
              << "step reads a buffer nobody wrote";
        }
        ++buffers;
      }
      // Parameters in the source: in0.. and out0.., in argument order.
      for (unsigned i = 0; i < buffers; ++i) {
        bool isOutput =
            llvm::is_contained(step.outputs, step.args[i].value);
        unsigned index = 0;
        for (unsigned j = 0; j < i; ++j)
          index += llvm::is_contained(step.outputs, step.args[j].value) ==
                   isOutput;
        std::string name =
            (isOutput ? "out" : "in") + std::to_string(index);
        EXPECT_NE(step.source.find("*__restrict__ " + name), std::string::npos)
            << name;
      }
      for (Value out : step.outputs) {
        EXPECT_TRUE(llvm::is_contained(
            llvm::map_range(step.args,
                            [](const tg::KernelArg &a) { return a.value; }),
            out));
        written.insert(out);
      }
    }
    auto ret = cast<func::ReturnOp>(fn.getBody().front().getTerminator());
    for (Value result : ret.getOperands())
      EXPECT_TRUE(written.contains(result))
          << "a result of @" << fn.getName().str() << " is never written";
  }
}

#ifdef TGC_HAVE_NVRTC
/// Compiles `source` for `arch`; returns the log, empty on success without
/// warnings.
std::string compileWithNvrtc(const std::string &source,
                             const std::string &arch, bool &ok) {
  nvrtcProgram program;
  ok = nvrtcCreateProgram(&program, source.c_str(), "kernel.cu", 0, nullptr,
                          nullptr) == NVRTC_SUCCESS;
  if (!ok)
    return "nvrtcCreateProgram failed";
  std::string include = "-I" TGC_CUDA_INCLUDE_DIR;
  std::string archOption = "--gpu-architecture=" + arch;
  const char *options[] = {include.c_str(), archOption.c_str(),
                           "-std=c++17"};
  nvrtcResult result = nvrtcCompileProgram(program, 3, options);
  size_t logSize = 0;
  nvrtcGetProgramLogSize(program, &logSize);
  std::string log(logSize, '\0');
  if (logSize)
    nvrtcGetProgramLog(program, log.data());
  nvrtcDestroyProgram(&program);
  ok = result == NVRTC_SUCCESS;
  while (!log.empty() && (log.back() == '\0' || log.back() == '\n'))
    log.pop_back();
  return log;
}

TEST_P(GenericKernels, EveryKernelCompilesWithNvrtc) {
  GraphFixture fixture(GetParam());
  ASSERT_TRUE(fixture.module) << fixture.diagnostics;
  for (func::FuncOp fn : fixture.module->getOps<func::FuncOp>()) {
    FailureOr<SmallVector<tg::KernelStep, 0>> steps =
        tg::emitGenericKernels(fn, noAttention);
    ASSERT_TRUE(succeeded(steps)) << fixture.diagnostics;
    for (const tg::KernelStep &step : *steps)
      for (const char *arch : {"sm_80", "sm_90a", "compute_80"}) {
        bool ok = false;
        std::string log = compileWithNvrtc(step.source, arch, ok);
        EXPECT_TRUE(ok && log.empty())
            << "@" << fn.getName().str() << " kernel '" << step.name
            << "' for " << arch << ":\n"
            << log << "\n----- source:\n"
            << step.source;
      }
  }
}
#endif

INSTANTIATE_TEST_SUITE_P(
    Graphs, GenericKernels, ::testing::ValuesIn(tgc::test::kernelGraphs()),
    [](const ::testing::TestParamInfo<KernelGraph> &info) {
      return info.param.name;
    });

/// The errors the partitioner promises.
TEST(GenericKernelErrors, SdpaMustBeDecomposedFirst) {
  GraphFixture fixture({"sdpa", R"mlir(
func.func @sdpa(%q: tensor<1x2x16x64xbf16>, %k: tensor<1x2x16x64xbf16>, %v: tensor<1x2x16x64xbf16>) -> tensor<1x2x16x64xbf16> {
  %o = tg.sdpa %q, %k, %v : tensor<1x2x16x64xbf16>, tensor<1x2x16x64xbf16>, tensor<1x2x16x64xbf16> -> tensor<1x2x16x64xbf16>
  return %o : tensor<1x2x16x64xbf16>
}
)mlir"});
  ASSERT_TRUE(fixture.module) << fixture.diagnostics;
  auto fn = *fixture.module->getOps<func::FuncOp>().begin();
  EXPECT_TRUE(failed(tg::emitGenericKernels(fn, noAttention)));
  EXPECT_NE(fixture.diagnostics.find("run tg-decompose-sdpa or "
                                     "tg-fuse-attention first"),
            std::string::npos)
      << fixture.diagnostics;
}

TEST(GenericKernelErrors, AttentionGoesToItsGenerator) {
  GraphFixture fixture({"attention", R"mlir(
func.func @attention(%q: tensor<1x2x16x64xbf16>, %k: tensor<1x2x64x16xbf16>, %v: tensor<1x2x16x64xbf16>) -> tensor<1x2x16x64xbf16> {
  %kt = tg.transpose %k perm = [0, 1, 3, 2] : tensor<1x2x64x16xbf16> -> tensor<1x2x16x64xbf16>
  %o = tg.attention %q, %kt, %v : tensor<1x2x16x64xbf16>, tensor<1x2x16x64xbf16>, tensor<1x2x16x64xbf16> -> tensor<1x2x16x64xbf16>
      score {
  ^bb0(%s: tensor<f32>, %b: tensor<i64>, %h: tensor<i64>, %qi: tensor<i64>, %ki: tensor<i64>):
    tg.yield %s : tensor<f32>
  }
  return %o : tensor<1x2x16x64xbf16>
}
)mlir"});
  ASSERT_TRUE(fixture.module) << fixture.diagnostics;
  auto fn = *fixture.module->getOps<func::FuncOp>().begin();
  unsigned calls = 0;
  Value seenK;
  auto fake = [&](tg::AttentionOp op) -> FailureOr<SmallVector<tg::KernelStep, 0>> {
    ++calls;
    seenK = op.getK();
    tg::KernelStep step;
    step.name = "attention";
    step.entry = "fake";
    for (Value operand : op->getOperands())
      step.args.push_back(tg::KernelArg::buffer(operand));
    step.args.push_back(tg::KernelArg::buffer(op.getOutput()));
    step.outputs.push_back(op.getOutput());
    SmallVector<tg::KernelStep, 0> steps;
    steps.push_back(std::move(step));
    return steps;
  };
  FailureOr<SmallVector<tg::KernelStep, 0>> steps =
      tg::emitGenericKernels(fn, fake);
  ASSERT_TRUE(succeeded(steps)) << fixture.diagnostics;
  EXPECT_EQ(calls, 1u);
  // The transposed k is copied into its own buffer first.
  ASSERT_EQ(steps->size(), 2u);
  EXPECT_EQ((*steps)[0].outputs.front(), seenK);
  EXPECT_EQ((*steps)[1].entry, "fake");
}

} // namespace
