#ifndef TGC_TEST_RUNTIME_MOCKDRIVER_H
#define TGC_TEST_RUNTIME_MOCKDRIVER_H

// Access to the mock libcuda (MockCudaDriver.cpp) from tests.

#include <cstddef>
#include <string>

namespace tgc::test {

struct MockDriver {
  using LaunchHook = void (*)(const char *name, void **params, void *user);
  void (*reset)();
  void (*setInitResult)(int);
  void (*setComputeCapability)(int, int);
  void (*setMaxThreads)(int);
  void (*setCurrentContext)(int);
  void (*setCapturing)(int);
  void (*setParamSizes)(const char *, const size_t *, size_t);
  void (*setLaunchHook)(LaunchHook, void *);
  void (*registerMemory)(void *, size_t);
  void (*unregisterMemory)(void *);
  const char *(*trace)();
  void (*clearTrace)();

  /// Loads the mock, resets it and makes the runtime use it.
  static MockDriver &install();
  static std::string path();
};

/// Counts the lines of `trace` that start with `prefix`.
int countLines(const std::string &trace, const std::string &prefix);

} // namespace tgc::test

#endif
