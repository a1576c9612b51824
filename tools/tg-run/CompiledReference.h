#ifndef TG_TOOLS_TG_RUN_COMPILEDREFERENCE_H
#define TG_TOOLS_TG_RUN_COMPILEDREFERENCE_H

// The reference interpreter on the compiled graph (after the compile
// pipeline: fusion, backend selection), with inputs and outputs in the
// layouts of the graph as written. The fused graph computes scores and the
// softmax in f32 where the graph as written may round them to bf16/f16, so
// the GPU is checked against this reference and the deviation from the graph
// as written is reported on its own (docs/fusion.md, "Numerics").

#include "tg/Reference/Interpreter.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "tgc/Plan.h"

#include <cstdint>
#include <vector>

namespace mlir::tg::run {

/// The memory layout declared for a value of `type` with `strides` (the
/// plan's buffers use it for bound inputs and outputs).
tgc::Buffer declaredLayout(Type type, ArrayRef<int64_t> strides,
                           tgc::DType dtype);

/// Element offset (in elements of its type, from the buffer's start) of
/// each logical element (row-major order) in `buffer`.
std::vector<uint64_t> elementOffsets(const tgc::Buffer &buffer);

/// Runs the reference on `compiled` (the entry after the compile pipeline)
/// with `inputs` given in the layouts of `written` (the entry as written);
/// the outputs come back in `written`'s layouts. Emits a diagnostic on
/// failure.
FailureOr<SmallVector<ref::HostTensor>>
interpretCompiled(func::FuncOp written, func::FuncOp compiled,
                  ArrayRef<ref::HostTensor> inputs);

/// Counts tg-fuse-attention's remarks on dropped roundings while alive (the
/// remarks are still printed by the handlers installed before).
class RoundingRemarkCounter {
public:
  explicit RoundingRemarkCounter(MLIRContext *context);
  unsigned count() const { return remarks; }

private:
  unsigned remarks = 0;
  ScopedDiagnosticHandler handler;
};

} // namespace mlir::tg::run

#endif // TG_TOOLS_TG_RUN_COMPILEDREFERENCE_H
