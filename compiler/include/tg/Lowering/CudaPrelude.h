#ifndef TG_LOWERING_CUDAPRELUDE_H
#define TG_LOWERING_CUDAPRELUDE_H

// The device-side helpers every generated kernel starts with: element
// loads/stores per storage type, rounding to each element type (as the
// reference interpreter rounds each op's result), tg.cast conversions,
// wrapping 64-bit integer arithmetic, and the Philox dropout keep bit.

#include "llvm/ADT/StringRef.h"

namespace mlir::tg {

/// The prelude text (includes cuda_fp16.h, cuda_bf16.h and cuda_fp8.h; needs
/// only -I<cuda>/include under NVRTC). Helper names start with `tg_` or
/// `TG_`; see compiler/lib/Codegen/device/elementwise.cuh for the list.
llvm::StringRef cudaPrelude();

} // namespace mlir::tg

#endif // TG_LOWERING_CUDAPRELUDE_H
