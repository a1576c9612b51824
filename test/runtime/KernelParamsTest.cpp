// The parameter lists read from NVRTC's images, which the runtime checks
// plan arguments against (KernelParams.h).

#include "KernelParams.h"
#include "tgc/Nvrtc.h"

#include <gtest/gtest.h>

using namespace tgc;

namespace {
const char *kSource = R"(
struct Pair { float a; double b; char c; };
extern "C" __global__ void five(const float *x, float *y, float a, float b, long long n) {
  if (n) y[0] = x[0] * a + b;
}
extern "C" __global__ void none() {}
extern "C" __global__ void mixed(Pair p, char c, short h, double d, int *out) {
  if (out) *out = p.c + c + h + int(d);
}
template <int N> __global__ void templated(float *p, int q) { if (p) p[0] = N + q; }
)";

CompiledKernel compile(const std::string &entry, const char *target) {
  Kernel kernel{"k", entry, kSource, {}, KernelTarget::portable(80)};
  Expected<CompileTarget> parsed = parseCompileTarget(target);
  EXPECT_TRUE(parsed.hasValue()) << parsed.status().message();
  Expected<CompiledKernel> compiled = compileKernel(kernel, *parsed);
  EXPECT_TRUE(compiled.hasValue()) << compiled.status().message();
  return compiled ? compiled.take() : CompiledKernel();
}
} // namespace

class KernelParams : public ::testing::TestWithParam<const char *> {};

TEST_P(KernelParams, ReadFromTheImage) {
  using Sizes = std::vector<uint32_t>;
  EXPECT_EQ(kernelParamSizes(compile("five", GetParam())), Sizes({8, 8, 4, 4, 8}));
  EXPECT_EQ(kernelParamSizes(compile("none", GetParam())), Sizes());
  EXPECT_EQ(kernelParamSizes(compile("mixed", GetParam())), Sizes({24, 1, 2, 8, 8}));
  EXPECT_EQ(kernelParamSizes(compile("templated<3>", GetParam())), Sizes({8, 4}));
}

// Cubins for the oldest and the newest arches tgc targets, sm_90a, and PTX.
INSTANTIATE_TEST_SUITE_P(Targets, KernelParams,
                         ::testing::Values("sm_80", "sm_90a", "sm_100", "compute_80"));

TEST(KernelParamsImage, UnknownOrDamagedImagesSayNothing) {
  CompiledKernel cubin = compile("five", "sm_90");
  CompiledKernel other = cubin;
  other.loweredName = "nope";
  EXPECT_EQ(kernelParamSizes(other), std::nullopt);
  // Every truncation of a cubin is read without going out of bounds.
  for (size_t n = 0; n < cubin.image.size(); n += 7)
    (void)cubinParamSizes(std::string_view(cubin.image).substr(0, n), "five");
  EXPECT_EQ(cubinParamSizes("\x7f" "ELF garbage", "five"), std::nullopt);
  EXPECT_EQ(cubinParamSizes("", "five"), std::nullopt);

  EXPECT_EQ(ptxParamSizes(".visible .entry five(\n.param .u64 a,\n", "five"), std::nullopt);
  EXPECT_EQ(ptxParamSizes(".entry five(.param .q32 a)", "five"), std::nullopt);
  EXPECT_EQ(ptxParamSizes(".entry fives(.param .u32 a)", "five"), std::nullopt);
  EXPECT_EQ(ptxParamSizes(".entry five ( .param .align 4 .b8 a[12], .param .u16 b )", "five"),
            std::vector<uint32_t>({12, 2}));
}
