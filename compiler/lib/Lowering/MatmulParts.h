//===- MatmulParts.h - What the matmul kernels share ----------------------===//
//
// The description of a tg.matmul / tg.fused_matmul that both matmul
// emitters (MatmulKernel.cpp: the generic tiled kernel; MixedMatmulKernel.cpp:
// the mixed-input kernel of the device library) work from, and the region
// code they both write the same way.
//
//===----------------------------------------------------------------------===//

#ifndef TG_LIB_LOWERING_MATMULPARTS_H
#define TG_LIB_LOWERING_MATMULPARTS_H

#include "KernelEmitters.h"

#include <string>

namespace mlir::tg::lowering {

/// One matmul operand as the kernel sees it.
struct Operand {
  Value value;
  Region *prologue = nullptr; // null or empty: identity
  ValueRange captures;
  Type stagedType; // element type after the prologue
};

/// The whole op: plain tg.matmul has no regions or captures.
struct MatmulDesc {
  Operand a, b;
  Region *epilogue = nullptr;
  ValueRange epilogueCaptures;
  Type accType;
  Value result;
};

/// Loads the captures of `region` at `coords` (the operand's coordinates,
/// broadcast to each capture) and runs the region on `element`; the code
/// declares `resultVar` and sets it.
FailureOr<std::string> regionCode(Region *region, ValueRange captures,
                                  StringRef element, Type resultType,
                                  StringRef resultVar, StringRef prefix,
                                  ArrayRef<std::string> coords,
                                  LoweringState &state, KernelParams &params);

/// The code that turns `accVar` (accumulator compute type) at (m, n), with
/// the batch coordinates `batchCoords`, into the result element and stores
/// it into `out` (the epilogue region, or a conversion).
FailureOr<std::string> epilogueCode(const MatmulDesc &desc,
                                    ArrayRef<std::string> batchCoords,
                                    StringRef accVar, StringRef out,
                                    bool batched, LoweringState &state,
                                    KernelParams &params);

/// The mixed-input kernel (device/mixed_matmul.cuh) for `op`, which
/// mixedMatmulKernelRefusal accepted and whose a and b are dense buffers:
/// one launch, or two with split K (the partial sums' combine).
LogicalResult emitMixedMatmulKernel(Operation *op, const MatmulDesc &desc,
                                    StringRef opName, LoweringState &state);

} // namespace mlir::tg::lowering

#endif // TG_LIB_LOWERING_MATMULPARTS_H
