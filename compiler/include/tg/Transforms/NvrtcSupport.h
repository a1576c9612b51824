#ifndef TG_TRANSFORMS_NVRTCSUPPORT_H
#define TG_TRANSFORMS_NVRTCSUPPORT_H

// What the generated attention kernels (tg::codegen) run: one rule each for
// the forward and the backward, used by tg-select-backend (to explain),
// tg-expand-attention (to expand the rest) and the plan lowering (to build
// the kernel spec).

// (The kernel specs themselves: NvrtcKernelSpecs.h.)

#include "tg/Backend/Backend.h"
#include "tg/Dialect/TG/IR/TGOps.h"

#include <string>

namespace mlir::tg {

/// Why the fused forward kernel cannot run `op` (empty: it can). Strides are
/// checked when the plan is built. `target` is the compile target as
/// tg-compile's --arch names it (empty: not known): FP8 attention has its
/// fused kernel for sm_90a only.
std::string nvrtcAttentionUnsupportedReason(AttentionOp op,
                                            llvm::StringRef target = "");

/// Why the fused backward kernels cannot run `op` (empty: they can).
std::string nvrtcAttentionGradUnsupportedReason(AttentionGradOp op);

/// Whether the plan lowering gives `op` the split-KV decode kernel (the
/// generator's decodeKernelApplies on the op's shapes and options). A score
/// region that gathers from a table counts as a possible document mask,
/// which the decode kernel does not take: false.
bool nvrtcDecodeKernelApplies(AttentionOp op);

/// The NVRTC backend: runs every op; its unsupportedReason() is the fused
/// kernels' rule above for tg.attention and tg.attention_grad (what they
/// cannot run is expanded by tg-expand-attention) and "" otherwise.
const BackendInterface &nvrtcBackend();

} // namespace mlir::tg

#endif // TG_TRANSFORMS_NVRTCSUPPORT_H
