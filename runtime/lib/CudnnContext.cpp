// Per-context cuDNN handles and the process-wide execution plan cache; plan
// building: heuristics, then engine configs in order until one finalises.
#include "CudnnContext.h"
#include "tgc/Log.h"

#include <chrono>
#include <utility>

namespace tgc::cudnn {

namespace {
struct Registry {
  std::mutex mutex;
  std::map<std::pair<const CudnnLibrary *, CUcontext>,
           std::shared_ptr<CudnnContext>>
      contexts;
};

Registry &registry() {
  static Registry *r = new Registry(); // outlives static destructors
  return *r;
}

const char *heuristicModeName(cudnnBackendHeurMode_t mode) {
  return mode == CUDNN_HEUR_MODE_A ? "A" : "FALLBACK";
}

/// The engine configs heuristics `mode` proposes for `graph` (none when the
/// query fails; `error` then says why).
std::vector<Descriptor> engineConfigs(const CudnnLibrary &lib,
                                      const Descriptor &graph,
                                      cudnnBackendHeurMode_t mode,
                                      std::string &error) {
  std::string what = strCat("heuristics mode ", heuristicModeName(mode));
  Expected<Descriptor> created =
      Descriptor::create(lib, CUDNN_BACKEND_ENGINEHEUR_DESCRIPTOR, what);
  if (!created) {
    error = created.status().message();
    return {};
  }
  Descriptor heuristics = created.take();
  Status status =
      heuristics.setDescriptor(CUDNN_ATTR_ENGINEHEUR_OPERATION_GRAPH, graph);
  if (status.isOk())
    status = heuristics.set(CUDNN_ATTR_ENGINEHEUR_MODE, CUDNN_TYPE_HEUR_MODE, 1,
                            &mode);
  if (status.isOk())
    status = heuristics.finalize();
  int64_t count = 0;
  if (status.isOk())
    status = heuristics.get(CUDNN_ATTR_ENGINEHEUR_RESULTS,
                            CUDNN_TYPE_BACKEND_DESCRIPTOR, 0, &count, nullptr);
  if (!status.isOk()) {
    error = status.message();
    return {};
  }
  if (count <= 0) {
    std::string last = lib.lastError();
    error = strCat(what, ": no engine config", last.empty() ? "" : " (",
                   last, last.empty() ? "" : ")");
    return {};
  }
  // The results are copied into descriptors we create.
  std::vector<Descriptor> configs;
  std::vector<cudnnBackendDescriptor_t> raw;
  for (int64_t i = 0; i < count; ++i) {
    Expected<Descriptor> config = Descriptor::create(
        lib, CUDNN_BACKEND_ENGINECFG_DESCRIPTOR,
        strCat("engine config ", i, " of ", what));
    if (!config) {
      error = config.status().message();
      return {};
    }
    raw.push_back(config->get());
    configs.push_back(config.take());
  }
  int64_t got = 0;
  status = heuristics.get(CUDNN_ATTR_ENGINEHEUR_RESULTS,
                          CUDNN_TYPE_BACKEND_DESCRIPTOR, count, &got, raw.data());
  if (!status.isOk()) {
    error = status.message();
    return {};
  }
  if (got < count)
    configs.resize(size_t(got < 0 ? 0 : got));
  if (configs.empty())
    error = strCat(what, ": no engine config");
  return configs;
}

/// The global index of the engine behind `config`, or -1.
int64_t engineIndex(const CudnnLibrary &lib, const Descriptor &config) {
  Expected<Descriptor> engine =
      Descriptor::create(lib, CUDNN_BACKEND_ENGINE_DESCRIPTOR, "an engine");
  if (!engine)
    return -1;
  cudnnBackendDescriptor_t raw = engine->get();
  int64_t got = 0, index = -1;
  if (!config.get(CUDNN_ATTR_ENGINECFG_ENGINE, CUDNN_TYPE_BACKEND_DESCRIPTOR, 1,
                  &got, &raw)
           .isOk() ||
      !engine->get(CUDNN_ATTR_ENGINE_GLOBAL_INDEX, CUDNN_TYPE_INT64, 1, &got,
                   &index)
           .isOk())
    return -1;
  return index;
}
} // namespace

Expected<std::unique_ptr<ExecutionPlan>>
buildExecutionPlan(const CudnnLibrary &lib, cudnnHandle_t handle,
                   const Graph &graph) {
  Expected<BuiltGraph> built = buildOperationGraph(lib, handle, graph);
  if (!built)
    return built.takeStatus();
  auto result = std::make_unique<ExecutionPlan>();
  result->graph = built.take();

  std::vector<std::string> failures;
  for (cudnnBackendHeurMode_t mode : {CUDNN_HEUR_MODE_A, CUDNN_HEUR_MODE_FALLBACK}) {
    std::string error;
    std::vector<Descriptor> configs =
        engineConfigs(lib, result->graph.graph, mode, error);
    if (configs.empty()) {
      failures.push_back(error);
      continue;
    }
    // Finalising compiles run-time engines and may fail: try the next.
    std::string firstError;
    for (size_t i = 0; i < configs.size(); ++i) {
      Expected<Descriptor> plan = Descriptor::create(
          lib, CUDNN_BACKEND_EXECUTION_PLAN_DESCRIPTOR,
          strCat("the execution plan of heuristics mode ",
                 heuristicModeName(mode), " config ", i));
      Status status = plan ? Status::ok() : plan.takeStatus();
      if (status.isOk())
        status = plan->setDescriptor(CUDNN_ATTR_EXECUTION_PLAN_ENGINE_CONFIG,
                                     configs[i]);
      if (status.isOk())
        status = plan->finalize();
      int64_t workspace = 0;
      if (status.isOk())
        status = plan->get(CUDNN_ATTR_EXECUTION_PLAN_WORKSPACE_SIZE,
                           CUDNN_TYPE_INT64, 1, nullptr, &workspace);
      if (!status.isOk()) {
        TGC_LOG_DEBUG("cuDNN graph '", graph.name, "': ", status.message());
        if (firstError.empty())
          firstError = status.message();
        continue;
      }
      result->engine = engineIndex(lib, configs[i]);
      result->config = std::move(configs[i]);
      result->plan = plan.take();
      result->workspaceBytes = workspace;
      result->source = strCat("heuristics mode ", heuristicModeName(mode),
                              ", config ", i, " of ", configs.size());
      return result;
    }
    failures.push_back(
        configs.size() == 1
            ? strCat("heuristics mode ", heuristicModeName(mode),
                     ": its engine config did not finalise (", firstError, ")")
            : strCat("heuristics mode ", heuristicModeName(mode), ": none of ",
                     configs.size(), " engine configs finalised (first: ",
                     firstError, ")"));
  }
  std::string message;
  for (const std::string &f : failures)
    message += (message.empty() ? "" : "; ") + f;
  return Status(StatusCode::Unsupported, message);
}

CudnnContext::CudnnContext(const CudnnLibrary &library, CUcontext context,
                           int device, int arch, cudnnHandle_t handle)
    : library(library), context(context), device(device), arch(arch),
      handle_(handle) {}

CudnnContext::~CudnnContext() {
  std::lock_guard<std::mutex> lock(cacheMutex_);
  plans_.clear(); // descriptors go before the handle they were built with
  library.cudnnDestroy(handle_);
}

Expected<std::shared_ptr<const ExecutionPlan>>
CudnnContext::plan(const Graph &graph) {
  std::string key = printGraph(graph);
  std::lock_guard<std::mutex> lock(cacheMutex_);
  auto found = plans_.find(key);
  if (found != plans_.end())
    return found->second;
  auto start = std::chrono::steady_clock::now();
  Expected<std::unique_ptr<ExecutionPlan>> built =
      buildExecutionPlan(library, handle_, graph);
  ++built_;
  double ms = std::chrono::duration<double, std::milli>(
                  std::chrono::steady_clock::now() - start)
                  .count();
  Expected<std::shared_ptr<const ExecutionPlan>> entry =
      built ? Expected<std::shared_ptr<const ExecutionPlan>>(
                  std::shared_ptr<const ExecutionPlan>(built.take()))
            : Expected<std::shared_ptr<const ExecutionPlan>>(built.takeStatus());
  if (entry)
    TGC_LOG_INFO("cuDNN graph '", graph.name, "': engine ", (*entry)->engine,
                 " (", (*entry)->source, "), ", (*entry)->workspaceBytes,
                 "-byte workspace, built in ", ms, " ms");
  plans_.emplace(key, entry);
  return entry;
}

Status CudnnContext::execute(const ExecutionPlan &plan,
                             cudnnBackendDescriptor_t variantPack,
                             CUstream stream) {
  std::lock_guard<std::mutex> lock(executeMutex_);
  TGC_RETURN_IF_ERROR(library.check(library.cudnnSetStream(handle_, stream),
                                    "cudnnSetStream failed",
                                    StatusCode::CudaError));
  return library.check(
      library.cudnnBackendExecute(handle_, plan.plan.get(), variantPack),
      "cudnnBackendExecute failed", StatusCode::CudaError);
}

size_t CudnnContext::plansBuilt() const {
  std::lock_guard<std::mutex> lock(cacheMutex_);
  return built_;
}

Expected<std::shared_ptr<CudnnContext>>
cudnnContextFor(const CudnnLibrary &library, CUcontext context, int device,
                int arch) {
  Registry &r = registry();
  std::lock_guard<std::mutex> lock(r.mutex);
  auto key = std::make_pair(&library, context);
  auto found = r.contexts.find(key);
  if (found != r.contexts.end())
    return found->second;
  cudnnHandle_t handle = nullptr;
  TGC_RETURN_IF_ERROR(library.check(library.cudnnCreate(&handle),
                                    "cudnnCreate failed"));
  auto created =
      std::make_shared<CudnnContext>(library, context, device, arch, handle);
  r.contexts.emplace(key, created);
  return created;
}

} // namespace tgc::cudnn

void tgc::resetCudnnContexts() {
  cudnn::Registry &r = cudnn::registry();
  std::lock_guard<std::mutex> lock(r.mutex);
  r.contexts.clear();
}
