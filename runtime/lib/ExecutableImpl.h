#ifndef TGC_LIB_EXECUTABLEIMPL_H
#define TGC_LIB_EXECUTABLEIMPL_H

// Executable's state: the plan plus, per CUDA context it has run in, the
// loaded modules, resolved launches and the internal workspace.

#include "Bindings.h"
#include "CudaDriver.h"

#include <map>
#include <mutex>

namespace tgc {

/// One kernel argument ready to marshal: a buffer index or literal bits.
struct ArgSlot {
  KernelArg::Kind kind;
  size_t buffer = 0; // Kind::Buffer
  uint64_t bits = 0; // the literal, in the low bytes
};

struct PreparedLaunch {
  CUfunction function = nullptr;
  const LaunchVariant *variant = nullptr;
  std::vector<ArgSlot> args;
};

struct ContextState {
  CUcontext context = nullptr;
  int deviceArch = 0;
  std::map<std::string, CUmodule> modules;  // by kernel id + target
  std::vector<PreparedLaunch> launches;     // by step index (unused for others)

  // The internal workspace; guarded by workspaceMutex.
  std::mutex workspaceMutex;
  CUdeviceptr workspace = 0;
  CUevent workspaceFree = nullptr; // recorded after the last run using it
  CUstream lastStream = nullptr;
  bool eventRecorded = false;
};

struct Executable::Impl {
  Plan plan;
  BufferIndex index; // names point into plan

  std::mutex mutex; // guards contexts (and serialises preparation)
  std::map<CUcontext, std::unique_ptr<ContextState>> contexts;
  const CudaDriver *driver = nullptr; // set on the first prepare

  explicit Impl(Plan p);
  Status run(const BindingRef *bindings, size_t count,
             const Workspace *workspace, Stream stream);
  Expected<ContextState *> prepare(Stream stream);
  ~Impl();

private:
  Expected<CUcontext> contextOf(const CudaDriver &driver, Stream stream);
  Status prepareContext(const CudaDriver &driver, ContextState &state);
};

} // namespace tgc

#endif // TGC_LIB_EXECUTABLEIMPL_H
