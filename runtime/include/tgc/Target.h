#ifndef TGC_TARGET_H
#define TGC_TARGET_H

// Targets, as NVRTC names them, and choosing what NVRTC produces for a
// device: a cubin for the device's exact arch when NVRTC knows it, otherwise
// PTX for the newest virtual arch NVRTC knows that the device can still JIT
// (<= its compute capability). Pure functions of (kernel target, device
// arch, NVRTC's arch list, forcePtx), so they are tested without a GPU.
//
// CompileTarget is also the compiler's one typed target: tg-compile --arch,
// the C++ and C APIs' arch option and tg-run parse it once (parseTarget) and
// carry it to the plan lowering and the kernel generators.

#include "tgc/Plan.h"

#include <string>
#include <vector>

namespace tgc {

enum class BinaryKind { Cubin, Ptx };

/// What NVRTC means by sm_NN[a] / compute_NN[a]: `sm_` a cubin, `compute_`
/// PTX; the `a` suffix (sm_90a) enables the arch-specific features (wgmma,
/// setmaxnreg on sm_90a), whose code runs on exactly that arch. Plain
/// sm_90 is the portable feature set of compute capability 9.0.
struct CompileTarget {
  BinaryKind kind = BinaryKind::Cubin;
  int arch = 80;             // 90 = sm_90 / compute_90
  bool archSpecific = false; // the "a" suffix (sm_90a)
  /// sm_NN / sm_NNa: what a kernel generator is asked to target (whether
  /// the runtime then builds a cubin or PTX from it is its own choice).
  static constexpr CompileTarget cubin(int arch, bool archSpecific = false) {
    return {BinaryKind::Cubin, arch, archSpecific};
  }
  /// "sm_90a", "sm_86", "compute_80", "compute_90a".
  std::string name() const;
  /// The same target as PTX (compute_NN[a]).
  CompileTarget virtualArch() const { return {BinaryKind::Ptx, arch, archSpecific}; }
  bool operator==(const CompileTarget &o) const {
    return kind == o.kind && arch == o.arch && archSpecific == o.archSpecific;
  }
};

/// Parses "sm_90a", "sm_80", "compute_80", "compute_90a" (any arch from 10).
Expected<CompileTarget> parseCompileTarget(std::string_view name);

/// The oldest arch tgc generates kernels for: the portable kernels use
/// mma.sync m16n8k16 with bf16, ldmatrix and cp.async (sm_80).
constexpr int kMinTargetArch = 80;

/// The one default target of tg-compile, tgc::CompileOptions::arch and the
/// C API (docs/api.md): sm_90a, i.e. kernels for Hopper's arch-specific
/// features first, and in every plan the portable kernels (sm_80 and newer,
/// PTX for newer GPUs) that any device runs.
constexpr CompileTarget kDefaultTarget{BinaryKind::Cubin, 90, true};

/// A target to generate kernels for: parseCompileTarget's names, sm_80 or
/// newer, the `a` suffix from sm_90 on (as NVRTC has it). InvalidArgument
/// with a message that says what is accepted otherwise (e.g. for "sm_75").
Expected<CompileTarget> parseTarget(std::string_view name);

/// The target that uses everything a device of compute capability
/// `deviceArch` (* 10) has: sm_NNa from sm_90 on, sm_NN before (tg-run).
CompileTarget deviceTarget(int deviceArch);

/// TGC_FORCE_PTX: "1", "true", "yes", "on" (any case) force the PTX path.
bool forcePtxFromEnv();

/// TGC_EARLY_LAUNCH: unset, "1", "true", "yes", "on": early-launch kernels
/// are launched early where they can be (docs/plan.md, "Early launch");
/// "0", "false", "no", "off": never (any case). Another value is an
/// InvalidArgument error.
Expected<bool> earlyLaunchFromEnv();

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
