#ifndef TG_CUDNN_CUDNNLOWERING_H
#define TG_CUDNN_CUDNNLOWERING_H

// Lowering of single tg ops to cuDNN operation graphs (the cuDNN backend).
// tg-select-backend asks unsupportedReason() which ops cuDNN can run; the
// backend's BackendInterface::lower (CudnnBackend.cpp), which the plan
// builder calls for every op carrying tg.backend = #tg<backend cudnn>, turns
// lower()'s graphs into a plan step.

#include "tg/Backend/Backend.h"
#include "tg/Cudnn/GraphBuilder.h"

#include "mlir/IR/Operation.h"

namespace mlir::tg::cudnn {

/// What the plan builder turns into one tgc::CudnnStep: alternative graphs,
/// tried in order at run time (e.g. the single fused SDPA op for cuDNN >=
/// 9.13.1, then the composite graph). Their bound tensors have no buffer
/// name yet; each builder's bindings and scratch tensors say whose buffer
/// they are.
struct Lowering {
  SmallVector<GraphBuilder, 1> graphs;
  /// Results whose buffers are zeroed before the step (cuDNN leaves parts
  /// of them unwritten, e.g. attention rows past seq_len_q).
  SmallVector<Value> zeroFirst;
};

/// Physical strides (elements) of the buffer holding a value.
using StridesFn = function_ref<SmallVector<int64_t>(Value)>;

/// Why the cuDNN backend cannot run `op`, or an empty string when it can
/// (as far as static rules tell: dtypes, head dims, score-region math,
/// options cuDNN has no equivalent for).
std::string unsupportedReason(Operation *op);

/// Why no cuDNN graph can be built for `op` ("" when one can). Narrower than
/// unsupportedReason(), which also refuses graphs that cuDNN's engines were
/// measured to reject (e.g. standalone reductions).
std::string graphUnsupportedReason(Operation *op);

/// Lowers one op that graphUnsupportedReason() accepts. Operands and results
/// are buffers (graph arguments, results or workspace intermediates).
FailureOr<Lowering> lower(Operation *op, StridesFn stridesOf);

/// The cuDNN backend (tg/Backend/Backend.h): unsupportedReason() and
/// lower() above.
const BackendInterface &backend();

} // namespace mlir::tg::cudnn

#endif // TG_CUDNN_CUDNNLOWERING_H
