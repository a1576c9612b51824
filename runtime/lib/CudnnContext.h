#ifndef TGC_LIB_CUDNNCONTEXT_H
#define TGC_LIB_CUDNNCONTEXT_H

// cuDNN state shared by every Executable of the process, per CUDA context:
// one cudnnHandle_t (handles are not thread-safe: executions are serialised
// by a mutex) and the cache of finalised execution plans, keyed by the
// graph's text (printGraph). A context fixes the device and its arch, and
// the loaded library fixes the cuDNN version, so the full key is (graph
// text, context/device/arch, cuDNN version). Failures are cached too: a
// graph cuDNN rejected is not tried again in that context.

#include "CudnnDescriptors.h"

#include <cuda.h>

#include <map>
#include <memory>
#include <mutex>

namespace tgc::cudnn {

/// A finalised execution plan and what is needed to run it.
struct ExecutionPlan {
  BuiltGraph graph;     // kept alive for the plan
  Descriptor config;    // the ENGINECFG it was built from
  Descriptor plan;      // the finalised EXECUTION_PLAN
  int64_t workspaceBytes = 0;
  int64_t engine = -1;  // CUDNN_ATTR_ENGINE_GLOBAL_INDEX, -1 if unknown
  std::string source;   // "heuristics mode A, config 0 of 3"
};

class CudnnContext {
public:
  const CudnnLibrary &library;
  const CUcontext context;
  const int device; // ordinal
  const int arch;   // compute capability * 10

  CudnnContext(const CudnnLibrary &library, CUcontext context, int device,
               int arch, cudnnHandle_t handle);
  ~CudnnContext();
  CudnnContext(const CudnnContext &) = delete;
  CudnnContext &operator=(const CudnnContext &) = delete;

  /// The cached plan for `graph`, built on first request (heuristics mode A,
  /// then mode FALLBACK; the first engine config that finalises). The
  /// context must be current.
  Expected<std::shared_ptr<const ExecutionPlan>> plan(const Graph &graph);

  /// cudnnSetStream + cudnnBackendExecute under the handle's lock.
  Status execute(const ExecutionPlan &plan, cudnnBackendDescriptor_t variantPack,
                 CUstream stream);

  /// Plans built (not found in the cache) so far, for tests and logs.
  size_t plansBuilt() const;

private:
  cudnnHandle_t handle_;
  std::mutex executeMutex_;
  mutable std::mutex cacheMutex_;
  std::map<std::string, Expected<std::shared_ptr<const ExecutionPlan>>> plans_;
  size_t built_ = 0;
};

/// The shared state for `context` (which must be current), creating its
/// handle on first use.
Expected<std::shared_ptr<CudnnContext>>
cudnnContextFor(const CudnnLibrary &library, CUcontext context, int device,
                int arch);

/// Builds an execution plan for `graph` without caching (CudnnContext::plan
/// caches it).
Expected<std::unique_ptr<ExecutionPlan>>
buildExecutionPlan(const CudnnLibrary &library, cudnnHandle_t handle,
                   const Graph &graph);

} // namespace tgc::cudnn

namespace tgc {
/// Forgets every context's handle and plans (testing::setCudnnLibrary). The
/// objects are leaked: executables may still hold them.
void resetCudnnContexts();
} // namespace tgc

#endif // TGC_LIB_CUDNNCONTEXT_H
