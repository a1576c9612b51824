#ifndef TG_LOWERING_KERNELSTEP_H
#define TG_LOWERING_KERNELSTEP_H

// The compiler-side description of one generated CUDA kernel launch, before
// it is written into a runtime Plan (runtime/include/tgc/Plan.h).

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Value.h"
#include "mlir/Support/LLVM.h"
#include "tgc/Plan.h"
#include "tgc/Target.h"

#include <array>
#include <string>

namespace mlir::tg {
class AttentionOp;
class AttentionGradOp;

/// One kernel parameter, in the kernel's parameter order.
struct KernelArg {
  enum class Kind { Buffer, Int64, Float32, Scratch };
  Kind kind = Kind::Buffer;
  /// For Kind::Buffer: the tensor whose device buffer is passed (a graph
  /// argument, a graph result, or an intermediate in the workspace). The
  /// kernel sees a pointer to its logical, row-major, densely packed data,
  /// except for graph arguments with `tg.strides`, which it reads through
  /// those element strides.
  Value value;
  int64_t i64 = 0;
  float f32 = 0.0f;
  /// For Kind::Scratch: a dense workspace buffer that belongs to the steps
  /// of one op (e.g. the attention backward's f32 dQ accumulator), named by
  /// (owner, index); every step that passes the same pair gets the same
  /// buffer, live from its first to its last such step.
  Operation *owner = nullptr;
  unsigned scratchIndex = 0;
  Type scratchElementType;
  SmallVector<int64_t, 4> scratchShape;

  static KernelArg buffer(Value v) { return {Kind::Buffer, v, 0, 0.0f}; }
  static KernelArg int64(int64_t x) { return {Kind::Int64, Value(), x, 0.0f}; }
  static KernelArg float32(float x) { return {Kind::Float32, Value(), 0, x}; }
  static KernelArg scratch(Operation *owner, unsigned index, Type elementType,
                           ArrayRef<int64_t> shape) {
    KernelArg arg{Kind::Scratch, Value(), 0, 0.0f};
    arg.owner = owner;
    arg.scratchIndex = index;
    arg.scratchElementType = elementType;
    arg.scratchShape.assign(shape.begin(), shape.end());
    return arg;
  }
};

/// A self-contained CUDA C++ kernel (compiled by NVRTC with
/// -I<cuda>/include) and how to launch it.
struct KernelStep {
  std::string name;   // for logs: e.g. "pointwise add+exp", "matmul 128x128x64"
  std::string source; // complete translation unit
  std::string entry;  // extern "C" __global__ function name
  std::array<unsigned, 3> grid{1, 1, 1};
  std::array<unsigned, 3> block{1, 1, 1};
  unsigned sharedBytes = 0; // dynamic shared memory
  SmallVector<KernelArg> args;
  /// Tensors this step writes (each must also appear as a Buffer arg).
  SmallVector<Value> outputs;
  /// Buffers (Buffer or Scratch args) set to zero before the launch, e.g.
  /// accumulators the kernel adds into with atomics.
  SmallVector<KernelArg> zeroFirst;

  /// Where the kernel runs: any compute capability from its arch on
  /// (portable: cubin or PTX), or exactly its arch (sm_90a wgmma code).
  tgc::KernelTarget target = tgc::KernelTarget::portable(tgc::kMinTargetArch);
  /// The entry's first statement is tgc::kEarlyLaunchWait, so the runtime
  /// may launch the kernel before the one ahead of it finishes
  /// (tgc::Kernel::earlyLaunch; plan validation checks the call is there).
  bool earlyLaunch = false;
  /// The op this step computes, for steps of one op (attention, matmul,
  /// fused_matmul, reduce, softmax, attention_grad); the plan builder hands
  /// it to the cuDNN lowering when the op carries tg.backend = #tg<backend cudnn>.
  /// A step of such an op with an empty `source` has no NVRTC kernel.
  Operation *op = nullptr;

  /// Faster versions of this launch (same arguments) for particular
  /// devices, tried in order before this one; the runtime takes the first
  /// the device can run.
  std::vector<KernelStep> preferred;
};

/// Emits the launches (in order) of one tg.attention op (provided by the
/// attention kernel generator): one kernel, or a split-KV decode kernel and
/// the combine kernel after it.
using AttentionEmitter =
    function_ref<FailureOr<SmallVector<KernelStep, 0>>(AttentionOp)>;
/// Emits the launches (in order) of one tg.attention_grad op not assigned to
/// cuDNN (provided by the attention backward generator).
using AttentionGradEmitter =
    function_ref<FailureOr<SmallVector<KernelStep, 0>>(AttentionGradOp)>;

/// Splits `fn` into kernel launches in program order such that running them
/// in order computes every result of `fn`. Pointwise chains are fused into one
/// kernel, layout ops and splat constants are folded into the loads of their
/// users where possible, reductions/softmax/matmul/fused_matmul get their own
/// kernels, each tg.attention is handed to `emitAttention` and each
/// tg.attention_grad not on cuDNN to `emitAttentionGrad`. tg.sdpa and
/// tg.sdpa_grad must have been decomposed or fused before. Emits a located
/// diagnostic and fails on anything it cannot generate.
FailureOr<SmallVector<KernelStep, 0>>
emitGenericKernels(func::FuncOp fn, AttentionEmitter emitAttention,
                   AttentionGradEmitter emitAttentionGrad = nullptr);

} // namespace mlir::tg

#endif // TG_LOWERING_KERNELSTEP_H
