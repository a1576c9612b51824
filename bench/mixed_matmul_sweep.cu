// Benchmark (not a test): a sweep of the mixed-input matmul kernel's tile
// (device/mixed_matmul.cuh: warps per CTA, K per stage, pipeline stages)
// and of the CTA count that K is split for, at the weight-bound shapes
// (M = 1 ... 64), to choose MixedTile in compiler/lib/Lowering/
// MixedMatmulKernel.cpp. It instantiates the header as the generator does
// (the identity prologue: x bf16 times w converted exactly; i8, e4m3 and i4
// packed two per byte), times each
// configuration with CUDA events (median of 7 runs of 20 launches, the
// split-K combine included) and checks every configuration's output against
// a plain f32 GEMV-style kernel (max |y - ref| / max |ref|).
//
// Build and run (GPU machine, repository root):
//   nvcc -std=c++17 -O3 -arch=sm_90a -I compiler/lib/Codegen/device \
//        bench/mixed_matmul_sweep.cu -o mixed_matmul_sweep && ./mixed_matmul_sweep > sweep.md
//   ./mixed_matmul_sweep i4 > sweep_i4.md   (the i4 weight's tiles only)
//   ./mixed_matmul_sweep groups > groups.md (the generator's tiles, scales
//                                            per group of 32 ... 128 rows)
#include <cuda_bf16.h>
#include <cuda_runtime.h>

#include "mixed_matmul.cuh"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <random>
#include <string>
#include <vector>

using tg::device::Elem;
using tg::device::Narrow;
using tg::device::u16;

#define CHECK_CUDA(call)                                                                             \
  do {                                                                                               \
    cudaError_t e_ = (call);                                                                         \
    if (e_ != cudaSuccess) {                                                                         \
      std::fprintf(stderr, "%s:%d: %s\n", __FILE__, __LINE__, cudaGetErrorString(e_));               \
      std::exit(1);                                                                                  \
    }                                                                                                \
  } while (0)

template <Narrow W, long long M, long long N, long long K, int MTile, int Warps, int WarpN, int BlockK,
          int Stages, long long Group = 0, int KSlices = 1>
struct Cfg {
  static constexpr Elem kElem = Elem::BF16;
  static constexpr Narrow kWeight = W;
  static constexpr long long kM = M, kN = N, kK = K;
  static constexpr int kMTile = MTile, kWarps = Warps, kWarpN = WarpN, kBlockK = BlockK, kStages = Stages;
  static constexpr long long kGroup = Group;
  static constexpr int kKSlices = KSlices;
};

/// The read ceiling: every weight byte loaded once, 16 bytes per load.
__global__ void __launch_bounds__(256) stream_read(const uint4 *w, long long count, unsigned *sink) {
  unsigned acc = 0;
  for (long long i = static_cast<long long>(blockIdx.x) * 256 + threadIdx.x; i < count;
       i += static_cast<long long>(gridDim.x) * 256) {
    uint4 v = __ldcs(w + i);
    acc ^= v.x ^ v.y ^ v.z ^ v.w;
  }
  if (acc == 0x12345678u)
    *sink = acc; // keeps the loads
}

template <class C>
__global__ void __launch_bounds__(32 * C::kWarps * C::kKSlices)
    sweep_main(const u16 *x, const unsigned char *w, float *partials, long long k_per_split, __nv_bfloat16 *y,
               const u16 *scales) {
  // kGroup > 0: the generator's packed form with a scale per column and
  // group of kGroup rows (scales [K / kGroup, N]; the sweep's are 1.0, so
  // the reference is the identity's).
  auto column = [&](long long n, long long k) {
    if constexpr (C::kGroup == 0)
      return 0u;
    const unsigned s = scales[(k / (C::kGroup ? C::kGroup : 1)) * C::kN + n];
    return s | (s << 16);
  };
  auto prologue = [&](unsigned scale, unsigned word, int sel, long long, long long, long long) {
    const unsigned pair = tg::device::mixed::narrow_pair<C::kWeight, C::kElem>(word, sel);
    if constexpr (C::kGroup == 0)
      return pair;
    return tg::device::mul_bf16x2(pair, scale);
  };
  auto epilogue = [&](float acc, long long m, long long n) { y[m * C::kN + n] = __float2bfloat16_rn(acc); };
  tg::device::mixed::mixed_matmul<C>(x, w, partials, k_per_split, column, prologue, epilogue);
}

template <class C>
__global__ void __launch_bounds__(256) sweep_combine(const float *partials, int splits, __nv_bfloat16 *y) {
  auto epilogue = [&](float acc, long long m, long long n) { y[m * C::kN + n] = __float2bfloat16_rn(acc); };
  tg::device::mixed::mixed_matmul_combine<C>(partials, splits, epilogue);
}

/// y = x . w in f32, one thread per output (the check).
template <Narrow W>
__global__ void reference(const __nv_bfloat16 *x, const unsigned char *w, float *y, long long M, long long N,
                          long long K) {
  long long i = static_cast<long long>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i >= M * N)
    return;
  long long m = i / N, n = i % N;
  float acc = 0;
  for (long long k = 0; k < K; ++k) {
    // i4: the nibble of column n in byte (k N + n) / 2
    unsigned word = W == Narrow::I4 ? w[(k * N + n) / 2] : w[k * N + n];
    acc += __bfloat162float(x[m * K + k]) * tg::device::mixed::narrow_to_float<W>(word, W == Narrow::I4 ? n % 2 : 0);
  }
  y[i] = acc;
}

/// Microseconds per call: after `warm` calls, the median of `reps` samples
/// of 20 calls back to back between two events.
template <class Launch>
double median_us(Launch launch, int warm, int reps) {
  cudaEvent_t start, stop;
  CHECK_CUDA(cudaEventCreate(&start));
  CHECK_CUDA(cudaEventCreate(&stop));
  for (int i = 0; i < warm; ++i)
    launch();
  std::vector<float> times;
  for (int rep = 0; rep < reps; ++rep) {
    CHECK_CUDA(cudaEventRecord(start));
    for (int i = 0; i < 20; ++i)
      launch();
    CHECK_CUDA(cudaEventRecord(stop));
    CHECK_CUDA(cudaEventSynchronize(stop));
    float ms;
    CHECK_CUDA(cudaEventElapsedTime(&ms, start, stop));
    times.push_back(ms * 1000.0f / 20);
  }
  CHECK_CUDA(cudaEventDestroy(start));
  CHECK_CUDA(cudaEventDestroy(stop));
  std::sort(times.begin(), times.end());
  return times[reps / 2];
}

struct Buffers {
  __nv_bfloat16 *x = nullptr, *y = nullptr;
  u16 *scales = nullptr; // [K / 16, N] of 1.0
  unsigned char *w = nullptr;
  float *partials = nullptr, *ref = nullptr;
};

const char *weight_name(Narrow w) {
  return w == Narrow::I8 ? "i8" : w == Narrow::I4 ? "i4" : "e4m3";
}

template <class C>
void runConfig(const Buffers &b, int target_ctas, float ref_max, const std::vector<float> &ref_host) {
  constexpr int kBlockN = C::kWarpN * C::kWarps;
  constexpr int kBits = tg::device::mixed::weight_bits(C::kWeight);
  const int smem = tg::device::mixed::shared_bytes(C::kMTile, C::kBlockK, kBlockN, C::kStages, kBits);
  if (smem > 227 * 1024)
    return;
  // The generator's split rule (MixedMatmulKernel.cpp) for this target.
  long long ctas = ((C::kN + kBlockN - 1) / kBlockN) * ((C::kM + C::kMTile - 1) / C::kMTile);
  long long splits = 1;
  if (ctas < target_ctas)
    splits = std::min<long long>((target_ctas + ctas - 1) / ctas,
                                 std::max<long long>(1, C::kK / (C::kStages * C::kBlockK)));
  long long kps = ((C::kK + splits - 1) / splits + C::kBlockK - 1) / C::kBlockK * C::kBlockK;
  splits = (C::kK + kps - 1) / kps;
  CHECK_CUDA(cudaFuncSetAttribute(sweep_main<C>, cudaFuncAttributeMaxDynamicSharedMemorySize, smem));
  dim3 grid(unsigned((C::kN + kBlockN - 1) / kBlockN), unsigned((C::kM + C::kMTile - 1) / C::kMTile),
            unsigned(splits));
  auto launch = [&] {
    sweep_main<C><<<grid, 32 * C::kWarps * C::kKSlices, smem>>>(reinterpret_cast<const u16 *>(b.x), b.w, b.partials, kps, b.y,
                                                  b.scales);
    if (splits > 1)
      sweep_combine<C><<<unsigned((C::kM * C::kN + 255) / 256), 256>>>(b.partials, int(splits), b.y);
  };
  CHECK_CUDA(cudaMemset(b.y, 0xff, C::kM * C::kN * 2)); // NaN
  launch();
  CHECK_CUDA(cudaDeviceSynchronize());
  std::vector<__nv_bfloat16> y(C::kM * C::kN);
  CHECK_CUDA(cudaMemcpy(y.data(), b.y, y.size() * 2, cudaMemcpyDeviceToHost));
  double err = 0;
  for (size_t i = 0; i < y.size(); ++i) {
    double d = std::fabs(double(__bfloat162float(y[i])) - ref_host[i]);
    err = std::isnan(d) ? INFINITY : std::max(err, d);
  }
  double us = median_us(launch, 5, 7);
  double tflops = 2.0 * C::kM * C::kN * C::kK / us / 1e6;
  double gbs = double(C::kK) * C::kN * kBits / 8 / us / 1e3;
  std::printf("| %lld | %lld | %lld | %s%s | %d | %dx%d%s | %d | %d | %d | %lld | %d | %.2f | %.1f | %.0f | %.1e%s |\n",
              C::kM, C::kK, C::kN, weight_name(C::kWeight),
              C::kGroup ? (" g" + std::to_string(C::kGroup)).c_str() : "", C::kMTile, C::kWarps, C::kWarpN,
              C::kKSlices > 1 ? " x2 K slices" : "",
              C::kBlockK,
              C::kStages, target_ctas, splits, smem / 1024, us, tflops, gbs, err / ref_max,
              err / ref_max <= 2e-2 ? "" : " FAIL");
  std::fflush(stdout);
}

template <Narrow W, long long M, long long N, long long K, int MTile>
struct Shape {
  template <int Warps, int WarpN, int BlockK, int Stages, long long Group = 0, int KSlices = 1>
  using C = Cfg<W, M, N, K, MTile, Warps, WarpN, BlockK, Stages, Group, KSlices>;

  /// `groups`: the generator's tile only (i4 {4, 64, 128, 3}, 8-bit
  /// {8, 32, 128, 3}) at 264 target CTAs, identity and scales per group of
  /// 32, 64 and 128 rows; otherwise the tile sweep.
  static void run(bool groups = false) {
    Buffers b;
    CHECK_CUDA(cudaMalloc(&b.x, M * K * 2));
    constexpr long long kWeightBytes = K * N * tg::device::mixed::weight_bits(W) / 8;
    CHECK_CUDA(cudaMalloc(&b.w, kWeightBytes));
    CHECK_CUDA(cudaMalloc(&b.y, M * N * 2));
    CHECK_CUDA(cudaMalloc(&b.ref, M * N * 4));
    CHECK_CUDA(cudaMalloc(&b.partials, 64 * M * N * 4));
    CHECK_CUDA(cudaMalloc(&b.scales, K / 16 * N * 2));
    {
      std::vector<u16> ones(K / 16 * N, 0x3f80); // bf16 1.0
      CHECK_CUDA(cudaMemcpy(b.scales, ones.data(), ones.size() * 2, cudaMemcpyHostToDevice));
    }
    std::mt19937 rng(1);
    std::vector<__nv_bfloat16> x(M * K);
    std::normal_distribution<float> normal;
    for (auto &v : x)
      v = __float2bfloat16_rn(normal(rng));
    std::vector<unsigned char> w(kWeightBytes);
    for (auto &v : w) {
      v = static_cast<unsigned char>(rng());
      if (W == Narrow::E4M3 && (v & 0x7f) == 0x7f)
        v ^= 1; // finite weights
    }
    CHECK_CUDA(cudaMemcpy(b.x, x.data(), x.size() * 2, cudaMemcpyHostToDevice));
    CHECK_CUDA(cudaMemcpy(b.w, w.data(), w.size(), cudaMemcpyHostToDevice));
    {
      // The read ceiling of this weight: a plain stream of 16-byte loads.
      unsigned *sink;
      CHECK_CUDA(cudaMalloc(&sink, 4));
      double us = median_us(
          [&] { stream_read<<<132 * 8, 256>>>(reinterpret_cast<const uint4 *>(b.w), kWeightBytes / 16, sink); }, 0, 8);
      std::printf("| %lld | %lld | %lld | read ceiling | | | | | | | | %.2f | | %.0f | |\n", M, K, N, us,
                  double(kWeightBytes) / us / 1e3);
      cudaFree(sink);
    }
    reference<W><<<unsigned((M * N + 255) / 256), 256>>>(b.x, b.w, b.ref, M, N, K);
    std::vector<float> ref(M * N);
    CHECK_CUDA(cudaMemcpy(ref.data(), b.ref, ref.size() * 4, cudaMemcpyDeviceToHost));
    float ref_max = 0;
    for (float r : ref)
      ref_max = std::max(ref_max, std::fabs(r));
    if (groups) {
      if constexpr (W == Narrow::I4) {
        runConfig<C<4, 64, 128, 3>>(b, 264, ref_max, ref);
        runConfig<C<4, 64, 128, 3, 32>>(b, 264, ref_max, ref);
        runConfig<C<4, 64, 128, 3, 64>>(b, 264, ref_max, ref);
        runConfig<C<4, 64, 128, 3, 128>>(b, 264, ref_max, ref);
        runConfig<C<4, 64, 128, 3, 0, 2>>(b, 264, ref_max, ref);
        runConfig<C<4, 64, 128, 3, 128, 2>>(b, 264, ref_max, ref);
        runConfig<C<4, 64, 128, 4, 0, 2>>(b, 264, ref_max, ref);
        runConfig<C<4, 64, 128, 4, 128, 2>>(b, 264, ref_max, ref);
        runConfig<C<4, 64, 128, 3, 0, 2>>(b, 132, ref_max, ref);
        runConfig<C<4, 64, 128, 3, 128, 2>>(b, 132, ref_max, ref);
        runConfig<C<4, 64, 128, 3, 0, 2>>(b, 528, ref_max, ref);
      } else {
        runConfig<C<8, 32, 128, 3>>(b, 264, ref_max, ref);
        runConfig<C<8, 32, 128, 3, 128>>(b, 264, ref_max, ref);
        runConfig<C<8, 32, 128, 3, 0, 2>>(b, 264, ref_max, ref);
        runConfig<C<4, 32, 128, 3, 0, 2>>(b, 264, ref_max, ref);
        runConfig<C<4, 64, 128, 3, 0, 2>>(b, 264, ref_max, ref);
        runConfig<C<8, 32, 128, 3, 128, 2>>(b, 264, ref_max, ref);
      }
    }
    for (int target : {264, 528, 1056}) {
      if (groups)
        break;
      if constexpr (W == Narrow::I4) { // 64 columns per warp only
        runConfig<C<4, 64, 64, 3>>(b, target, ref_max, ref);
        runConfig<C<4, 64, 64, 4>>(b, target, ref_max, ref);
        runConfig<C<4, 64, 128, 2>>(b, target, ref_max, ref);
        runConfig<C<4, 64, 128, 3>>(b, target, ref_max, ref);
        runConfig<C<4, 64, 128, 4>>(b, target, ref_max, ref);
        runConfig<C<8, 64, 64, 3>>(b, target, ref_max, ref);
        runConfig<C<8, 64, 64, 4>>(b, target, ref_max, ref);
        runConfig<C<8, 64, 128, 2>>(b, target, ref_max, ref);
        runConfig<C<8, 64, 128, 3>>(b, target, ref_max, ref);
      } else {
        runConfig<C<4, 32, 64, 4>>(b, target, ref_max, ref);
        runConfig<C<4, 32, 128, 3>>(b, target, ref_max, ref);
        runConfig<C<4, 32, 128, 4>>(b, target, ref_max, ref);
        runConfig<C<8, 32, 64, 4>>(b, target, ref_max, ref);
        runConfig<C<8, 32, 128, 3>>(b, target, ref_max, ref);
        runConfig<C<4, 64, 64, 3>>(b, target, ref_max, ref);
        runConfig<C<4, 64, 64, 4>>(b, target, ref_max, ref);
        runConfig<C<4, 64, 128, 2>>(b, target, ref_max, ref);
        runConfig<C<4, 64, 128, 3>>(b, target, ref_max, ref);
        runConfig<C<8, 64, 64, 3>>(b, target, ref_max, ref);
        runConfig<C<8, 64, 64, 4>>(b, target, ref_max, ref);
        runConfig<C<8, 64, 128, 2>>(b, target, ref_max, ref);
      }
    }
    cudaFree(b.x);
    cudaFree(b.w);
    cudaFree(b.y);
    cudaFree(b.ref);
    cudaFree(b.partials);
    cudaFree(b.scales);
  }
};

int main(int argc, char **argv) {
  cudaDeviceProp prop;
  CHECK_CUDA(cudaGetDeviceProperties(&prop, 0));
  std::printf("# Mixed-input kernel sweep on %s (%d SMs)\n\n", prop.name, prop.multiProcessorCount);
  std::printf("x bf16 [M,K] . w [K,N] -> y bf16, identity prologue; us = median of 7 x 20 launches "
              "(combine included); GB/s = weight bytes / time; err = max |y - ref| / max |ref|.\n\n");
  std::printf("| M | K | N | w | rows/CTA | warps x cols | BK | stages | target CTAs | splits | smem KB | us | "
              "TFLOP/s | weight GB/s | err |\n|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|\n");
  if (argc > 1 && std::string(argv[1]) == "groups") { // the generator's tiles, group scales
    Shape<Narrow::I4, 1, 8192, 8192, 16>::run(true);
    Shape<Narrow::I4, 16, 8192, 8192, 16>::run(true);
    Shape<Narrow::I4, 1, 4096, 4096, 16>::run(true);
    Shape<Narrow::I4, 16, 4096, 4096, 16>::run(true);
    Shape<Narrow::I8, 1, 8192, 8192, 16>::run(true);
    Shape<Narrow::I8, 16, 8192, 8192, 16>::run(true);
    return 0;
  }
  if (argc > 1 && std::string(argv[1]) == "i4") { // the i4 shapes only
    Shape<Narrow::I4, 16, 8192, 8192, 16>::run();
    Shape<Narrow::I4, 1, 8192, 8192, 16>::run();
    Shape<Narrow::I4, 16, 4096, 4096, 16>::run();
    Shape<Narrow::I4, 1, 4096, 4096, 16>::run();
    Shape<Narrow::I4, 64, 8192, 8192, 64>::run();
    return 0;
  }
  Shape<Narrow::I8, 16, 8192, 8192, 16>::run();
  Shape<Narrow::I8, 1, 8192, 8192, 16>::run();
  Shape<Narrow::I8, 16, 4096, 4096, 16>::run();
  Shape<Narrow::I8, 64, 8192, 8192, 64>::run();
  Shape<Narrow::E4M3, 16, 8192, 8192, 16>::run();
  Shape<Narrow::E4M3, 16, 4096, 4096, 16>::run();
  return 0;
}
