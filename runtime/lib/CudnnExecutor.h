#ifndef TGC_LIB_CUDNNEXECUTOR_H
#define TGC_LIB_CUDNNEXECUTOR_H

// A plan's CudnnStep on one context: choosing the graph (minVersion, then
// the first whose execution plan builds), and running it through a variant
// pack of plan-buffer addresses, host by-value scalars and the cuDNN scratch
// workspace. Which backend runs a step (TGC_BACKEND) is decided here too.

#include "Bindings.h"
#include "CudnnContext.h"
#include "tgc/Plan.h"

namespace tgc {

/// TGC_BACKEND: which backend runs cuDNN steps.
enum class BackendChoice {
  Auto,  // cuDNN when it works for the step, else the NVRTC fallback
  Cudnn, // cuDNN; failing to use it is an error
  Nvrtc, // always the NVRTC fallback
};
/// Reads TGC_BACKEND (unset or empty: Auto); InvalidArgument for other
/// values than auto, cudnn, nvrtc.
Expected<BackendChoice> backendChoiceFromEnv();

/// The bits of a by-value scalar converted to `dtype` (f32 as float, f16
/// and bf16 as their 16-bit patterns, fp8 as 8 bits, integers truncated
/// toward zero and saturated, i1 as 0/1), in the low bytes (little-endian).
uint64_t byValueBits(DType dtype, double value);

/// A CudnnStep ready to execute in one context.
struct PreparedCudnnStep {
  std::shared_ptr<cudnn::CudnnContext> context;
  std::shared_ptr<const cudnn::ExecutionPlan> plan;
  size_t graphIndex = 0;
  std::string graphName;
  /// The variant pack: one entry per non-virtual tensor.
  std::vector<int64_t> uids;
  std::vector<long> buffers;     // plan buffer index; -1 for by-value
  std::vector<uint64_t> values;  // by-value bits (same index as uids)

  /// The last variant pack built, with its pointers and workspace: a warm
  /// run with the same buffers (PyTorch's caching allocator gives the same
  /// ones back) reuses it instead of building and finalizing a new one.
  /// Guarded by packMutex; a run holds it until cuDNN has enqueued.
  mutable std::mutex packMutex;
  mutable cudnn::Descriptor pack;
  mutable std::vector<void *> packPointers;
  mutable void *packWorkspace = nullptr;
};

/// Chooses the first graph of `step` whose minVersion the library meets and
/// whose execution plan builds in `context`. On failure the message names
/// every graph and why it was not used ("graph 'x': needs cuDNN >= 9.13.1,
/// found 9.10.2; graph 'y': ...").
Expected<std::unique_ptr<PreparedCudnnStep>>
prepareCudnnStep(std::shared_ptr<cudnn::CudnnContext> context,
                 const CudnnStep &step, const BufferIndex &buffers);

/// Enqueues the step on `stream`: `addresses` are the plan buffers' device
/// addresses (by buffer index), `scratch` the cuDNN workspace (at least the
/// plan's workspace size).
Status executeCudnnStep(const PreparedCudnnStep &step,
                        const std::vector<uint64_t> &addresses,
                        uint64_t scratch, CUstream stream);

} // namespace tgc

#endif // TGC_LIB_CUDNNEXECUTOR_H
