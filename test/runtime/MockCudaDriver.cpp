// A fake libcuda for the runtime's CPU tests: enough of the driver API to
// drive the executor without a GPU. "Device" memory is host memory; kernel
// launches are recorded in a trace and handed to a hook that a test can use
// to emulate the kernel; memset/memcpy are performed. Control functions are
// exported as mockcuda_* and looked up by the tests with dlsym.

#include <cuda.h>

#include <cstdlib>
#include <cstring>
#include <map>
#include <mutex>
#include <sstream>
#include <string>
#include <vector>

namespace {

struct MockModule {
  std::string image;
};
struct MockFunction {
  std::string name;
  int maxDynamicShared = 48 * 1024;
};
struct MockEvent {};

using LaunchHook = void (*)(const char *name, void **params, void *user);

struct MockState {
  std::mutex mutex;
  CUresult initResult = CUDA_SUCCESS;
  int major = 9, minor = 0;
  int sharedOptin = 227 * 1024;
  int maxThreadsPerBlock = 1024;
  int blocksPerSM = 1, smCount = 132; // what the occupancy query says
  bool hasCurrentContext = true;
  bool capturing = false;
  std::vector<std::string> trace;
  std::string traceText;
  std::map<uintptr_t, size_t> ranges; // "device" allocations
  std::map<uintptr_t, int> owners;    // their device ordinals (default 0)
  std::map<std::string, std::vector<size_t>> paramSizes;
  LaunchHook hook = nullptr;
  void *hookUser = nullptr;
};

MockState &mock() {
  static MockState state;
  return state;
}

int contextObject;
thread_local std::vector<CUcontext> contextStack; // per thread, as in CUDA
CUcontext theContext() { return reinterpret_cast<CUcontext>(&contextObject); }

// Two devices, each with a primary context (device 0's is not theContext(),
// so that a test can tell which one a run used).
constexpr int kDeviceCount = 2;
int primaryObjects[kDeviceCount];
CUcontext primaryContext(int ordinal) {
  return reinterpret_cast<CUcontext>(&primaryObjects[ordinal]);
}
int deviceOf(CUcontext context) {
  for (int d = 0; d < kDeviceCount; ++d)
    if (context == primaryContext(d))
      return d;
  return 0;
}
std::string contextName(CUcontext context) {
  if (!context)
    return "none";
  if (context == theContext())
    return "current";
  return "primary" + std::to_string(deviceOf(context));
}
CUcontext currentContext() {
  if (!contextStack.empty())
    return contextStack.back();
  return mock().hasCurrentContext ? theContext() : nullptr;
}

void record(const std::string &line) {
  std::lock_guard<std::mutex> lock(mock().mutex);
  mock().trace.push_back(line);
}

/// The start of the "device" allocation holding [address, address + bytes),
/// or 0.
uintptr_t allocationOf(uintptr_t address, size_t bytes) {
  std::lock_guard<std::mutex> lock(mock().mutex);
  auto it = mock().ranges.upper_bound(address);
  if (it == mock().ranges.begin())
    return 0;
  --it;
  bool inside = address >= it->first && address + bytes <= it->first + it->second;
  return inside ? it->first : 0;
}
bool isDevice(uintptr_t address, size_t bytes) { return allocationOf(address, bytes) != 0; }

size_t imageSize(const void *image) {
  const unsigned char *bytes = static_cast<const unsigned char *>(image);
  if (std::memcmp(bytes, "\x7f" "ELF", 4) != 0)
    return std::strlen(static_cast<const char *>(image)) + 1; // PTX text
  // 64-bit ELF: the section header table ends the file.
  uint64_t shoff;
  uint16_t shentsize, shnum;
  std::memcpy(&shoff, bytes + 0x28, 8);
  std::memcpy(&shentsize, bytes + 0x3a, 2);
  std::memcpy(&shnum, bytes + 0x3c, 2);
  return shoff + uint64_t(shentsize) * shnum;
}

std::string streamName(CUstream stream) {
  std::ostringstream os;
  os << reinterpret_cast<uintptr_t>(stream);
  return os.str();
}

} // namespace

extern "C" {

//===--------------------------------------------------------------------===//
// Control
//===--------------------------------------------------------------------===//

__attribute__((visibility("default"))) void mockcuda_reset() {
  MockState &s = mock();
  std::lock_guard<std::mutex> lock(s.mutex);
  s.initResult = CUDA_SUCCESS;
  s.major = 9;
  s.minor = 0;
  s.sharedOptin = 227 * 1024;
  s.maxThreadsPerBlock = 1024;
  s.blocksPerSM = 1;
  s.smCount = 132;
  s.hasCurrentContext = true;
  s.capturing = false;
  s.trace.clear();
  s.paramSizes.clear();
  s.hook = nullptr;
}
__attribute__((visibility("default"))) void mockcuda_set_init_result(int r) {
  mock().initResult = CUresult(r);
}
__attribute__((visibility("default"))) void mockcuda_set_compute_capability(int major, int minor) {
  mock().major = major;
  mock().minor = minor;
}
__attribute__((visibility("default"))) void mockcuda_set_occupancy(int blocksPerSM, int smCount) {
  mock().blocksPerSM = blocksPerSM;
  mock().smCount = smCount;
}
__attribute__((visibility("default"))) void mockcuda_set_max_threads(int n) {
  mock().maxThreadsPerBlock = n;
}
__attribute__((visibility("default"))) void mockcuda_set_current_context(int present) {
  mock().hasCurrentContext = present != 0;
}
__attribute__((visibility("default"))) void mockcuda_set_capturing(int capturing) {
  mock().capturing = capturing != 0;
}
__attribute__((visibility("default"))) void mockcuda_set_param_sizes(const char *name, const size_t *sizes, size_t n) {
  std::lock_guard<std::mutex> lock(mock().mutex);
  mock().paramSizes[name] = std::vector<size_t>(sizes, sizes + n);
}
__attribute__((visibility("default"))) void mockcuda_set_launch_hook(LaunchHook hook, void *user) {
  mock().hook = hook;
  mock().hookUser = user;
}
/// Registers host memory as "device" memory.
__attribute__((visibility("default"))) void mockcuda_register(void *data, size_t bytes) {
  std::lock_guard<std::mutex> lock(mock().mutex);
  mock().ranges[reinterpret_cast<uintptr_t>(data)] = bytes;
}
/// Makes registered memory belong to device `ordinal` (0 unless said).
__attribute__((visibility("default"))) void mockcuda_set_owner(void *data, int ordinal) {
  std::lock_guard<std::mutex> lock(mock().mutex);
  mock().owners[reinterpret_cast<uintptr_t>(data)] = ordinal;
}
__attribute__((visibility("default"))) void mockcuda_unregister(void *data) {
  std::lock_guard<std::mutex> lock(mock().mutex);
  mock().ranges.erase(reinterpret_cast<uintptr_t>(data));
  mock().owners.erase(reinterpret_cast<uintptr_t>(data));
}
/// The calling thread's current context: "none", "current" (the context a
/// test makes current with mockcuda_set_current_context) or "primary<N>".
__attribute__((visibility("default"))) const char *mockcuda_current_context() {
  static thread_local std::string name;
  name = contextName(currentContext());
  return name.c_str();
}
/// The calls recorded since the last reset, one per line.
__attribute__((visibility("default"))) const char *mockcuda_trace() {
  MockState &s = mock();
  std::lock_guard<std::mutex> lock(s.mutex);
  s.traceText.clear();
  for (const std::string &line : s.trace)
    s.traceText += line + "\n";
  return s.traceText.c_str();
}
__attribute__((visibility("default"))) void mockcuda_clear_trace() {
  std::lock_guard<std::mutex> lock(mock().mutex);
  mock().trace.clear();
}

//===--------------------------------------------------------------------===//
// Driver API
//===--------------------------------------------------------------------===//

CUresult cuInit(unsigned int) { return mock().initResult; }
CUresult cuDriverGetVersion(int *version) {
  *version = 13000;
  return CUDA_SUCCESS;
}
CUresult cuGetErrorName(CUresult error, const char **name) {
  switch (error) {
  case CUDA_SUCCESS: *name = "CUDA_SUCCESS"; break;
  case CUDA_ERROR_INVALID_VALUE: *name = "CUDA_ERROR_INVALID_VALUE"; break;
  case CUDA_ERROR_NO_DEVICE: *name = "CUDA_ERROR_NO_DEVICE"; break;
  case CUDA_ERROR_NOT_FOUND: *name = "CUDA_ERROR_NOT_FOUND"; break;
  case CUDA_ERROR_OUT_OF_MEMORY: *name = "CUDA_ERROR_OUT_OF_MEMORY"; break;
  default: *name = "CUDA_ERROR_UNKNOWN"; break;
  }
  return CUDA_SUCCESS;
}
CUresult cuGetErrorString(CUresult error, const char **text) {
  switch (error) {
  case CUDA_ERROR_NO_DEVICE: *text = "no CUDA-capable device is detected"; break;
  case CUDA_ERROR_INVALID_VALUE: *text = "invalid argument"; break;
  default: *text = "mock error"; break;
  }
  return CUDA_SUCCESS;
}
CUresult cuCtxGetCurrent(CUcontext *context) {
  *context = currentContext();
  return CUDA_SUCCESS;
}
CUresult cuCtxGetDevice(CUdevice *device) {
  CUcontext context = currentContext();
  if (!context)
    return CUDA_ERROR_INVALID_CONTEXT;
  *device = deviceOf(context);
  return CUDA_SUCCESS;
}
CUresult cuDeviceGet(CUdevice *device, int ordinal) {
  if (ordinal < 0 || ordinal >= kDeviceCount)
    return CUDA_ERROR_INVALID_DEVICE;
  *device = ordinal;
  return CUDA_SUCCESS;
}
CUresult cuDevicePrimaryCtxRetain(CUcontext *context, CUdevice device) {
  if (device < 0 || device >= kDeviceCount)
    return CUDA_ERROR_INVALID_DEVICE;
  *context = primaryContext(device);
  record("cuDevicePrimaryCtxRetain " + std::to_string(device));
  return CUDA_SUCCESS;
}
CUresult cuCtxPushCurrent(CUcontext context) {
  contextStack.push_back(context);
  return CUDA_SUCCESS;
}
CUresult cuCtxPopCurrent(CUcontext *context) {
  if (contextStack.empty())
    return CUDA_ERROR_INVALID_CONTEXT;
  *context = contextStack.back();
  contextStack.pop_back();
  return CUDA_SUCCESS;
}
CUresult cuStreamGetCtx(CUstream, CUcontext *context) {
  *context = theContext();
  return CUDA_SUCCESS;
}
CUresult cuDeviceGetAttribute(int *value, CUdevice_attribute attribute, CUdevice) {
  switch (attribute) {
  case CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR: *value = mock().major; break;
  case CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR: *value = mock().minor; break;
  case CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN: *value = mock().sharedOptin; break;
  case CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT: *value = mock().smCount; break;
  default: return CUDA_ERROR_INVALID_VALUE;
  }
  return CUDA_SUCCESS;
}
CUresult cuDeviceGetName(char *name, int length, CUdevice) {
  std::strncpy(name, "Mock GPU", size_t(length));
  return CUDA_SUCCESS;
}
CUresult cuModuleLoadDataEx(CUmodule *module, const void *image, unsigned int,
                            CUjit_option *, void **) {
  bool isCubin = std::memcmp(image, "\x7f" "ELF", 4) == 0;
  auto *m = new MockModule{std::string(static_cast<const char *>(image), imageSize(image))};
  *module = reinterpret_cast<CUmodule>(m);
  record(std::string("cuModuleLoadDataEx ") + (isCubin ? "cubin" : "ptx"));
  return CUDA_SUCCESS;
}
CUresult cuModuleUnload(CUmodule module) {
  delete reinterpret_cast<MockModule *>(module);
  record("cuModuleUnload");
  return CUDA_SUCCESS;
}
CUresult cuModuleGetFunction(CUfunction *function, CUmodule module, const char *name) {
  auto *m = reinterpret_cast<MockModule *>(module);
  if (m->image.find(name) == std::string::npos)
    return CUDA_ERROR_NOT_FOUND;
  *function = reinterpret_cast<CUfunction>(new MockFunction{name});
  return CUDA_SUCCESS;
}
CUresult cuFuncGetAttribute(int *value, CUfunction_attribute attribute, CUfunction function) {
  auto *f = reinterpret_cast<MockFunction *>(function);
  switch (attribute) {
  case CU_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK: *value = mock().maxThreadsPerBlock; break;
  case CU_FUNC_ATTRIBUTE_SHARED_SIZE_BYTES: *value = 0; break;
  case CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES: *value = f->maxDynamicShared; break;
  default: return CUDA_ERROR_INVALID_VALUE;
  }
  return CUDA_SUCCESS;
}
CUresult cuFuncSetAttribute(CUfunction function, CUfunction_attribute attribute, int value) {
  auto *f = reinterpret_cast<MockFunction *>(function);
  if (attribute != CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES)
    return CUDA_ERROR_INVALID_VALUE;
  f->maxDynamicShared = value;
  record("cuFuncSetAttribute " + f->name + " max_dynamic_shared=" + std::to_string(value));
  return CUDA_SUCCESS;
}
CUresult cuFuncGetParamInfo(CUfunction function, size_t index, size_t *offset, size_t *size) {
  auto *f = reinterpret_cast<MockFunction *>(function);
  record("cuFuncGetParamInfo " + f->name + " " + std::to_string(index));
  std::lock_guard<std::mutex> lock(mock().mutex);
  auto it = mock().paramSizes.find(f->name);
  if (it == mock().paramSizes.end())
    return CUDA_ERROR_NOT_SUPPORTED;
  if (index >= it->second.size())
    return CUDA_ERROR_INVALID_VALUE;
  *offset = 0;
  *size = it->second[index];
  return CUDA_SUCCESS;
}
CUresult cuLaunchKernel(CUfunction function, unsigned gx, unsigned gy, unsigned gz,
                        unsigned bx, unsigned by, unsigned bz, unsigned smem,
                        CUstream stream, void **params, void **) {
  auto *f = reinterpret_cast<MockFunction *>(function);
  if (smem > unsigned(f->maxDynamicShared))
    return CUDA_ERROR_INVALID_VALUE;
  std::ostringstream os;
  os << "cuLaunchKernel " << f->name << " grid=" << gx << "," << gy << "," << gz
     << " block=" << bx << "," << by << "," << bz << " smem=" << smem
     << " stream=" << streamName(stream)
     << " context=" << contextName(currentContext());
  record(os.str());
  if (mock().hook)
    mock().hook(f->name.c_str(), params, mock().hookUser);
  return CUDA_SUCCESS;
}
CUresult cuOccupancyMaxActiveBlocksPerMultiprocessor(int *blocks, CUfunction, int, size_t) {
  *blocks = mock().blocksPerSM;
  return CUDA_SUCCESS;
}
// Records "cuLaunchKernelEx", the launch as cuLaunchKernel records it and
// the attributes ("early" for programmatic stream serialisation).
CUresult cuLaunchKernelEx(const CUlaunchConfig *config, CUfunction function, void **params,
                          void **extra) {
  std::string attributes;
  for (unsigned i = 0; i < config->numAttrs; ++i) {
    if (config->attrs[i].id != CU_LAUNCH_ATTRIBUTE_PROGRAMMATIC_STREAM_SERIALIZATION)
      return CUDA_ERROR_INVALID_VALUE;
    attributes += config->attrs[i].value.programmaticStreamSerializationAllowed ? " early" : "";
  }
  record("cuLaunchKernelEx" + attributes);
  return cuLaunchKernel(function, config->gridDimX, config->gridDimY, config->gridDimZ,
                        config->blockDimX, config->blockDimY, config->blockDimZ,
                        config->sharedMemBytes, config->hStream, params, extra);
}
CUresult cuMemAlloc(CUdeviceptr *pointer, size_t bytes) {
  void *data = std::aligned_alloc(256, (bytes + 255) / 256 * 256);
  if (!data)
    return CUDA_ERROR_OUT_OF_MEMORY;
  mockcuda_register(data, bytes);
  *pointer = reinterpret_cast<CUdeviceptr>(data);
  record("cuMemAlloc " + std::to_string(bytes));
  return CUDA_SUCCESS;
}
CUresult cuMemFree(CUdeviceptr pointer) {
  mockcuda_unregister(reinterpret_cast<void *>(pointer));
  std::free(reinterpret_cast<void *>(pointer));
  record("cuMemFree");
  return CUDA_SUCCESS;
}
CUresult cuMemsetD8Async(CUdeviceptr pointer, unsigned char value, size_t n, CUstream stream) {
  if (!isDevice(pointer, n))
    return CUDA_ERROR_INVALID_VALUE;
  std::memset(reinterpret_cast<void *>(pointer), value, n);
  record("cuMemsetD8Async " + std::to_string(n) + " stream=" + streamName(stream));
  return CUDA_SUCCESS;
}
CUresult cuMemcpyAsync(CUdeviceptr dst, CUdeviceptr src, size_t n, CUstream stream) {
  if (!isDevice(dst, n) || !isDevice(src, n))
    return CUDA_ERROR_INVALID_VALUE;
  std::memcpy(reinterpret_cast<void *>(dst), reinterpret_cast<void *>(src), n);
  record("cuMemcpyAsync " + std::to_string(n) + " stream=" + streamName(stream));
  return CUDA_SUCCESS;
}
CUresult cuEventCreate(CUevent *event, unsigned int) {
  *event = reinterpret_cast<CUevent>(new MockEvent);
  return CUDA_SUCCESS;
}
CUresult cuEventDestroy(CUevent event) {
  delete reinterpret_cast<MockEvent *>(event);
  return CUDA_SUCCESS;
}
CUresult cuEventRecord(CUevent, CUstream stream) {
  record("cuEventRecord stream=" + streamName(stream));
  return CUDA_SUCCESS;
}
CUresult cuStreamWaitEvent(CUstream stream, CUevent, unsigned int) {
  record("cuStreamWaitEvent stream=" + streamName(stream));
  return CUDA_SUCCESS;
}
CUresult cuStreamIsCapturing(CUstream, CUstreamCaptureStatus *status) {
  *status = mock().capturing ? CU_STREAM_CAPTURE_STATUS_ACTIVE : CU_STREAM_CAPTURE_STATUS_NONE;
  return CUDA_SUCCESS;
}
CUresult cuPointerGetAttribute(void *data, CUpointer_attribute attribute, CUdeviceptr pointer) {
  uintptr_t allocation = allocationOf(pointer, 1);
  if (!allocation)
    return CUDA_ERROR_INVALID_VALUE;
  switch (attribute) {
  case CU_POINTER_ATTRIBUTE_MEMORY_TYPE:
    record("cuPointerGetAttribute memory_type");
    *static_cast<unsigned *>(data) = CU_MEMORYTYPE_DEVICE;
    return CUDA_SUCCESS;
  case CU_POINTER_ATTRIBUTE_DEVICE_ORDINAL: {
    record("cuPointerGetAttribute device_ordinal");
    std::lock_guard<std::mutex> lock(mock().mutex);
    auto owner = mock().owners.find(allocation);
    *static_cast<int *>(data) = owner == mock().owners.end() ? 0 : owner->second;
    return CUDA_SUCCESS;
  }
  default:
    return CUDA_ERROR_INVALID_VALUE;
  }
}

} // extern "C"
