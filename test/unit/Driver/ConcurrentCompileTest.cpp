// Compiles on many threads at once (each compile has its own MLIRContext)
// give what the same compiles give one at a time. Run under ThreadSanitizer
// by scripts/sanitize.sh.

#include "tgc/tgc.h"
#include "tgc/tgc.hpp"

#include <gtest/gtest.h>

#include <fstream>
#include <sstream>
#include <thread>

namespace {
std::string readSource(const std::string &relative) {
  std::ifstream in(std::string(TGC_SOURCE_DIR) + "/" + relative);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

const char *kGraphs[] = {"examples/attention.mlir", "examples/models/gpt2.mlir",
                         "examples/models/llama_gqa.mlir",
                         "examples/mixed_attention_matmul.mlir"};
} // namespace

TEST(ConcurrentCompile, ThreadsGiveTheSerialPlans) {
  tgc::CompileOptions options;
  options.arch = "sm_90a";
  tgc::Compiler compiler(options);
  std::vector<std::string> sources, expected;
  for (const char *path : kGraphs) {
    sources.push_back(readSource(path));
    ASSERT_FALSE(sources.back().empty()) << path;
    tgc::Expected<tgc::Plan> plan = compiler.compileString(sources.back(), path);
    ASSERT_TRUE(plan.hasValue()) << path << ": " << plan.status().message();
    expected.push_back(tgc::serializePlan(*plan));
  }
  const size_t threads = 8, rounds = 2;
  std::vector<std::string> failures(threads);
  std::vector<std::thread> pool;
  for (size_t t = 0; t < threads; ++t)
    pool.emplace_back([&, t] {
      for (size_t r = 0; r < rounds; ++r) {
        size_t g = (t + r) % sources.size();
        // Both APIs: the C++ compiler and tgc_compile_string.
        if ((t + r) % 2 == 0) {
          tgc::Expected<tgc::Plan> plan = compiler.compileString(sources[g], kGraphs[g]);
          if (!plan || tgc::serializePlan(*plan) != expected[g])
            failures[t] += std::string(kGraphs[g]) + ": different plan\n";
        } else {
          tgc_executable_t *exe = nullptr;
          if (tgc_compile_string(sources[g].data(), sources[g].size(), "--arch=sm_90a",
                                 &exe) != TGC_SUCCESS)
            failures[t] += std::string(kGraphs[g]) + ": " + tgc_last_error() + "\n";
          tgc_executable_destroy(exe);
        }
      }
    });
  for (std::thread &thread : pool)
    thread.join();
  for (size_t t = 0; t < threads; ++t)
    EXPECT_EQ(failures[t], "") << "thread " << t;
}
