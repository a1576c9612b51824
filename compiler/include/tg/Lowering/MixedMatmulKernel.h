#ifndef TG_LOWERING_MIXEDMATMULKERNEL_H
#define TG_LOWERING_MIXEDMATMULKERNEL_H

// The one rule for what the generated mixed-input matmul kernel
// (compiler/lib/Codegen/device/mixed_matmul.cuh) runs, used by the NVRTC
// lowering (to pick it) and by tg-mixed-matmul-plan (to offer it).

#include "mlir/IR/Operation.h"

#include <string>

namespace mlir::tg {

/// Why the mixed-input kernel cannot run the tg.matmul / tg.fused_matmul
/// `op` (empty: it can): it takes x [..., M, K] in bf16/f16 with no
/// prologue, a weight [K, N] in i8/e4m3/e5m2 that enters the product as
/// x's type (exactly, or through prologue_b), f32 accumulation, K % 8 == 0,
/// N % 16 == 0, and operands in row-major buffers: graph arguments without
/// tg.strides (the lowering copies a folded view of an intermediate into a
/// buffer of its own first).
std::string mixedMatmulKernelRefusal(Operation *op);

/// The weight types of a mixed-input matmul: i8, f8E4M3FN, f8E5M2.
bool isNarrowWeightType(Type type);

/// Rows (M: every result dimension but the last), K and N of a matmul.
struct MatmulExtent {
  int64_t m = 0, k = 0, n = 0;
};
MatmulExtent matmulExtent(Operation *op);

} // namespace mlir::tg

#endif // TG_LOWERING_MIXEDMATMULKERNEL_H
