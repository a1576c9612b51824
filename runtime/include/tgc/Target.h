#ifndef TGC_TARGET_H
#define TGC_TARGET_H

// Choosing what NVRTC produces for a device: a cubin for the device's exact
// arch when NVRTC knows it, otherwise PTX for the newest virtual arch NVRTC
// knows that the device can still JIT (<= its compute capability).
// Pure functions of (kernel target, device arch, NVRTC's arch list,
// forcePtx), so they are tested without a GPU.

#include "tgc/Plan.h"

#include <string>
#include <vector>

namespace tgc {

enum class BinaryKind { Cubin, Ptx };

struct CompileTarget {
  BinaryKind kind = BinaryKind::Cubin;
  int arch = 80;             // 90 = sm_90 / compute_90
  bool archSpecific = false; // the "a" suffix (sm_90a)
  /// "sm_90a", "sm_86", "compute_80", "compute_90a".
  std::string name() const;
  bool operator==(const CompileTarget &o) const {
    return kind == o.kind && arch == o.arch && archSpecific == o.archSpecific;
  }
};

/// Parses "sm_90a", "sm_80", "compute_80", "compute_90a" (e.g. for
/// tg-compile --emit=ptx --arch=...).
Expected<CompileTarget> parseCompileTarget(std::string_view name);

/// TGC_FORCE_PTX: "1", "true", "yes", "on" (any case) force the PTX path.
bool forcePtxFromEnv();

/// `deviceArch` is the compute capability * 10. Fails (Unsupported) when the
/// kernel cannot run on the device.
Expected<CompileTarget> selectCompileTarget(const KernelTarget &kernel,
                                            int deviceArch,
                                            const std::vector<int> &nvrtcArchs,
                                            bool forcePtx);

struct VariantChoice {
  size_t index = 0; // into LaunchStep::variants
  CompileTarget target;
};

/// Picks the variant of a launch step to run. Normally the first variant
/// whose kernel can run on the device. With forcePtx the device is treated
/// as one NVRTC does not know: portable variants are preferred (they are
/// what a future GPU would run), and an arch-specific variant is used (as
/// its arch-specific PTX) only when the step has no usable portable one.
Expected<VariantChoice> selectLaunchVariant(const Plan &plan,
                                            const LaunchStep &step,
                                            int deviceArch,
                                            const std::vector<int> &nvrtcArchs,
                                            bool forcePtx);

} // namespace tgc

#endif // TGC_TARGET_H
