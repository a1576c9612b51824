// The C API as a user sees it: status codes and tgc_last_error() messages.

#include "MockDriver.h"
#include "TestUtil.h"
#include "tgc/Testing.h"
#include "tgc/tgc.h"

#include <gtest/gtest.h>

#include <cstdlib>
#include <thread>

using namespace tgc::test;

namespace {
class CApiTest : public ::testing::Test {
protected:
  void SetUp() override {
    dir = makeTempDir("tgc-capi-");
    path = dir + "/e.plan";
    ASSERT_TRUE(tgc::writePlanFile(elementwisePlan(1000), path).isOk());
    ASSERT_EQ(tgc_executable_load_plan(path.c_str(), &exe), TGC_SUCCESS) << tgc_last_error();
    x = std::aligned_alloc(256, 4096);
    y = std::aligned_alloc(256, 4096);
  }
  void TearDown() override {
    tgc_executable_destroy(exe);
    std::free(x);
    std::free(y);
    removeTree(dir);
    tgc::testing::setCudaDriverLibrary("libcuda.so.1");
  }
  tgc_status_t run(std::vector<tgc_binding_t> bindings) {
    return tgc_run(exe, bindings.data(), bindings.size(), nullptr);
  }
  std::string dir, path;
  tgc_executable_t *exe = nullptr;
  void *x, *y;
};
} // namespace

TEST_F(CApiTest, LoadErrors) {
  tgc_executable_t *other = reinterpret_cast<tgc_executable_t *>(0x1);
  EXPECT_EQ(tgc_executable_load_plan(nullptr, &other), TGC_ERROR_INVALID_ARGUMENT);
  EXPECT_STREQ(tgc_last_error(), "tgc_executable_load_plan: path and out must not be null");

  EXPECT_EQ(tgc_executable_load_plan("/nonexistent/x.plan", &other), TGC_ERROR_IO);
  EXPECT_STREQ(tgc_last_error(), "cannot open '/nonexistent/x.plan': No such file or directory");
  EXPECT_EQ(other, nullptr);

  std::string text = readText(path);
  writeText(path, text.substr(0, text.size() / 2));
  EXPECT_EQ(tgc_executable_load_plan(path.c_str(), &other), TGC_ERROR_INVALID_PLAN);
  EXPECT_EQ(std::string(tgc_last_error()).rfind(path + ": corrupt plan file: ", 0), 0u)
      << tgc_last_error();

  EXPECT_EQ(tgc_executable_load_plan_string("tgc-plan 9\n", 11, &other), TGC_ERROR_INVALID_PLAN);
  EXPECT_STREQ(tgc_last_error(),
               "<string>: unsupported plan format version 9; this runtime reads versions 1 to 4");

  // Success clears the message.
  ASSERT_EQ(tgc_executable_load_plan_string(text.data(), text.size(), &other), TGC_SUCCESS);
  EXPECT_STREQ(tgc_last_error(), "");
  tgc_executable_destroy(other);
  tgc_executable_destroy(nullptr);
}

TEST_F(CApiTest, Introspection) {
  uint64_t bytes = 0;
  ASSERT_EQ(tgc_executable_workspace_size(exe, &bytes), TGC_SUCCESS);
  EXPECT_EQ(bytes, 4096u);
  size_t count = 0;
  ASSERT_EQ(tgc_executable_num_buffers(exe, &count), TGC_SUCCESS);
  ASSERT_EQ(count, 3u);
  tgc_buffer_info_t info;
  ASSERT_EQ(tgc_executable_buffer_info(exe, 1, &info), TGC_SUCCESS);
  EXPECT_STREQ(info.name, "y");
  EXPECT_EQ(info.role, TGC_BUFFER_OUTPUT);
  EXPECT_EQ(info.dtype, TGC_DTYPE_F32);
  EXPECT_EQ(info.rank, 1);
  EXPECT_EQ(info.shape[0], 1000);
  EXPECT_EQ(info.strides[0], 1);
  EXPECT_EQ(info.bytes, 4000u);
  EXPECT_EQ(info.alignment, 16u);
  EXPECT_EQ(tgc_executable_buffer_info(exe, 3, &info), TGC_ERROR_INVALID_ARGUMENT);
  EXPECT_STREQ(tgc_last_error(),
               "tgc_executable_buffer_info: index 3 is out of range (the plan has 3 buffers)");
  EXPECT_EQ(tgc_executable_workspace_size(nullptr, &bytes), TGC_ERROR_INVALID_ARGUMENT);
}

TEST_F(CApiTest, RunArgumentErrors) {
  EXPECT_EQ(tgc_run(nullptr, nullptr, 0, nullptr), TGC_ERROR_INVALID_ARGUMENT);
  EXPECT_STREQ(tgc_last_error(), "tgc_run: the executable is null");
  EXPECT_EQ(tgc_run(exe, nullptr, 2, nullptr), TGC_ERROR_INVALID_ARGUMENT);
  EXPECT_STREQ(tgc_last_error(), "tgc_run: num_bindings is 2 but bindings is null");
  EXPECT_EQ(run({{nullptr, x}}), TGC_ERROR_INVALID_ARGUMENT);
  EXPECT_STREQ(tgc_last_error(), "tgc_run: bindings[0].name is null");
  tgc_binding_t bad{"x", x, tgc_dtype_t(42)};
  EXPECT_EQ(run({bad}), TGC_ERROR_INVALID_ARGUMENT);
  EXPECT_STREQ(tgc_last_error(), "tgc_run: binding 'x' has an invalid dtype value 42");
}

TEST_F(CApiTest, BindingErrors) {
  EXPECT_EQ(run({{"x", x}, {"q", y}}), TGC_ERROR_BINDING);
  EXPECT_STREQ(tgc_last_error(),
               "unknown binding 'q'; the plan 'elementwise' has inputs: 'x'; outputs: 'y'");
  EXPECT_EQ(run({{"x", x}}), TGC_ERROR_BINDING);
  EXPECT_STREQ(tgc_last_error(), "missing binding for output 'y' (f32 [1000])");
  EXPECT_EQ(run({{"x", x}, {"y", nullptr}}), TGC_ERROR_BINDING);
  EXPECT_STREQ(tgc_last_error(),
               "binding 'y' has a null pointer (output f32 [1000] needs 4000 bytes)");
  EXPECT_EQ(run({{"x", static_cast<char *>(x) + 8}, {"y", y}}), TGC_ERROR_MISALIGNED);
  EXPECT_NE(std::string(tgc_last_error()).find("is not 16-byte aligned"), std::string::npos);

  int64_t shape[] = {1000}, wrongShape[] = {999}, strides[] = {2};
  EXPECT_EQ(run({{"x", x, TGC_DTYPE_BF16}, {"y", y}}), TGC_ERROR_BINDING);
  EXPECT_STREQ(tgc_last_error(), "binding 'x' has dtype bf16 but the plan expects f32");
  EXPECT_EQ(run({{"x", x, TGC_DTYPE_F32, 1, wrongShape}, {"y", y}}), TGC_ERROR_BINDING);
  EXPECT_STREQ(tgc_last_error(), "binding 'x' has shape [999] but the plan expects [1000]");
  EXPECT_EQ(run({{"x", x, TGC_DTYPE_F32, 2, shape}, {"y", y}}), TGC_ERROR_BINDING);
  EXPECT_EQ(run({{"x", x, TGC_DTYPE_F32, 1, shape, strides}, {"y", y}}), TGC_ERROR_BINDING);
  EXPECT_STREQ(tgc_last_error(),
               "binding 'x' has strides [2] but the plan was compiled for strides [1]");
  EXPECT_EQ(run({{"x", x, TGC_DTYPE_F32, 1, nullptr, strides}, {"y", y}}),
            TGC_ERROR_INVALID_ARGUMENT);
  EXPECT_STREQ(tgc_last_error(), "tgc_run: binding 'x' gives strides without a shape");

  tgc_binding_t ok[] = {{"x", x}, {"y", y}};
  EXPECT_EQ(tgc_run_with_workspace(exe, ok, 2, y, 64, nullptr), TGC_ERROR_WORKSPACE_TOO_SMALL);
  EXPECT_STREQ(tgc_last_error(),
               "the workspace has 64 bytes but the plan 'elementwise' needs 4096");
}

TEST_F(CApiTest, NoDriver) {
  tgc::testing::setCudaDriverLibrary("/nonexistent/libcuda.so.1");
  EXPECT_EQ(run({{"x", x, TGC_DTYPE_F32}, {"y", y}}), TGC_ERROR_NO_DRIVER);
  EXPECT_EQ(std::string(tgc_last_error()).rfind("no CUDA driver: cannot load ", 0), 0u)
      << tgc_last_error();
  EXPECT_EQ(tgc_executable_prepare(exe, nullptr), TGC_ERROR_NO_DRIVER);
}

TEST_F(CApiTest, RunsThroughTheMockDriver) {
  MockDriver &mock = MockDriver::install();
  mock.registerMemory(x, 4096);
  mock.registerMemory(y, 4096);
  EXPECT_EQ(tgc_executable_prepare(exe, reinterpret_cast<tgc_stream_t>(0x7000)), TGC_SUCCESS)
      << tgc_last_error();
  EXPECT_EQ(run({{"x", x}, {"y", y}}), TGC_SUCCESS) << tgc_last_error();
  EXPECT_EQ(countLines(mock.trace(), "cuLaunchKernel"), 2);
  mock.unregisterMemory(x);
  mock.unregisterMemory(y);
}

// A thread with no current context (as PyTorch's autograd threads are) and
// the default stream: the bound memory's device, or a message saying why not.
TEST_F(CApiTest, DefaultStreamWithoutAContext) {
  MockDriver &mock = MockDriver::install();
  mock.setCurrentContext(0);
  mock.registerMemory(x, 4096);
  EXPECT_EQ(run({{"x", x}, {"y", y}}), TGC_ERROR_BINDING);
  std::string message = tgc_last_error();
  EXPECT_EQ(message.rfind("no CUDA context is current on this thread and the default stream was "
                          "given, and binding 'y' (0x", 0),
            0u)
      << message;
  EXPECT_NE(message.find(") belongs to no CUDA device (CUDA_ERROR_INVALID_VALUE (invalid "
                         "argument)) to run on; bind device memory or make a context current first"),
            std::string::npos)
      << message;
  mock.registerMemory(y, 4096);
  EXPECT_EQ(run({{"x", x}, {"y", y}}), TGC_SUCCESS) << tgc_last_error();
  EXPECT_EQ(countLines(mock.trace(), "cuDevicePrimaryCtxRetain 0"), 1) << mock.trace();
  EXPECT_STREQ(mock.currentContext(), "none");
  mock.unregisterMemory(x);
  mock.unregisterMemory(y);
}

TEST_F(CApiTest, LastErrorIsPerThread) {
  EXPECT_EQ(run({{"x", x}}), TGC_ERROR_BINDING);
  std::string other = "unset";
  std::thread([&] { other = tgc_last_error(); }).join();
  EXPECT_EQ(other, "");
  EXPECT_STREQ(tgc_last_error(), "missing binding for output 'y' (f32 [1000])");
}

TEST(CApi, StatusNamesAndCacheStats) {
  EXPECT_STREQ(tgc_status_name(TGC_SUCCESS), "ok");
  EXPECT_STREQ(tgc_status_name(TGC_ERROR_MISALIGNED), "misaligned pointer");
  EXPECT_STREQ(tgc_status_name(TGC_ERROR_NO_DRIVER), "no CUDA driver");
  EXPECT_STREQ(tgc_status_name(tgc_status_t(99)), "unknown status");
  tgc_cache_stats_t stats;
  EXPECT_EQ(tgc_cache_stats(&stats), TGC_SUCCESS);
  EXPECT_EQ(tgc_cache_stats(nullptr), TGC_ERROR_INVALID_ARGUMENT);
}
