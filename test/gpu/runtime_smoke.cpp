// GPU smoke check of the runtime (needs a GPU; run on the device machine):
// builds small plans in code, runs them through tgc::Executable on CUDA
// streams and checks the results on the host. The arch/PTX choice follows
// TGC_FORCE_PTX, so run it twice:
//
//   TGC_FORCE_PTX=0 build/bin/tgc-runtime-smoke
//   TGC_FORCE_PTX=1 build/bin/tgc-runtime-smoke
//
// Prints one line per check and "runtime smoke: N passed, M failed".

#include "tgc/Log.h"
#include "tgc/Target.h"
#include "tgc/tgc.hpp"

#include <cuda_runtime.h>

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <thread>
#include <vector>

using namespace tgc;

namespace {

int passed = 0, failed = 0;

void check(bool ok, const std::string &what, const std::string &detail = "") {
  std::printf("%s  %s%s%s\n", ok ? "PASS" : "FAIL", what.c_str(),
              detail.empty() ? "" : ": ", detail.c_str());
  std::fflush(stdout);
  (ok ? passed : failed)++;
}

#define CUDA_OK(expr)                                                          \
  do {                                                                         \
    cudaError_t e_ = (expr);                                                   \
    if (e_ != cudaSuccess) {                                                   \
      std::printf("FAIL  %s: %s\n", #expr, cudaGetErrorString(e_));            \
      std::exit(2);                                                            \
    }                                                                          \
  } while (0)

const char *kAxpb = R"(
extern "C" __global__ void axpb(const float *x, float *y, float a, float b,
                                long long n) {
  long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x;
  if (i < n)
    y[i] = a * x[i] + b;
}
)";

// Stages through dynamic shared memory so that large smem can be asked for.
const char *kSquare = R"(
extern "C" __global__ void square(const float *x, float *y, int n) {
  extern __shared__ float staged[];
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  staged[threadIdx.x] = i < n ? x[i] : 0.0f;
  __syncthreads();
  if (i < n)
    y[i] = staged[threadIdx.x] * staged[threadIdx.x];
}
)";

// Two kernels with one entry name: which one ran is written to `which`.
const char *kMarkHopper = R"(
#if !defined(__CUDA_ARCH_FEAT_SM90_ALL)
#error this kernel is for sm_90a only
#endif
extern "C" __global__ void mark(int *which) { which[0] = 90; }
)";
const char *kMarkPortable = R"(
extern "C" __global__ void mark(int *which) { which[0] = 80; }
)";

/// y = (a*x + b)^2 via an intermediate in the workspace.
Plan elementwisePlan(int64_t n, uint32_t squareSmem) {
  Plan plan;
  plan.name = "smoke_elementwise";
  uint64_t bytes = uint64_t(n) * 4;
  plan.workspaceBytes = (bytes + 255) / 256 * 256;
  plan.buffers.push_back({"x", BufferRole::Input, DType::F32, {n}, {1}, 16, 0});
  plan.buffers.push_back({"y", BufferRole::Output, DType::F32, {n}, {1}, 16, 0});
  plan.buffers.push_back({"t", BufferRole::Intermediate, DType::F32, {n}, {1}, 256, 0});
  plan.kernels.push_back({"axpb", "axpb", kAxpb, {}, KernelTarget::portable(80)});
  plan.kernels.push_back({"square", "square", kSquare, {}, KernelTarget::portable(80)});
  uint32_t block = 256, grid = uint32_t((n + block - 1) / block);
  plan.steps.push_back(MemsetStep{"t", 0});
  plan.steps.push_back(LaunchStep{{LaunchVariant{
      "axpb", {grid, 1, 1}, {block, 1, 1}, 0,
      {KernelArg::buf("x"), KernelArg::buf("t"), KernelArg::f32(2.0f),
       KernelArg::f32(-1.0f), KernelArg::i64(n)}}}});
  plan.steps.push_back(LaunchStep{{LaunchVariant{
      "square", {grid, 1, 1}, {block, 1, 1}, squareSmem,
      {KernelArg::buf("t"), KernelArg::buf("y"), KernelArg::i32(int32_t(n))}}}});
  return plan;
}

Plan variantPlan() {
  Plan plan;
  plan.name = "smoke_variants";
  plan.buffers.push_back({"which", BufferRole::Output, DType::I32, {1}, {1}, 4, 0});
  plan.kernels.push_back({"hopper", "mark", kMarkHopper, {}, KernelTarget::archSpecific(90)});
  plan.kernels.push_back({"portable", "mark", kMarkPortable, {}, KernelTarget::portable(80)});
  LaunchStep launch;
  launch.variants.push_back({"hopper", {1, 1, 1}, {32, 1, 1}, 0, {KernelArg::buf("which")}});
  launch.variants.push_back({"portable", {1, 1, 1}, {32, 1, 1}, 0, {KernelArg::buf("which")}});
  plan.steps.push_back(launch);
  return plan;
}

std::unique_ptr<Executable> make(Plan plan) {
  // Through the text format, as a shipped plan would arrive.
  Expected<Plan> parsed = parsePlan(serializePlan(plan), plan.name);
  if (!parsed) {
    check(false, "parse " + plan.name, parsed.status().message());
    std::exit(2);
  }
  Expected<std::unique_ptr<Executable>> exe = Executable::create(parsed.take());
  if (!exe) {
    check(false, "create " + plan.name, exe.status().message());
    std::exit(2);
  }
  return exe.take();
}

float expected(float x) {
  float t = 2.0f * x - 1.0f;
  return t * t;
}

int countWrong(const std::vector<float> &x, const std::vector<float> &y) {
  int wrong = 0;
  for (size_t i = 0; i < x.size(); ++i)
    wrong += y[i] != expected(x[i]);
  return wrong;
}

} // namespace

int main() {
  bool forcePtx = forcePtxFromEnv();
  int device = 0;
  CUDA_OK(cudaSetDevice(device));
  cudaDeviceProp prop;
  CUDA_OK(cudaGetDeviceProperties(&prop, device));
  std::printf("runtime smoke on %s (compute capability %d.%d), TGC_FORCE_PTX=%d\n",
              prop.name, prop.major, prop.minor, forcePtx ? 1 : 0);

  const int64_t n = 1 << 20;
  std::vector<float> hx(n), hy(n);
  for (int64_t i = 0; i < n; ++i)
    hx[i] = float(i % 1000) * 0.01f - 3.0f;
  float *dx, *dy, *dy2, *dws;
  CUDA_OK(cudaMalloc(&dx, n * 4));
  CUDA_OK(cudaMalloc(&dy, n * 4));
  CUDA_OK(cudaMalloc(&dy2, n * 4));
  CUDA_OK(cudaMalloc(&dws, n * 4));
  CUDA_OK(cudaMemcpy(dx, hx.data(), n * 4, cudaMemcpyHostToDevice));
  cudaStream_t s1, s2;
  CUDA_OK(cudaStreamCreateWithFlags(&s1, cudaStreamNonBlocking));
  CUDA_OK(cudaStreamCreateWithFlags(&s2, cudaStreamNonBlocking));

  // 1. Two launches + memset, internal workspace, on a user stream.
  std::unique_ptr<Executable> exe = make(elementwisePlan(n, 256 * 4));
  Status status = exe->run({{"x", dx}, {"y", dy}}, s1);
  check(status.isOk(), "run elementwise on a stream", status.message());
  CUDA_OK(cudaStreamSynchronize(s1));
  CUDA_OK(cudaMemcpy(hy.data(), dy, n * 4, cudaMemcpyDeviceToHost));
  check(countWrong(hx, hy) == 0, "elementwise results",
        strCat(countWrong(hx, hy), " wrong of ", n));

  // 2. The same executable on two streams, back to back (event-ordered
  // internal workspace), into two outputs.
  CUDA_OK(cudaMemset(dy, 0, n * 4));
  Status a = exe->run({{"x", dx}, {"y", dy}}, s1);
  Status b = exe->run({{"x", dx}, {"y", dy2}}, s2);
  check(a.isOk() && b.isOk(), "runs on two streams", a.message() + b.message());
  CUDA_OK(cudaDeviceSynchronize());
  std::vector<float> hy2(n);
  CUDA_OK(cudaMemcpy(hy.data(), dy, n * 4, cudaMemcpyDeviceToHost));
  CUDA_OK(cudaMemcpy(hy2.data(), dy2, n * 4, cudaMemcpyDeviceToHost));
  check(countWrong(hx, hy) == 0 && countWrong(hx, hy2) == 0, "two-stream results");

  // 3. Caller workspace, default stream, and > 48 KiB of dynamic shared
  // memory (cuFuncSetAttribute).
  std::unique_ptr<Executable> big = make(elementwisePlan(n, 100 * 1024));
  CUDA_OK(cudaMemset(dy, 0, n * 4));
  status = big->run({{"x", dx}, {"y", dy}}, Workspace{dws, uint64_t(n) * 4}, nullptr);
  check(status.isOk(), "run with caller workspace and 100 KiB smem", status.message());
  CUDA_OK(cudaDeviceSynchronize());
  CUDA_OK(cudaMemcpy(hy.data(), dy, n * 4, cudaMemcpyDeviceToHost));
  check(countWrong(hx, hy) == 0, "large-smem results");

  // 4. Variant choice: sm_90a cubin on a 9.0 device, the portable kernel
  // (as PTX) when TGC_FORCE_PTX is set or on other devices.
  int *dwhich;
  CUDA_OK(cudaMalloc(&dwhich, 4));
  CUDA_OK(cudaMemset(dwhich, 0, 4));
  std::unique_ptr<Executable> variants = make(variantPlan());
  status = variants->run({{"which", dwhich}}, s1);
  check(status.isOk(), "run variant plan", status.message());
  CUDA_OK(cudaStreamSynchronize(s1));
  int which = 0;
  CUDA_OK(cudaMemcpy(&which, dwhich, 4, cudaMemcpyDeviceToHost));
  bool hopper = prop.major == 9 && prop.minor == 0 && !forcePtx;
  check(which == (hopper ? 90 : 80), "variant chosen",
        strCat("kernel wrote ", which, ", expected ", hopper ? 90 : 80));

  // 5. Errors on a real device: never a crash, the context stays usable.
  status = exe->run({{"x", reinterpret_cast<char *>(dx) + 4}, {"y", dy}}, s1);
  check(status.code() == StatusCode::Misaligned, "misaligned pointer rejected",
        status.message());
  std::vector<float> pageable(n);
  status = exe->run({{"x", pageable.data()}, {"y", dy}}, s1);
  if (status.isOk()) {
    // Systems with HMM can access pageable memory from the GPU.
    CUDA_OK(cudaStreamSynchronize(s1));
    check(true, "pageable host pointer accepted (HMM system)");
  } else {
    check(status.code() == StatusCode::BindingError, "pageable host pointer rejected",
          status.message());
  }
  Workspace tiny{dws, 16};
  status = exe->run({{"x", dx}, {"y", dy}}, tiny, s1);
  check(status.code() == StatusCode::WorkspaceTooSmall, "small workspace rejected",
        status.message());
  CUDA_OK(cudaDeviceSynchronize());
  check(cudaGetLastError() == cudaSuccess, "context healthy after the error paths");

  // 6. The default stream from a thread the CUDA runtime has not touched (no
  // current context, as in PyTorch's autograd threads): the primary context
  // of the buffers' device; host memory there is an error that says so.
  CUDA_OK(cudaMemset(dy, 0, n * 4));
  Status fresh, host;
  std::thread([&] {
    fresh = exe->run({{"x", dx}, {"y", dy}}, nullptr);
    host = exe->run({{"x", pageable.data()}, {"y", dy2}}, nullptr);
  }).join();
  check(fresh.isOk(), "default stream on a thread without a context", fresh.message());
  CUDA_OK(cudaDeviceSynchronize());
  CUDA_OK(cudaMemcpy(hy.data(), dy, n * 4, cudaMemcpyDeviceToHost));
  check(countWrong(hx, hy) == 0, "results of the thread without a context",
        strCat(countWrong(hx, hy), " wrong of ", n));
  if (host.isOk()) {
    CUDA_OK(cudaDeviceSynchronize());
    check(true, "pageable host pointer on a thread without a context accepted (HMM system)");
  } else {
    check(host.code() == StatusCode::BindingError &&
              host.message().find("belongs to no CUDA device") != std::string::npos,
          "pageable host pointer on a thread without a context rejected", host.message());
  }

  CacheStats stats = kernelCacheStats();
  std::printf("kernel cache: %llu compiled in %.1f ms, %llu loaded from disk in %.2f ms, "
              "%llu memory hits, %llu corrupt entries\n",
              (unsigned long long)stats.compiles, stats.compileSeconds * 1e3,
              (unsigned long long)stats.diskHits, stats.diskLoadSeconds * 1e3,
              (unsigned long long)stats.memoryHits, (unsigned long long)stats.corruptEntries);

  exe.reset();
  big.reset();
  variants.reset();
  cudaFree(dx);
  cudaFree(dy);
  cudaFree(dy2);
  cudaFree(dws);
  cudaFree(dwhich);
  std::printf("runtime smoke: %d passed, %d failed\n", passed, failed);
  return failed == 0 ? 0 : 1;
}
