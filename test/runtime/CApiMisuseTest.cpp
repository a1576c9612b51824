// Every way a C caller can get the API wrong, as a table: the call, the
// status it must return and the exact tgc_last_error() message. None may
// crash, read past what the caller passed, or report TGC_ERROR_INTERNAL.

#include "MockDriver.h"
#include "TestUtil.h"
#include "tgc/Testing.h"
#include "tgc/tgc.h"

#include <gtest/gtest.h>

#include <climits>
#include <cstdint>
#include <cstdlib>
#include <functional>
#include <unistd.h>

using namespace tgc::test;

namespace {
struct Misuse {
  const char *what;
  std::function<tgc_status_t()> call;
  tgc_status_t status;
  std::string message; // exact; "prefix*" matches a prefix
};

class CApiMisuse : public ::testing::Test {
protected:
  void SetUp() override {
    std::string text = tgc::serializePlan(elementwisePlan(1000));
    ASSERT_EQ(tgc_executable_load_plan_string(text.data(), text.size(), &exe), TGC_SUCCESS)
        << tgc_last_error();
    x = std::aligned_alloc(256, 4096);
    y = std::aligned_alloc(256, 4096);
    ws = std::aligned_alloc(256, 8192);
    mock = &MockDriver::install();
    mock->registerMemory(x, 4096);
    mock->registerMemory(y, 4096);
    mock->registerMemory(ws, 8192);
  }
  void TearDown() override {
    tgc_executable_destroy(exe);
    mock->unregisterMemory(x);
    mock->unregisterMemory(y);
    mock->unregisterMemory(ws);
    std::free(x);
    std::free(y);
    std::free(ws);
    tgc::testing::setCudaDriverLibrary("libcuda.so.1");
  }
  void expectAll(const std::vector<Misuse> &table) {
    for (const Misuse &m : table) {
      tgc_status_t status = m.call();
      std::string message = tgc_last_error();
      EXPECT_EQ(status, m.status) << m.what << ": " << message;
      if (!m.message.empty() && m.message.back() == '*')
        EXPECT_EQ(message.rfind(m.message.substr(0, m.message.size() - 1), 0), 0u)
            << m.what << ": " << message;
      else
        EXPECT_EQ(message, m.message) << m.what;
    }
  }
  tgc_status_t run(std::vector<tgc_binding_t> bindings) {
    return tgc_run(exe, bindings.data(), bindings.size(), stream);
  }
  tgc_executable_t *exe = nullptr;
  void *x, *y, *ws;
  MockDriver *mock = nullptr;
  tgc_stream_t stream = reinterpret_cast<tgc_stream_t>(0x7000);
};
} // namespace

TEST_F(CApiMisuse, NullPointersAndBadHandles) {
  tgc_executable_t *out = nullptr;
  uint64_t bytes;
  size_t count;
  tgc_buffer_info_t info;
  const char *text;
  expectAll({
      {"load_plan path", [&] { return tgc_executable_load_plan(nullptr, &out); },
       TGC_ERROR_INVALID_ARGUMENT, "tgc_executable_load_plan: path and out must not be null"},
      {"load_plan out", [&] { return tgc_executable_load_plan("x.plan", nullptr); },
       TGC_ERROR_INVALID_ARGUMENT, "tgc_executable_load_plan: path and out must not be null"},
      {"load_plan_string text", [&] { return tgc_executable_load_plan_string(nullptr, 5, &out); },
       TGC_ERROR_INVALID_ARGUMENT,
       "tgc_executable_load_plan_string: text and out must not be null"},
      {"load_plan_string out", [&] { return tgc_executable_load_plan_string("t", 1, nullptr); },
       TGC_ERROR_INVALID_ARGUMENT,
       "tgc_executable_load_plan_string: text and out must not be null"},
      {"load_plan_string empty", [&] { return tgc_executable_load_plan_string("", 0, &out); },
       TGC_ERROR_INVALID_PLAN,
       "<string>: not a tgc plan file (it does not start with 'tgc-plan')"},
      {"load_plan directory", [&] { return tgc_executable_load_plan("/", &out); },
       TGC_ERROR_IO, "cannot read '/': it is a directory"},
      {"load_plan device", [&] { return tgc_executable_load_plan("/dev/zero", &out); },
       TGC_ERROR_IO, "cannot read '/dev/zero': it is not a regular file"},
      {"workspace_size exe", [&] { return tgc_executable_workspace_size(nullptr, &bytes); },
       TGC_ERROR_INVALID_ARGUMENT, "tgc_executable_workspace_size: null argument"},
      {"workspace_size out", [&] { return tgc_executable_workspace_size(exe, nullptr); },
       TGC_ERROR_INVALID_ARGUMENT, "tgc_executable_workspace_size: null argument"},
      {"num_buffers exe", [&] { return tgc_executable_num_buffers(nullptr, &count); },
       TGC_ERROR_INVALID_ARGUMENT, "tgc_executable_num_buffers: null argument"},
      {"num_buffers out", [&] { return tgc_executable_num_buffers(exe, nullptr); },
       TGC_ERROR_INVALID_ARGUMENT, "tgc_executable_num_buffers: null argument"},
      {"buffer_info exe", [&] { return tgc_executable_buffer_info(nullptr, 0, &info); },
       TGC_ERROR_INVALID_ARGUMENT, "tgc_executable_buffer_info: null argument"},
      {"buffer_info out", [&] { return tgc_executable_buffer_info(exe, 0, nullptr); },
       TGC_ERROR_INVALID_ARGUMENT, "tgc_executable_buffer_info: null argument"},
      {"buffer_info index", [&] { return tgc_executable_buffer_info(exe, SIZE_MAX, &info); },
       TGC_ERROR_INVALID_ARGUMENT,
       "tgc_executable_buffer_info: index 18446744073709551615 is out of range (the plan has "
       "3 buffers)"},
      {"prepare exe", [&] { return tgc_executable_prepare(nullptr, stream); },
       TGC_ERROR_INVALID_ARGUMENT, "tgc_executable_prepare: the executable is null"},
      {"describe exe", [&] { return tgc_executable_describe(nullptr, stream, &text); },
       TGC_ERROR_INVALID_ARGUMENT, "tgc_executable_describe: null argument"},
      {"describe text", [&] { return tgc_executable_describe(exe, stream, nullptr); },
       TGC_ERROR_INVALID_ARGUMENT, "tgc_executable_describe: null argument"},
      {"run exe", [&] { return tgc_run(nullptr, nullptr, 0, stream); },
       TGC_ERROR_INVALID_ARGUMENT, "tgc_run: the executable is null"},
      {"run_with_workspace exe",
       [&] { return tgc_run_with_workspace(nullptr, nullptr, 0, ws, 8192, stream); },
       TGC_ERROR_INVALID_ARGUMENT, "tgc_run: the executable is null"},
      {"cache_stats", [&] { return tgc_cache_stats(nullptr); }, TGC_ERROR_INVALID_ARGUMENT,
       "tgc_cache_stats: stats is null"},
  });
  EXPECT_EQ(out, nullptr);
  tgc_executable_destroy(nullptr);
  EXPECT_STREQ(tgc_status_name(tgc_status_t(-1)), "unknown status");
  EXPECT_STREQ(tgc_status_name(tgc_status_t(INT_MAX)), "unknown status");
}

// A plan file over 1 GiB is not read (a sparse file: no disk used).
TEST_F(CApiMisuse, OversizedPlanFile) {
  std::string dir = makeTempDir("tgc-misuse-");
  std::string path = dir + "/big.plan";
  writeText(path, "tgc-plan 1\n");
  ASSERT_EQ(::truncate(path.c_str(), off_t(1) << 31), 0);
  tgc_executable_t *out = nullptr;
  EXPECT_EQ(tgc_executable_load_plan(path.c_str(), &out), TGC_ERROR_IO);
  EXPECT_EQ(std::string(tgc_last_error()),
            "cannot read '" + path + "': it has 2147483648 bytes, more than the limit of "
            "1073741824");
  EXPECT_EQ(out, nullptr);
  removeTree(dir);
}

TEST_F(CApiMisuse, BindingArrays) {
  tgc_binding_t two[] = {{"x", x}, {"y", y}};
  expectAll({
      {"null array", [&] { return tgc_run(exe, nullptr, 2, stream); },
       TGC_ERROR_INVALID_ARGUMENT, "tgc_run: num_bindings is 2 but bindings is null"},
      // Never read past the two entries the caller has.
      {"SIZE_MAX bindings", [&] { return tgc_run(exe, two, SIZE_MAX, stream); },
       TGC_ERROR_INVALID_ARGUMENT,
       "tgc_run: num_bindings is 18446744073709551615 but the plan 'elementwise' has 2 "
       "inputs and outputs"},
      {"one too many", [&] { return tgc_run(exe, two, 3, stream); },
       TGC_ERROR_INVALID_ARGUMENT,
       "tgc_run: num_bindings is 3 but the plan 'elementwise' has 2 inputs and outputs"},
      {"no bindings", [&] { return tgc_run(exe, two, 0, stream); }, TGC_ERROR_BINDING,
       "missing binding for input 'x' (f32 [1000])"},
      {"null name", [&] { return run({{nullptr, x}, {"y", y}}); },
       TGC_ERROR_INVALID_ARGUMENT, "tgc_run: bindings[0].name is null"},
      {"empty name", [&] { return run({{"", x}, {"y", y}}); }, TGC_ERROR_BINDING,
       "unknown binding ''; the plan 'elementwise' has inputs: 'x'; outputs: 'y'"},
      {"unknown name", [&] { return run({{"x", x}, {"z", y}}); }, TGC_ERROR_BINDING,
       "unknown binding 'z'; the plan 'elementwise' has inputs: 'x'; outputs: 'y'"},
      {"intermediate", [&] { return run({{"x", x}, {"t", y}}); }, TGC_ERROR_BINDING,
       "'t' is an intermediate of the plan and cannot be bound; the plan has inputs: 'x'; "
       "outputs: 'y'"},
      {"duplicate", [&] { return run({{"x", x}, {"x", x}}); }, TGC_ERROR_BINDING,
       "binding 'x' is given twice"},
      {"missing output", [&] { return run({{"x", x}}); }, TGC_ERROR_BINDING,
       "missing binding for output 'y' (f32 [1000])"},
  });
}

TEST_F(CApiMisuse, PointersAndAlignment) {
  char *bx = static_cast<char *>(x);
  expectAll({
      {"null data", [&] { return run({{"x", nullptr}, {"y", y}}); }, TGC_ERROR_BINDING,
       "binding 'x' has a null pointer (input f32 [1000] needs 4000 bytes)"},
      {"odd pointer", [&] { return run({{"x", bx + 1}, {"y", y}}); }, TGC_ERROR_MISALIGNED,
       "binding 'x' pointer 0x*"},
      {"4-byte aligned", [&] { return run({{"x", bx + 4}, {"y", y}}); }, TGC_ERROR_MISALIGNED,
       "binding 'x' pointer 0x*"},
  });
  tgc_binding_t ok[] = {{"x", x}, {"y", y}};
  alignas(16) static char hostBuffer[4096];
  tgc_binding_t host[] = {{"x", x}, {"y", hostBuffer}};
  expectAll({
      {"workspace too small",
       [&] { return tgc_run_with_workspace(exe, ok, 2, ws, 64, stream); },
       TGC_ERROR_WORKSPACE_TOO_SMALL,
       "the workspace has 64 bytes but the plan 'elementwise' needs 4096"},
      {"null workspace", [&] { return tgc_run_with_workspace(exe, ok, 2, nullptr, UINT64_MAX, stream); },
       TGC_ERROR_INVALID_ARGUMENT, "the workspace pointer is null but the plan needs 4096 bytes"},
      {"misaligned workspace",
       [&] { return tgc_run_with_workspace(exe, ok, 2, static_cast<char *>(ws) + 16, 8000, stream); },
       TGC_ERROR_MISALIGNED, "the workspace pointer 0x*"},
      {"memory the GPU cannot access", [&] { return tgc_run(exe, host, 2, stream); },
       TGC_ERROR_BINDING, "binding 'y' (0x*"},
  });
  EXPECT_NE(std::string(tgc_last_error()).find("is not memory the GPU can access"),
            std::string::npos)
      << tgc_last_error();
}

TEST_F(CApiMisuse, DtypesShapesStrides) {
  int64_t shape[] = {1000}, wrong[] = {999}, negative[] = {-1000}, big[] = {INT64_MAX};
  int64_t strides[] = {1}, badStrides[] = {2}, zeroStrides[] = {0};
  int64_t shape2[] = {10, 100};
  expectAll({
      {"dtype 42", [&] { return run({{"x", x, tgc_dtype_t(42)}, {"y", y}}); },
       TGC_ERROR_INVALID_ARGUMENT, "tgc_run: binding 'x' has an invalid dtype value 42"},
      {"dtype -1", [&] { return run({{"x", x, tgc_dtype_t(-1)}, {"y", y}}); },
       TGC_ERROR_INVALID_ARGUMENT, "tgc_run: binding 'x' has an invalid dtype value -1"},
      {"dtype mismatch", [&] { return run({{"x", x, TGC_DTYPE_I32}, {"y", y}}); },
       TGC_ERROR_BINDING, "binding 'x' has dtype i32 but the plan expects f32"},
      // The rank is checked before the shape array is read: a rank of
      // 2^31-1 with a one-entry array reads one entry, not 2^31-1.
      {"rank INT32_MAX", [&] { return run({{"x", x, TGC_DTYPE_F32, INT32_MAX, shape}, {"y", y}}); },
       TGC_ERROR_BINDING,
       "binding 'x' has rank 2147483647 but the plan expects rank 1 (f32 [1000])"},
      {"rank -1", [&] { return run({{"x", x, TGC_DTYPE_F32, -1, shape}, {"y", y}}); },
       TGC_ERROR_INVALID_ARGUMENT, "binding 'x' has rank -1 (a rank is not negative)"},
      {"rank 0 with a shape", [&] { return run({{"x", x, TGC_DTYPE_F32, 0, shape}, {"y", y}}); },
       TGC_ERROR_BINDING, "binding 'x' has rank 0 but the plan expects rank 1 (f32 [1000])"},
      {"rank 2", [&] { return run({{"x", x, TGC_DTYPE_F32, 2, shape2}, {"y", y}}); },
       TGC_ERROR_BINDING, "binding 'x' has rank 2 but the plan expects rank 1 (f32 [1000])"},
      {"wrong dim", [&] { return run({{"x", x, TGC_DTYPE_F32, 1, wrong}, {"y", y}}); },
       TGC_ERROR_BINDING, "binding 'x' has shape [999] but the plan expects [1000]"},
      {"negative dim", [&] { return run({{"x", x, TGC_DTYPE_F32, 1, negative}, {"y", y}}); },
       TGC_ERROR_BINDING, "binding 'x' has shape [-1000] but the plan expects [1000]"},
      {"absurd dim", [&] { return run({{"x", x, TGC_DTYPE_F32, 1, big}, {"y", y}}); },
       TGC_ERROR_BINDING,
       "binding 'x' has shape [9223372036854775807] but the plan expects [1000]"},
      {"strides without shape",
       [&] { return run({{"x", x, TGC_DTYPE_F32, 1, nullptr, strides}, {"y", y}}); },
       TGC_ERROR_INVALID_ARGUMENT, "tgc_run: binding 'x' gives strides without a shape"},
      {"wrong stride", [&] { return run({{"x", x, TGC_DTYPE_F32, 1, shape, badStrides}, {"y", y}}); },
       TGC_ERROR_BINDING,
       "binding 'x' has strides [2] but the plan was compiled for strides [1]"},
      {"zero stride", [&] { return run({{"x", x, TGC_DTYPE_F32, 1, shape, zeroStrides}, {"y", y}}); },
       TGC_ERROR_BINDING,
       "binding 'x' has strides [0] but the plan was compiled for strides [1]"},
  });
  // And the right values run.
  EXPECT_EQ(run({{"x", x, TGC_DTYPE_F32, 1, shape, strides}, {"y", y, TGC_DTYPE_F32, 1, shape}}),
            TGC_SUCCESS)
      << tgc_last_error();
}
