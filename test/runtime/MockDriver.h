#ifndef TGC_TEST_RUNTIME_MOCKDRIVER_H
#define TGC_TEST_RUNTIME_MOCKDRIVER_H

// Access to the mock libcuda (MockCudaDriver.cpp) and the mock libcudnn
// (MockCudnn.cpp) from tests.

#include <cstddef>
#include <cstdint>
#include <string>

namespace tgc::test {

struct MockDriver {
  using LaunchHook = void (*)(const char *name, void **params, void *user);
  void (*reset)();
  void (*setInitResult)(int);
  void (*setComputeCapability)(int, int);
  void (*setMaxThreads)(int);
  /// What cuOccupancyMaxActiveBlocksPerMultiprocessor and the SM count say
  /// (default 1 and 132).
  void (*setOccupancy)(int blocksPerSM, int smCount);
  void (*setCurrentContext)(int);
  void (*setCapturing)(int);
  void (*setParamSizes)(const char *, const size_t *, size_t);
  void (*setLaunchHook)(LaunchHook, void *);
  void (*registerMemory)(void *, size_t);
  void (*unregisterMemory)(void *);
  /// Registered memory now belongs to device `ordinal` (of two; default 0).
  void (*setOwner)(void *, int ordinal);
  /// This thread's current context: "none", "current" (setCurrentContext's)
  /// or "primary<N>".
  const char *(*currentContext)();
  const char *(*trace)();
  void (*clearTrace)();

  /// Loads the mock, resets it and makes the runtime use it.
  static MockDriver &install();
  static std::string path();
};

struct MockCudnn {
  using ExecuteHook = void (*)(const int64_t *uids, void *const *pointers,
                               int64_t count, void *workspace, void *user);
  void (*reset)();
  void (*setVersion)(int);
  void (*setHeuristics)(int64_t modeA, int64_t modeFallback);
  /// The next `count` execution plans fail to finalise with `message` as
  /// cuDNN's last error (null keeps the default).
  void (*setPlanFailures)(int count, const char *message);
  void (*setWorkspace)(int64_t);
  void (*setExecuteHook)(ExecuteHook, void *);
  const char *(*trace)();
  void (*clearTrace)();
  long (*liveDescriptors)();
  long (*liveHandles)();

  /// Loads the mock, resets it and makes the runtime use it (dropping the
  /// runtime's cached cuDNN handles and plans).
  static MockCudnn &install();
  static std::string path();
};

/// Counts the lines of `trace` that start with `prefix`.
int countLines(const std::string &trace, const std::string &prefix);

} // namespace tgc::test

#endif
