// GPU smoke check of the runtime's cuDNN backend (needs a GPU and
// libcudnn.so.9; run on the device machine):
//
//   build/bin/tgc-cudnn-smoke            # TGC_LOG=info shows engine choices
//
// Builds cuDNN operation graphs by hand (no compiler involved), wraps each in
// a plan with one cuDNN step and no NVRTC fallback, runs it through
// tgc::Executable and checks the output against a host reference:
//   (a) pointwise: y(f16) = x(f16) * 0.5 + 1 (two by-value scalars, a
//       virtual f32 intermediate);
//   (b) mixed matmul: c(f16) = a(i8) x b(f16), a converted by an identity
//       pointwise op into a virtual f16 tensor;
//   (c) attention forward, bf16, b=1 h=2 s=128 d=64, as a composite graph:
//       K as a transposed view, softmax as max/sub/exp/sum/div, P bf16.
// Also: the plan cache (a second executable builds nothing), two streams,
// and the per-step backend report. Prints one PASS/FAIL line per check and
// "cudnn smoke: N passed, M failed"; exits 1 on any failure.

#include "tgc/Device.h"
#include "tgc/Numerics.h"
#include "tgc/tgc.hpp"

#include <cuda_runtime.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

using namespace tgc;
using cudnn::TensorKind;

namespace {

int passed = 0, failed = 0;

void check(bool ok, const std::string &what, const std::string &detail = "") {
  std::printf("%s  %s%s%s\n", ok ? "PASS" : "FAIL", what.c_str(),
              detail.empty() ? "" : ": ", detail.c_str());
  std::fflush(stdout);
  (ok ? passed : failed)++;
}

#define OK_OR_EXIT(expr)                                                       \
  do {                                                                         \
    Status s_ = (expr);                                                        \
    if (!s_.isOk()) {                                                          \
      std::printf("FAIL  %s: %s\n", #expr, s_.message().c_str());              \
      std::exit(2);                                                            \
    }                                                                          \
  } while (0)

std::vector<int64_t> contiguous(const std::vector<int64_t> &dims) {
  std::vector<int64_t> strides(dims.size(), 1);
  for (size_t i = dims.size(); i-- > 1;)
    strides[i - 1] = strides[i] * dims[i];
  return strides;
}

int64_t volume(const std::vector<int64_t> &dims) {
  int64_t n = 1;
  for (int64_t d : dims)
    n *= d;
  return n;
}

struct GraphBuilder {
  cudnn::Graph graph;
  int64_t nextUid = 1;

  int64_t tensor(DType dtype, std::vector<int64_t> dims, TensorKind kind,
                 std::string buffer = "", double value = 0.0,
                 std::vector<int64_t> strides = {}) {
    if (strides.empty())
      strides = contiguous(dims);
    graph.tensors.push_back({nextUid, dtype, dims, strides, kind, buffer, value});
    return nextUid++;
  }
  int64_t bound(DType dtype, std::vector<int64_t> dims, std::string buffer,
                std::vector<int64_t> strides = {}) {
    return tensor(dtype, dims, TensorKind::Bound, buffer, 0.0, strides);
  }
  int64_t virt(DType dtype, std::vector<int64_t> dims) {
    return tensor(dtype, dims, TensorKind::Virtual);
  }
  int64_t scalar(double value, int rank) {
    return tensor(DType::F32, std::vector<int64_t>(size_t(rank), 1),
                  TensorKind::ByValue, "", value);
  }
  void pointwise(std::string mode, int64_t x, int64_t b, int64_t y) {
    cudnn::Op op;
    op.kind = cudnn::OpKind::Pointwise;
    op.mode = std::move(mode);
    op.ports = {{"x", x}, {"y", y}};
    if (b)
      op.ports.push_back({"b", b});
    graph.ops.push_back(op);
  }
  void reduction(std::string mode, int64_t x, int64_t y) {
    cudnn::Op op;
    op.kind = cudnn::OpKind::Reduction;
    op.mode = std::move(mode);
    op.ports = {{"x", x}, {"y", y}};
    graph.ops.push_back(op);
  }
  void matmul(int64_t a, int64_t b, int64_t c) {
    cudnn::Op op;
    op.kind = cudnn::OpKind::Matmul;
    op.ports = {{"a", a}, {"b", b}, {"c", c}};
    graph.ops.push_back(op);
  }
};

Buffer buffer(std::string name, BufferRole role, DType dtype,
              std::vector<int64_t> shape) {
  std::vector<int64_t> strides = contiguous(shape);
  return {std::move(name), role, dtype, std::move(shape), strides, 16, 0};
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

/// Prepares and reports which backend each step got; false when
/// preparation failed.
bool prepare(Executable &exe, Stream stream, const std::string &what) {
  auto start = std::chrono::steady_clock::now();
  Expected<std::vector<std::string>> backends = exe.stepBackends(stream);
  double ms = std::chrono::duration<double, std::milli>(
                  std::chrono::steady_clock::now() - start)
                  .count();
  if (!backends) {
    check(false, "prepare " + what, backends.status().message());
    return false;
  }
  bool cudnn = true;
  std::string text;
  for (const std::string &b : *backends) {
    cudnn = cudnn && b.rfind("cudnn:", 0) == 0;
    text += (text.empty() ? "" : " | ") + b;
  }
  check(cudnn, strCat("prepare ", what, " through cuDNN (", ms, " ms)"), text);
  return cudnn;
}

// Deterministic inputs in [-1, 1).
struct Lcg {
  uint64_t state;
  explicit Lcg(uint64_t seed) : state(seed) {}
  double next() {
    state = state * 6364136223846793005ull + 1442695040888963407ull;
    return double(state >> 11) / double(1ull << 53) * 2.0 - 1.0;
  }
};

std::vector<uint16_t> randomHalf(Format format, int64_t n, uint64_t seed,
                                 std::vector<double> &values) {
  Lcg rng(seed);
  std::vector<uint16_t> bits(static_cast<size_t>(n));
  values.resize(size_t(n));
  for (int64_t i = 0; i < n; ++i) {
    bits[size_t(i)] = uint16_t(toBits(format, rng.next()));
    values[size_t(i)] = fromBits(format, bits[size_t(i)]); // what the GPU sees
  }
  return bits;
}

template <typename T>
DeviceBuffer upload(const std::vector<T> &host) {
  Expected<DeviceBuffer> buffer = DeviceBuffer::allocate(host.size() * sizeof(T));
  if (!buffer) {
    std::printf("FAIL  allocate: %s\n", buffer.status().message().c_str());
    std::exit(2);
  }
  OK_OR_EXIT(buffer->upload(host.data(), host.size() * sizeof(T)));
  return buffer.take();
}

DeviceBuffer allocate(size_t bytes) {
  Expected<DeviceBuffer> buffer = DeviceBuffer::allocate(bytes);
  if (!buffer) {
    std::printf("FAIL  allocate: %s\n", buffer.status().message().c_str());
    std::exit(2);
  }
  OK_OR_EXIT(buffer->fill(0xff)); // NaN patterns: unwritten outputs show
  return buffer.take();
}

std::vector<double> downloadHalf(Format format, const DeviceBuffer &buffer, int64_t n) {
  std::vector<uint16_t> bits(static_cast<size_t>(n));
  OK_OR_EXIT(buffer.download(bits.data(), bits.size() * 2));
  std::vector<double> values(static_cast<size_t>(n));
  for (int64_t i = 0; i < n; ++i)
    values[size_t(i)] = fromBits(format, bits[size_t(i)]);
  return values;
}

/// Max |got - want| / (atol + rtol |want|) over all elements (<= 1 passes),
/// with a description of the worst element.
double compare(const std::vector<double> &got, const std::vector<double> &want,
               double atol, double rtol, std::string &worst) {
  double score = 0;
  for (size_t i = 0; i < want.size(); ++i) {
    double err = std::fabs(got[i] - want[i]);
    double s = std::isnan(got[i]) ? INFINITY : err / (atol + rtol * std::fabs(want[i]));
    if (s > score) {
      score = s;
      worst = strCat("element ", i, ": got ", got[i], ", want ", want[i]);
    }
  }
  return score;
}

//===--------------------------------------------------------------------===//
// (a) pointwise
//===--------------------------------------------------------------------===//

void pointwiseCase(Stream stream) {
  std::vector<int64_t> dims = {1, 64, 256};
  int64_t n = volume(dims);
  GraphBuilder g;
  g.graph.name = "scale and shift";
  int64_t x = g.bound(DType::F16, dims, "x");
  int64_t half = g.scalar(0.5, 3);
  int64_t t = g.virt(DType::F32, dims);
  int64_t one = g.scalar(1.0, 3);
  int64_t y = g.bound(DType::F16, dims, "y");
  g.pointwise("mul", x, half, t);
  g.pointwise("add", t, one, y);

  Plan plan;
  plan.name = "cudnn_pointwise";
  plan.buffers = {buffer("x", BufferRole::Input, DType::F16, {n}),
                  buffer("y", BufferRole::Output, DType::F16, {n})};
  plan.steps.push_back(CudnnStep{{g.graph}, std::nullopt});
  std::unique_ptr<Executable> exe = make(plan);
  if (!prepare(*exe, stream, "(a) pointwise"))
    return;

  std::vector<double> xs;
  DeviceBuffer dx = upload(randomHalf(Format::F16, n, 1, xs));
  DeviceBuffer dy = allocate(size_t(n) * 2);
  Status status = exe->run({{"x", dx.data()}, {"y", dy.data()}}, stream);
  check(status.isOk(), "(a) run", status.message());
  OK_OR_EXIT(synchronizeDevice());
  std::vector<double> want(static_cast<size_t>(n));
  for (int64_t i = 0; i < n; ++i)
    want[size_t(i)] = xs[size_t(i)] * 0.5 + 1.0;
  std::string worst;
  double score = compare(downloadHalf(Format::F16, dy, n), want, 1e-3, 1e-3, worst);
  check(score <= 1.0, "(a) y = x * 0.5 + 1 (f16)", strCat("score ", score, "; worst ", worst));
}

//===--------------------------------------------------------------------===//
// (b) int8 x f16 matmul
//===--------------------------------------------------------------------===//

void matmulCase(Stream stream) {
  const int64_t B = 2, M = 64, N = 128, K = 256;
  GraphBuilder g;
  g.graph.name = "i8 x f16 matmul";
  int64_t a = g.bound(DType::I8, {B, M, K}, "a");
  int64_t a16 = g.virt(DType::F16, {B, M, K});
  int64_t b = g.bound(DType::F16, {B, K, N}, "b");
  int64_t c = g.bound(DType::F16, {B, M, N}, "c");
  g.pointwise("identity", a, 0, a16); // f32 math: i8 -> f32 -> f16, exact
  g.matmul(a16, b, c);

  Plan plan;
  plan.name = "cudnn_matmul";
  plan.buffers = {buffer("a", BufferRole::Input, DType::I8, {B, M, K}),
                  buffer("b", BufferRole::Input, DType::F16, {B, K, N}),
                  buffer("c", BufferRole::Output, DType::F16, {B, M, N})};
  plan.steps.push_back(CudnnStep{{g.graph}, std::nullopt});
  std::unique_ptr<Executable> exe = make(plan);
  if (!prepare(*exe, stream, "(b) mixed matmul"))
    return;

  Lcg rng(2);
  std::vector<int8_t> ha(static_cast<size_t>(B * M * K));
  for (int8_t &v : ha)
    v = int8_t(std::lround(rng.next() * 127.0));
  std::vector<double> bs;
  DeviceBuffer da = upload(ha);
  DeviceBuffer db = upload(randomHalf(Format::F16, B * K * N, 3, bs));
  DeviceBuffer dc = allocate(size_t(B * M * N) * 2);
  Status status = exe->run({{"a", da.data()}, {"b", db.data()}, {"c", dc.data()}}, stream);
  check(status.isOk(), "(b) run", status.message());
  OK_OR_EXIT(synchronizeDevice());

  std::vector<double> want(static_cast<size_t>(B * M * N));
  for (int64_t bi = 0; bi < B; ++bi)
    for (int64_t m = 0; m < M; ++m)
      for (int64_t n = 0; n < N; ++n) {
        double sum = 0;
        for (int64_t k = 0; k < K; ++k)
          sum += double(ha[size_t((bi * M + m) * K + k)]) * bs[size_t((bi * K + k) * N + n)];
        want[size_t((bi * M + m) * N + n)] = sum;
      }
  // f32 accumulation of K=256 products up to 127, rounded to f16.
  std::string worst;
  double score = compare(downloadHalf(Format::F16, dc, B * M * N), want, 0.5, 2e-3, worst);
  check(score <= 1.0, "(b) c = a(i8) x b(f16)", strCat("score ", score, "; worst ", worst));
}

//===--------------------------------------------------------------------===//
// (c) composite attention forward
//===--------------------------------------------------------------------===//

struct Attention {
  static constexpr int64_t B = 1, H = 2, S = 128, D = 64;
  std::unique_ptr<Executable> exe;
};

Plan attentionPlan() {
  const int64_t B = Attention::B, H = Attention::H, S = Attention::S, D = Attention::D;
  GraphBuilder g;
  g.graph.name = "attention fwd (composite)";
  std::vector<int64_t> qkv = {B, H, S, D}, scores = {B, H, S, S}, rows = {B, H, S, 1};
  int64_t q = g.bound(DType::BF16, qkv, "q");
  // K^T as a view of the [B,H,S,D] buffer: dims [B,H,D,S], strides swapped.
  int64_t kT = g.bound(DType::BF16, {B, H, D, S}, "k", {H * S * D, S * D, 1, D});
  int64_t v = g.bound(DType::BF16, qkv, "v");
  int64_t o = g.bound(DType::BF16, qkv, "o");
  int64_t s = g.virt(DType::F32, scores);
  g.matmul(q, kT, s);
  int64_t scale = g.scalar(1.0 / std::sqrt(double(D)), 4);
  int64_t scaled = g.virt(DType::F32, scores);
  g.pointwise("mul", s, scale, scaled);
  int64_t rowMax = g.virt(DType::F32, rows);
  g.reduction("max", scaled, rowMax);
  int64_t shifted = g.virt(DType::F32, scores);
  g.pointwise("sub", scaled, rowMax, shifted);
  int64_t e = g.virt(DType::F32, scores);
  g.pointwise("exp", shifted, 0, e);
  int64_t rowSum = g.virt(DType::F32, rows);
  g.reduction("add", e, rowSum);
  // The fused-attention engines recognise softmax only with its stats
  // (max + log(sum)), virtual when not needed; without them no engine
  // config matches (cuDNN 9.14 and 9.19 on H200).
  int64_t logSum = g.virt(DType::F32, rows);
  g.pointwise("log", rowSum, 0, logSum);
  int64_t stats = g.virt(DType::F32, rows);
  g.pointwise("add", rowMax, logSum, stats);
  int64_t p = g.virt(DType::BF16, scores); // P must be 16-bit for the engine
  g.pointwise("div", e, rowSum, p);
  g.matmul(p, v, o);

  Plan plan;
  plan.name = "cudnn_attention";
  plan.buffers = {buffer("q", BufferRole::Input, DType::BF16, qkv),
                  buffer("k", BufferRole::Input, DType::BF16, qkv),
                  buffer("v", BufferRole::Input, DType::BF16, qkv),
                  buffer("o", BufferRole::Output, DType::BF16, qkv)};
  plan.steps.push_back(CudnnStep{{g.graph}, std::nullopt});
  return plan;
}

std::vector<double> attentionReference(const std::vector<double> &q,
                                       const std::vector<double> &k,
                                       const std::vector<double> &v) {
  const int64_t B = Attention::B, H = Attention::H, S = Attention::S, D = Attention::D;
  std::vector<double> o(static_cast<size_t>(B * H * S * D));
  std::vector<double> p(static_cast<size_t>(S));
  double scale = 1.0 / std::sqrt(double(D));
  for (int64_t bh = 0; bh < B * H; ++bh)
    for (int64_t i = 0; i < S; ++i) {
      double mx = -INFINITY;
      for (int64_t j = 0; j < S; ++j) {
        double dot = 0;
        for (int64_t d = 0; d < D; ++d)
          dot += q[size_t((bh * S + i) * D + d)] * k[size_t((bh * S + j) * D + d)];
        p[size_t(j)] = dot * scale;
        mx = std::max(mx, p[size_t(j)]);
      }
      double sum = 0;
      for (int64_t j = 0; j < S; ++j)
        sum += (p[size_t(j)] = std::exp(p[size_t(j)] - mx));
      for (int64_t d = 0; d < D; ++d) {
        double acc = 0;
        for (int64_t j = 0; j < S; ++j)
          acc += p[size_t(j)] / sum * v[size_t((bh * S + j) * D + d)];
        o[size_t((bh * S + i) * D + d)] = acc;
      }
    }
  return o;
}

void attentionCase(Stream stream, Stream other) {
  const int64_t n = Attention::B * Attention::H * Attention::S * Attention::D;
  std::unique_ptr<Executable> exe = make(attentionPlan());
  if (!prepare(*exe, stream, "(c) composite attention"))
    return;
  std::vector<double> qs, ks, vs;
  DeviceBuffer dq = upload(randomHalf(Format::BF16, n, 4, qs));
  DeviceBuffer dk = upload(randomHalf(Format::BF16, n, 5, ks));
  DeviceBuffer dv = upload(randomHalf(Format::BF16, n, 6, vs));
  DeviceBuffer d_o = allocate(size_t(n) * 2);
  std::vector<Binding> bindings = {
      {"q", dq.data()}, {"k", dk.data()}, {"v", dv.data()}, {"o", d_o.data()}};
  Status status = exe->run(bindings, stream);
  check(status.isOk(), "(c) run", status.message());
  OK_OR_EXIT(synchronizeDevice());
  std::vector<double> want = attentionReference(qs, ks, vs);
  // P is rounded to bf16 before P.V and O is bf16: a few bf16 ulps.
  std::string worst;
  double score = compare(downloadHalf(Format::BF16, d_o, n), want, 1e-2, 2e-2, worst);
  check(score <= 1.0, "(c) attention forward (bf16, b=1 h=2 s=128 d=64)",
        strCat("score ", score, "; worst ", worst));

  // The plan cache: a second executable of the same plan builds nothing.
  auto start = std::chrono::steady_clock::now();
  std::unique_ptr<Executable> again = make(attentionPlan());
  bool prepared = prepare(*again, stream, "(c) again (cached plan)");
  double ms = std::chrono::duration<double, std::milli>(
                  std::chrono::steady_clock::now() - start)
                  .count();
  if (!prepared)
    return;
  std::printf("      second executable prepared in %.2f ms\n", ms);
  // Two streams: the shared cuDNN workspace is ordered between them.
  DeviceBuffer o2 = allocate(size_t(n) * 2);
  std::vector<Binding> second = bindings;
  second[3].data = o2.data();
  Status a = exe->run(bindings, stream);
  Status b = again->run(second, other);
  Status c = exe->run(second, other);
  check(a.isOk() && b.isOk() && c.isOk(), "(c) runs on two streams",
        a.message() + b.message() + c.message());
  OK_OR_EXIT(synchronizeDevice());
  std::string worst2;
  double score2 = compare(downloadHalf(Format::BF16, o2, n), want, 1e-2, 2e-2, worst2);
  check(score2 <= 1.0, "(c) two-stream results", strCat("score ", score2, "; worst ", worst2));
}

} // namespace

int main() {
  OK_OR_EXIT(useDevice(0));
  Expected<int> arch = currentDeviceArch();
  std::printf("cudnn smoke on compute capability %d.%d, TGC_BACKEND=%s\n",
              arch ? *arch / 10 : 0, arch ? *arch % 10 : 0,
              std::getenv("TGC_BACKEND") ? std::getenv("TGC_BACKEND") : "(unset)");
  cudaStream_t s1, s2;
  if (cudaStreamCreateWithFlags(&s1, cudaStreamNonBlocking) != cudaSuccess ||
      cudaStreamCreateWithFlags(&s2, cudaStreamNonBlocking) != cudaSuccess) {
    std::printf("FAIL  cannot create streams\n");
    return 2;
  }
  pointwiseCase(s1);
  matmulCase(s1);
  attentionCase(s1, s2);
  check(cudaDeviceSynchronize() == cudaSuccess && cudaGetLastError() == cudaSuccess,
        "context healthy at the end");
  std::printf("cudnn smoke: %d passed, %d failed\n", passed, failed);
  return failed == 0 ? 0 : 1;
}
