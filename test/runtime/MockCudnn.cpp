// A fake libcudnn for the runtime's CPU tests: the backend API entry points
// the runtime calls, recording every call in a trace, checking attribute
// and descriptor types against the cuDNN 9 reference, and returning
// configurable results (version, heuristics counts per mode, execution plans
// that fail to finalise, workspace size). Execution hands the variant pack
// to a hook so that a test can emulate the graph on host memory. Control
// functions are exported as mockcudnn_* and looked up by the tests.

#include <cudnn_graph.h>

#include <cstring>
#include <map>
#include <mutex>
#include <sstream>
#include <string>
#include <vector>

namespace {

using ExecuteHook = void (*)(const int64_t *uids, void *const *pointers,
                             int64_t count, void *workspace, void *user);

struct Attribute {
  cudnnBackendAttributeType_t type;
  std::vector<unsigned char> bytes;
  int64_t count = 0;
  template <typename T> T at(int64_t i) const {
    T value;
    std::memcpy(&value, bytes.data() + i * sizeof(T), sizeof(T));
    return value;
  }
};

struct Desc {
  cudnnBackendDescriptorType_t type;
  bool finalized = false;
  std::map<int, Attribute> attributes;
  // Heuristics results and engine configs remember where they came from.
  int heuristicMode = -1;
  int64_t configIndex = -1;
  int64_t engineIndex = -1;

  const Attribute *find(cudnnBackendAttributeName_t name) const {
    auto it = attributes.find(int(name));
    return it == attributes.end() ? nullptr : &it->second;
  }
};

struct State {
  std::mutex mutex;
  size_t version = 91900;
  int64_t heuristicsA = 2, heuristicsFallback = 1;
  int planFailures = 0; // the next N execution plans fail to finalise
  std::string planFailureMessage = "mock: engine config rejected";
  int64_t workspace = 0;
  ExecuteHook hook = nullptr;
  void *hookUser = nullptr;
  std::vector<std::string> trace;
  std::string traceText;
  long liveDescriptors = 0;
  long liveHandles = 0;
};

State &state() {
  static State s;
  return s;
}

thread_local std::string lastError;

void record(const std::string &line) { state().trace.push_back(line); }

cudnnStatus_t fail(cudnnStatus_t status, const std::string &why) {
  lastError = why;
  record("error " + why);
  return status;
}

const char *descName(cudnnBackendDescriptorType_t type) {
  switch (type) {
  case CUDNN_BACKEND_POINTWISE_DESCRIPTOR: return "POINTWISE";
  case CUDNN_BACKEND_ENGINE_DESCRIPTOR: return "ENGINE";
  case CUDNN_BACKEND_ENGINECFG_DESCRIPTOR: return "ENGINECFG";
  case CUDNN_BACKEND_ENGINEHEUR_DESCRIPTOR: return "ENGINEHEUR";
  case CUDNN_BACKEND_EXECUTION_PLAN_DESCRIPTOR: return "EXECUTION_PLAN";
  case CUDNN_BACKEND_OPERATION_POINTWISE_DESCRIPTOR: return "OPERATION_POINTWISE";
  case CUDNN_BACKEND_OPERATIONGRAPH_DESCRIPTOR: return "OPERATIONGRAPH";
  case CUDNN_BACKEND_VARIANT_PACK_DESCRIPTOR: return "VARIANT_PACK";
  case CUDNN_BACKEND_TENSOR_DESCRIPTOR: return "TENSOR";
  case CUDNN_BACKEND_MATMUL_DESCRIPTOR: return "MATMUL";
  case CUDNN_BACKEND_OPERATION_MATMUL_DESCRIPTOR: return "OPERATION_MATMUL";
  case CUDNN_BACKEND_REDUCTION_DESCRIPTOR: return "REDUCTION";
  case CUDNN_BACKEND_OPERATION_REDUCTION_DESCRIPTOR: return "OPERATION_REDUCTION";
  case CUDNN_BACKEND_RNG_DESCRIPTOR: return "RNG";
  case CUDNN_BACKEND_OPERATION_RNG_DESCRIPTOR: return "OPERATION_RNG";
  case CUDNN_BACKEND_OPERATION_SDPA_FWD_DESCRIPTOR: return "OPERATION_SDPA_FWD";
  case CUDNN_BACKEND_OPERATION_SDPA_BWD_DESCRIPTOR: return "OPERATION_SDPA_BWD";
  case CUDNN_BACKEND_OPERATION_RESHAPE_DESCRIPTOR: return "OPERATION_RESHAPE";
  default: return "OTHER";
  }
}

// The attributes the runtime may set: on which descriptor, with which type.
struct AttributeRule {
  cudnnBackendAttributeName_t name;
  const char *text;
  cudnnBackendDescriptorType_t desc;
  cudnnBackendAttributeType_t type;
};

#define RULE(attr, desc, type) {CUDNN_ATTR_##attr, #attr, CUDNN_BACKEND_##desc, CUDNN_TYPE_##type}
const AttributeRule kRules[] = {
    RULE(TENSOR_DATA_TYPE, TENSOR_DESCRIPTOR, DATA_TYPE),
    RULE(TENSOR_DIMENSIONS, TENSOR_DESCRIPTOR, INT64),
    RULE(TENSOR_STRIDES, TENSOR_DESCRIPTOR, INT64),
    RULE(TENSOR_UNIQUE_ID, TENSOR_DESCRIPTOR, INT64),
    RULE(TENSOR_BYTE_ALIGNMENT, TENSOR_DESCRIPTOR, INT64),
    RULE(TENSOR_IS_VIRTUAL, TENSOR_DESCRIPTOR, BOOLEAN),
    RULE(TENSOR_IS_BY_VALUE, TENSOR_DESCRIPTOR, BOOLEAN),
    RULE(POINTWISE_MODE, POINTWISE_DESCRIPTOR, POINTWISE_MODE),
    RULE(POINTWISE_MATH_PREC, POINTWISE_DESCRIPTOR, DATA_TYPE),
    RULE(POINTWISE_AXIS, POINTWISE_DESCRIPTOR, INT64),
    RULE(OPERATION_POINTWISE_PW_DESCRIPTOR, OPERATION_POINTWISE_DESCRIPTOR, BACKEND_DESCRIPTOR),
    RULE(OPERATION_POINTWISE_XDESC, OPERATION_POINTWISE_DESCRIPTOR, BACKEND_DESCRIPTOR),
    RULE(OPERATION_POINTWISE_BDESC, OPERATION_POINTWISE_DESCRIPTOR, BACKEND_DESCRIPTOR),
    RULE(OPERATION_POINTWISE_TDESC, OPERATION_POINTWISE_DESCRIPTOR, BACKEND_DESCRIPTOR),
    RULE(OPERATION_POINTWISE_YDESC, OPERATION_POINTWISE_DESCRIPTOR, BACKEND_DESCRIPTOR),
    RULE(OPERATION_POINTWISE_DXDESC, OPERATION_POINTWISE_DESCRIPTOR, BACKEND_DESCRIPTOR),
    RULE(OPERATION_POINTWISE_DYDESC, OPERATION_POINTWISE_DESCRIPTOR, BACKEND_DESCRIPTOR),
    RULE(MATMUL_COMP_TYPE, MATMUL_DESCRIPTOR, DATA_TYPE),
    RULE(OPERATION_MATMUL_ADESC, OPERATION_MATMUL_DESCRIPTOR, BACKEND_DESCRIPTOR),
    RULE(OPERATION_MATMUL_BDESC, OPERATION_MATMUL_DESCRIPTOR, BACKEND_DESCRIPTOR),
    RULE(OPERATION_MATMUL_CDESC, OPERATION_MATMUL_DESCRIPTOR, BACKEND_DESCRIPTOR),
    RULE(OPERATION_MATMUL_DESC, OPERATION_MATMUL_DESCRIPTOR, BACKEND_DESCRIPTOR),
    RULE(OPERATION_MATMUL_GEMM_M_OVERRIDE_DESC, OPERATION_MATMUL_DESCRIPTOR, BACKEND_DESCRIPTOR),
    RULE(OPERATION_MATMUL_GEMM_N_OVERRIDE_DESC, OPERATION_MATMUL_DESCRIPTOR, BACKEND_DESCRIPTOR),
    RULE(OPERATION_MATMUL_GEMM_K_OVERRIDE_DESC, OPERATION_MATMUL_DESCRIPTOR, BACKEND_DESCRIPTOR),
    RULE(REDUCTION_OPERATOR, REDUCTION_DESCRIPTOR, REDUCTION_OPERATOR_TYPE),
    RULE(REDUCTION_COMP_TYPE, REDUCTION_DESCRIPTOR, DATA_TYPE),
    RULE(OPERATION_REDUCTION_XDESC, OPERATION_REDUCTION_DESCRIPTOR, BACKEND_DESCRIPTOR),
    RULE(OPERATION_REDUCTION_YDESC, OPERATION_REDUCTION_DESCRIPTOR, BACKEND_DESCRIPTOR),
    RULE(OPERATION_REDUCTION_DESC, OPERATION_REDUCTION_DESCRIPTOR, BACKEND_DESCRIPTOR),
    RULE(RNG_DISTRIBUTION, RNG_DESCRIPTOR, RNG_DISTRIBUTION),
    RULE(RNG_BERNOULLI_DIST_PROBABILITY, RNG_DESCRIPTOR, DOUBLE),
    RULE(OPERATION_RNG_YDESC, OPERATION_RNG_DESCRIPTOR, BACKEND_DESCRIPTOR),
    RULE(OPERATION_RNG_SEED, OPERATION_RNG_DESCRIPTOR, BACKEND_DESCRIPTOR),
    RULE(OPERATION_RNG_DESC, OPERATION_RNG_DESCRIPTOR, BACKEND_DESCRIPTOR),
    RULE(OPERATION_RNG_OFFSET_DESC, OPERATION_RNG_DESCRIPTOR, BACKEND_DESCRIPTOR),
    RULE(OPERATION_SDPA_FWD_QDESC, OPERATION_SDPA_FWD_DESCRIPTOR, BACKEND_DESCRIPTOR),
    RULE(OPERATION_SDPA_FWD_KDESC, OPERATION_SDPA_FWD_DESCRIPTOR, BACKEND_DESCRIPTOR),
    RULE(OPERATION_SDPA_FWD_VDESC, OPERATION_SDPA_FWD_DESCRIPTOR, BACKEND_DESCRIPTOR),
    RULE(OPERATION_SDPA_FWD_ODESC, OPERATION_SDPA_FWD_DESCRIPTOR, BACKEND_DESCRIPTOR),
    RULE(OPERATION_SDPA_FWD_STATSDESC, OPERATION_SDPA_FWD_DESCRIPTOR, BACKEND_DESCRIPTOR),
    RULE(OPERATION_SDPA_FWD_SCALEDESC, OPERATION_SDPA_FWD_DESCRIPTOR, BACKEND_DESCRIPTOR),
    RULE(OPERATION_SDPA_FWD_SEQ_LEN_QDESC, OPERATION_SDPA_FWD_DESCRIPTOR, BACKEND_DESCRIPTOR),
    RULE(OPERATION_SDPA_FWD_SEQ_LEN_KVDESC, OPERATION_SDPA_FWD_DESCRIPTOR, BACKEND_DESCRIPTOR),
    RULE(OPERATION_SDPA_BWD_QDESC, OPERATION_SDPA_BWD_DESCRIPTOR, BACKEND_DESCRIPTOR),
    RULE(OPERATION_SDPA_BWD_KDESC, OPERATION_SDPA_BWD_DESCRIPTOR, BACKEND_DESCRIPTOR),
    RULE(OPERATION_SDPA_BWD_VDESC, OPERATION_SDPA_BWD_DESCRIPTOR, BACKEND_DESCRIPTOR),
    RULE(OPERATION_SDPA_BWD_ODESC, OPERATION_SDPA_BWD_DESCRIPTOR, BACKEND_DESCRIPTOR),
    RULE(OPERATION_SDPA_BWD_STATSDESC, OPERATION_SDPA_BWD_DESCRIPTOR, BACKEND_DESCRIPTOR),
    RULE(OPERATION_SDPA_BWD_SCALEDESC, OPERATION_SDPA_BWD_DESCRIPTOR, BACKEND_DESCRIPTOR),
    RULE(OPERATION_SDPA_BWD_SEQ_LEN_QDESC, OPERATION_SDPA_BWD_DESCRIPTOR, BACKEND_DESCRIPTOR),
    RULE(OPERATION_SDPA_BWD_SEQ_LEN_KVDESC, OPERATION_SDPA_BWD_DESCRIPTOR, BACKEND_DESCRIPTOR),
    RULE(OPERATION_SDPA_BWD_DQDESC, OPERATION_SDPA_BWD_DESCRIPTOR, BACKEND_DESCRIPTOR),
    RULE(OPERATION_SDPA_BWD_DKDESC, OPERATION_SDPA_BWD_DESCRIPTOR, BACKEND_DESCRIPTOR),
    RULE(OPERATION_SDPA_BWD_DVDESC, OPERATION_SDPA_BWD_DESCRIPTOR, BACKEND_DESCRIPTOR),
    RULE(OPERATION_SDPA_BWD_DODDESC, OPERATION_SDPA_BWD_DESCRIPTOR, BACKEND_DESCRIPTOR),
    RULE(OPERATION_RESHAPE_XDESC, OPERATION_RESHAPE_DESCRIPTOR, BACKEND_DESCRIPTOR),
    RULE(OPERATION_RESHAPE_YDESC, OPERATION_RESHAPE_DESCRIPTOR, BACKEND_DESCRIPTOR),
    RULE(OPERATIONGRAPH_OPS, OPERATIONGRAPH_DESCRIPTOR, BACKEND_DESCRIPTOR),
    RULE(OPERATIONGRAPH_HANDLE, OPERATIONGRAPH_DESCRIPTOR, HANDLE),
    RULE(ENGINEHEUR_MODE, ENGINEHEUR_DESCRIPTOR, HEUR_MODE),
    RULE(ENGINEHEUR_OPERATION_GRAPH, ENGINEHEUR_DESCRIPTOR, BACKEND_DESCRIPTOR),
    RULE(ENGINEHEUR_RESULTS, ENGINEHEUR_DESCRIPTOR, BACKEND_DESCRIPTOR),
    RULE(ENGINECFG_ENGINE, ENGINECFG_DESCRIPTOR, BACKEND_DESCRIPTOR),
    RULE(ENGINE_GLOBAL_INDEX, ENGINE_DESCRIPTOR, INT64),
    RULE(EXECUTION_PLAN_ENGINE_CONFIG, EXECUTION_PLAN_DESCRIPTOR, BACKEND_DESCRIPTOR),
    RULE(EXECUTION_PLAN_WORKSPACE_SIZE, EXECUTION_PLAN_DESCRIPTOR, INT64),
    RULE(VARIANT_PACK_UNIQUE_IDS, VARIANT_PACK_DESCRIPTOR, INT64),
    RULE(VARIANT_PACK_DATA_POINTERS, VARIANT_PACK_DESCRIPTOR, VOID_PTR),
    RULE(VARIANT_PACK_WORKSPACE, VARIANT_PACK_DESCRIPTOR, VOID_PTR),
};
#undef RULE

const AttributeRule *ruleOf(cudnnBackendAttributeName_t name) {
  for (const AttributeRule &rule : kRules)
    if (rule.name == name)
      return &rule;
  return nullptr;
}

size_t elementSize(cudnnBackendAttributeType_t type) {
  switch (type) {
  case CUDNN_TYPE_BOOLEAN:
  case CUDNN_TYPE_CHAR:
    return 1;
  case CUDNN_TYPE_DATA_TYPE:
  case CUDNN_TYPE_POINTWISE_MODE:
  case CUDNN_TYPE_REDUCTION_OPERATOR_TYPE:
  case CUDNN_TYPE_HEUR_MODE:
  case CUDNN_TYPE_RNG_DISTRIBUTION:
  case CUDNN_TYPE_INT32:
  case CUDNN_TYPE_FLOAT:
    return 4;
  default:
    return 8;
  }
}

Desc *asDesc(cudnnBackendDescriptor_t d) { return static_cast<Desc *>(d); }

/// "tensor:5" for a tensor with a uid, else the descriptor's kind.
std::string refText(const Desc *d) {
  if (!d)
    return "null";
  if (d->type == CUDNN_BACKEND_TENSOR_DESCRIPTOR)
    if (const Attribute *uid = d->find(CUDNN_ATTR_TENSOR_UNIQUE_ID))
      return "tensor:" + std::to_string(uid->at<int64_t>(0));
  return descName(d->type);
}

std::string valuesText(const Attribute &a) {
  std::ostringstream os;
  for (int64_t i = 0; i < a.count; ++i) {
    if (i)
      os << ",";
    switch (a.type) {
    case CUDNN_TYPE_INT64: os << a.at<int64_t>(i); break;
    case CUDNN_TYPE_BOOLEAN: os << int(a.at<bool>(i)); break;
    case CUDNN_TYPE_DOUBLE: os << a.at<double>(i); break;
    case CUDNN_TYPE_BACKEND_DESCRIPTOR: os << refText(asDesc(a.at<void *>(i))); break;
    case CUDNN_TYPE_VOID_PTR: os << a.at<void *>(i); break;
    case CUDNN_TYPE_HANDLE: os << "handle"; break;
    default: os << a.at<int32_t>(i); break; // enums
    }
  }
  return os.str();
}

} // namespace

#define EXPORT extern "C" __attribute__((visibility("default")))

//===--------------------------------------------------------------------===//
// Control
//===--------------------------------------------------------------------===//

EXPORT void mockcudnn_reset() {
  State &s = state();
  std::lock_guard<std::mutex> lock(s.mutex);
  s.version = 91900;
  s.heuristicsA = 2;
  s.heuristicsFallback = 1;
  s.planFailures = 0;
  s.planFailureMessage = "mock: engine config rejected";
  s.workspace = 0;
  s.hook = nullptr;
  s.hookUser = nullptr;
  s.trace.clear();
}
EXPORT void mockcudnn_set_version(int version) { state().version = size_t(version); }
EXPORT void mockcudnn_set_heuristics(int64_t modeA, int64_t modeFallback) {
  state().heuristicsA = modeA;
  state().heuristicsFallback = modeFallback;
}
EXPORT void mockcudnn_set_plan_failures(int count, const char *message) {
  state().planFailures = count;
  if (message)
    state().planFailureMessage = message;
}
EXPORT void mockcudnn_set_workspace(int64_t bytes) { state().workspace = bytes; }
EXPORT void mockcudnn_set_execute_hook(ExecuteHook hook, void *user) {
  state().hook = hook;
  state().hookUser = user;
}
EXPORT const char *mockcudnn_trace() {
  State &s = state();
  std::lock_guard<std::mutex> lock(s.mutex);
  s.traceText.clear();
  for (const std::string &line : s.trace)
    s.traceText += line + "\n";
  return s.traceText.c_str();
}
EXPORT void mockcudnn_clear_trace() {
  std::lock_guard<std::mutex> lock(state().mutex);
  state().trace.clear();
}
EXPORT long mockcudnn_live_descriptors() { return state().liveDescriptors; }
EXPORT long mockcudnn_live_handles() { return state().liveHandles; }

//===--------------------------------------------------------------------===//
// cuDNN
//===--------------------------------------------------------------------===//

size_t cudnnGetVersion(void) { return state().version; }

const char *cudnnGetErrorString(cudnnStatus_t status) {
  switch (status) {
  case CUDNN_STATUS_SUCCESS: return "CUDNN_STATUS_SUCCESS";
  case CUDNN_STATUS_BAD_PARAM: return "CUDNN_STATUS_BAD_PARAM";
  case CUDNN_STATUS_BAD_PARAM_NOT_FINALIZED: return "CUDNN_STATUS_BAD_PARAM_NOT_FINALIZED";
  case CUDNN_STATUS_BAD_PARAM_ATTRIBUTE_TYPE: return "CUDNN_STATUS_BAD_PARAM_ATTRIBUTE_TYPE";
  case CUDNN_STATUS_BAD_PARAM_DESCRIPTOR_TYPE: return "CUDNN_STATUS_BAD_PARAM_DESCRIPTOR_TYPE";
  case CUDNN_STATUS_NOT_SUPPORTED: return "CUDNN_STATUS_NOT_SUPPORTED";
  case CUDNN_STATUS_EXECUTION_FAILED: return "CUDNN_STATUS_EXECUTION_FAILED";
  default: return "CUDNN_STATUS_INTERNAL_ERROR";
  }
}

void cudnnGetLastErrorString(char *message, size_t maxSize) {
  if (!maxSize)
    return;
  std::strncpy(message, lastError.c_str(), maxSize - 1);
  message[maxSize - 1] = '\0';
  lastError.clear(); // reading consumes it
}

cudnnStatus_t cudnnCreate(cudnnHandle_t *handle) {
  std::lock_guard<std::mutex> lock(state().mutex);
  *handle = reinterpret_cast<cudnnHandle_t>(new int(0));
  ++state().liveHandles;
  record("cudnnCreate");
  return CUDNN_STATUS_SUCCESS;
}

cudnnStatus_t cudnnDestroy(cudnnHandle_t handle) {
  std::lock_guard<std::mutex> lock(state().mutex);
  delete reinterpret_cast<int *>(handle);
  --state().liveHandles;
  record("cudnnDestroy");
  return CUDNN_STATUS_SUCCESS;
}

cudnnStatus_t cudnnSetStream(cudnnHandle_t, cudaStream_t stream) {
  std::lock_guard<std::mutex> lock(state().mutex);
  record("cudnnSetStream " + std::to_string(reinterpret_cast<uintptr_t>(stream)));
  return CUDNN_STATUS_SUCCESS;
}

cudnnStatus_t cudnnBackendCreateDescriptor(cudnnBackendDescriptorType_t type,
                                           cudnnBackendDescriptor_t *descriptor) {
  std::lock_guard<std::mutex> lock(state().mutex);
  auto *d = new Desc();
  d->type = type;
  *descriptor = d;
  ++state().liveDescriptors;
  record(std::string("create ") + descName(type));
  return CUDNN_STATUS_SUCCESS;
}

cudnnStatus_t cudnnBackendDestroyDescriptor(cudnnBackendDescriptor_t descriptor) {
  std::lock_guard<std::mutex> lock(state().mutex);
  delete asDesc(descriptor);
  --state().liveDescriptors;
  return CUDNN_STATUS_SUCCESS;
}

cudnnStatus_t cudnnBackendSetAttribute(cudnnBackendDescriptor_t descriptor,
                                       cudnnBackendAttributeName_t name,
                                       cudnnBackendAttributeType_t type,
                                       int64_t count, const void *values) {
  std::lock_guard<std::mutex> lock(state().mutex);
  Desc *d = asDesc(descriptor);
  const AttributeRule *rule = ruleOf(name);
  if (!rule)
    return fail(CUDNN_STATUS_NOT_SUPPORTED,
                "mock: attribute " + std::to_string(int(name)) + " is not modelled");
  if (d->finalized)
    return fail(CUDNN_STATUS_BAD_PARAM,
                std::string("mock: ") + rule->text + " set on a finalised descriptor");
  if (rule->desc != d->type)
    return fail(CUDNN_STATUS_BAD_PARAM_DESCRIPTOR_TYPE,
                std::string("mock: ") + rule->text + " set on a " + descName(d->type));
  if (rule->type != type)
    return fail(CUDNN_STATUS_BAD_PARAM_ATTRIBUTE_TYPE,
                std::string("mock: ") + rule->text + " given type " +
                    std::to_string(int(type)) + ", expects " +
                    std::to_string(int(rule->type)));
  if (count < 1 || !values)
    return fail(CUDNN_STATUS_BAD_PARAM, std::string("mock: ") + rule->text + " without values");
  Attribute a;
  a.type = type;
  a.count = count;
  const auto *bytes = static_cast<const unsigned char *>(values);
  a.bytes.assign(bytes, bytes + count * elementSize(type));
  if (type == CUDNN_TYPE_BACKEND_DESCRIPTOR)
    for (int64_t i = 0; i < count; ++i) {
      Desc *ref = asDesc(a.at<void *>(i));
      if (!ref || !ref->finalized)
        return fail(CUDNN_STATUS_BAD_PARAM_NOT_FINALIZED,
                    std::string("mock: ") + rule->text + " refers to a descriptor that is not finalised");
    }
  d->attributes[int(name)] = a;
  record(std::string("set ") + descName(d->type) + " " + rule->text + " " + valuesText(a));
  return CUDNN_STATUS_SUCCESS;
}

namespace {
cudnnStatus_t finalizeTensor(Desc *d) {
  const Attribute *dims = d->find(CUDNN_ATTR_TENSOR_DIMENSIONS);
  const Attribute *strides = d->find(CUDNN_ATTR_TENSOR_STRIDES);
  if (!d->find(CUDNN_ATTR_TENSOR_UNIQUE_ID) || !d->find(CUDNN_ATTR_TENSOR_DATA_TYPE) ||
      !dims || !strides || !d->find(CUDNN_ATTR_TENSOR_BYTE_ALIGNMENT))
    return fail(CUDNN_STATUS_BAD_PARAM, "mock: tensor lacks uid, type, dims, strides or alignment");
  if (dims->count != strides->count)
    return fail(CUDNN_STATUS_BAD_PARAM, "mock: tensor dims and strides differ in rank");
  return CUDNN_STATUS_SUCCESS;
}

cudnnStatus_t finalizePlan(Desc *d) {
  const Attribute *config = d->find(CUDNN_ATTR_EXECUTION_PLAN_ENGINE_CONFIG);
  if (!config)
    return fail(CUDNN_STATUS_BAD_PARAM, "mock: execution plan without engine config");
  Desc *cfg = asDesc(config->at<void *>(0));
  d->configIndex = cfg->configIndex;
  d->heuristicMode = cfg->heuristicMode;
  State &s = state();
  if (s.planFailures > 0) {
    --s.planFailures;
    return fail(CUDNN_STATUS_NOT_SUPPORTED, s.planFailureMessage);
  }
  return CUDNN_STATUS_SUCCESS;
}
} // namespace

cudnnStatus_t cudnnBackendFinalize(cudnnBackendDescriptor_t descriptor) {
  std::lock_guard<std::mutex> lock(state().mutex);
  Desc *d = asDesc(descriptor);
  cudnnStatus_t status = CUDNN_STATUS_SUCCESS;
  std::string extra;
  switch (d->type) {
  case CUDNN_BACKEND_TENSOR_DESCRIPTOR:
    status = finalizeTensor(d);
    extra = " " + refText(d);
    break;
  case CUDNN_BACKEND_OPERATIONGRAPH_DESCRIPTOR:
    if (!d->find(CUDNN_ATTR_OPERATIONGRAPH_OPS))
      status = fail(CUDNN_STATUS_BAD_PARAM, "mock: operation graph without ops");
    break;
  case CUDNN_BACKEND_ENGINEHEUR_DESCRIPTOR:
    if (!d->find(CUDNN_ATTR_ENGINEHEUR_OPERATION_GRAPH) || !d->find(CUDNN_ATTR_ENGINEHEUR_MODE))
      status = fail(CUDNN_STATUS_BAD_PARAM, "mock: heuristics without graph or mode");
    else
      d->heuristicMode = d->find(CUDNN_ATTR_ENGINEHEUR_MODE)->at<int32_t>(0);
    break;
  case CUDNN_BACKEND_EXECUTION_PLAN_DESCRIPTOR:
    status = finalizePlan(d);
    extra = " mode=" + std::to_string(d->heuristicMode) +
            " config=" + std::to_string(d->configIndex);
    break;
  case CUDNN_BACKEND_VARIANT_PACK_DESCRIPTOR:
    if (!d->find(CUDNN_ATTR_VARIANT_PACK_UNIQUE_IDS) ||
        !d->find(CUDNN_ATTR_VARIANT_PACK_DATA_POINTERS) ||
        d->find(CUDNN_ATTR_VARIANT_PACK_UNIQUE_IDS)->count !=
            d->find(CUDNN_ATTR_VARIANT_PACK_DATA_POINTERS)->count)
      status = fail(CUDNN_STATUS_BAD_PARAM, "mock: variant pack uids and pointers differ");
    break;
  default:
    break;
  }
  d->finalized = status == CUDNN_STATUS_SUCCESS;
  record(std::string("finalize ") + descName(d->type) + extra + " -> " +
         std::to_string(int(status)));
  return status;
}

cudnnStatus_t cudnnBackendGetAttribute(cudnnBackendDescriptor_t const descriptor,
                                       cudnnBackendAttributeName_t name,
                                       cudnnBackendAttributeType_t type,
                                       int64_t requested, int64_t *count,
                                       void *values) {
  std::lock_guard<std::mutex> lock(state().mutex);
  State &s = state();
  Desc *d = asDesc(descriptor);
  const AttributeRule *rule = ruleOf(name);
  if (!rule || rule->desc != d->type || rule->type != type)
    return fail(CUDNN_STATUS_BAD_PARAM, "mock: bad attribute query");
  if (!d->finalized)
    return fail(CUDNN_STATUS_BAD_PARAM_NOT_FINALIZED,
                std::string("mock: ") + rule->text + " read before finalising");
  switch (name) {
  case CUDNN_ATTR_ENGINEHEUR_RESULTS: {
    const Attribute *graphRef = d->find(CUDNN_ATTR_ENGINEHEUR_OPERATION_GRAPH);
    Desc *graph = asDesc(graphRef->at<void *>(0));
    // As the real library: a graph without a handle gets no configs.
    int64_t available = !graph->find(CUDNN_ATTR_OPERATIONGRAPH_HANDLE) ? 0
                        : d->heuristicMode == CUDNN_HEUR_MODE_A ? s.heuristicsA
                        : d->heuristicMode == CUDNN_HEUR_MODE_FALLBACK
                            ? s.heuristicsFallback
                            : 0;
    if (available == 0)
      lastError = "mock: no engine supports this graph";
    int64_t n = requested < available ? requested : available;
    for (int64_t i = 0; i < n; ++i) {
      Desc *cfg = asDesc(static_cast<void **>(values)[i]);
      if (!cfg || cfg->type != CUDNN_BACKEND_ENGINECFG_DESCRIPTOR)
        return fail(CUDNN_STATUS_BAD_PARAM, "mock: heuristics results need ENGINECFG descriptors");
      cfg->finalized = true;
      cfg->heuristicMode = d->heuristicMode;
      cfg->configIndex = i;
      cfg->engineIndex = (d->heuristicMode == CUDNN_HEUR_MODE_A ? 10 : 20) + i;
    }
    if (count)
      *count = requested == 0 ? available : n;
    record("heuristics mode=" + std::to_string(d->heuristicMode) +
           " available=" + std::to_string(available) +
           " requested=" + std::to_string(requested));
    return CUDNN_STATUS_SUCCESS;
  }
  case CUDNN_ATTR_ENGINECFG_ENGINE: {
    Desc *engine = asDesc(*static_cast<void **>(values));
    engine->finalized = true;
    engine->engineIndex = d->engineIndex;
    if (count)
      *count = 1;
    return CUDNN_STATUS_SUCCESS;
  }
  case CUDNN_ATTR_ENGINE_GLOBAL_INDEX:
    *static_cast<int64_t *>(values) = d->engineIndex;
    if (count)
      *count = 1;
    return CUDNN_STATUS_SUCCESS;
  case CUDNN_ATTR_EXECUTION_PLAN_WORKSPACE_SIZE:
    *static_cast<int64_t *>(values) = s.workspace;
    if (count)
      *count = 1;
    return CUDNN_STATUS_SUCCESS;
  default:
    return fail(CUDNN_STATUS_NOT_SUPPORTED, "mock: attribute not readable");
  }
}

cudnnStatus_t cudnnBackendExecute(cudnnHandle_t, cudnnBackendDescriptor_t plan,
                                  cudnnBackendDescriptor_t variantPack) {
  ExecuteHook hook;
  void *user;
  std::vector<int64_t> uids;
  std::vector<void *> pointers;
  void *workspace = nullptr;
  {
    std::lock_guard<std::mutex> lock(state().mutex);
    Desc *p = asDesc(plan), *v = asDesc(variantPack);
    if (p->type != CUDNN_BACKEND_EXECUTION_PLAN_DESCRIPTOR || !p->finalized ||
        v->type != CUDNN_BACKEND_VARIANT_PACK_DESCRIPTOR || !v->finalized)
      return fail(CUDNN_STATUS_BAD_PARAM, "mock: execute needs a finalised plan and variant pack");
    const Attribute *ids = v->find(CUDNN_ATTR_VARIANT_PACK_UNIQUE_IDS);
    const Attribute *ptrs = v->find(CUDNN_ATTR_VARIANT_PACK_DATA_POINTERS);
    for (int64_t i = 0; i < ids->count; ++i) {
      uids.push_back(ids->at<int64_t>(i));
      pointers.push_back(ptrs->at<void *>(i));
    }
    if (const Attribute *ws = v->find(CUDNN_ATTR_VARIANT_PACK_WORKSPACE))
      workspace = ws->at<void *>(0);
    std::string line = "execute uids=";
    for (size_t i = 0; i < uids.size(); ++i)
      line += (i ? "," : "") + std::to_string(uids[i]);
    record(line + " config=" + std::to_string(p->configIndex));
    hook = state().hook;
    user = state().hookUser;
  }
  if (hook)
    hook(uids.data(), pointers.data(), int64_t(uids.size()), workspace, user);
  return CUDNN_STATUS_SUCCESS;
}
