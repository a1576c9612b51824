#include "TestUtil.h"
#include "tgc/Sha256.h"

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <limits>
#include <sstream>
#include <stdexcept>

namespace tgc::test {

void emulateElementwiseKernel(const char *name, void **params) {
  if (!std::strcmp(name, "axpb")) {
    const float *x = *static_cast<const float **>(params[0]);
    float *y = *static_cast<float **>(params[1]);
    float a = *static_cast<float *>(params[2]);
    float b = *static_cast<float *>(params[3]);
    long long n = *static_cast<long long *>(params[4]);
    for (long long i = 0; i < n; ++i)
      y[i] = a * x[i] + b;
  } else if (!std::strcmp(name, "square")) {
    const float *x = *static_cast<const float **>(params[0]);
    float *y = *static_cast<float **>(params[1]);
    int n = *static_cast<int *>(params[2]);
    for (int i = 0; i < n; ++i)
      y[i] = x[i] * x[i];
  }
}

std::string makeTempDir(const std::string &prefix) {
  const char *tmp = std::getenv("TMPDIR");
  std::string pattern = std::string(tmp && *tmp ? tmp : "/tmp") + "/" + prefix + "XXXXXX";
  if (!mkdtemp(pattern.data()))
    throw std::runtime_error("mkdtemp failed");
  return pattern;
}

void removeTree(const std::string &path) {
  if (path.size() > 5)
    std::system(("rm -rf '" + path + "'").c_str());
}

std::string readText(const std::string &path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

void writeText(const std::string &path, const std::string &text) {
  std::ofstream out(path, std::ios::binary);
  out << text;
}

const char *kAxpbSource = R"(// y = a * x + b
extern "C" __global__ void axpb(const float *x, float *y, float a, float b,
                                long long n) {
  long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x;
  if (i < n)
    y[i] = a * x[i] + b;
}
)";

const char *kSquareSource = R"(// y = x * x, with the input staged through dynamic shared memory
extern "C" __global__ void square(const float *x, float *y, int n) {
  extern __shared__ float staged[];
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  staged[threadIdx.x] = i < n ? x[i] : 0.0f;
  __syncthreads();
  if (i < n)
    y[i] = staged[threadIdx.x] * staged[threadIdx.x];
}
)";

Plan elementwisePlan(int64_t n, uint32_t alignment) {
  Plan plan;
  plan.name = "elementwise";
  plan.workspaceAlignment = 256;
  uint64_t bytes = uint64_t(n) * 4;
  plan.workspaceBytes = (bytes + 255) / 256 * 256;
  plan.buffers.push_back({"x", BufferRole::Input, DType::F32, {n}, {1}, alignment, 0});
  plan.buffers.push_back({"y", BufferRole::Output, DType::F32, {n}, {1}, alignment, 0});
  plan.buffers.push_back({"t", BufferRole::Intermediate, DType::F32, {n}, {1}, 256, 0});

  Kernel axpb{"axpb", "axpb", kAxpbSource, {"-std=c++17"}, KernelTarget::portable(80)};
  Kernel square{"square", "square", kSquareSource, {}, KernelTarget::portable(80)};
  plan.kernels = {axpb, square};

  uint32_t block = 128;
  uint32_t grid = uint32_t((n + block - 1) / block);
  plan.steps.push_back(MemsetStep{"t", 0});
  LaunchVariant first{"axpb", {grid, 1, 1}, {block, 1, 1}, 0,
                      {KernelArg::buf("x"), KernelArg::buf("t"),
                       KernelArg::f32(2.0f), KernelArg::f32(-1.0f),
                       KernelArg::i64(n)}};
  plan.steps.push_back(LaunchStep{{first}});
  LaunchVariant second{"square", {grid, 1, 1}, {block, 1, 1}, block * 4,
                       {KernelArg::buf("t"), KernelArg::buf("y"),
                        KernelArg::i32(int32_t(n))}};
  plan.steps.push_back(LaunchStep{{second}});
  return plan;
}

CudnnStep scaleCudnnStep(const std::string &input, const std::string &output) {
  // output = -(input * 0.1), as one cuDNN pointwise graph.
  CudnnStep step;
  cudnn::Graph graph;
  graph.name = "scale \"quoted\" name";
  graph.minVersion = 90000;
  graph.tensors.push_back({1, DType::F32, {1, 1, 1}, {1, 1, 1},
                           cudnn::TensorKind::Bound, input, 0.0});
  graph.tensors.push_back({2, DType::F32, {1, 1, 1}, {1, 1, 1},
                           cudnn::TensorKind::ByValue, "", 0.1});
  graph.tensors.push_back({3, DType::F32, {1, 1, 1}, {1, 1, 1},
                           cudnn::TensorKind::Virtual, "", 0.0});
  graph.tensors.push_back({4, DType::F32, {1, 1, 1}, {1, 1, 1},
                           cudnn::TensorKind::Bound, output, 0.0});
  cudnn::Op mul;
  mul.kind = cudnn::OpKind::Pointwise;
  mul.mode = "mul";
  mul.ports = {{"x", 1}, {"b", 2}, {"y", 3}};
  cudnn::Op neg;
  neg.kind = cudnn::OpKind::Pointwise;
  neg.mode = "neg";
  neg.ports = {{"x", 3}, {"y", 4}};
  graph.ops = {mul, neg};
  step.graphs.push_back(graph);
  return step;
}

std::string resignPlanText(const std::string &text) {
  size_t end = text.rfind("end sha256 ");
  std::string body = text.substr(0, end);
  return body + "end sha256 " + toHex(Sha256::hash(body)) + "\n";
}

Plan everythingPlan() {
  Plan plan;
  plan.name = "every \"feature\"\n(quoted)";
  plan.workspaceBytes = 8192;
  plan.workspaceAlignment = 1024;
  plan.buffers.push_back({"q", BufferRole::Input, DType::BF16, {2, 8, 128, 64},
                          {65536, 64, 512, 1}, 16, 0});
  plan.buffers.push_back({"seed", BufferRole::Input, DType::I64, {}, {}, 8, 0});
  plan.buffers.push_back({"mask", BufferRole::Input, DType::I1, {4, 0}, {0, 1}, 1, 0});
  plan.buffers.push_back({"o", BufferRole::Output, DType::F16, {2, 3}, {3, 1}, 16, 0});
  plan.buffers.push_back({"o2", BufferRole::Output, DType::F16, {2, 3}, {3, 1}, 16, 0});
  plan.buffers.push_back({"scratch", BufferRole::Intermediate, DType::F8E4M3FN,
                          {100}, {1}, 1024, 1024});
  plan.buffers.push_back({"w", BufferRole::Input, DType::F8E5M2, {3}, {1}, 4, 0});
  plan.buffers.push_back({"i", BufferRole::Input, DType::I8, {1}, {1}, 1, 0});
  plan.buffers.push_back({"j", BufferRole::Input, DType::I32, {1}, {1}, 4, 0});
  plan.buffers.push_back({"f", BufferRole::Input, DType::F32, {1}, {1}, 4, 0});

  plan.kernels.push_back({"wgmma", "attn<128, true>",
                          "template <int D, bool C> __global__ void attn() {}\n"
                          "// a line with \"quotes\" and a trailing space \n",
                          {"-std=c++17", "--use_fast_math", "-DNAME=\"x y\""},
                          KernelTarget::archSpecific(90)});
  plan.kernels.push_back({"portable", "attn_l0", "extern \"C\" __global__ void attn_l0() {}",
                          {}, KernelTarget::portable(80)});

  LaunchStep launch;
  launch.variants.push_back(
      {"wgmma", {132, 1, 1}, {384, 1, 1}, 200 * 1024,
       {KernelArg::buf("q"), KernelArg::buf("scratch"), KernelArg::i32(-7),
        KernelArg::i64(std::numeric_limits<int64_t>::min()),
        KernelArg::f32(0.125f), KernelArg::f32(-0.0f),
        KernelArg::f32(std::numeric_limits<float>::infinity()),
        KernelArg::f32(1.17549435e-38f), KernelArg::f32(3.14159274f)}});
  launch.variants.push_back({"portable", {16, 8, 2}, {128, 1, 1}, 0, {}});
  plan.steps.push_back(MemsetStep{"scratch", 255});
  plan.steps.push_back(launch);
  plan.steps.push_back(CopyStep{"o", "o2"});
  CudnnStep cudnnStep = scaleCudnnStep("f", "f");
  cudnnStep.fallback = launch;
  plan.steps.push_back(cudnnStep);
  return plan;
}

} // namespace tgc::test
