#ifndef TGC_LIB_EXECUTABLEIMPL_H
#define TGC_LIB_EXECUTABLEIMPL_H

// Executable's state: the plan plus, per CUDA context it has run in, the
// loaded modules, resolved launches, prepared cuDNN steps, the internal
// workspace and the cuDNN scratch workspace.

#include "Bindings.h"
#include "CudaDriver.h"
#include "CudnnExecutor.h"

#include <atomic>
#include <map>
#include <mutex>

namespace tgc {

/// One kernel argument ready to marshal: a buffer index or literal bits.
struct ArgSlot {
  KernelArg::Kind kind;
  size_t buffer = 0; // Kind::Buffer
  uint64_t bits = 0; // the literal, in the low bytes
};

struct PreparedLaunch {
  CUfunction function = nullptr;
  const LaunchVariant *variant = nullptr;
  /// Launched with programmatic stream serialisation: the kernel is
  /// early-launch, its binary was built for compute capability 9.0 or later
  /// (older targets compile the wait out), the driver has cuLaunchKernelEx,
  /// TGC_EARLY_LAUNCH does not turn it off and its grid keeps its placement
  /// (earlyLaunchKeepsPlacement).
  bool early = false;
  std::vector<ArgSlot> args;
};

/// What prepareContext needs to know about the device.
struct DeviceInfo {
  int ordinal = 0;
  int arch = 0; // compute capability * 10
  int sharedOptin = 0;
  bool forcePtx = false;
  bool earlyLaunch = false; // TGC_EARLY_LAUNCH
  int smCount = 0;          // multiprocessors; 0: unknown
};

/// Whether a grid of `ctas` CTAs, of which `perSM` fit on one of `smCount`
/// SMs, keeps its placement when launched early: its CTAs then take the
/// SMs as the previous grid's CTAs leave them, piling `perSM` onto the first
/// SMs to free up, where in stream order they are spread over all of them.
/// It keeps it when the piled-up grid still covers 90% of the SMs the
/// spread one would (always at one CTA per SM or a full wave). With every
/// kernel launched early, a split-KV decode step whose grid covered half
/// the SMs that way measured 12% slower (bench/results/2026-12-07_early_launch).
/// Unknown occupancy or SM count (0): no.
inline bool earlyLaunchKeepsPlacement(uint64_t ctas, int perSM, int smCount) {
  if (perSM <= 0 || smCount <= 0)
    return false;
  uint64_t piled = (ctas + uint64_t(perSM) - 1) / uint64_t(perSM);
  uint64_t spread = ctas < uint64_t(smCount) ? ctas : uint64_t(smCount);
  return piled * 10 >= spread * 9;
}

struct ContextState {
  CUcontext context = nullptr;
  const CudaDriver *driver = nullptr; // set before the state is published

  int deviceArch = 0;
  std::map<std::string, CUmodule> modules;  // by kernel id + target
  // By step index: the launch of a launch step or of a cuDNN step's NVRTC
  // fallback (unused otherwise).
  std::vector<PreparedLaunch> launches;
  // By step index: set for cuDNN steps that run through cuDNN.
  std::vector<std::unique_ptr<PreparedCudnnStep>> cudnnSteps;
  // By step index: what runs the step (Executable::stepBackends).
  std::vector<std::string> backends;

  // The internal workspace and the cuDNN scratch workspace (allocated at
  // prepare); guarded by workspaceMutex.
  std::mutex workspaceMutex;
  CUdeviceptr workspace = 0;
  CUdeviceptr cudnnScratch = 0;
  uint64_t cudnnScratchBytes = 0;
  CUevent workspaceFree = nullptr; // recorded after the last run using them
  CUstream lastStream = nullptr;
  bool eventRecorded = false;

  // By buffer index: the last address the driver said the GPU can access
  // (0: none yet). A warm call with the same pointers (PyTorch's caching
  // allocator hands out the same ones) skips the driver query; relaxed
  // atomics, as concurrent runs may check at once (a stale value only
  // means one more query).
  std::unique_ptr<std::atomic<uint64_t>[]> accessible;
};

struct Executable::Impl {
  Plan plan;
  BufferIndex index; // names point into plan

  std::mutex mutex; // guards contexts (and serialises preparation)
  std::map<CUcontext, std::unique_ptr<ContextState>> contexts;
  // Set on the first prepare, under `mutex`; runs use their ContextState's.
  const CudaDriver *driver = nullptr;

  explicit Impl(Plan p);
  Status run(const BindingRef *bindings, size_t count,
             const Workspace *workspace, Stream stream);
  /// The state for the stream's context, prepared on first use. For the
  /// default stream with no context current, `addresses` (the run's bound
  /// buffers) pick the device whose primary context is used.
  Expected<ContextState *> prepare(Stream stream,
                                   const std::vector<uint64_t> *addresses = nullptr);
  ~Impl();

private:
  Expected<CUcontext> contextOf(const CudaDriver &driver, Stream stream,
                                const std::vector<uint64_t> *addresses);
  Status prepareContext(const CudaDriver &driver, ContextState &state);
  /// Compiles, loads and checks `launch` as step `stepIndex`.
  Status prepareLaunch(const CudaDriver &driver, ContextState &state,
                       const DeviceInfo &device, size_t stepIndex,
                       const LaunchStep &launch);
  /// Chooses cuDNN or the NVRTC fallback for step `stepIndex`.
  Status prepareCudnn(const CudaDriver &driver, ContextState &state,
                      const DeviceInfo &device, size_t stepIndex,
                      const CudnnStep &step, BackendChoice choice);
  void release(const CudaDriver &driver, ContextState &state);
};

} // namespace tgc

#endif // TGC_LIB_EXECUTABLEIMPL_H
