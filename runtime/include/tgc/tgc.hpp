#ifndef TGC_TGC_HPP
#define TGC_TGC_HPP

// The tgc C++ API (docs/api.md).
//
//   tgc::Executable    runs a Plan on a CUDA stream (this runtime library,
//                      libtgc_runtime; no MLIR needed)
//   tgc::Compiler      compiles tg graphs (.mlir) to Plans; declared here,
//                      implemented by the full library libtgc (compiler/)
//
// Nothing here needs cuda.h: streams are passed as CUstream_st*, the type
// behind both CUstream and cudaStream_t.

#include "tgc/CacheStats.h"
#include "tgc/Plan.h"
#include "tgc/Status.h"
#include "tgc/Version.h"

#include <memory>
#include <optional>
#include <string>
#include <vector>

// Exported API: the library is built with hidden visibility
// (cmake/TgcSharedLibrary.cmake).
#pragma GCC visibility push(default)

struct CUstream_st;

namespace tgc {

/// The version of the loaded library, as tgc_version() gives it:
/// "MAJOR.MINOR.PATCH+COMMIT".
const char *version();

/// A CUstream or cudaStream_t; nullptr is the legacy default stream.
using Stream = CUstream_st *;

/// One graph input or output, bound by name to device memory. The optional
/// fields are checked against the plan when present.
struct Binding {
  Binding() = default;
  Binding(std::string name, void *data, std::optional<DType> dtype = std::nullopt,
          std::optional<std::vector<int64_t>> shape = std::nullopt,
          std::optional<std::vector<int64_t>> strides = std::nullopt)
      : name(std::move(name)), data(data), dtype(dtype), shape(std::move(shape)),
        strides(std::move(strides)) {}

  std::string name;
  void *data = nullptr;
  std::optional<DType> dtype;
  std::optional<std::vector<int64_t>> shape;
  std::optional<std::vector<int64_t>> strides; // elements
};

/// Device memory for the plan's intermediates.
struct Workspace {
  void *data = nullptr;
  uint64_t bytes = 0;
};

/// A loaded Plan, ready to run on any CUDA context. Kernels are compiled (or
/// fetched from the kernel cache) and loaded per context on the first run
/// there, or by prepare(). run() and prepare() are thread-safe; destroying
/// an Executable while another thread runs it is not.
class Executable {
public:
  /// Validates the plan; needs no GPU.
  static Expected<std::unique_ptr<Executable>> create(Plan plan);
  static Expected<std::unique_ptr<Executable>> loadPlan(const std::string &path);
  ~Executable();
  Executable(const Executable &) = delete;
  Executable &operator=(const Executable &) = delete;

  const Plan &plan() const;
  /// Bytes of workspace a caller-supplied Workspace must have.
  uint64_t workspaceSize() const;

  /// Compiles and loads the kernels and builds the cuDNN execution plans
  /// for the context of `stream` (the current context for the default
  /// stream). Optional: run() does it on first use. Does not synchronise.
  Status prepare(Stream stream = nullptr);

  /// Enqueues the plan on `stream` and returns without synchronising.
  /// Intermediates live in a workspace this Executable allocates once per
  /// context (cuMemAlloc on first use) and reuses; runs on different streams
  /// are ordered on the device through an event, never on the host.
  Status run(const std::vector<Binding> &bindings, Stream stream);
  /// Same, with a caller-supplied workspace (no allocation, no ordering
  /// between runs: the caller owns it, e.g. one workspace per stream). The
  /// cuDNN scratch workspace of cuDNN steps stays the executable's own and
  /// is ordered across streams as above (docs/api.md).
  Status run(const std::vector<Binding> &bindings, const Workspace &workspace,
             Stream stream);

  /// What runs each step in the context of `stream`, preparing it there
  /// first: "nvrtc: kernel 'k' (sm_90)", "cudnn: graph 'g' engine 7
  /// (heuristics mode A, config 0 of 4, workspace 0 bytes)", "nvrtc: kernel
  /// 'k' (sm_90), fallback: <why cuDNN was not used>", "memset", "copy".
  Expected<std::vector<std::string>> stepBackends(Stream stream = nullptr);

  /// The host-side checks run() makes before touching the GPU: names,
  /// null pointers, alignment, dtype/shape/strides, workspace size.
  Status checkBindings(const std::vector<Binding> &bindings,
                       const Workspace *workspace = nullptr) const;

  struct Impl;
  /// Internal (used by the C API).
  Impl *impl() const { return impl_.get(); }

private:
  explicit Executable(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

/// Compiles (or loads from the cache) every kernel that running `plan` on
/// a device of compute capability `deviceArch` (e.g. 90) would use, without
/// a GPU: for filling the disk cache ahead of time and for CI.
Status precompilePlan(const Plan &plan, int deviceArch, bool forcePtx);

/// Hits, misses and times of the process-wide kernel cache.
CacheStats kernelCacheStats();

/// Options of the graph compiler (owned by the compiler side).
struct CompileOptions {
  /// Target, as NVRTC names them: "sm_90a" (Hopper's arch-specific
  /// kernels, e.g. wgmma), "sm_90", "sm_80", "compute_80", ...; sm_80 or
  /// newer. Empty: the default, "sm_90a" (not the current device: compiling
  /// needs no GPU). Every plan also carries portable kernels that run on any
  /// device from sm_80 on.
  std::string arch;
  /// Extra options, as the tg-compile command line spells them.
  std::vector<std::string> extra;
};

/// Compiles tg graphs to Plans. Implemented by libtgc (the MLIR compiler
/// library, compiler/); programs that link only the runtime cannot call it.
class Compiler {
public:
  explicit Compiler(CompileOptions options = {});
  Expected<Plan> compileFile(const std::string &path) const;
  Expected<Plan> compileString(const std::string &mlir,
                               const std::string &bufferName = "<string>") const;

private:
  CompileOptions options_;
};

} // namespace tgc

#pragma GCC visibility pop

#endif // TGC_TGC_HPP
