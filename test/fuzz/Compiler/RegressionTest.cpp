// Every build runs the fuzz harnesses over the inputs that once made them
// fail (test/fuzz/regressions/<harness>/) and over the seeds: the .mlir
// files of test/ and examples/, test/fuzz/seeds/<harness>/ (.npy files and
// kernel cache entries), the bundled plan and plans compiled from the
// examples. `--write-seeds=DIR` writes the generated seeds as
// DIR/<harness>/seed-N (scripts/fuzz.sh seeds its plan corpus so; the
// committed .npy and cache entry seeds were written so too).

#include "Harnesses.h"

#include "tg/Driver/Compile.h"
#include "tg/Reference/Npy.h"
#include "tgc/KernelCache.h"
#include "tgc/Nvrtc.h"

#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/MLIRContext.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/raw_ostream.h"

#include <gtest/gtest.h>

#include <functional>
#include <map>

using namespace mlir;
using Harness = std::function<int(const uint8_t *, size_t)>;

namespace {
std::string sourcePath(const std::string &relative) {
  return std::string(TGC_SOURCE_DIR) + "/" + relative;
}

/// Every regular file under `dir` (recursively) whose name ends in `suffix`.
std::vector<std::string> filesUnder(const std::string &dir,
                                    llvm::StringRef suffix = "") {
  std::vector<std::string> files;
  std::error_code ec;
  for (llvm::sys::fs::recursive_directory_iterator it(dir, ec), end;
       it != end && !ec; it.increment(ec))
    if (it->type() == llvm::sys::fs::file_type::regular_file &&
        llvm::StringRef(it->path()).ends_with(suffix))
      files.push_back(it->path());
  std::sort(files.begin(), files.end());
  return files;
}

std::string readAll(const std::string &path) {
  auto buffer = llvm::MemoryBuffer::getFile(path, /*IsText=*/false,
                                            /*RequiresNullTerminator=*/false);
  return buffer ? (*buffer)->getBuffer().str() : std::string();
}

int runOn(const Harness &harness, const std::string &bytes) {
  return harness(reinterpret_cast<const uint8_t *>(bytes.data()), bytes.size());
}

/// Generated seeds for the harnesses that have no files in the tree.
std::map<std::string, std::vector<std::string>> generatedSeeds() {
  std::map<std::string, std::vector<std::string>> seeds;
  // Plans: examples and small graphs compiled, for both backends.
  const std::pair<const char *, const char *> graphs[] = {
      {"examples/attention.mlir", ""},
      {"examples/mixed_attention_matmul.mlir", ""},
      {"examples/fp8_attention.mlir", "--entry=fp8_attention"},
      {"test/Lowering/softmax.mlir", "--entry=middle_axis_stats"},
      {"test/Lowering/pointwise-fusion.mlir", "--entry=split"},
      {"test/Lowering/reduce.mlir", "--entry=sum_last"},
  };
  for (const auto &[graph, entry] : graphs)
    for (const char *backend : {"--backend=nvrtc", "--backend=cudnn"}) {
      tgc::CompileOptions options;
      options.arch = "sm_90a";
      options.extra = {backend};
      if (*entry)
        options.extra.push_back(entry);
      tgc::Expected<tgc::Plan> plan =
          tgc::Compiler(options).compileFile(sourcePath(graph));
      if (plan)
        seeds["plan"].push_back(tgc::serializePlan(*plan));
    }
  seeds["plan"].push_back(readAll(sourcePath("examples/embed/square.plan")));
  // .npy files of every dtype the reader takes.
  MLIRContext context;
  Builder b(&context);
  for (Type element : {Type(b.getF32Type()), Type(b.getF16Type()),
                       Type(b.getI1Type()), Type(b.getI8Type()),
                       Type(b.getI32Type()), Type(b.getI64Type())}) {
    tg::ref::HostTensor tensor =
        tg::ref::HostTensor::zeros(RankedTensorType::get({2, 3}, element));
    for (size_t i = 0; i < tensor.values.size(); ++i)
      tensor.values[i] = double(i % 2);
    seeds["npy"].push_back(tg::ref::serializeNpy(tensor));
  }
  // Cache entries: a real cubin and PTX from NVRTC.
  tgc::Kernel kernel{"k", "k",
                     "extern \"C\" __global__ void k(float *y, float a, long long n) "
                     "{ if (n) y[0] = a; }",
                     {}, tgc::KernelTarget::portable(80)};
  for (const char *target : {"sm_80", "compute_80"}) {
    tgc::Expected<tgc::CompileTarget> parsed = tgc::parseCompileTarget(target);
    tgc::Expected<tgc::CompiledKernel> compiled = tgc::compileKernel(kernel, *parsed);
    if (!compiled)
      continue;
    tgc::Digest key = tgc::kernelCacheKey(kernel, *parsed, "seed");
    seeds["cache-entry"].push_back(tgc::encodeCacheEntry(key, *compiled));
  }
  return seeds;
}

const std::map<std::string, Harness> &harnesses() {
  static const std::map<std::string, Harness> all = {
      {"compile", tgc::fuzz::compileText},
      {"plan", tgc::fuzz::planText},
      {"npy", tgc::fuzz::npyBytes},
      {"cache-entry", tgc::fuzz::cacheEntryBytes}};
  return all;
}
} // namespace

class FuzzRegressions : public ::testing::TestWithParam<std::string> {};

TEST_P(FuzzRegressions, SavedAndSeedInputs) {
  const Harness &harness = harnesses().at(GetParam());
  std::vector<std::pair<std::string, std::string>> inputs; // name, bytes
  for (const std::string &file :
       filesUnder(sourcePath("test/fuzz/regressions/" + GetParam())))
    inputs.push_back({file, readAll(file)});
  for (const std::string &file : filesUnder(sourcePath("test/fuzz/seeds/" + GetParam())))
    inputs.push_back({file, readAll(file)});
  if (GetParam() == "compile") {
    for (const char *dir : {"test", "examples"})
      for (const std::string &file : filesUnder(sourcePath(dir), ".mlir"))
        inputs.push_back({file, readAll(file)});
  } else if (GetParam() == "plan") {
    std::vector<std::string> seeds = generatedSeeds()["plan"];
    for (size_t i = 0; i < seeds.size(); ++i)
      inputs.push_back({"generated plan " + std::to_string(i), seeds[i]});
  }
  ASSERT_FALSE(inputs.empty());
  for (const auto &[name, bytes] : inputs) {
    tgc::fuzz::currentInput = name.c_str();
    EXPECT_EQ(runOn(harness, bytes), 0); // a finding aborts the process
  }
  tgc::fuzz::currentInput = nullptr;
}

INSTANTIATE_TEST_SUITE_P(Harnesses, FuzzRegressions,
                         ::testing::Values("compile", "plan", "npy", "cache-entry"),
                         [](const auto &info) {
                           std::string name = info.param;
                           std::replace(name.begin(), name.end(), '-', '_');
                           return name;
                         });

int main(int argc, char **argv) {
  llvm::StringRef first = argc > 1 ? argv[1] : "";
  if (first.consume_front("--write-seeds=")) {
    for (const auto &[harness, seeds] : generatedSeeds()) {
      llvm::SmallString<256> dir(first);
      llvm::sys::path::append(dir, harness);
      llvm::sys::fs::create_directories(dir);
      for (size_t i = 0; i < seeds.size(); ++i) {
        llvm::SmallString<256> path(dir);
        llvm::sys::path::append(path, "seed-" + std::to_string(i));
        std::error_code ec;
        llvm::raw_fd_ostream os(path, ec);
        os << seeds[i];
      }
    }
    return 0;
  }
  ::testing::InitGoogleTest(&argc, argv);
  return RUN_ALL_TESTS();
}
