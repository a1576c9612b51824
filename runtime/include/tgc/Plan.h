#ifndef TGC_PLAN_H
#define TGC_PLAN_H

// A Plan is a compiled tg graph as the runtime executes it: named buffers
// (graph inputs and outputs bound by the caller, intermediates at fixed
// offsets in one workspace), the CUDA kernels to compile with NVRTC, and an
// ordered list of steps. It has a versioned text serialisation
// (docs/plan.md) so that it can be compiled once and shipped.

#include "tgc/CudnnGraph.h"
#include "tgc/DType.h"
#include "tgc/Status.h"

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

// Exported API: the library is built with hidden visibility
// (cmake/TgcSharedLibrary.cmake).
#pragma GCC visibility push(default)

namespace tgc {

enum class BufferRole { Input, Output, Intermediate };
const char *bufferRoleName(BufferRole role);

struct Buffer {
  std::string name;
  BufferRole role = BufferRole::Input;
  DType dtype = DType::F32;
  std::vector<int64_t> shape;   // logical dims
  std::vector<int64_t> strides; // in elements, one per dim
  /// Required alignment of the buffer's address in bytes (a power of two);
  /// e.g. 16 for kernels that use 128-bit loads.
  uint32_t alignment = 16;
  /// Intermediates only: byte offset in the workspace.
  uint64_t offset = 0;

  int64_t numElements() const;
  /// Bytes from the first to one past the last addressed element (0 when
  /// any dim is 0); what the caller's allocation must provide.
  uint64_t byteSpan() const;
};

/// Which devices a kernel's source can be compiled for.
struct KernelTarget {
  enum class Kind {
    /// Any compute capability >= minArch; also the forward-compatible PTX
    /// fallback for devices NVRTC does not know.
    Portable,
    /// Only compute capability == arch, using the arch-specific feature set
    /// (sm_90a: wgmma, setmaxnreg). Never runs on another arch.
    ArchSpecific,
  };
  Kind kind = Kind::Portable;
  int arch = 80; // compute capability * 10 (80 = 8.0, 90 = 9.0)

  static KernelTarget portable(int minArch) { return {Kind::Portable, minArch}; }
  static KernelTarget archSpecific(int arch) { return {Kind::ArchSpecific, arch}; }
  /// "portable 80" / "sm_90a" (also the serialised form).
  std::string str() const;
  bool operator==(const KernelTarget &o) const {
    return kind == o.kind && arch == o.arch;
  }
};

/// CUDA C++ source compiled by NVRTC. The runtime adds the architecture
/// flag and the CUDA include paths to `options`.
struct Kernel {
  std::string id;     // referenced by launches
  std::string entry;  // __global__ function: an extern "C" name or a C++
                      // name expression (e.g. "attn<128>")
  std::string source; // complete translation unit
  std::vector<std::string> options;
  KernelTarget target;
  /// The kernel calls kEarlyLaunchWait before it touches global memory, so
  /// the runtime may launch it while the kernel before it in the stream is
  /// still running (programmatic dependent launch, compute capability 9.0
  /// and later; docs/plan.md, "Early launch").
  bool earlyLaunch = false;
};

/// The device-library call (compiler/lib/Codegen/device/ptx.cuh) an
/// early-launch kernel makes first: it waits until the grids before it have
/// finished and their writes are visible (griddepcontrol.wait), then lets
/// the next grid launch (griddepcontrol.launch_dependents).
/// Plan::validate() refuses an early-launch kernel whose source lacks it:
/// launched early, such a kernel would race with the one before it.
constexpr const char *kEarlyLaunchWait = "tg::device::wait_for_earlier_grids()";

struct KernelArg {
  enum class Kind { Buffer, I32, I64, F32 };
  Kind kind = Kind::Buffer;
  std::string buffer; // Kind::Buffer: passed as the buffer's device pointer
  int64_t intValue = 0;
  float floatValue = 0.0f;

  static KernelArg buf(std::string name) {
    KernelArg a;
    a.kind = Kind::Buffer;
    a.buffer = std::move(name);
    return a;
  }
  static KernelArg i32(int32_t v) {
    KernelArg a;
    a.kind = Kind::I32;
    a.intValue = v;
    return a;
  }
  static KernelArg i64(int64_t v) {
    KernelArg a;
    a.kind = Kind::I64;
    a.intValue = v;
    return a;
  }
  static KernelArg f32(float v) {
    KernelArg a;
    a.kind = Kind::F32;
    a.floatValue = v;
    return a;
  }
  bool operator==(const KernelArg &o) const;
};

struct Dim3 {
  uint32_t x = 1, y = 1, z = 1;
  uint64_t volume() const { return uint64_t(x) * y * z; }
  bool operator==(const Dim3 &o) const { return x == o.x && y == o.y && z == o.z; }
};

/// One way to run a launch step: which kernel, how, with which arguments.
struct LaunchVariant {
  std::string kernel; // Kernel::id
  Dim3 grid, block;
  uint32_t sharedBytes = 0; // dynamic shared memory
  std::vector<KernelArg> args;
};

/// A kernel launch. The runtime uses the first variant whose kernel can run
/// on the device (e.g. an sm_90a kernel first, then a portable one); see
/// docs/plan.md for how TGC_FORCE_PTX changes the choice.
struct LaunchStep {
  std::vector<LaunchVariant> variants;
};

/// Sets every byte of a buffer's span to `value` (e.g. zeroing an atomic
/// accumulator).
struct MemsetStep {
  std::string buffer;
  uint8_t value = 0;
};

/// Copies the span of `src` to `dst` (same dtype, shape and strides).
struct CopyStep {
  std::string src, dst;
};

/// One op (or fused group) run through cuDNN's backend API: alternative
/// operation graphs, tried in order (the first whose minVersion the loaded
/// cuDNN meets and for which an engine config finalises), and the NVRTC
/// launch that replaces them when none works, cuDNN is missing, or
/// TGC_BACKEND=nvrtc (docs/cudnn.md).
struct CudnnStep {
  std::vector<cudnn::Graph> graphs;
  std::optional<LaunchStep> fallback;
};

using Step = std::variant<LaunchStep, MemsetStep, CopyStep, CudnnStep>;
const char *stepKindName(const Step &step);

struct Plan {
  std::string name;
  /// The target the compiler generated the kernels for, exactly as NVRTC
  /// names it ("sm_90a", "sm_90", "compute_80"; CompileTarget::name() in
  /// Target.h); empty for plans written without one (e.g. by hand). For
  /// people and tools: which variant runs is decided per kernel target.
  std::string target;
  uint64_t workspaceBytes = 0;
  uint32_t workspaceAlignment = 256; // bytes, a power of two
  std::vector<Buffer> buffers;
  std::vector<Kernel> kernels;
  std::vector<Step> steps;

  const Buffer *findBuffer(std::string_view name) const;
  const Kernel *findKernel(std::string_view id) const;

  /// Checks internal consistency (docs/plan.md, Validation): unique names,
  /// shapes/strides/alignment within the limits below, written buffers
  /// without overlapping elements, intermediates inside the workspace, at
  /// least one output, kernel entries that name a function of their source,
  /// launches referencing known kernels and buffers, grid/block within
  /// CUDA's limits.
  Status validate() const;
};

/// Limits Plan::validate() enforces: no buffer, workspace or launch is
/// larger than 1 TiB (bytes, or threads for a launch), no dim has more than
/// kMaxPlanRank entries, no alignment is over 1 MiB.
constexpr uint64_t kMaxPlanBytes = uint64_t(1) << 40;
constexpr size_t kMaxPlanRank = 32;
constexpr uint32_t kMaxPlanAlignment = uint32_t(1) << 20;

/// Serialisation versions (the number after "tgc-plan"): 2 adds the plan's
/// `target` record, 3 the kernels' `early-launch` records, 4 buffers of
/// dtype i4. The writer writes the oldest version that holds the plan (1
/// without a target), the reader reads them all.
constexpr int kPlanFormatVersion = 4;
constexpr int kOldestPlanFormatVersion = 1;

/// Text serialisation, ending with a SHA-256 checksum line.
std::string serializePlan(const Plan &plan);
/// Parses and validates; `sourceName` prefixes error messages (file:line).
Expected<Plan> parsePlan(std::string_view text,
                         const std::string &sourceName = "<plan>");
/// Writes atomically (temporary file + rename).
Status writePlanFile(const Plan &plan, const std::string &path);
Expected<Plan> readPlanFile(const std::string &path);

} // namespace tgc

#pragma GCC visibility pop

#endif // TGC_PLAN_H
