#include "MockDriver.h"
#include "tgc/Testing.h"

#include <dlfcn.h>
#include <sstream>
#include <stdexcept>

namespace tgc::test {

std::string MockDriver::path() { return TGC_MOCK_CUDA_PATH; }

MockDriver &MockDriver::install() {
  static MockDriver *mock = [] {
    void *handle = dlopen(TGC_MOCK_CUDA_PATH, RTLD_NOW | RTLD_LOCAL);
    if (!handle)
      throw std::runtime_error(std::string("cannot load the mock driver: ") + dlerror());
    auto *m = new MockDriver();
    auto get = [&](const char *name) {
      void *symbol = dlsym(handle, name);
      if (!symbol)
        throw std::runtime_error(std::string("mock driver lacks ") + name);
      return symbol;
    };
#define TGC_MOCK(field, name) m->field = reinterpret_cast<decltype(m->field)>(get(name))
    TGC_MOCK(reset, "mockcuda_reset");
    TGC_MOCK(setInitResult, "mockcuda_set_init_result");
    TGC_MOCK(setComputeCapability, "mockcuda_set_compute_capability");
    TGC_MOCK(setMaxThreads, "mockcuda_set_max_threads");
    TGC_MOCK(setOccupancy, "mockcuda_set_occupancy");
    TGC_MOCK(setCurrentContext, "mockcuda_set_current_context");
    TGC_MOCK(setCapturing, "mockcuda_set_capturing");
    TGC_MOCK(setParamSizes, "mockcuda_set_param_sizes");
    TGC_MOCK(setLaunchHook, "mockcuda_set_launch_hook");
    TGC_MOCK(registerMemory, "mockcuda_register");
    TGC_MOCK(unregisterMemory, "mockcuda_unregister");
    TGC_MOCK(setOwner, "mockcuda_set_owner");
    TGC_MOCK(currentContext, "mockcuda_current_context");
    TGC_MOCK(trace, "mockcuda_trace");
    TGC_MOCK(clearTrace, "mockcuda_clear_trace");
#undef TGC_MOCK
    return m;
  }();
  mock->reset();
  tgc::testing::setCudaDriverLibrary(TGC_MOCK_CUDA_PATH);
  return *mock;
}

std::string MockCudnn::path() { return TGC_MOCK_CUDNN_PATH; }

MockCudnn &MockCudnn::install() {
  static MockCudnn *mock = [] {
    void *handle = dlopen(TGC_MOCK_CUDNN_PATH, RTLD_NOW | RTLD_LOCAL);
    if (!handle)
      throw std::runtime_error(std::string("cannot load the mock cuDNN: ") + dlerror());
    auto *m = new MockCudnn();
    auto get = [&](const char *name) {
      void *symbol = dlsym(handle, name);
      if (!symbol)
        throw std::runtime_error(std::string("mock cuDNN lacks ") + name);
      return symbol;
    };
#define TGC_MOCK(field, name) m->field = reinterpret_cast<decltype(m->field)>(get(name))
    TGC_MOCK(reset, "mockcudnn_reset");
    TGC_MOCK(setVersion, "mockcudnn_set_version");
    TGC_MOCK(setHeuristics, "mockcudnn_set_heuristics");
    TGC_MOCK(setPlanFailures, "mockcudnn_set_plan_failures");
    TGC_MOCK(setWorkspace, "mockcudnn_set_workspace");
    TGC_MOCK(setExecuteHook, "mockcudnn_set_execute_hook");
    TGC_MOCK(trace, "mockcudnn_trace");
    TGC_MOCK(clearTrace, "mockcudnn_clear_trace");
    TGC_MOCK(liveDescriptors, "mockcudnn_live_descriptors");
    TGC_MOCK(liveHandles, "mockcudnn_live_handles");
#undef TGC_MOCK
    return m;
  }();
  // Drop the runtime's handles and plans before resetting the mock.
  tgc::testing::setCudnnLibrary(TGC_MOCK_CUDNN_PATH);
  mock->reset();
  return *mock;
}

int countLines(const std::string &trace, const std::string &prefix) {
  std::istringstream in(trace);
  std::string line;
  int n = 0;
  while (std::getline(in, line))
    n += line.rfind(prefix, 0) == 0;
  return n;
}

} // namespace tgc::test
