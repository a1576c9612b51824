// Fusion preserves semantics: every function of every fusion lit test
// (test/Transforms/tg-fuse-*.mlir) and of every model example
// (examples/models/*.mlir) is run on the reference interpreter before and
// after the fusion pipeline, on the same random inputs, and the results
// must agree.
//
// The pipeline is `tg-fuse-attention` (or `tg-fuse-matmul` for the
// tg-fuse-matmul files) unless the file says otherwise in a line
// `// EQUIV-PIPELINE: <passes>` (e.g. the sdpa round trip runs
// tg-decompose-sdpa first). Layout absorption changes argument and result
// shapes; inputs and outputs are mapped through their `tg.strides` so both
// graphs see the same memory.
//
// Tolerances, by the narrowest float type the original graph computes in
// (|actual - expected| <= atol + rtol * |expected| per element; the largest
// error measured over all graphs, as a fraction of the tolerance, in
// brackets; TGC_FUSION_ERRORS=1 prints them):
//  - f32: atol 2e-6, rtol 2e-5 [0.26]. Fusion computes the score math in
//    f32 like the graph but rounds differently: the scale moves into q.kT,
//    exp2 forms become exp with a rounded ln 2 factor; tg.sdpa / tg.sdpa_grad
//    use the exact 1/sqrt(d) where the fused op has the f32 constant the
//    decomposition wrote (largest in the backward's summed gradients).
//  - f16: atol 2e-3, rtol 2e-3 [0.33]; bf16: atol 3e-2, rtol 3e-2 [0.47].
//    The unfused graph rounds scores, scaled q/k and probabilities to the
//    low precision (a few ulps of 2^-11 / 2^-8 on values of order 1); the
//    fused op keeps them in f32 and rounds only its output.
//  - Dropout draws the same Philox mask on both sides, so the tolerances
//    above apply unchanged.
// Each function runs on two sets of random inputs. The backward files
// compare tg.attention_grad with the original tg.sdpa_grad.
#include "tg/Dialect/TG/IR/TGDialect.h"
#include "tg/Dialect/TG/IR/TGOps.h"
#include "tg/Reference/Interpreter.h"
#include "tg/Transforms/Passes.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Pass/PassRegistry.h"
#include "mlir/Transforms/Passes.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/raw_ostream.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <string>
#include <vector>

using namespace mlir;
using mlir::tg::ref::HostTensor;

namespace {

std::vector<std::string> fusionTestFiles() {
  std::vector<std::string> files;
  auto scan = [&](const std::string &dir, StringRef prefix) {
    std::error_code ec;
    for (llvm::sys::fs::directory_iterator it(dir, ec), end; it != end && !ec;
         it.increment(ec)) {
      StringRef name = llvm::sys::path::filename(it->path());
      if (name.starts_with(prefix) && name.ends_with(".mlir"))
        files.push_back(it->path());
    }
  };
  scan(std::string(TGC_FUSION_TEST_ROOT) + "/test/Transforms", "tg-fuse-");
  scan(std::string(TGC_FUSION_TEST_ROOT) + "/examples/models", "");
  std::sort(files.begin(), files.end());
  return files;
}

std::string pipelineFor(StringRef path, StringRef text) {
  size_t pos = text.find("// EQUIV-PIPELINE:");
  if (pos != StringRef::npos) {
    StringRef line = text.substr(pos + strlen("// EQUIV-PIPELINE:"));
    return line.take_until([](char c) { return c == '\n'; }).trim().str();
  }
  return llvm::sys::path::filename(path).contains("tg-fuse-matmul")
             ? "tg-fuse-matmul"
             : "tg-fuse-attention";
}

/// The narrowest float type `fn` computes in: 2 bf16, 1 f16, 0 f32.
int precisionClass(func::FuncOp fn) {
  int cls = 0;
  auto visit = [&](Type type) {
    auto tensor = dyn_cast<RankedTensorType>(type);
    if (!tensor)
      return;
    Type e = tensor.getElementType();
    if (e.isBF16())
      cls = std::max(cls, 2);
    else if (e.isF16())
      cls = std::max(cls, 1);
  };
  for (Type t : fn.getArgumentTypes())
    visit(t);
  fn.walk([&](Operation *op) {
    for (Type t : op->getResultTypes())
      visit(t);
  });
  return cls;
}

SmallVector<int64_t> stridesOf(Attribute attr, ArrayRef<int64_t> shape) {
  if (auto strides = dyn_cast_or_null<DenseI64ArrayAttr>(attr))
    return llvm::to_vector(strides.asArrayRef());
  return tg::rowMajorStrides(shape);
}

/// Walks every index of `shape` in row-major order.
template <typename Fn> void forEachIndex(ArrayRef<int64_t> shape, Fn fn) {
  int64_t total = 1;
  for (int64_t d : shape)
    total *= d;
  SmallVector<int64_t> idx(shape.size(), 0);
  for (int64_t n = 0; n < total; ++n) {
    fn(n, idx);
    for (int d = static_cast<int>(shape.size()) - 1; d >= 0; --d) {
      if (++idx[d] < shape[d])
        break;
      idx[d] = 0;
    }
  }
}

int64_t offsetOf(ArrayRef<int64_t> idx, ArrayRef<int64_t> strides) {
  int64_t offset = 0;
  for (size_t d = 0; d < idx.size(); ++d)
    offset += idx[d] * strides[d];
  return offset;
}

/// Re-reads the memory of `from` (laid out by `fromStrides`) as a tensor of
/// `toType` laid out by `toStrides`.
HostTensor relayout(const HostTensor &from, ArrayRef<int64_t> fromStrides,
                    RankedTensorType toType, ArrayRef<int64_t> toStrides) {
  std::map<int64_t, double> memory;
  forEachIndex(from.shape, [&](int64_t n, ArrayRef<int64_t> idx) {
    memory[offsetOf(idx, fromStrides)] = from.values[n];
  });
  HostTensor to = HostTensor::zeros(toType);
  forEachIndex(to.shape, [&](int64_t n, ArrayRef<int64_t> idx) {
    auto it = memory.find(offsetOf(idx, toStrides));
    to.values[n] = it == memory.end() ? std::nan("") : it->second;
  });
  return to;
}

/// max |a - e| / (atol + rtol |e|) over the elements.
double worstFraction(const HostTensor &actual, const HostTensor &expected,
                     double atol, double rtol) {
  double worst = 0.0;
  for (size_t n = 0; n < expected.values.size(); ++n) {
    double e = expected.values[n], a = actual.values[n];
    if (std::isnan(a) || std::isnan(e))
      continue;
    if (std::isinf(e) && a == e)
      continue;
    worst = std::max(worst, std::abs(a - e) / (atol + rtol * std::abs(e)));
  }
  return worst;
}

struct Outcome {
  std::string message; // empty when the graphs agree
};

Outcome checkFunction(func::FuncOp original, func::FuncOp fused,
                      uint64_t seed) {
  Outcome outcome;
  tg::ref::RandomInputOptions options;
  options.seed = seed;
  SmallVector<HostTensor> inputs = tg::ref::makeRandomInputs(original, options);
  FailureOr<SmallVector<HostTensor>> expected =
      tg::ref::interpret(original, inputs);
  if (failed(expected)) {
    outcome.message = "the interpreter failed on the original graph";
    return outcome;
  }
  SmallVector<HostTensor> fusedInputs;
  for (unsigned i = 0; i < original.getNumArguments(); ++i) {
    auto from = cast<RankedTensorType>(original.getArgumentTypes()[i]);
    auto to = cast<RankedTensorType>(fused.getArgumentTypes()[i]);
    SmallVector<int64_t> fromStrides =
        stridesOf(original.getArgAttr(i, "tg.strides"), from.getShape());
    SmallVector<int64_t> toStrides =
        stridesOf(fused.getArgAttr(i, "tg.strides"), to.getShape());
    fusedInputs.push_back(from == to && fromStrides == toStrides
                              ? inputs[i]
                              : relayout(inputs[i], fromStrides, to,
                                         toStrides));
  }
  FailureOr<SmallVector<HostTensor>> actual =
      tg::ref::interpret(fused, fusedInputs);
  if (failed(actual)) {
    outcome.message = "the interpreter failed on the fused graph";
    return outcome;
  }
  static const double atol[] = {2e-6, 2e-3, 3e-2};
  static const double rtol[] = {2e-5, 2e-3, 3e-2};
  int cls = precisionClass(original);
  for (unsigned i = 0; i < expected->size(); ++i) {
    auto from = cast<RankedTensorType>(fused.getResultTypes()[i]);
    auto to = cast<RankedTensorType>(original.getResultTypes()[i]);
    SmallVector<int64_t> fromStrides =
        stridesOf(fused.getResultAttr(i, "tg.strides"), from.getShape());
    SmallVector<int64_t> toStrides =
        stridesOf(original.getResultAttr(i, "tg.strides"), to.getShape());
    HostTensor result = (*actual)[i];
    if (from != to || fromStrides != toStrides)
      result = relayout(result, fromStrides, to, toStrides);
    tg::ref::Comparison cmp =
        tg::ref::compare(result, (*expected)[i], atol[cls], rtol[cls]);
    // TGC_FUSION_ERRORS=1 prints the worst error as a fraction of the
    // tolerance, to keep the stated tolerances honest.
    if (getenv("TGC_FUSION_ERRORS"))
      llvm::errs() << original.getSymName() << " result " << i << ": "
                   << worstFraction(result, (*expected)[i], atol[cls],
                                    rtol[cls])
                   << " of the tolerance\n";
    if (!cmp.ok()) {
      llvm::raw_string_ostream os(outcome.message);
      os << "result " << i << ": " << cmp.mismatches
         << " mismatches, max abs error " << cmp.maxAbsError
         << (cmp.nanOrShapeMismatch ? ", NaN or shape mismatch" : "")
         << " (atol " << atol[cls] << ", rtol " << rtol[cls] << ")";
      return outcome;
    }
  }
  return outcome;
}

/// A parsed test file and its fused copy.
struct LoadedFile {
  std::unique_ptr<MLIRContext> ctx;
  OwningOpRef<ModuleOp> module, fused;
  std::string error;
};

LoadedFile loadAndFuse(const std::string &path) {
  static bool registered = (tg::registerTGPasses(),
                            registerCanonicalizerPass(), registerCSEPass(),
                            true);
  (void)registered;
  LoadedFile file;
  auto buffer = llvm::MemoryBuffer::getFile(path);
  if (!buffer) {
    file.error = "cannot read " + path;
    return file;
  }
  StringRef text = (*buffer)->getBuffer();
  DialectRegistry registry;
  registry.insert<tg::TGDialect, func::FuncDialect>();
  file.ctx = std::make_unique<MLIRContext>(registry);
  // Remarks from the passes are expected; only errors matter here.
  file.ctx->getDiagEngine().registerHandler([](Diagnostic &d) {
    if (d.getSeverity() == DiagnosticSeverity::Error)
      llvm::errs() << d << "\n";
    return success();
  });
  file.module = parseSourceString<ModuleOp>(text, file.ctx.get());
  if (!file.module) {
    file.error = "cannot parse " + path;
    return file;
  }
  file.fused = file.module->clone();
  std::string pipeline = pipelineFor(path, text);
  PassManager pm(file.ctx.get(), ModuleOp::getOperationName());
  if (failed(parsePassPipeline("func.func(" + pipeline + ")",
                               pm))) {
    file.error = "bad pipeline '" + pipeline + "'";
    return file;
  }
  if (failed(pm.run(*file.fused)))
    file.error = "the pipeline failed on " + path;
  return file;
}

class FusionEquivalence : public ::testing::TestWithParam<std::string> {};

TEST_P(FusionEquivalence, InterpreterAgrees) {
  const std::string &path = GetParam();
  LoadedFile file = loadAndFuse(path);
  ASSERT_TRUE(file.error.empty()) << file.error;
  uint64_t seed = 1;
  for (auto fn : file.module->getOps<func::FuncOp>()) {
    auto fused = file.fused->lookupSymbol<func::FuncOp>(fn.getSymName());
    ASSERT_TRUE(fused);
    for (int trial = 0; trial < 2; ++trial) {
      Outcome outcome = checkFunction(fn, fused, seed++);
      EXPECT_TRUE(outcome.message.empty())
          << path << " @" << fn.getSymName().str() << ": " << outcome.message;
    }
  }
}

TEST(FusionEquivalenceCoverage, AtLeastThirtyFusedGraphs) {
  int fused = 0;
  for (const std::string &path : fusionTestFiles()) {
    LoadedFile file = loadAndFuse(path);
    ASSERT_TRUE(file.error.empty()) << file.error;
    for (auto fn : file.module->getOps<func::FuncOp>()) {
      auto fusedFn = file.fused->lookupSymbol<func::FuncOp>(fn.getSymName());
      bool before = false, after = false;
      fn.walk([&](Operation *op) {
        before |= isa<tg::AttentionOp, tg::FusedMatmulOp>(op);
      });
      fusedFn.walk([&](Operation *op) {
        after |= isa<tg::AttentionOp, tg::FusedMatmulOp>(op);
      });
      fused += after && !before;
    }
  }
  EXPECT_GE(fused, 30) << "the issue asks for at least 30 fused test graphs";
}

INSTANTIATE_TEST_SUITE_P(
    Files, FusionEquivalence, ::testing::ValuesIn(fusionTestFiles()),
    [](const ::testing::TestParamInfo<std::string> &info) {
      std::string name = llvm::sys::path::stem(info.param).str();
      std::replace_if(
          name.begin(), name.end(), [](char c) { return !std::isalnum(c); },
          '_');
      return name;
    });

} // namespace
