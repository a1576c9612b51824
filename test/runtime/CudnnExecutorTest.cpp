// cuDNN steps in an Executable, through the mock libcuda and the mock
// libcudnn: graph choice, variant packs, the plan cache, the cuDNN scratch
// workspace, the NVRTC fallback and TGC_BACKEND. Kernels and cuDNN graphs
// are emulated on the host so that results can be checked.

#include "MockDriver.h"
#include "TestUtil.h"
#include "tgc/Log.h"
#include "tgc/Testing.h"
#include "tgc/tgc.h"
#include "tgc/tgc.hpp"

#include <gtest/gtest.h>

#include <atomic>
#include <cstdlib>
#include <cstring>
#include <thread>

using namespace tgc;
using namespace tgc::test;

namespace {

constexpr int64_t kN = 256;

// Host memory that the mock driver treats as device memory.
struct Memory {
  Memory(size_t bytes, MockDriver *mock) : mock(mock) {
    data = static_cast<char *>(std::aligned_alloc(256, (bytes + 255) / 256 * 256));
    std::memset(data, 0, bytes);
    mock->registerMemory(data, bytes);
  }
  ~Memory() {
    mock->unregisterMemory(data);
    std::free(data);
  }
  float *floats() { return reinterpret_cast<float *>(data); }
  char *data;
  MockDriver *mock;
};

/// What the emulated cuDNN graph saw on its last execution.
struct Executed {
  int count = 0;
  std::vector<int64_t> uids;
  std::vector<void *> pointers;
  void *workspace = nullptr;
  void *pointerOf(int64_t uid) const {
    for (size_t i = 0; i < uids.size(); ++i)
      if (uids[i] == uid)
        return pointers[i];
    return nullptr;
  }
};

// The "scale" graph: t (uid 3) = x (uid 1) * s (uid 2, by value, f32).
void emulateScale(const int64_t *uids, void *const *pointers, int64_t count,
                  void *workspace, void *user) {
  auto *seen = static_cast<Executed *>(user);
  seen->count++;
  seen->uids.assign(uids, uids + count);
  seen->pointers.assign(pointers, pointers + count);
  seen->workspace = workspace;
  auto *x = static_cast<const float *>(seen->pointerOf(1));
  auto *s = static_cast<const float *>(seen->pointerOf(2));
  auto *t = static_cast<float *>(seen->pointerOf(3));
  if (x && s && t)
    for (int64_t i = 0; i < kN; ++i)
      t[i] = x[i] * *s;
}

// The NVRTC kernels of the plan: axpb (the fallback) and square.
void emulateKernels(const char *name, void **params, void *user) {
  ++*static_cast<int *>(user);
  emulateElementwiseKernel(name, params);
}

cudnn::Graph scaleGraph(std::string name, int minVersion, DType scaleType = DType::F32) {
  cudnn::Graph g;
  g.name = std::move(name);
  g.minVersion = minVersion;
  g.tensors.push_back({1, DType::F32, {1, 1, kN}, {kN, kN, 1}, cudnn::TensorKind::Bound, "x", 0});
  g.tensors.push_back({2, scaleType, {1, 1, 1}, {1, 1, 1}, cudnn::TensorKind::ByValue, "", 0.5});
  g.tensors.push_back({3, DType::F32, {1, 1, kN}, {kN, kN, 1}, cudnn::TensorKind::Bound, "t", 0});
  cudnn::Op mul;
  mul.kind = cudnn::OpKind::Pointwise;
  mul.mode = "mul";
  mul.ports = {{"x", 1}, {"b", 2}, {"y", 3}};
  g.ops.push_back(mul);
  return g;
}

/// y = (0.5 x)^2: step 0 is t = 0.5 x through cuDNN (or its fallback
/// axpb(x, t, 0.5, 0)), step 1 squares t into y with NVRTC. t sits at
/// offset 1024 of the workspace.
Plan cudnnPlan(bool withFallback = true) {
  Plan plan = elementwisePlan(kN);
  plan.name = "cudnn_scale";
  plan.workspaceBytes = 1024 + kN * 4;
  plan.buffers[2].offset = 1024;
  CudnnStep step;
  step.graphs.push_back(scaleGraph("scale", 90000));
  if (withFallback) {
    LaunchVariant fallback{"axpb", {2, 1, 1}, {128, 1, 1}, 0,
                           {KernelArg::buf("x"), KernelArg::buf("t"),
                            KernelArg::f32(0.5f), KernelArg::f32(0.0f),
                            KernelArg::i64(kN)}};
    step.fallback = LaunchStep{{fallback}};
  }
  plan.steps = {step, plan.steps[2]}; // drop the memset and the axpb launch
  return plan;
}

std::unique_ptr<Executable> load(Plan plan) {
  Expected<std::unique_ptr<Executable>> exe = Executable::create(std::move(plan));
  EXPECT_TRUE(exe.hasValue()) << exe.status().message();
  return exe ? exe.take() : nullptr;
}

Stream stream(uintptr_t id) { return reinterpret_cast<Stream>(id); }

class CudnnExecutorTest : public ::testing::Test {
protected:
  void SetUp() override {
    unsetenv("TGC_BACKEND");
    unsetenv("TGC_CUDNN_LIBRARY");
    unsetenv("TGC_FORCE_PTX");
    cuda = &MockDriver::install();
    cuda->setLaunchHook(emulateKernels, &launches);
    cudnn = &MockCudnn::install();
    cudnn->setExecuteHook(emulateScale, &executed);
    x = std::make_unique<Memory>(kN * 4, cuda);
    y = std::make_unique<Memory>(kN * 4, cuda);
    for (int i = 0; i < kN; ++i)
      x->floats()[i] = float(i) - 100.0f;
  }
  void TearDown() override {
    unsetenv("TGC_BACKEND");
    unsetenv("TGC_CUDNN_LIBRARY");
    cuda->setLaunchHook(nullptr, nullptr);
    cudnn->setExecuteHook(nullptr, nullptr);
    tgc::testing::setCudnnLibrary("");
    tgc::testing::setCudaDriverLibrary("libcuda.so.1");
  }
  Status run(Executable &exe, Stream s = stream(0x5000)) {
    return exe.run({{"x", x->data}, {"y", y->data}}, s);
  }
  int wrongResults() {
    int wrong = 0;
    for (int i = 0; i < kN; ++i) {
      float t = 0.5f * x->floats()[i];
      wrong += y->floats()[i] != t * t;
    }
    return wrong;
  }
  std::vector<std::string> backends(Executable &exe) {
    Expected<std::vector<std::string>> b = exe.stepBackends(stream(0x5000));
    EXPECT_TRUE(b.hasValue()) << b.status().message();
    return b ? *b : std::vector<std::string>();
  }
  MockDriver *cuda = nullptr;
  MockCudnn *cudnn = nullptr;
  int launches = 0;
  Executed executed;
  std::unique_ptr<Memory> x, y;
};

bool startsWith(const std::string &s, const std::string &prefix) {
  return s.rfind(prefix, 0) == 0;
}

} // namespace

TEST_F(CudnnExecutorTest, RunsThroughCudnn) {
  std::unique_ptr<Executable> exe = load(cudnnPlan());
  Status status = run(*exe);
  ASSERT_TRUE(status.isOk()) << status.message();
  EXPECT_EQ(wrongResults(), 0);
  EXPECT_EQ(executed.count, 1);
  EXPECT_EQ(launches, 1); // square only: the fallback did not run
  std::string trace = cudnn->trace();
  EXPECT_EQ(countLines(trace, "cudnnCreate"), 1) << trace;
  EXPECT_EQ(countLines(trace, "cudnnSetStream 20480"), 1) << trace;
  EXPECT_EQ(countLines(trace, "execute uids=1,2,3 config=0"), 1) << trace;
  EXPECT_LT(trace.find("cudnnSetStream"), trace.find("execute"));
  EXPECT_EQ(backends(*exe),
            (std::vector<std::string>{
                "cudnn: graph 'scale' engine 10 (heuristics mode A, config 0 of 2, "
                "workspace 0 bytes)",
                "nvrtc: kernel 'square' (sm_90)"}));
}

TEST_F(CudnnExecutorTest, VariantPackIdsAndPointers) {
  cudnn->setWorkspace(3000);
  std::unique_ptr<Executable> exe = load(cudnnPlan());
  Memory ws(4096, cuda);
  Status status =
      exe->run({{"x", x->data}, {"y", y->data}}, Workspace{ws.data, 4096}, stream(0x5000));
  ASSERT_TRUE(status.isOk()) << status.message();
  EXPECT_EQ(wrongResults(), 0);
  ASSERT_EQ(executed.uids, (std::vector<int64_t>{1, 2, 3}));
  // Bound tensors: the caller's binding and the workspace intermediate.
  EXPECT_EQ(executed.pointers[0], x->data);
  EXPECT_EQ(executed.pointers[2], ws.data + 1024);
  // By value: a host pointer to the converted scalar.
  EXPECT_EQ(*static_cast<const float *>(executed.pointers[1]), 0.5f);
  // The cuDNN scratch workspace is the executable's own allocation.
  std::string trace = cuda->trace();
  EXPECT_EQ(countLines(trace, "cuMemAlloc 3000"), 1) << trace;
  EXPECT_NE(executed.workspace, nullptr);
  EXPECT_NE(executed.workspace, ws.data);
  EXPECT_EQ(countLines(trace, "cuMemAlloc"), 1) << trace; // no internal workspace
}

TEST_F(CudnnExecutorTest, VariantPackIsReusedForTheSameBuffers) {
  std::unique_ptr<Executable> exe = load(cudnnPlan());
  ASSERT_TRUE(run(*exe).isOk());
  ASSERT_TRUE(run(*exe).isOk());
  std::string trace = cudnn->trace();
  EXPECT_EQ(countLines(trace, "create VARIANT_PACK"), 1) << trace;
  EXPECT_EQ(countLines(trace, "execute uids=1,2,3 config=0"), 2) << trace;
  EXPECT_EQ(wrongResults(), 0);
  // Other buffers: a new pack, and cuDNN sees the new pointer.
  Memory x2(kN * sizeof(float), cuda);
  for (int i = 0; i < kN; ++i)
    x2.floats()[i] = float(i % 7);
  ASSERT_TRUE(exe->run({{"x", x2.data}, {"y", y->data}}, stream(0x5000)).isOk());
  trace = cudnn->trace();
  EXPECT_EQ(countLines(trace, "create VARIANT_PACK"), 2) << trace;
  EXPECT_EQ(executed.pointers[0], x2.data);
  for (int i = 0; i < kN; ++i) {
    float t = 0.5f * x2.floats()[i];
    ASSERT_EQ(y->floats()[i], t * t) << i;
  }
}

TEST_F(CudnnExecutorTest, ByValueScalarTakesTheTensorType) {
  Plan plan = cudnnPlan();
  std::get<CudnnStep>(plan.steps[0]).graphs[0] = scaleGraph("scale", 0, DType::F16);
  std::unique_ptr<Executable> exe = load(plan);
  ASSERT_TRUE(run(*exe).isOk());
  uint16_t bits;
  std::memcpy(&bits, executed.pointerOf(2), 2);
  EXPECT_EQ(bits, 0x3800u); // 0.5 in f16
  EXPECT_EQ(executed.workspace, nullptr); // no scratch when the plan needs none
}

TEST_F(CudnnExecutorTest, PlansAreCachedAcrossExecutables) {
  std::unique_ptr<Executable> first = load(cudnnPlan());
  ASSERT_TRUE(first->prepare(stream(0x5000)).isOk());
  std::string trace = cudnn->trace();
  EXPECT_EQ(countLines(trace, "finalize EXECUTION_PLAN"), 1) << trace;
  EXPECT_EQ(countLines(trace, "cudnnCreate"), 1) << trace;
  cudnn->clearTrace();
  std::unique_ptr<Executable> second = load(cudnnPlan());
  ASSERT_TRUE(run(*second).isOk());
  EXPECT_EQ(wrongResults(), 0);
  trace = cudnn->trace();
  EXPECT_EQ(countLines(trace, "finalize EXECUTION_PLAN"), 0) << trace;
  EXPECT_EQ(countLines(trace, "create TENSOR"), 0) << trace;
  EXPECT_EQ(countLines(trace, "cudnnCreate"), 0) << trace;
  EXPECT_EQ(countLines(trace, "execute"), 1) << trace;
  // A failure is cached as well: the graph is not tried again.
  cudnn->setHeuristics(0, 0);
  Plan other = cudnnPlan();
  std::get<CudnnStep>(other.steps[0]).graphs[0].name = "other";
  std::unique_ptr<Executable> third = load(other), fourth = load(other);
  ASSERT_TRUE(third->prepare(stream(0x5000)).isOk());
  cudnn->clearTrace();
  ASSERT_TRUE(fourth->prepare(stream(0x5000)).isOk());
  EXPECT_EQ(countLines(cudnn->trace(), "create"), 0) << cudnn->trace();
  EXPECT_TRUE(startsWith(backends(*fourth)[0], "nvrtc: kernel 'axpb' (sm_90), fallback: "));
}

TEST_F(CudnnExecutorTest, FallbackWhenTheLibraryIsMissing) {
  tgc::testing::setCudnnLibrary("/nonexistent/libcudnn.so.9");
  std::unique_ptr<Executable> exe = load(cudnnPlan());
  Status status = run(*exe);
  ASSERT_TRUE(status.isOk()) << status.message();
  EXPECT_EQ(wrongResults(), 0);
  EXPECT_EQ(executed.count, 0);
  EXPECT_EQ(launches, 2); // axpb (fallback) and square
  std::string b = backends(*exe)[0];
  EXPECT_TRUE(startsWith(b, "nvrtc: kernel 'axpb' (sm_90), fallback: cuDNN is not "
                            "available: cannot load /nonexistent/libcudnn.so.9 ("))
      << b;
}

TEST_F(CudnnExecutorTest, FallbackWhenNoEngineWorks) {
  cudnn->setHeuristics(0, 0);
  std::unique_ptr<Executable> exe = load(cudnnPlan());
  ASSERT_TRUE(run(*exe).isOk());
  EXPECT_EQ(wrongResults(), 0);
  EXPECT_EQ(executed.count, 0);
  EXPECT_EQ(backends(*exe)[0],
            "nvrtc: kernel 'axpb' (sm_90), fallback: no engine for graph 'scale': "
            "heuristics mode A: no engine config (mock: no engine supports this "
            "graph); heuristics mode FALLBACK: no engine config (mock: no engine "
            "supports this graph)");
}

TEST_F(CudnnExecutorTest, BackendNvrtcSkipsCudnn) {
  setenv("TGC_BACKEND", "nvrtc", 1);
  std::unique_ptr<Executable> exe = load(cudnnPlan());
  ASSERT_TRUE(run(*exe).isOk());
  EXPECT_EQ(wrongResults(), 0);
  EXPECT_EQ(executed.count, 0);
  EXPECT_EQ(countLines(cudnn->trace(), "cudnnCreate"), 0);
  EXPECT_EQ(backends(*exe)[0], "nvrtc: kernel 'axpb' (sm_90), fallback: TGC_BACKEND=nvrtc");
  // Without a fallback there is nothing to run.
  std::unique_ptr<Executable> bare = load(cudnnPlan(false));
  Status status = bare->prepare(stream(0x5000));
  EXPECT_EQ(status.code(), StatusCode::Unsupported);
  EXPECT_EQ(status.message(), "cannot prepare plan 'cudnn_scale': step 0 (cudnn): "
                              "TGC_BACKEND=nvrtc; the step has no NVRTC fallback");
}

TEST_F(CudnnExecutorTest, BackendCudnnMakesFailuresErrors) {
  setenv("TGC_BACKEND", "cudnn", 1);
  std::unique_ptr<Executable> exe = load(cudnnPlan());
  ASSERT_TRUE(run(*exe).isOk()); // cuDNN works: fine
  EXPECT_EQ(executed.count, 1);

  cudnn->setHeuristics(0, 0);
  Plan plan = cudnnPlan();
  std::get<CudnnStep>(plan.steps[0]).graphs[0].name = "rejected";
  exe = load(plan);
  Status status = run(*exe);
  EXPECT_EQ(status.code(), StatusCode::Unsupported);
  EXPECT_EQ(status.message(),
            "cannot prepare plan 'cudnn_scale': step 0 (cudnn): no engine for graph "
            "'rejected': heuristics mode A: no engine config (mock: no engine "
            "supports this graph); heuristics mode FALLBACK: no engine config (mock: "
            "no engine supports this graph) (TGC_BACKEND=cudnn forbids the NVRTC "
            "fallback)");
  EXPECT_EQ(launches, 1); // only the first executable's square

  tgc::testing::setCudnnLibrary("/nonexistent/libcudnn.so.9");
  exe = load(cudnnPlan());
  status = exe->prepare(stream(0x5000));
  EXPECT_EQ(status.code(), StatusCode::Unsupported);
  EXPECT_TRUE(startsWith(status.message(), "cannot prepare plan 'cudnn_scale': step 0 "
                                           "(cudnn): cuDNN is not available: cannot "
                                           "load /nonexistent/libcudnn.so.9 ("))
      << status.message();
}

TEST_F(CudnnExecutorTest, BackendMustBeKnown) {
  setenv("TGC_BACKEND", "cublas", 1);
  std::unique_ptr<Executable> exe = load(cudnnPlan());
  Status status = exe->prepare(stream(0x5000));
  EXPECT_EQ(status.code(), StatusCode::InvalidArgument);
  EXPECT_EQ(status.message(), "cannot prepare plan 'cudnn_scale': TGC_BACKEND is "
                              "'cublas'; it must be auto, cudnn or nvrtc");
}

TEST_F(CudnnExecutorTest, MinVersionChoosesTheGraph) {
  Plan plan = cudnnPlan();
  auto &graphs = std::get<CudnnStep>(plan.steps[0]).graphs;
  graphs = {scaleGraph("attention fwd (sdpa op)", 91301),
            scaleGraph("attention fwd (composite)", 90000)};
  cudnn->setVersion(91002);
  std::unique_ptr<Executable> exe = load(plan);
  ASSERT_TRUE(run(*exe).isOk());
  EXPECT_EQ(wrongResults(), 0);
  EXPECT_TRUE(startsWith(backends(*exe)[0], "cudnn: graph 'attention fwd (composite)'"));

  MockCudnn::install().setExecuteHook(emulateScale, &executed); // 9.19 again
  exe = load(plan);
  ASSERT_TRUE(run(*exe).isOk());
  EXPECT_TRUE(startsWith(backends(*exe)[0], "cudnn: graph 'attention fwd (sdpa op)'"));
}

TEST_F(CudnnExecutorTest, NoGraphWorksAndNoFallback) {
  Plan plan = cudnnPlan(false);
  auto &graphs = std::get<CudnnStep>(plan.steps[0]).graphs;
  graphs = {scaleGraph("attention fwd (sdpa op)", 91301),
            scaleGraph("attention fwd (composite)", 90000)};
  cudnn->setVersion(91002);
  cudnn->setHeuristics(1, 0);
  cudnn->setPlanFailures(1, "mock: head dim 60 is not a multiple of 8");
  std::unique_ptr<Executable> exe = load(plan);
  Status status = run(*exe);
  EXPECT_EQ(status.code(), StatusCode::Unsupported);
  EXPECT_EQ(status.message(),
            "cannot prepare plan 'cudnn_scale': step 0 (cudnn): no engine for graph "
            "'attention fwd (sdpa op)': needs cuDNN >= 9.13.1, found 9.10.2; graph "
            "'attention fwd (composite)': heuristics mode A: its engine config did "
            "not finalise (cannot finalise the execution plan of heuristics mode A "
            "config 0: CUDNN_STATUS_NOT_SUPPORTED: mock: head dim 60 is not a "
            "multiple of 8); heuristics mode FALLBACK: no engine config (mock: no "
            "engine supports this graph); the step has no NVRTC fallback");
  EXPECT_EQ(launches, 0);
  // Nothing leaks from the failed preparation: the handle stays cached.
  std::string trace = cuda->trace();
  EXPECT_EQ(countLines(trace, "cuModuleLoadDataEx"), countLines(trace, "cuModuleUnload"))
      << trace;
}

TEST_F(CudnnExecutorTest, MissingLibraryWithoutFallback) {
  tgc::testing::setCudnnLibrary("/nonexistent/libcudnn.so.9");
  std::unique_ptr<Executable> exe = load(cudnnPlan(false));
  Status status = run(*exe);
  EXPECT_EQ(status.code(), StatusCode::Unsupported);
  EXPECT_TRUE(startsWith(status.message(),
                         "cannot prepare plan 'cudnn_scale': step 0 (cudnn): cuDNN is "
                         "not available: cannot load /nonexistent/libcudnn.so.9 ("))
      << status.message();
  EXPECT_NE(status.message().find("); the step has no NVRTC fallback"), std::string::npos)
      << status.message();
}

TEST_F(CudnnExecutorTest, LibraryFromTheEnvironment) {
  tgc::testing::setCudnnLibrary(""); // back to TGC_CUDNN_LIBRARY / libcudnn.so.9
  setenv("TGC_CUDNN_LIBRARY", MockCudnn::path().c_str(), 1);
  std::unique_ptr<Executable> exe = load(cudnnPlan());
  ASSERT_TRUE(run(*exe).isOk());
  EXPECT_EQ(executed.count, 1);
}

TEST_F(CudnnExecutorTest, VersionAndPathAreLoggedOnce) {
  std::string dir = makeTempDir("tgc-cudnn-log-");
  std::string logFile = dir + "/log";
  setLogFile(logFile);
  LogLevel level = logLevel();
  setLogLevel(LogLevel::Info);
  tgc::testing::setCudnnLibrary(MockCudnn::path());
  std::unique_ptr<Executable> first = load(cudnnPlan()), second = load(cudnnPlan());
  ASSERT_TRUE(first->prepare(stream(0x5000)).isOk());
  ASSERT_TRUE(second->prepare(stream(0x5000)).isOk());
  tgc::testing::setCudnnLibrary("/nonexistent/libcudnn.so.9");
  std::unique_ptr<Executable> third = load(cudnnPlan()), fourth = load(cudnnPlan());
  ASSERT_TRUE(third->prepare(stream(0x5000)).isOk());
  ASSERT_TRUE(fourth->prepare(stream(0x5000)).isOk());
  setLogLevel(level);
  setLogFile("");
  std::string log = readText(logFile);
  removeTree(dir);
  EXPECT_EQ(countLines(log, "[tgc info] loaded cuDNN 9.19.0 from " + MockCudnn::path()), 1)
      << log;
  EXPECT_EQ(countLines(log, "[tgc info] cuDNN is not available: cannot load "
                            "/nonexistent/libcudnn.so.9"),
            1)
      << log;
  EXPECT_EQ(countLines(log, "[tgc info] step 0 (cudnn): cudnn: graph 'scale' engine 10"), 2)
      << log;
}

TEST_F(CudnnExecutorTest, ScratchIsOrderedAcrossStreamsEvenWithACallerWorkspace) {
  cudnn->setWorkspace(1000);
  std::unique_ptr<Executable> exe = load(cudnnPlan());
  Memory ws(4096, cuda);
  Workspace workspace{ws.data, 4096};
  ASSERT_TRUE(exe->run({{"x", x->data}, {"y", y->data}}, workspace, stream(0x5000)).isOk());
  cuda->clearTrace();
  ASSERT_TRUE(exe->run({{"x", x->data}, {"y", y->data}}, workspace, stream(0x6000)).isOk());
  std::string trace = cuda->trace();
  EXPECT_EQ(countLines(trace, "cuStreamWaitEvent stream=24576"), 1) << trace;
  EXPECT_EQ(countLines(trace, "cuEventRecord stream=24576"), 1) << trace;
  EXPECT_EQ(countLines(trace, "cuMemAlloc"), 0) << trace;
  exe.reset();
  EXPECT_EQ(countLines(cuda->trace(), "cuMemFree"), 1) << cuda->trace();
}

TEST_F(CudnnExecutorTest, CaptureWithScratchIsRefused) {
  cudnn->setWorkspace(1000);
  std::unique_ptr<Executable> exe = load(cudnnPlan());
  Memory ws(4096, cuda);
  ASSERT_TRUE(exe->prepare(stream(0x5000)).isOk());
  cuda->setCapturing(1);
  Status status =
      exe->run({{"x", x->data}, {"y", y->data}}, Workspace{ws.data, 4096}, stream(0x5000));
  cuda->setCapturing(0);
  EXPECT_EQ(status.code(), StatusCode::Unsupported);
  EXPECT_EQ(status.message(), "the stream is being captured into a CUDA graph but the "
                              "plan's cuDNN steps use the executable's 1000-byte cuDNN "
                              "workspace, which a graph cannot own; set "
                              "TGC_BACKEND=nvrtc to capture this plan");
}

TEST_F(CudnnExecutorTest, CaptureWithoutScratchWorks) {
  std::unique_ptr<Executable> exe = load(cudnnPlan());
  Memory ws(4096, cuda);
  ASSERT_TRUE(exe->prepare(stream(0x5000)).isOk());
  cuda->setCapturing(1);
  Status status =
      exe->run({{"x", x->data}, {"y", y->data}}, Workspace{ws.data, 4096}, stream(0x5000));
  cuda->setCapturing(0);
  EXPECT_TRUE(status.isOk()) << status.message();
  EXPECT_EQ(executed.count, 1);
}

TEST_F(CudnnExecutorTest, PrecompileIncludesFallbacks) {
  CacheStats before = kernelCacheStats();
  ASSERT_TRUE(precompilePlan(cudnnPlan(), 90, false).isOk());
  CacheStats after = kernelCacheStats();
  EXPECT_EQ(after.compiles + after.memoryHits + after.diskHits -
                (before.compiles + before.memoryHits + before.diskHits),
            2u); // axpb (the fallback) and square
}

TEST_F(CudnnExecutorTest, CApiDescribe) {
  std::string text = serializePlan(cudnnPlan());
  tgc_executable_t *exe = nullptr;
  ASSERT_EQ(tgc_executable_load_plan_string(text.data(), text.size(), &exe), TGC_SUCCESS)
      << tgc_last_error();
  const char *described = nullptr;
  ASSERT_EQ(tgc_executable_describe(exe, stream(0x5000), &described), TGC_SUCCESS)
      << tgc_last_error();
  EXPECT_STREQ(described, "step 0: cudnn: graph 'scale' engine 10 (heuristics mode A, "
                          "config 0 of 2, workspace 0 bytes)\n"
                          "step 1: nvrtc: kernel 'square' (sm_90)\n");
  EXPECT_EQ(tgc_executable_describe(exe, stream(0x5000), nullptr),
            TGC_ERROR_INVALID_ARGUMENT);
  setenv("TGC_BACKEND", "bogus", 1);
  tgc_executable_t *other = nullptr;
  ASSERT_EQ(tgc_executable_load_plan_string(text.data(), text.size(), &other), TGC_SUCCESS);
  EXPECT_EQ(tgc_executable_describe(other, stream(0x5000), &described),
            TGC_ERROR_INVALID_ARGUMENT);
  EXPECT_STREQ(described, "");
  tgc_executable_destroy(other);
  tgc_executable_destroy(exe);
}

TEST_F(CudnnExecutorTest, ConcurrentRunsShareTheHandle) {
  // The hook only computes (no shared bookkeeping): runs come from 4 threads.
  cudnn->setExecuteHook(
      [](const int64_t *uids, void *const *pointers, int64_t count, void *, void *) {
        const float *x = static_cast<const float *>(pointers[0]);
        const float *s = static_cast<const float *>(pointers[1]);
        float *t = static_cast<float *>(pointers[2]);
        if (count == 3 && uids[0] == 1 && uids[2] == 3)
          for (int64_t i = 0; i < kN; ++i)
            t[i] = x[i] * *s;
      },
      nullptr);
  cuda->setLaunchHook(
      [](const char *name, void **params, void *) {
        int dummy = 0;
        emulateKernels(name, params, &dummy);
      },
      nullptr);
  std::unique_ptr<Executable> exe = load(cudnnPlan());
  std::atomic<int> failures{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < 4; ++t)
    threads.emplace_back([&, t] {
      Memory in(kN * 4, cuda), out(kN * 4, cuda), ws(4096, cuda);
      for (int i = 0; i < kN; ++i)
        in.floats()[i] = float(i + t);
      for (int r = 0; r < 20; ++r)
        if (!exe->run({{"x", in.data}, {"y", out.data}}, Workspace{ws.data, 4096},
                      stream(0x1000 * (t + 1)))
                 .isOk())
          ++failures;
      for (int i = 0; i < kN; ++i) {
        float v = 0.5f * float(i + t);
        if (out.floats()[i] != v * v)
          ++failures;
      }
    });
  for (std::thread &thread : threads)
    thread.join();
  EXPECT_EQ(failures, 0);
  std::string trace = cudnn->trace();
  EXPECT_EQ(countLines(trace, "execute uids=1,2,3"), 80);
  EXPECT_EQ(countLines(trace, "cudnnCreate"), 1);
  EXPECT_EQ(countLines(trace, "finalize EXECUTION_PLAN"), 1);
}
