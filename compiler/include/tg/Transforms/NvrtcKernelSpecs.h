#ifndef TG_TRANSFORMS_NVRTCKERNELSPECS_H
#define TG_TRANSFORMS_NVRTCKERNELSPECS_H

// The generated attention kernels' specs built from tg ops (the rules of
// NvrtcSupport.h). This header brings in namespace ::tg (tg::codegen): in a
// file that also uses namespace mlir, write mlir::tg:: and ::tg:: in full.

#include "tg/Codegen/AttentionBackward.h"
#include "tg/Dialect/TG/IR/TGOps.h"

#include <optional>
#include <string>

namespace mlir::tg {

/// The capture element types the generated kernels read.
std::optional<::tg::codegen::CaptureType> nvrtcCaptureType(Type elementType);

/// The q/k/v and output element types the generated forward kernels have
/// a form for (bf16, f16; e4m3, e5m2 for FP8 attention).
std::optional<::tg::codegen::AttentionElementType> nvrtcAttentionElementType(Type elementType);

/// Capture `index` of tg.attention / tg.attention_grad as the kernels name
/// and read it: `capture<index>`, a table of the capture's rank when `table`
/// (tg.gather reads it), else an element capture whose size-1 dims are
/// broadcast (the steps pass stride 0 there).
::tg::codegen::AttentionCapture nvrtcCapture(unsigned index, ::tg::codegen::CaptureType type,
                                             RankedTensorType captureType, bool table);

/// The backward kernel spec of `op` for the portable target (the plan
/// lowering sets the target of each variant), without the score region's
/// C++ (the plan lowering adds it; captures are named capture0, capture1,
/// ...), or, in `reason`, why the fused backward cannot run it.
std::optional<::tg::codegen::AttentionBackwardSpec>
nvrtcAttentionGradSpec(AttentionGradOp op, std::string &reason);

} // namespace mlir::tg

#endif // TG_TRANSFORMS_NVRTCKERNELSPECS_H
