#include "TestUtil.h"
#include "tgc/Target.h"

#include <gtest/gtest.h>

#include <cstdlib>

using namespace tgc;

namespace {
// NVRTC 13.0's list.
const std::vector<int> kNvrtc13 = {75, 80, 86, 87, 88, 89, 90, 100, 103, 110, 120, 121};

std::string pick(KernelTarget kernel, int device, bool forcePtx,
                 const std::vector<int> &archs = kNvrtc13) {
  Expected<CompileTarget> target = selectCompileTarget(kernel, device, archs, forcePtx);
  return target ? target->name() : "error: " + target.status().message();
}
} // namespace

TEST(Target, PortableKernel) {
  KernelTarget portable = KernelTarget::portable(80);
  EXPECT_EQ(pick(portable, 90, false), "sm_90");  // H100/H200: exact cubin
  EXPECT_EQ(pick(portable, 86, false), "sm_86");
  EXPECT_EQ(pick(portable, 120, false), "sm_120");
  // Forced PTX: the newest virtual arch the device can JIT.
  EXPECT_EQ(pick(portable, 90, true), "compute_90");
  EXPECT_EQ(pick(portable, 86, true), "compute_86");
  // A device NVRTC does not know (a future GPU): PTX for the newest
  // virtual arch not above the device.
  EXPECT_EQ(pick(portable, 130, false), "compute_121");
  EXPECT_EQ(pick(portable, 91, false), "compute_90");
  EXPECT_EQ(pick(portable, 90, false, {75, 80, 86, 89}), "compute_89");
  // Too old for the kernel, or nothing usable.
  EXPECT_EQ(pick(portable, 75, false),
            "error: kernel needs compute capability >= 8.0 but the device has 7.5");
  EXPECT_EQ(pick(KernelTarget::portable(90), 89, false, {90, 100}),
            "error: kernel needs compute capability >= 9.0 but the device has 8.9");
  EXPECT_EQ(pick(portable, 85, false, {86, 90}),
            "error: NVRTC supports no virtual arch between compute_80 and the "
            "device's compute capability 8.5");
}

TEST(Target, ArchSpecificKernel) {
  KernelTarget hopper = KernelTarget::archSpecific(90);
  EXPECT_EQ(pick(hopper, 90, false), "sm_90a");
  EXPECT_EQ(pick(hopper, 90, true), "compute_90a");
  EXPECT_EQ(pick(hopper, 100, false),
            "error: kernel needs sm_90a (compute capability 9.0 exactly) but the "
            "device has compute capability 10.0");
  EXPECT_EQ(pick(hopper, 89, true),
            "error: kernel needs sm_90a (compute capability 9.0 exactly) but the "
            "device has compute capability 8.9");
  EXPECT_EQ(pick(hopper, 90, false, {80, 86}),
            "error: kernel needs sm_90a, which this NVRTC does not support");
}

namespace {
Plan twoVariantPlan() {
  Plan plan = tgc::test::elementwisePlan();
  plan.kernels.push_back({"fast", "axpb", tgc::test::kAxpbSource, {},
                          KernelTarget::archSpecific(90)});
  auto &launch = std::get<LaunchStep>(plan.steps[1]);
  LaunchVariant fast = launch.variants[0];
  fast.kernel = "fast";
  launch.variants.insert(launch.variants.begin(), fast);
  return plan;
}

std::string choose(const Plan &plan, int device, bool forcePtx) {
  Expected<VariantChoice> choice = selectLaunchVariant(
      plan, std::get<LaunchStep>(plan.steps[1]), device, kNvrtc13, forcePtx);
  if (!choice)
    return "error: " + choice.status().message();
  return std::to_string(choice->index) + " " + choice->target.name();
}
} // namespace

TEST(Target, VariantChoice) {
  Plan plan = twoVariantPlan();
  EXPECT_EQ(choose(plan, 90, false), "0 sm_90a");  // the Hopper kernel
  EXPECT_EQ(choose(plan, 100, false), "1 sm_100"); // falls back to portable
  EXPECT_EQ(choose(plan, 130, false), "1 compute_121");
  // Forced PTX behaves like an unknown GPU: the portable kernel as PTX.
  EXPECT_EQ(choose(plan, 90, true), "1 compute_90");

  // With only the arch-specific variant, forced PTX still uses it.
  auto &launch = std::get<LaunchStep>(plan.steps[1]);
  launch.variants.pop_back();
  EXPECT_EQ(choose(plan, 90, true), "0 compute_90a");
  EXPECT_EQ(choose(plan, 80, false),
            "error: no variant of this launch can run on the device:\n"
            "  variant 0 (kernel 'fast'): kernel needs sm_90a (compute capability "
            "9.0 exactly) but the device has compute capability 8.0");
}

TEST(Target, ForcePtxEnvironment) {
  for (const char *yes : {"1", "true", "YES", "on"}) {
    setenv("TGC_FORCE_PTX", yes, 1);
    EXPECT_TRUE(forcePtxFromEnv()) << yes;
  }
  for (const char *no : {"0", "", "false", "off", "2"}) {
    setenv("TGC_FORCE_PTX", no, 1);
    EXPECT_FALSE(forcePtxFromEnv()) << no;
  }
  unsetenv("TGC_FORCE_PTX");
  EXPECT_FALSE(forcePtxFromEnv());
}

TEST(Target, ParseNames) {
  for (const char *name : {"sm_80", "sm_90a", "compute_80", "compute_90a", "sm_120"}) {
    Expected<CompileTarget> target = parseCompileTarget(name);
    ASSERT_TRUE(target.hasValue()) << name;
    EXPECT_EQ(target->name(), name);
  }
  EXPECT_EQ(parseCompileTarget("sm_90a")->kind, BinaryKind::Cubin);
  EXPECT_EQ(parseCompileTarget("compute_80")->kind, BinaryKind::Ptx);
  for (const char *bad : {"", "sm_", "sm_9x", "90", "gfx90a", "compute_a", "sm_8"}) {
    Expected<CompileTarget> target = parseCompileTarget(bad);
    ASSERT_FALSE(target.hasValue()) << bad;
    EXPECT_EQ(target.status().message(), std::string("unknown arch '") + bad +
                                             "' (expected e.g. sm_80, sm_90a, compute_80)");
  }
}

// The compiler's target: what NVRTC means by the name, sm_80 or newer.
TEST(Target, ParseGenerationTargets) {
  Expected<CompileTarget> sm90 = parseTarget("sm_90"), sm90a = parseTarget("sm_90a");
  ASSERT_TRUE(sm90.hasValue() && sm90a.hasValue());
  EXPECT_FALSE(sm90->archSpecific);
  EXPECT_TRUE(sm90a->archSpecific);
  EXPECT_EQ(sm90->arch, 90);
  EXPECT_FALSE(*sm90 == *sm90a);
  EXPECT_EQ(parseTarget("compute_80")->kind, BinaryKind::Ptx);
  EXPECT_EQ(parseTarget("sm_90a")->virtualArch().name(), "compute_90a");
  EXPECT_EQ(parseTarget("sm_100a")->name(), "sm_100a");
  // The one default is sm_90a.
  EXPECT_EQ(kDefaultTarget.name(), "sm_90a");
  EXPECT_TRUE(*sm90a == kDefaultTarget);

  for (const char *old : {"sm_75", "sm_70", "compute_75", "sm_10"}) {
    Expected<CompileTarget> target = parseTarget(old);
    ASSERT_FALSE(target.hasValue()) << old;
    EXPECT_EQ(target.status().code(), StatusCode::InvalidArgument);
    EXPECT_EQ(target.status().message(),
              std::string("unsupported arch '") + old +
                  "': tgc generates kernels for sm_80 (compute capability 8.0) or newer");
  }
  EXPECT_EQ(parseTarget("sm_86a").status().message(),
            "unknown arch 'sm_86a': arch-specific targets (the 'a' suffix) start at sm_90a");
  EXPECT_EQ(parseTarget("sm_9x").status().message(),
            "unknown arch 'sm_9x' (expected e.g. sm_80, sm_90a, compute_80)");
}

TEST(Target, DeviceTargetUsesArchSpecificFeaturesFromHopper) {
  EXPECT_EQ(deviceTarget(80).name(), "sm_80");
  EXPECT_EQ(deviceTarget(86).name(), "sm_86");
  EXPECT_EQ(deviceTarget(90).name(), "sm_90a");
  EXPECT_EQ(deviceTarget(100).name(), "sm_100a");
}
