#include "CudnnExecutor.h"
#include "tgc/Log.h"
#include "tgc/Numerics.h"

#include <cstdlib>
#include <cstring>

namespace tgc {

Expected<BackendChoice> backendChoiceFromEnv() {
  const char *env = std::getenv("TGC_BACKEND");
  std::string value = env ? env : "";
  if (value.empty() || value == "auto")
    return BackendChoice::Auto;
  if (value == "cudnn")
    return BackendChoice::Cudnn;
  if (value == "nvrtc")
    return BackendChoice::Nvrtc;
  return makeError(StatusCode::InvalidArgument, "TGC_BACKEND is '", value,
                   "'; it must be auto, cudnn or nvrtc");
}

uint64_t byValueBits(DType dtype, double value) {
  auto integer = [&](unsigned bits) {
    auto v = uint64_t(floatToIntSaturating(value, bits));
    return bits >= 64 ? v : v & ((uint64_t{1} << bits) - 1);
  };
  switch (dtype) {
  case DType::F32:
    return toBits(Format::F32, value);
  case DType::BF16:
    return toBits(Format::BF16, value);
  case DType::F16:
    return toBits(Format::F16, value);
  case DType::F8E4M3FN:
    return toBits(Format::F8E4M3FN, value);
  case DType::F8E5M2:
    return toBits(Format::F8E5M2, value);
  case DType::I8:
    return integer(8);
  case DType::I32:
    return integer(32);
  case DType::I64:
    return integer(64);
  case DType::I1:
    return value != 0.0 ? 1 : 0;
  case DType::I4:
    return integer(4);
  }
  return 0;
}

Expected<std::unique_ptr<PreparedCudnnStep>>
prepareCudnnStep(std::shared_ptr<cudnn::CudnnContext> context,
                 const CudnnStep &step, const BufferIndex &buffers) {
  const CudnnLibrary &lib = context->library;
  std::string reasons;
  for (size_t g = 0; g < step.graphs.size(); ++g) {
    const cudnn::Graph &graph = step.graphs[g];
    reasons += strCat(reasons.empty() ? "" : "; ", "graph '", graph.name, "': ");
    if (graph.minVersion > lib.version) {
      reasons += strCat("needs cuDNN >= ", cudnnVersionText(graph.minVersion),
                        ", found ", cudnnVersionText(lib.version));
      continue;
    }
    Expected<std::shared_ptr<const cudnn::ExecutionPlan>> plan =
        context->plan(graph);
    if (!plan) {
      reasons += plan.status().message();
      continue;
    }
    auto prepared = std::make_unique<PreparedCudnnStep>();
    prepared->context = context;
    prepared->plan = *plan;
    prepared->graphIndex = g;
    prepared->graphName = graph.name;
    for (const cudnn::Tensor &t : graph.tensors) {
      if (t.kind == cudnn::TensorKind::Virtual)
        continue;
      prepared->uids.push_back(t.uid);
      if (t.kind == cudnn::TensorKind::Bound) {
        auto it = buffers.find(t.buffer);
        if (it == buffers.end()) // Plan::validate rules this out
          return makeError(StatusCode::InvalidPlan, "graph '", graph.name,
                           "' tensor ", t.uid, " names unknown buffer '",
                           t.buffer, "'");
        prepared->buffers.push_back(long(it->second));
        prepared->values.push_back(0);
      } else {
        prepared->buffers.push_back(-1);
        prepared->values.push_back(byValueBits(t.dtype, t.value));
      }
    }
    return prepared;
  }
  return Status(StatusCode::Unsupported, "no engine for " + reasons);
}

Status executeCudnnStep(const PreparedCudnnStep &step,
                        const std::vector<uint64_t> &addresses,
                        uint64_t scratch, CUstream stream) {
  const CudnnLibrary &lib = step.context->library;
  size_t n = step.uids.size();
  std::vector<void *> pointers(n);
  for (size_t i = 0; i < n; ++i)
    pointers[i] =
        step.buffers[i] >= 0
            ? reinterpret_cast<void *>(uintptr_t(addresses[size_t(step.buffers[i])]))
            // cuDNN reads by-value scalars from host memory when it enqueues.
            : const_cast<uint64_t *>(&step.values[i]);
  void *workspace = reinterpret_cast<void *>(uintptr_t(scratch));

  std::lock_guard<std::mutex> lock(step.packMutex);
  if (!step.pack.get() || step.packPointers != pointers ||
      step.packWorkspace != workspace) {
    Expected<cudnn::Descriptor> created = cudnn::Descriptor::create(
        lib, CUDNN_BACKEND_VARIANT_PACK_DESCRIPTOR,
        strCat("the variant pack of graph '", step.graphName, "'"));
    if (!created)
      return created.takeStatus();
    cudnn::Descriptor pack = created.take();
    TGC_RETURN_IF_ERROR(pack.set(CUDNN_ATTR_VARIANT_PACK_UNIQUE_IDS,
                                 CUDNN_TYPE_INT64, int64_t(n), step.uids.data()));
    TGC_RETURN_IF_ERROR(pack.set(CUDNN_ATTR_VARIANT_PACK_DATA_POINTERS,
                                 CUDNN_TYPE_VOID_PTR, int64_t(n), pointers.data()));
    TGC_RETURN_IF_ERROR(pack.set(CUDNN_ATTR_VARIANT_PACK_WORKSPACE,
                                 CUDNN_TYPE_VOID_PTR, 1, &workspace));
    TGC_RETURN_IF_ERROR(pack.finalize());
    step.pack = std::move(pack);
    step.packPointers = std::move(pointers);
    step.packWorkspace = workspace;
  }
  return step.context->execute(*step.plan, step.pack.get(), stream);
}

} // namespace tgc
