#ifndef TG_BACKEND_BACKEND_H
#define TG_BACKEND_BACKEND_H

// The interface each backend (NVRTC, cuDNN) implements, and where the passes
// find the backends of their MLIRContext. The passes (tg-select-backend,
// tg-mixed-matmul-plan, tg-expand-attention) and the plan lowering see only
// this interface, so that compiler/lib/Transforms neither includes nor links
// the cuDNN lowering, and lower-to-plan does not know what a backend builds.

#include "tg/Dialect/TG/IR/Backend.h"
#include "tgc/Plan.h"

#include "mlir/IR/DialectInterface.h"
#include "mlir/IR/Value.h"
#include "mlir/Support/LLVM.h"
#include "mlir/Support/TypeID.h"

#include <string>

namespace mlir::tg {

struct KernelArg;  // tg/Lowering/KernelStep.h
struct KernelStep; // tg/Lowering/KernelStep.h

/// The plan being built, as a backend's lowering sees it (lower-to-plan's
/// PlanBuilder implements it): buffers by value, and the steps of one op.
class PlanSteps {
public:
  virtual ~PlanSteps();
  /// The plan buffer of `value` (an argument, a result or an intermediate
  /// of the workspace, created on first use).
  virtual FailureOr<std::string> bufferFor(Value value) = 0;
  /// The buffer of a kernel argument of kind Buffer or Scratch.
  virtual FailureOr<std::string> bufferFor(const KernelArg &arg) = 0;
  /// The element strides `value`'s buffer has in the plan.
  virtual SmallVector<int64_t> stridesOf(Value value) = 0;
  /// A new workspace buffer, dense, live during the step being lowered.
  virtual std::string scratchBuffer(tgc::DType dtype,
                                    ArrayRef<int64_t> shape) = 0;
  /// The launch of `step`'s NVRTC kernel, its preferred variants first.
  virtual FailureOr<tgc::LaunchStep> launchOf(const KernelStep &step) = 0;
  /// Appends a step to the plan.
  virtual void add(tgc::Step step) = 0;
  /// Where errors of a step without an op point: the function.
  virtual Location location() const = 0;
};

/// One backend. Implementations are stateless and immutable, so that passes
/// running on several functions at once may share them.
class BackendInterface {
public:
  virtual ~BackendInterface();
  virtual Backend kind() const = 0;
  /// Why this backend cannot run `op` as it is, or "" when it can. cuDNN:
  /// no graph can be built, or its engines were measured to refuse it.
  /// NVRTC: the fused attention kernels' rule (tg-expand-attention expands
  /// what they cannot run into ops the generic kernels run).
  virtual std::string unsupportedReason(Operation *op) const = 0;
  /// Lowers `step` (the step of an op placed on this backend, or, for
  /// NVRTC, any generated kernel) into plan steps: NVRTC launches the
  /// step's kernel; cuDNN builds the graphs of `step.op`.
  virtual LogicalResult lower(const KernelStep &step, PlanSteps &plan) const = 0;
};

/// The backends of one MLIRContext, attached to the tg dialect by a
/// DialectRegistry extension (registerBackends(), tg/Plan/LowerToPlan.h):
/// set up before any pass runs, only read by passes.
class BackendsDialectInterface
    : public DialectInterface::Base<BackendsDialectInterface> {
public:
  BackendsDialectInterface(Dialect *dialect, const BackendInterface &nvrtc,
                           const BackendInterface &cudnn);
  const BackendInterface &get(Backend backend) const;

private:
  const BackendInterface &nvrtc;
  const BackendInterface &cudnn;
};

/// The backends of the context `op` lives in; an error on `op` naming
/// `pass` when none were registered.
FailureOr<const BackendsDialectInterface *> backendsFor(Operation *op,
                                                       StringRef pass);

} // namespace mlir::tg

MLIR_DECLARE_EXPLICIT_TYPE_ID(mlir::tg::BackendsDialectInterface)

#endif // TG_BACKEND_BACKEND_H
