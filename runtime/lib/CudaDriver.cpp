#include "CudaDriver.h"
#include "tgc/Log.h"
#include "tgc/Testing.h"

#include <dlfcn.h>
#include <memory>
#include <mutex>

namespace tgc {

namespace {
struct DriverState {
  std::mutex mutex;
  std::string path = "libcuda.so.1";
  bool loaded = false;
  std::unique_ptr<CudaDriver> driver;
  Status status;
};

DriverState &driverState() {
  static DriverState *state = new DriverState(); // outlives static destructors
  return *state;
}

Expected<std::unique_ptr<CudaDriver>> loadDriver(const std::string &path) {
  void *handle = ::dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (!handle) {
    const char *why = ::dlerror();
    return makeError(StatusCode::NoDriver, "no CUDA driver: cannot load ", path,
                     " (", why ? why : "unknown error",
                     "); executing a plan needs an NVIDIA GPU and its driver "
                     "(loading plans and compiling kernels do not)");
  }
  auto driver = std::make_unique<CudaDriver>();
  driver->libraryPath = path;
  std::string missing;
#define TGC_LOAD_REQUIRED(fn)                                                  \
  driver->fn = reinterpret_cast<decltype(driver->fn)>(                         \
      ::dlsym(handle, TGC_CUDA_SYMBOL_NAME(fn)));                              \
  if (!driver->fn)                                                             \
    missing += std::string(missing.empty() ? "" : ", ") +                      \
               TGC_CUDA_SYMBOL_NAME(fn);
  TGC_CUDA_REQUIRED_FUNCTIONS(TGC_LOAD_REQUIRED)
#undef TGC_LOAD_REQUIRED
#define TGC_LOAD_OPTIONAL(fn)                                                  \
  driver->fn = reinterpret_cast<decltype(driver->fn)>(                         \
      ::dlsym(handle, TGC_CUDA_SYMBOL_NAME(fn)));
  TGC_CUDA_OPTIONAL_FUNCTIONS(TGC_LOAD_OPTIONAL)
#undef TGC_LOAD_OPTIONAL
  // The handle stays open for the life of the process: function pointers
  // may be held by executables.
  if (!missing.empty())
    return makeError(StatusCode::NoDriver, "the CUDA driver ", path,
                     " is too old: it lacks ", missing);

  CUresult result = driver->cuInit(0);
  if (result != CUDA_SUCCESS)
    return makeError(StatusCode::NoDriver,
                     "no usable CUDA device: cuInit failed with ",
                     driver->errorText(result));
  driver->cuDriverGetVersion(&driver->version);
  TGC_LOG_INFO("loaded CUDA driver ", path, " (version ",
               driver->version / 1000, ".", driver->version % 1000 / 10, ")");
  return driver;
}
} // namespace

Expected<const CudaDriver *> CudaDriver::get() {
  DriverState &state = driverState();
  std::lock_guard<std::mutex> lock(state.mutex);
  if (!state.loaded) {
    state.loaded = true;
    Expected<std::unique_ptr<CudaDriver>> driver = loadDriver(state.path);
    if (driver)
      state.driver = driver.take();
    else
      state.status = driver.takeStatus();
  }
  if (!state.driver)
    return state.status;
  return static_cast<const CudaDriver *>(state.driver.get());
}

std::string CudaDriver::errorText(CUresult result) const {
  const char *name = nullptr, *text = nullptr;
  if (cuGetErrorName)
    cuGetErrorName(result, &name);
  if (cuGetErrorString)
    cuGetErrorString(result, &text);
  return strCat(name ? name : "CUDA error", " (",
                text ? text : strCat("code ", int(result)), ")");
}

Status CudaDriver::check(CUresult result, const std::string &what) const {
  if (result == CUDA_SUCCESS)
    return Status::ok();
  return makeError(result == CUDA_ERROR_OUT_OF_MEMORY ? StatusCode::OutOfMemory
                                                      : StatusCode::CudaError,
                   what, ": ", errorText(result));
}

Expected<CUcontext> CudaDriver::primaryContext(int ordinal) const {
  std::lock_guard<std::mutex> lock(primaryMutex_);
  auto found = primaryContexts_.find(ordinal);
  if (found != primaryContexts_.end())
    return found->second;
  if (!cuDeviceGet || !cuDevicePrimaryCtxRetain)
    return makeError(StatusCode::NoDriver, "the CUDA driver ", libraryPath,
                     " lacks cuDeviceGet or cuDevicePrimaryCtxRetain");
  CUdevice device;
  TGC_RETURN_IF_ERROR(check(cuDeviceGet(&device, ordinal),
                            strCat("cannot get CUDA device ", ordinal)));
  CUcontext context = nullptr;
  TGC_RETURN_IF_ERROR(
      check(cuDevicePrimaryCtxRetain(&context, device),
            strCat("cannot retain the primary context of device ", ordinal)));
  TGC_LOG_INFO("using the primary context of device ", ordinal,
               " for runs on the default stream without a current context");
  primaryContexts_.emplace(ordinal, context);
  return context;
}

void testing::setCudaDriverLibrary(const std::string &path) {
  DriverState &state = driverState();
  std::lock_guard<std::mutex> lock(state.mutex);
  state.path = path;
  state.loaded = false;
  // The previous driver object is leaked on purpose: executables destroyed
  // later may still call through it.
  state.driver.release();
  state.status = Status();
}

} // namespace tgc
