#include "TestUtil.h"
#include "tgc/Nvrtc.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstring>

using namespace tgc;

namespace {
bool isCubin(const std::string &image) {
  // A 64-bit ELF for EM_CUDA (190).
  return image.size() > 20 && image.compare(0, 4, "\x7f" "ELF") == 0 &&
         image[4] == 2 && uint8_t(image[18]) == 190;
}

Kernel axpb() {
  return {"axpb", "axpb", tgc::test::kAxpbSource, {}, KernelTarget::portable(80)};
}
} // namespace

TEST(Nvrtc, KnowsTheArchesWeTarget) {
  const NvrtcInfo &info = nvrtcInfo();
  EXPECT_GE(info.major, 12);
  for (int arch : {80, 90})
    EXPECT_NE(std::find(info.archs.begin(), info.archs.end(), arch), info.archs.end())
        << arch;
  EXPECT_TRUE(std::is_sorted(info.archs.begin(), info.archs.end()));
}

TEST(Nvrtc, OptionsAddArchAndIncludes) {
  Kernel k = axpb();
  k.options = {"-std=c++17"};
  std::vector<std::string> options =
      nvrtcOptions(k, CompileTarget{BinaryKind::Ptx, 80, false});
  ASSERT_EQ(options.size(), 4u);
  EXPECT_EQ(options[0], "-std=c++17");
  EXPECT_EQ(options[1], "-arch=compute_80");
  EXPECT_EQ(options[2], "-I" + cudaHome() + "/include");
  EXPECT_EQ(options[3], "-I" + cudaHome() + "/include/cccl");
}

TEST(Nvrtc, CompilesSm80Cubin) {
  Expected<CompiledKernel> k = compileKernel(axpb(), {BinaryKind::Cubin, 80, false});
  ASSERT_TRUE(k.hasValue()) << k.status().message();
  EXPECT_TRUE(isCubin(k->image));
  EXPECT_EQ(k->kind, BinaryKind::Cubin);
  EXPECT_EQ(k->targetName, "sm_80");
  EXPECT_EQ(k->loweredName, "axpb");
}

TEST(Nvrtc, CompilesSm90aCubinWithArchFeatures) {
  // Only compiles when the arch-specific feature macro is defined, i.e. for
  // sm_90a and not sm_90.
  Kernel k{"hopper", "hopper",
           "#if !defined(__CUDA_ARCH_FEAT_SM90_ALL)\n#error needs sm_90a\n#endif\n"
           "extern \"C\" __global__ void hopper(int *x) {\n"
           "  asm volatile(\"setmaxnreg.inc.sync.aligned.u32 240;\\n\");\n"
           "  x[0] = 1;\n}\n",
           {}, KernelTarget::archSpecific(90)};
  Expected<CompiledKernel> cubin = compileKernel(k, {BinaryKind::Cubin, 90, true});
  ASSERT_TRUE(cubin.hasValue()) << cubin.status().message();
  EXPECT_TRUE(isCubin(cubin->image));
  EXPECT_EQ(cubin->targetName, "sm_90a");

  Expected<CompiledKernel> plain = compileKernel(k, {BinaryKind::Cubin, 90, false});
  ASSERT_FALSE(plain.hasValue());
  EXPECT_NE(plain.status().message().find("needs sm_90a"), std::string::npos);
}

TEST(Nvrtc, CompilesCompute80Ptx) {
  Expected<CompiledKernel> k = compileKernel(axpb(), {BinaryKind::Ptx, 80, false});
  ASSERT_TRUE(k.hasValue()) << k.status().message();
  EXPECT_EQ(k->targetName, "compute_80");
  // NUL-terminated PTX text, as cuModuleLoadDataEx wants it.
  ASSERT_FALSE(k->image.empty());
  EXPECT_EQ(k->image.back(), '\0');
  EXPECT_NE(k->image.find(".target sm_80"), std::string::npos);
  EXPECT_NE(k->image.find(".entry axpb"), std::string::npos);
}

TEST(Nvrtc, TemplateEntryIsLowered) {
  Kernel k{"tmpl", "fill<7>",
           "template <int V> __global__ void fill(int *x) { x[threadIdx.x] = V; }\n",
           {}, KernelTarget::portable(80)};
  Expected<CompiledKernel> compiled = compileKernel(k, {BinaryKind::Ptx, 80, false});
  ASSERT_TRUE(compiled.hasValue()) << compiled.status().message();
  EXPECT_EQ(compiled->loweredName, "_Z4fillILi7EEvPi");
}

TEST(Nvrtc, CudaHeadersAreFound) {
  Kernel k{"headers", "halves",
           "#include <cuda_fp16.h>\n#include <cuda_bf16.h>\n#include <cuda/std/cstdint>\n"
           "extern \"C\" __global__ void halves(__half *h, __nv_bfloat16 *b) {\n"
           "  cuda::std::int32_t i = threadIdx.x;\n"
           "  h[i] = __float2half(1.0f); b[i] = __float2bfloat16(2.0f);\n}\n",
           {}, KernelTarget::portable(80)};
  Expected<CompiledKernel> compiled = compileKernel(k, {BinaryKind::Ptx, 80, false});
  EXPECT_TRUE(compiled.hasValue()) << compiled.status().message();
}

TEST(Nvrtc, ErrorsCarryTheLog) {
  Kernel k{"broken", "broken",
           "extern \"C\" __global__ void broken(float *x) { x[0] = undefined_name; }\n",
           {}, KernelTarget::portable(80)};
  Expected<CompiledKernel> compiled = compileKernel(k, {BinaryKind::Cubin, 80, false});
  ASSERT_FALSE(compiled.hasValue());
  const std::string &message = compiled.status().message();
  EXPECT_EQ(compiled.status().code(), StatusCode::CompileError);
  EXPECT_NE(message.find("cannot compile kernel 'broken' (entry 'broken') for sm_80: "
                         "NVRTC_ERROR_COMPILATION"),
            std::string::npos)
      << message;
  EXPECT_NE(message.find("broken.cu(1): error: identifier \"undefined_name\" is undefined"),
            std::string::npos)
      << message;
}

TEST(Nvrtc, MissingEntryIsAnError) {
  Kernel k = axpb();
  k.entry = "not_there";
  Expected<CompiledKernel> compiled = compileKernel(k, {BinaryKind::Ptx, 80, false});
  ASSERT_FALSE(compiled.hasValue());
  EXPECT_EQ(compiled.status().code(), StatusCode::CompileError);
  EXPECT_NE(compiled.status().message().find("not_there"), std::string::npos)
      << compiled.status().message();
}
