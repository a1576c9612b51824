#include "tgc/Target.h"

#include <algorithm>
#include <charconv>
#include <cstdlib>
#include <strings.h>

namespace tgc {

std::string CompileTarget::name() const {
  return strCat(kind == BinaryKind::Cubin ? "sm_" : "compute_", arch,
                archSpecific ? "a" : "");
}

Expected<CompileTarget> parseCompileTarget(std::string_view name) {
  CompileTarget target;
  std::string_view rest = name;
  if (rest.substr(0, 3) == "sm_") {
    target.kind = BinaryKind::Cubin;
    rest.remove_prefix(3);
  } else if (rest.substr(0, 8) == "compute_") {
    target.kind = BinaryKind::Ptx;
    rest.remove_prefix(8);
  } else {
    rest = "";
  }
  if (!rest.empty() && rest.back() == 'a') {
    target.archSpecific = true;
    rest.remove_suffix(1);
  }
  auto result = std::from_chars(rest.data(), rest.data() + rest.size(), target.arch);
  if (rest.empty() || result.ec != std::errc() ||
      result.ptr != rest.data() + rest.size() || target.arch < 10)
    return makeError(StatusCode::InvalidArgument, "unknown arch '", name,
                     "' (expected e.g. sm_80, sm_90a, compute_80)");
  return target;
}

Expected<CompileTarget> parseTarget(std::string_view name) {
  Expected<CompileTarget> target = parseCompileTarget(name);
  if (!target)
    return target;
  if (target->arch < kMinTargetArch)
    return makeError(StatusCode::InvalidArgument, "unsupported arch '", name,
                     "': tgc generates kernels for sm_", kMinTargetArch,
                     " (compute capability 8.0) or newer");
  if (target->archSpecific && target->arch < 90)
    return makeError(StatusCode::InvalidArgument, "unknown arch '", name,
                     "': arch-specific targets (the 'a' suffix) start at "
                     "sm_90a");
  return target;
}

CompileTarget deviceTarget(int deviceArch) {
  return {BinaryKind::Cubin, deviceArch, deviceArch >= 90};
}

bool forcePtxFromEnv() {
  const char *env = std::getenv("TGC_FORCE_PTX");
  if (!env)
    return false;
  for (const char *yes : {"1", "true", "yes", "on"})
    if (strcasecmp(env, yes) == 0)
      return true;
  return false;
}

Expected<bool> earlyLaunchFromEnv() {
  const char *env = std::getenv("TGC_EARLY_LAUNCH");
  if (!env)
    return true; // on by default since measured with the placement rule (docs/plan.md)
  for (const char *yes : {"1", "true", "yes", "on"})
    if (strcasecmp(env, yes) == 0)
      return true;
  for (const char *no : {"0", "false", "no", "off"})
    if (strcasecmp(env, no) == 0)
      return false;
  return makeError(StatusCode::InvalidArgument, "TGC_EARLY_LAUNCH is '", env,
                   "' (expected 1, true, yes, on, 0, false, no or off)");
}

static std::string archText(int arch) {
  return strCat(arch / 10, ".", arch % 10);
}

Expected<CompileTarget> selectCompileTarget(const KernelTarget &kernel,
                                            int deviceArch,
                                            const std::vector<int> &nvrtcArchs,
                                            bool forcePtx) {
  bool nvrtcKnowsDevice =
      std::find(nvrtcArchs.begin(), nvrtcArchs.end(), deviceArch) !=
      nvrtcArchs.end();

  if (kernel.kind == KernelTarget::Kind::ArchSpecific) {
    if (deviceArch != kernel.arch)
      return makeError(StatusCode::Unsupported, "kernel needs ", kernel.str(),
                       " (compute capability ", archText(kernel.arch),
                       " exactly) but the device has compute capability ",
                       archText(deviceArch));
    if (!nvrtcKnowsDevice)
      return makeError(StatusCode::Unsupported, "kernel needs ", kernel.str(),
                       ", which this NVRTC does not support");
    return CompileTarget{forcePtx ? BinaryKind::Ptx : BinaryKind::Cubin,
                         kernel.arch, true};
  }

  if (deviceArch < kernel.arch)
    return makeError(StatusCode::Unsupported,
                     "kernel needs compute capability >= ", archText(kernel.arch),
                     " but the device has ", archText(deviceArch));
  if (nvrtcKnowsDevice && !forcePtx)
    return CompileTarget{BinaryKind::Cubin, deviceArch, false};
  // PTX newer than the device cannot be JIT-compiled by its driver, so the
  // newest virtual arch is capped at the device's own.
  int best = 0;
  for (int arch : nvrtcArchs)
    if (arch >= kernel.arch && arch <= deviceArch)
      best = std::max(best, arch);
  if (best == 0)
    return makeError(StatusCode::Unsupported,
                     "NVRTC supports no virtual arch between compute_",
                     kernel.arch, " and the device's compute capability ",
                     archText(deviceArch));
  return CompileTarget{BinaryKind::Ptx, best, false};
}

Expected<VariantChoice> selectLaunchVariant(const Plan &plan,
                                            const LaunchStep &step,
                                            int deviceArch,
                                            const std::vector<int> &nvrtcArchs,
                                            bool forcePtx) {
  std::string reasons;
  // Pass 0 under forcePtx considers portable kernels only.
  for (int pass = forcePtx ? 0 : 1; pass < 2; ++pass) {
    for (size_t i = 0; i < step.variants.size(); ++i) {
      const Kernel *kernel = plan.findKernel(step.variants[i].kernel);
      if (!kernel)
        return makeError(StatusCode::InvalidPlan, "unknown kernel '",
                         step.variants[i].kernel, "'");
      if (pass == 0 && kernel->target.kind != KernelTarget::Kind::Portable)
        continue;
      Expected<CompileTarget> target =
          selectCompileTarget(kernel->target, deviceArch, nvrtcArchs, forcePtx);
      if (target)
        return VariantChoice{i, *target};
      if (pass == 1)
        reasons += strCat("\n  variant ", i, " (kernel '", kernel->id,
                          "'): ", target.status().message());
    }
  }
  return makeError(StatusCode::Unsupported,
                   "no variant of this launch can run on the device:", reasons);
}

} // namespace tgc
