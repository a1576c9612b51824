// Executable: binding validation (pure host), the no-driver path, and the
// executor driven through the mock libcuda, with kernels emulated on the
// host so that results can be checked.

#include "MockDriver.h"
#include "TestUtil.h"
#include "ExecutableImpl.h" // earlyLaunchKeepsPlacement
#include "tgc/Nvrtc.h"
#include "tgc/Testing.h"
#include "tgc/tgc.hpp"

#include <cuda.h>
#include <gtest/gtest.h>

#include <cstdlib>
#include <cstring>
#include <thread>
#include <unistd.h>

using namespace tgc;
using namespace tgc::test;

namespace {

// Host memory that the mock driver treats as device memory.
struct DeviceBuffer {
  explicit DeviceBuffer(size_t bytes, MockDriver *mock = nullptr) : mock(mock) {
    data = static_cast<char *>(std::aligned_alloc(256, (bytes + 255) / 256 * 256));
    size = bytes;
    if (mock)
      mock->registerMemory(data, bytes);
  }
  ~DeviceBuffer() {
    if (mock)
      mock->unregisterMemory(data);
    std::free(data);
  }
  float *floats() { return reinterpret_cast<float *>(data); }
  char *data;
  size_t size;
  MockDriver *mock;
};

// Emulates the kernels of elementwisePlan().
void emulate(const char *name, void **params, void *user) {
  if (user)
    ++*static_cast<std::atomic<int> *>(user);
  emulateElementwiseKernel(name, params);
}

std::unique_ptr<Executable> load(Plan plan) {
  Expected<std::unique_ptr<Executable>> exe = Executable::create(std::move(plan));
  EXPECT_TRUE(exe.hasValue()) << exe.status().message();
  return exe ? exe.take() : nullptr;
}

Stream stream(uintptr_t id) { return reinterpret_cast<Stream>(id); }

} // namespace

//===--------------------------------------------------------------------===//
// Binding validation (no driver involved)
//===--------------------------------------------------------------------===//

class BindingTest : public ::testing::Test {
protected:
  void SetUp() override {
    exe = load(elementwisePlan(1000));
    x = std::aligned_alloc(256, 4096);
    y = std::aligned_alloc(256, 4096);
  }
  void TearDown() override {
    std::free(x);
    std::free(y);
  }
  std::string check(const std::vector<Binding> &bindings, StatusCode code,
                    const Workspace *ws = nullptr) {
    Status status = exe->checkBindings(bindings, ws);
    EXPECT_EQ(status.code(), code) << status.message();
    return status.message();
  }
  std::unique_ptr<Executable> exe;
  void *x, *y;
};

TEST_F(BindingTest, AcceptsGoodBindings) {
  EXPECT_TRUE(exe->checkBindings({{"x", x}, {"y", y}}).isOk());
  Binding full{"x", x, DType::F32, std::vector<int64_t>{1000}, std::vector<int64_t>{1}};
  EXPECT_TRUE(exe->checkBindings({full, {"y", y}}).isOk());
}

TEST_F(BindingTest, UnknownName) {
  EXPECT_EQ(check({{"x", x}, {"z", y}}, StatusCode::BindingError),
            "unknown binding 'z'; the plan 'elementwise' has inputs: 'x'; outputs: 'y'");
}

TEST_F(BindingTest, IntermediateCannotBeBound) {
  EXPECT_EQ(check({{"x", x}, {"y", y}, {"t", y}}, StatusCode::BindingError),
            "'t' is an intermediate of the plan and cannot be bound; the plan has "
            "inputs: 'x'; outputs: 'y'");
}

TEST_F(BindingTest, Missing) {
  EXPECT_EQ(check({{"y", y}}, StatusCode::BindingError),
            "missing binding for input 'x' (f32 [1000])");
  EXPECT_EQ(check({}, StatusCode::BindingError),
            "missing binding for input 'x' (f32 [1000])");
}

TEST_F(BindingTest, Duplicate) {
  EXPECT_EQ(check({{"x", x}, {"y", y}, {"x", x}}, StatusCode::BindingError),
            "binding 'x' is given twice");
}

TEST_F(BindingTest, NullPointer) {
  EXPECT_EQ(check({{"x", nullptr}, {"y", y}}, StatusCode::BindingError),
            "binding 'x' has a null pointer (input f32 [1000] needs 4000 bytes)");
}

TEST_F(BindingTest, Misaligned) {
  void *off = static_cast<char *>(x) + 4;
  std::string message = check({{"x", off}, {"y", y}}, StatusCode::Misaligned);
  EXPECT_EQ(message, "binding 'x' pointer 0x" +
                         [&] {
                           char buf[32];
                           std::snprintf(buf, sizeof(buf), "%lx", (unsigned long)off);
                           return std::string(buf);
                         }() +
                         " is not 16-byte aligned, which the plan's kernels need");
  // Alignment is per buffer: a plan that needs only 4 bytes accepts it.
  std::unique_ptr<Executable> relaxed = load(elementwisePlan(1000, 4));
  EXPECT_TRUE(relaxed->checkBindings({{"x", off}, {"y", y}}).isOk());
}

TEST_F(BindingTest, DtypeShapeStrides) {
  EXPECT_EQ(check({{"x", x, DType::F16}, {"y", y}}, StatusCode::BindingError),
            "binding 'x' has dtype f16 but the plan expects f32");
  EXPECT_EQ(check({{"x", x, std::nullopt, std::vector<int64_t>{10, 100}}, {"y", y}},
                  StatusCode::BindingError),
            "binding 'x' has rank 2 but the plan expects rank 1 (f32 [1000])");
  EXPECT_EQ(check({{"x", x, std::nullopt, std::vector<int64_t>{999}}, {"y", y}},
                  StatusCode::BindingError),
            "binding 'x' has shape [999] but the plan expects [1000]");
  EXPECT_EQ(check({{"x", x, std::nullopt, std::vector<int64_t>{1000},
                    std::vector<int64_t>{2}},
                   {"y", y}},
                  StatusCode::BindingError),
            "binding 'x' has strides [2] but the plan was compiled for strides [1]");
  EXPECT_EQ(check({{"x", x, std::nullopt, std::vector<int64_t>{1000},
                    std::vector<int64_t>{1, 1}},
                   {"y", y}},
                  StatusCode::InvalidArgument),
            "binding 'x' has 2 strides for a rank-1 shape");
}

TEST_F(BindingTest, StridesOfUnitDimsDoNotMatter) {
  Plan plan = elementwisePlan(1000);
  plan.buffers[0].shape = {1, 1000};
  plan.buffers[0].strides = {1000, 1};
  std::unique_ptr<Executable> e = load(plan);
  Binding x2{"x", x, DType::F32, std::vector<int64_t>{1, 1000}, std::vector<int64_t>{7, 1}};
  EXPECT_TRUE(e->checkBindings({x2, {"y", y}}).isOk());
}

TEST_F(BindingTest, Workspace) {
  Workspace small{y, 100};
  EXPECT_EQ(check({{"x", x}, {"y", y}}, StatusCode::WorkspaceTooSmall, &small),
            "the workspace has 100 bytes but the plan 'elementwise' needs 4096");
  Workspace null{nullptr, 4096};
  EXPECT_EQ(check({{"x", x}, {"y", y}}, StatusCode::InvalidArgument, &null),
            "the workspace pointer is null but the plan needs 4096 bytes");
  Workspace misaligned{static_cast<char *>(y) + 16, 4096};
  EXPECT_NE(check({{"x", x}, {"y", y}}, StatusCode::Misaligned, &misaligned)
                .find("is not 256-byte aligned"),
            std::string::npos);
}

TEST_F(BindingTest, RunValidatesBeforeTouchingTheDriver) {
  tgc::testing::setCudaDriverLibrary("/nonexistent/libcuda.so.1");
  Status status = exe->run({{"x", x}}, nullptr);
  EXPECT_EQ(status.code(), StatusCode::BindingError);
  EXPECT_EQ(status.message(), "missing binding for output 'y' (f32 [1000])");
}

TEST(NoDriver, RunSaysSo) {
  tgc::testing::setCudaDriverLibrary("/nonexistent/libcuda.so.1");
  std::unique_ptr<Executable> exe = load(elementwisePlan(1000));
  DeviceBuffer x(4000), y(4000);
  Status status = exe->run({{"x", x.data}, {"y", y.data}}, nullptr);
  EXPECT_EQ(status.code(), StatusCode::NoDriver);
  EXPECT_EQ(status.message().rfind("no CUDA driver: cannot load /nonexistent/libcuda.so.1 (", 0),
            0u)
      << status.message();
  EXPECT_NE(status.message().find("executing a plan needs an NVIDIA GPU and its driver"),
            std::string::npos);
  EXPECT_EQ(exe->prepare().code(), StatusCode::NoDriver);
}

// The toolkit's stub libcuda (for linking only) fails cuInit.
TEST(NoDriver, StubLibrary) {
  std::string stub = tgc::cudaHome() + "/lib64/stubs/libcuda.so";
  if (access(stub.c_str(), R_OK) != 0)
    GTEST_SKIP() << "no " << stub;
  tgc::testing::setCudaDriverLibrary(stub);
  std::unique_ptr<Executable> exe = load(elementwisePlan(1000));
  Status status = exe->prepare();
  EXPECT_EQ(status.code(), StatusCode::NoDriver);
  EXPECT_EQ(status.message().rfind("no usable CUDA device: cuInit failed with ", 0), 0u)
      << status.message();
  tgc::testing::setCudaDriverLibrary("libcuda.so.1");
}

TEST(NoDriver, CompilingStillWorks) {
  tgc::testing::setCudaDriverLibrary("/nonexistent/libcuda.so.1");
  CacheStats before = kernelCacheStats();
  Status status = precompilePlan(elementwisePlan(64), 80, /*forcePtx=*/false);
  ASSERT_TRUE(status.isOk()) << status.message();
  CacheStats after = kernelCacheStats();
  EXPECT_EQ(after.compiles + after.memoryHits + after.diskHits -
                (before.compiles + before.memoryHits + before.diskHits),
            2u);
}

//===--------------------------------------------------------------------===//
// The executor, through the mock driver
//===--------------------------------------------------------------------===//

class MockExecutorTest : public ::testing::Test {
protected:
  void SetUp() override {
    unsetenv("TGC_FORCE_PTX");
    mock = &MockDriver::install();
    mock->setLaunchHook(emulate, &launches);
  }
  void TearDown() override {
    unsetenv("TGC_FORCE_PTX");
    mock->setLaunchHook(nullptr, nullptr);
    tgc::testing::setCudaDriverLibrary("libcuda.so.1");
  }
  MockDriver *mock = nullptr;
  std::atomic<int> launches{0};
};

TEST_F(MockExecutorTest, RunsThePlan) {
  const int n = 1000;
  DeviceBuffer x(n * 4, mock), y(n * 4, mock);
  for (int i = 0; i < n; ++i)
    x.floats()[i] = float(i) * 0.5f;
  std::unique_ptr<Executable> exe = load(elementwisePlan(n));
  Status status = exe->run({{"x", x.data}, {"y", y.data}}, stream(0x5000));
  ASSERT_TRUE(status.isOk()) << status.message();
  for (int i = 0; i < n; ++i) {
    float t = 2.0f * x.floats()[i] - 1.0f;
    ASSERT_EQ(y.floats()[i], t * t) << i;
  }
  std::string trace = mock->trace();
  EXPECT_EQ(countLines(trace, "cuModuleLoadDataEx cubin"), 2) << trace;
  EXPECT_EQ(countLines(trace, "cuMemAlloc 4096"), 1) << trace;
  EXPECT_EQ(countLines(trace, "cuMemsetD8Async 4000 stream=20480"), 1) << trace;
  EXPECT_EQ(countLines(trace, "cuLaunchKernel axpb grid=8,1,1 block=128,1,1 smem=0 stream=20480"), 1)
      << trace;
  EXPECT_EQ(countLines(trace, "cuLaunchKernel square grid=8,1,1 block=128,1,1 smem=512 stream=20480"),
            1)
      << trace;
  EXPECT_EQ(countLines(trace, "cuEventRecord stream=20480"), 1) << trace;
  EXPECT_EQ(countLines(trace, "cuStreamWaitEvent"), 0) << trace;
  // Launch order is plan order.
  EXPECT_LT(trace.find("cuMemsetD8Async"), trace.find("cuLaunchKernel axpb"));
  EXPECT_LT(trace.find("cuLaunchKernel axpb"), trace.find("cuLaunchKernel square"));
}

TEST_F(MockExecutorTest, WorkspaceIsAllocatedOnceAndOrderedAcrossStreams) {
  DeviceBuffer x(4000, mock), y(4000, mock);
  std::unique_ptr<Executable> exe = load(elementwisePlan(1000));
  ASSERT_TRUE(exe->run({{"x", x.data}, {"y", y.data}}, stream(0x5000)).isOk());
  ASSERT_TRUE(exe->run({{"x", x.data}, {"y", y.data}}, stream(0x5000)).isOk());
  mock->clearTrace();
  ASSERT_TRUE(exe->run({{"x", x.data}, {"y", y.data}}, stream(0x6000)).isOk());
  std::string trace = mock->trace();
  EXPECT_EQ(countLines(trace, "cuMemAlloc"), 0) << trace;
  EXPECT_EQ(countLines(trace, "cuModuleLoadDataEx"), 0) << trace;
  // The new stream waits for the old one's last use of the workspace.
  EXPECT_EQ(countLines(trace, "cuStreamWaitEvent stream=24576"), 1) << trace;
  EXPECT_LT(trace.find("cuStreamWaitEvent"), trace.find("cuMemsetD8Async"));
  exe.reset();
  trace = mock->trace();
  EXPECT_EQ(countLines(trace, "cuModuleUnload"), 2) << trace;
  EXPECT_EQ(countLines(trace, "cuMemFree"), 1) << trace;
}

TEST_F(MockExecutorTest, CallerWorkspaceIsUsed) {
  DeviceBuffer x(4000, mock), y(4000, mock), ws(4096, mock);
  std::unique_ptr<Executable> exe = load(elementwisePlan(1000));
  struct Seen {
    void *intermediate = nullptr;
  } seen;
  mock->setLaunchHook(
      [](const char *name, void **params, void *user) {
        if (!std::strcmp(name, "axpb"))
          static_cast<Seen *>(user)->intermediate = *static_cast<void **>(params[1]);
      },
      &seen);
  Status status = exe->run({{"x", x.data}, {"y", y.data}}, Workspace{ws.data, 4096}, stream(0x5000));
  ASSERT_TRUE(status.isOk()) << status.message();
  EXPECT_EQ(seen.intermediate, ws.data);
  std::string trace = mock->trace();
  EXPECT_EQ(countLines(trace, "cuMemAlloc"), 0) << trace;
  EXPECT_EQ(countLines(trace, "cuEventRecord"), 0) << trace;
}

TEST_F(MockExecutorTest, GraphCaptureNeedsACallerWorkspace) {
  DeviceBuffer x(4000, mock), y(4000, mock), ws(4096, mock);
  std::unique_ptr<Executable> exe = load(elementwisePlan(1000));
  ASSERT_TRUE(exe->prepare(stream(0x5000)).isOk());
  mock->setCapturing(1);
  Status status = exe->run({{"x", x.data}, {"y", y.data}}, stream(0x5000));
  EXPECT_EQ(status.code(), StatusCode::Unsupported);
  EXPECT_EQ(status.message(), "the stream is being captured into a CUDA graph: pass a "
                              "workspace of 4096 bytes to run() so that the graph owns "
                              "its intermediates");
  EXPECT_TRUE(exe->run({{"x", x.data}, {"y", y.data}}, Workspace{ws.data, 4096},
                       stream(0x5000))
                  .isOk());
  mock->setCapturing(0);
}

TEST_F(MockExecutorTest, ForcedPtxLoadsPtx) {
  setenv("TGC_FORCE_PTX", "1", 1);
  DeviceBuffer x(4000, mock), y(4000, mock);
  std::unique_ptr<Executable> exe = load(elementwisePlan(1000));
  ASSERT_TRUE(exe->run({{"x", x.data}, {"y", y.data}}, stream(0x5000)).isOk());
  std::string trace = mock->trace();
  EXPECT_EQ(countLines(trace, "cuModuleLoadDataEx ptx"), 2) << trace;
  EXPECT_EQ(launches, 2);
}

TEST_F(MockExecutorTest, LargeSharedMemoryOptsIn) {
  Plan plan = elementwisePlan(1000);
  auto &square = std::get<LaunchStep>(plan.steps[2]).variants[0];
  square.sharedBytes = 100 * 1024;
  DeviceBuffer x(4000, mock), y(4000, mock);
  std::unique_ptr<Executable> exe = load(plan);
  Status status = exe->run({{"x", x.data}, {"y", y.data}}, stream(0x5000));
  ASSERT_TRUE(status.isOk()) << status.message();
  std::string trace = mock->trace();
  EXPECT_EQ(countLines(trace, "cuFuncSetAttribute square max_dynamic_shared=102400"), 1) << trace;
  EXPECT_EQ(countLines(trace, "cuFuncSetAttribute axpb"), 0) << trace;

  square.sharedBytes = 300 * 1024;
  exe = load(plan);
  status = exe->run({{"x", x.data}, {"y", y.data}}, stream(0x5000));
  EXPECT_EQ(status.code(), StatusCode::Unsupported);
  EXPECT_EQ(status.message(), "cannot prepare plan 'elementwise': step 2: kernel 'square' "
                              "(sm_90) needs 307200 bytes of dynamic shared memory (+0 "
                              "static) but the device allows 232448");
}

// The parameters come from the compiled image (KernelParams.h): the driver
// is never asked about a parameter past the last one.
TEST_F(MockExecutorTest, ArgumentListMustMatchTheKernel) {
  DeviceBuffer x(4000, mock), y(4000, mock);
  auto axpbArgs = [](Plan &plan) -> std::vector<KernelArg> & {
    return std::get<LaunchStep>(plan.steps[1]).variants[0].args;
  };
  Plan narrow = elementwisePlan(1000);
  axpbArgs(narrow)[4] = KernelArg::i32(1000);
  std::unique_ptr<Executable> exe = load(narrow);
  Status status = exe->run({{"x", x.data}, {"y", y.data}}, stream(0x5000));
  EXPECT_EQ(status.code(), StatusCode::InvalidPlan);
  EXPECT_EQ(status.message(), "cannot prepare plan 'elementwise': step 1: parameter 4 of "
                              "kernel 'axpb' (sm_90) is 8 bytes but the plan passes a i32");
  Plan fewer = elementwisePlan(1000);
  axpbArgs(fewer).resize(3);
  exe = load(fewer);
  status = exe->run({{"x", x.data}, {"y", y.data}}, stream(0x5000));
  EXPECT_EQ(status.code(), StatusCode::InvalidPlan);
  EXPECT_EQ(status.message(), "cannot prepare plan 'elementwise': step 1: kernel 'axpb' "
                              "(sm_90) takes 5 parameters but the plan passes 3");
  Plan more = elementwisePlan(1000);
  axpbArgs(more).push_back(KernelArg::f32(1));
  exe = load(more);
  status = exe->run({{"x", x.data}, {"y", y.data}}, stream(0x5000));
  EXPECT_EQ(status.message(), "cannot prepare plan 'elementwise': step 1: kernel 'axpb' "
                              "(sm_90) takes 5 parameters but the plan passes 6");
  mock->clearTrace();
  exe = load(elementwisePlan(1000));
  EXPECT_TRUE(exe->run({{"x", x.data}, {"y", y.data}}, stream(0x5000)).isOk());
  EXPECT_EQ(countLines(mock->trace(), "cuFuncGetParamInfo"), 0) << mock->trace();
}

// The same check without a device, when the plan's kernels are compiled
// ahead of time.
TEST(Precompile, ChecksArgumentsAgainstTheKernel) {
  Plan plan = elementwisePlan(1000);
  std::get<LaunchStep>(plan.steps[2]).variants[0].args.pop_back();
  Status status = precompilePlan(plan, 80, /*forcePtx=*/true);
  EXPECT_EQ(status.code(), StatusCode::InvalidPlan);
  EXPECT_EQ(status.message(),
            "step 2: kernel 'square' (compute_80) takes 3 parameters but the plan passes 2");
  EXPECT_TRUE(precompilePlan(elementwisePlan(1000), 80, /*forcePtx=*/true).isOk());
}

TEST_F(MockExecutorTest, BlockLargerThanTheKernelAllows) {
  mock->setMaxThreads(64);
  DeviceBuffer x(4000, mock), y(4000, mock);
  std::unique_ptr<Executable> exe = load(elementwisePlan(1000));
  Status status = exe->run({{"x", x.data}, {"y", y.data}}, stream(0x5000));
  EXPECT_EQ(status.code(), StatusCode::Unsupported);
  EXPECT_EQ(status.message(), "cannot prepare plan 'elementwise': step 1: kernel 'axpb' "
                              "(sm_90) runs at most 64 threads per block but the plan "
                              "launches 128");
}

TEST_F(MockExecutorTest, EachAddressIsCheckedOnce) {
  DeviceBuffer x(4000, mock), y(4000, mock), other(4000, mock);
  std::unique_ptr<Executable> exe = load(elementwisePlan(1000));
  ASSERT_TRUE(exe->run({{"x", x.data}, {"y", y.data}}, stream(0x5000)).isOk());
  EXPECT_EQ(countLines(mock->trace(), "cuPointerGetAttribute memory_type"), 2) << mock->trace();
  // A warm call with the same pointers asks the driver nothing; a new
  // pointer is checked (and a host pointer there still rejected).
  mock->clearTrace();
  ASSERT_TRUE(exe->run({{"x", x.data}, {"y", y.data}}, stream(0x5000)).isOk());
  EXPECT_EQ(countLines(mock->trace(), "cuPointerGetAttribute memory_type"), 0) << mock->trace();
  mock->clearTrace();
  ASSERT_TRUE(exe->run({{"x", x.data}, {"y", other.data}}, stream(0x5000)).isOk());
  EXPECT_EQ(countLines(mock->trace(), "cuPointerGetAttribute memory_type"), 1) << mock->trace();
  DeviceBuffer hostOnly(4000);
  EXPECT_EQ(exe->run({{"x", x.data}, {"y", hostOnly.data}}, stream(0x5000)).code(),
            StatusCode::BindingError);
}

TEST_F(MockExecutorTest, HostPointerIsRejected) {
  DeviceBuffer x(4000, mock);
  DeviceBuffer hostOnly(4000); // not registered with the mock: host memory
  std::unique_ptr<Executable> exe = load(elementwisePlan(1000));
  Status status = exe->run({{"x", x.data}, {"y", hostOnly.data}}, stream(0x5000));
  EXPECT_EQ(status.code(), StatusCode::BindingError);
  EXPECT_NE(status.message().find("binding 'y' (0x"), std::string::npos) << status.message();
  EXPECT_NE(status.message().find(") is not memory the GPU can access: "
                                  "CUDA_ERROR_INVALID_VALUE (invalid argument)"),
            std::string::npos)
      << status.message();
  EXPECT_EQ(launches, 0);
}

TEST_F(MockExecutorTest, NoDevice) {
  mock->setInitResult(CUDA_ERROR_NO_DEVICE);
  tgc::testing::setCudaDriverLibrary(MockDriver::path());
  std::unique_ptr<Executable> exe = load(elementwisePlan(1000));
  DeviceBuffer x(4000, mock), y(4000, mock);
  Status status = exe->run({{"x", x.data}, {"y", y.data}}, stream(0x5000));
  EXPECT_EQ(status.code(), StatusCode::NoDriver);
  EXPECT_EQ(status.message(), "no usable CUDA device: cuInit failed with "
                              "CUDA_ERROR_NO_DEVICE (no CUDA-capable device is detected)");
}

// The default stream on a thread with no current context (PyTorch's autograd
// threads): the primary context of the memory's device, current only for the
// call.
TEST_F(MockExecutorTest, DefaultStreamWithoutAContextUsesThePrimaryContextOfTheMemory) {
  mock->setCurrentContext(0);
  const int n = 1000;
  std::unique_ptr<Executable> exe = load(elementwisePlan(n));
  DeviceBuffer x(n * 4, mock), y(n * 4, mock);
  mock->setOwner(x.data, 1);
  mock->setOwner(y.data, 1);
  for (int i = 0; i < n; ++i)
    x.floats()[i] = 0.25f * float(i % 17) - 1.5f;
  Status status = exe->run({{"x", x.data}, {"y", y.data}}, nullptr);
  ASSERT_TRUE(status.isOk()) << status.message();
  for (int i = 0; i < n; ++i) {
    float t = 2.0f * x.floats()[i] - 1.0f;
    ASSERT_EQ(y.floats()[i], t * t) << i;
  }
  std::string trace = mock->trace();
  EXPECT_EQ(countLines(trace, "cuDevicePrimaryCtxRetain 1"), 1) << trace;
  EXPECT_EQ(countLines(trace, "cuDevicePrimaryCtxRetain"), 1) << trace;
  EXPECT_EQ(countLines(trace, "cuLaunchKernel axpb grid=8,1,1 block=128,1,1 smem=0 stream=0 "
                              "context=primary1"), 1) << trace;
  EXPECT_EQ(countLines(trace, "cuLaunchKernel square"), 1) << trace;
  EXPECT_EQ(countLines(trace, "cuLaunchKernel square grid=8,1,1 block=128,1,1 smem=512 stream=0 "
                              "context=primary1"), 1) << trace;
  EXPECT_STREQ(mock->currentContext(), "none"); // the thread's state is restored

  // The context is retained once; a thread with a context keeps using its own.
  mock->clearTrace();
  ASSERT_TRUE(exe->run({{"x", x.data}, {"y", y.data}}, nullptr).isOk());
  trace = mock->trace();
  EXPECT_EQ(countLines(trace, "cuDevicePrimaryCtxRetain"), 0) << trace;
  EXPECT_EQ(countLines(trace, "cuLaunchKernel axpb grid=8,1,1 block=128,1,1 smem=0 stream=0 "
                              "context=primary1"), 1) << trace;
  mock->setCurrentContext(1);
  mock->clearTrace();
  ASSERT_TRUE(exe->run({{"x", x.data}, {"y", y.data}}, nullptr).isOk());
  trace = mock->trace();
  EXPECT_EQ(countLines(trace, "cuPointerGetAttribute device_ordinal"), 0) << trace;
  EXPECT_EQ(countLines(trace, "cuLaunchKernel axpb grid=8,1,1 block=128,1,1 smem=0 stream=0 "
                              "context=current"), 1) << trace;
  EXPECT_STREQ(mock->currentContext(), "current");
}

TEST_F(MockExecutorTest, DefaultStreamWithoutAContextNeedsDeviceMemory) {
  mock->setCurrentContext(0);
  std::unique_ptr<Executable> exe = load(elementwisePlan(1000));
  DeviceBuffer x(4000, mock);
  DeviceBuffer hostOnly(4000); // not registered with the mock: host memory
  Status status = exe->run({{"x", hostOnly.data}, {"y", x.data}}, nullptr);
  EXPECT_EQ(status.code(), StatusCode::BindingError);
  std::string message = status.message();
  const std::string head = "no CUDA context is current on this thread and the default stream "
                           "was given, and binding 'x' (0x";
  const std::string tail = ") belongs to no CUDA device (CUDA_ERROR_INVALID_VALUE (invalid "
                           "argument)) to run on; bind device memory or make a context current "
                           "first (e.g. cudaSetDevice() or cuCtxSetCurrent())";
  EXPECT_EQ(message.rfind(head, 0), 0u) << message;
  EXPECT_EQ(message.size() >= tail.size() &&
                message.compare(message.size() - tail.size(), tail.size(), tail) == 0,
            true)
      << message;
  EXPECT_EQ(launches, 0);
  EXPECT_EQ(countLines(mock->trace(), "cuDevicePrimaryCtxRetain"), 0);
  EXPECT_STREQ(mock->currentContext(), "none");
}

TEST_F(MockExecutorTest, DefaultStreamWithoutAContextNeedsOneDevice) {
  mock->setCurrentContext(0);
  std::unique_ptr<Executable> exe = load(elementwisePlan(1000));
  DeviceBuffer x(4000, mock), y(4000, mock);
  mock->setOwner(y.data, 1);
  Status status = exe->run({{"x", x.data}, {"y", y.data}}, nullptr);
  EXPECT_EQ(status.code(), StatusCode::BindingError);
  EXPECT_EQ(status.message(), "no CUDA context is current on this thread and the default "
                              "stream was given, and the bindings are on different devices "
                              "('x' on device 0, 'y' on device 1); make a context current "
                              "first (e.g. cudaSetDevice() or cuCtxSetCurrent())");
  EXPECT_EQ(launches, 0);
}

// Without bindings nothing says which device: preparing needs a context.
TEST_F(MockExecutorTest, PreparingOnTheDefaultStreamNeedsAContext) {
  mock->setCurrentContext(0);
  std::unique_ptr<Executable> exe = load(elementwisePlan(1000));
  Status status = exe->prepare(nullptr);
  EXPECT_EQ(status.code(), StatusCode::CudaError);
  EXPECT_EQ(status.message(), "no CUDA context is current on this thread and the default "
                              "stream was given; make a context current first (e.g. "
                              "cudaSetDevice() or cuCtxSetCurrent())");
  mock->setCurrentContext(1);
  EXPECT_TRUE(exe->prepare(nullptr).isOk());
}

TEST_F(MockExecutorTest, ArchSpecificKernelOnTheWrongDevice) {
  mock->setComputeCapability(8, 0);
  Plan plan = elementwisePlan(1000);
  plan.kernels[0].target = KernelTarget::archSpecific(90);
  std::unique_ptr<Executable> exe = load(plan);
  DeviceBuffer x(4000, mock), y(4000, mock);
  Status status = exe->run({{"x", x.data}, {"y", y.data}}, stream(0x5000));
  EXPECT_EQ(status.code(), StatusCode::Unsupported);
  EXPECT_EQ(status.message(), "cannot prepare plan 'elementwise': step 1: no variant of "
                              "this launch can run on the device:\n  variant 0 (kernel "
                              "'axpb'): kernel needs sm_90a (compute capability 9.0 "
                              "exactly) but the device has compute capability 8.0");
}

// An early-launch kernel gets programmatic stream serialisation where its
// binary has the wait (built for 9.0 or later) and TGC_EARLY_LAUNCH allows
// it; in stream order otherwise.
TEST_F(MockExecutorTest, EarlyLaunchWhereTheBinaryWaits) {
  Plan plan = elementwisePlan(1000);
  Kernel &square = plan.kernels[1];
  square.earlyLaunch = true;
  square.source = std::string("namespace tg { namespace device {\n"
                              "__device__ void wait_for_earlier_grids() {}\n"
                              "} }\n") +
                  "#define TG_EARLY " + kEarlyLaunchWait + ";\n" + square.source;
  square.source.replace(square.source.find("  extern __shared__"), 0, "  TG_EARLY\n");
  auto launches = [&](const char *env, int major) {
    if (env)
      setenv("TGC_EARLY_LAUNCH", env, 1);
    else
      unsetenv("TGC_EARLY_LAUNCH");
    mock->setComputeCapability(major, 0);
    mock->clearTrace();
    std::unique_ptr<Executable> exe = load(plan);
    DeviceBuffer x(4000, mock), y(4000, mock);
    for (int i = 0; i < 1000; ++i)
      x.floats()[i] = float(i);
    Status status = exe->run({{"x", x.data}, {"y", y.data}}, stream(0x5000));
    unsetenv("TGC_EARLY_LAUNCH");
    if (!status.isOk())
      return status.message();
    EXPECT_EQ(y.floats()[10], 19.0f * 19.0f);
    std::string trace = mock->trace();
    // What the plan's description says of the square step (step 2).
    Expected<std::vector<std::string>> steps = exe->stepBackends(stream(0x5000));
    EXPECT_TRUE(steps.hasValue());
    bool early = countLines(trace, "cuLaunchKernelEx early") == 1;
    const std::string suffix = ", early launch";
    if (steps)
      EXPECT_EQ((*steps)[2].size() > suffix.size() &&
                    (*steps)[2].compare((*steps)[2].size() - suffix.size(), suffix.size(), suffix) == 0,
                early)
          << (*steps)[2];
    return std::to_string(countLines(trace, "cuLaunchKernelEx early")) + " early, " +
           std::to_string(countLines(trace, "cuLaunchKernel ")) + " launches";
  };
  EXPECT_EQ(launches(nullptr, 9), "1 early, 2 launches"); // on by default
  EXPECT_EQ(launches("on", 9), "1 early, 2 launches");
  EXPECT_EQ(launches("1", 9), "1 early, 2 launches");
  EXPECT_EQ(launches("0", 9), "0 early, 2 launches");
  EXPECT_EQ(launches("OFF", 9), "0 early, 2 launches");
  EXPECT_EQ(launches("1", 8), "0 early, 2 launches"); // built for sm_80: no wait in it
  EXPECT_EQ(launches("later", 9),
            "cannot prepare plan 'elementwise': TGC_EARLY_LAUNCH is 'later' (expected 1, "
            "true, yes, on, 0, false, no or off)");
  setenv("TGC_FORCE_PTX", "1", 1); // PTX for compute_90: the wait is in it
  EXPECT_EQ(launches("1", 9), "1 early, 2 launches");
  unsetenv("TGC_FORCE_PTX");
  // The grid (8 CTAs) must keep its placement (earlyLaunchKeepsPlacement).
  mock->setOccupancy(4, 132); // piled onto 2 SMs instead of 8: stream order
  EXPECT_EQ(launches("1", 9), "0 early, 2 launches");
  mock->setOccupancy(4, 2); // exactly one wave
  EXPECT_EQ(launches("1", 9), "1 early, 2 launches");
  mock->setOccupancy(0, 132); // the query says nothing: stream order
  EXPECT_EQ(launches("1", 9), "0 early, 2 launches");
}

TEST(EarlyLaunch, KeepsPlacement) {
  EXPECT_TRUE(earlyLaunchKeepsPlacement(10, 1, 132));    // one CTA per SM
  EXPECT_TRUE(earlyLaunchKeepsPlacement(528, 4, 132));   // one wave
  EXPECT_TRUE(earlyLaunchKeepsPlacement(5000, 4, 132));  // several
  EXPECT_TRUE(earlyLaunchKeepsPlacement(256, 2, 132));   // piled onto 128 of 132 SMs
  EXPECT_FALSE(earlyLaunchKeepsPlacement(512, 8, 132));  // piled onto 64 of 132 SMs
  EXPECT_FALSE(earlyLaunchKeepsPlacement(8, 4, 132));    // onto 2 SMs instead of 8
  EXPECT_FALSE(earlyLaunchKeepsPlacement(5000, 4, 0));   // SM count unknown
  EXPECT_FALSE(earlyLaunchKeepsPlacement(5000, 0, 132)); // occupancy unknown
}

TEST_F(MockExecutorTest, CudnnStepWithoutCudnnOrFallback) {
  // More in CudnnExecutorTest.cpp; here: no cuDNN, no fallback.
  tgc::testing::setCudnnLibrary("/nonexistent/libcudnn.so.9");
  Plan plan = elementwisePlan(1000);
  plan.steps.push_back(scaleCudnnStep("x", "y"));
  std::unique_ptr<Executable> exe = load(plan);
  DeviceBuffer x(4000, mock), y(4000, mock);
  Status status = exe->run({{"x", x.data}, {"y", y.data}}, stream(0x5000));
  tgc::testing::setCudnnLibrary("");
  EXPECT_EQ(status.code(), StatusCode::Unsupported);
  EXPECT_EQ(status.message().rfind("cannot prepare plan 'elementwise': step 3 (cudnn): "
                                   "cuDNN is not available: cannot load "
                                   "/nonexistent/libcudnn.so.9 (",
                                   0),
            0u)
      << status.message();
  EXPECT_NE(status.message().find("; the step has no NVRTC fallback"), std::string::npos);
  EXPECT_EQ(launches, 0);
}

TEST_F(MockExecutorTest, CopyStep) {
  Plan plan = elementwisePlan(1000);
  plan.buffers.push_back({"y2", BufferRole::Output, DType::F32, {1000}, {1}, 16, 0});
  plan.steps.push_back(CopyStep{"y", "y2"});
  std::unique_ptr<Executable> exe = load(plan);
  DeviceBuffer x(4000, mock), y(4000, mock), y2(4000, mock);
  for (int i = 0; i < 1000; ++i)
    x.floats()[i] = float(i);
  ASSERT_TRUE(exe->run({{"x", x.data}, {"y", y.data}, {"y2", y2.data}}, stream(0x5000)).isOk());
  EXPECT_EQ(std::memcmp(y.data, y2.data, 4000), 0);
  EXPECT_EQ(y2.floats()[3], 25.0f);
}

TEST_F(MockExecutorTest, ConcurrentRunsFromManyThreads) {
  std::unique_ptr<Executable> exe = load(elementwisePlan(256));
  std::vector<std::thread> threads;
  std::atomic<int> failures{0};
  for (int t = 0; t < 4; ++t)
    threads.emplace_back([&, t] {
      DeviceBuffer x(1024, mock), y(1024, mock), ws(1024, mock);
      for (int i = 0; i < 256; ++i)
        x.floats()[i] = float(i + t);
      for (int r = 0; r < 20; ++r) {
        // Own workspace per thread: the emulated kernels run synchronously.
        Status s = exe->run({{"x", x.data}, {"y", y.data}}, Workspace{ws.data, 1024},
                            stream(0x1000 * (t + 1)));
        if (!s.isOk())
          ++failures;
      }
      for (int i = 0; i < 256; ++i) {
        float v = 2.0f * float(i + t) - 1.0f;
        if (y.floats()[i] != v * v)
          ++failures;
      }
    });
  for (std::thread &thread : threads)
    thread.join();
  EXPECT_EQ(failures, 0);
  EXPECT_EQ(countLines(mock->trace(), "cuModuleLoadDataEx"), 2);
}
