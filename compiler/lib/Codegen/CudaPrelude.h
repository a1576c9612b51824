#ifndef TG_CODEGEN_CUDAPRELUDE_H
#define TG_CODEGEN_CUDAPRELUDE_H

// Device helpers shared by generated kernels: thin wrappers over the PTX
// instructions they use (cp.async, ldmatrix, mma.sync, ex2, cvt) and the
// Philox generator (cudaPhiloxSource, tg/Codegen/CudaText.h). Header-free,
// so NVRTC needs no include path.

#include "tg/Codegen/AttentionKernel.h"
#include "tg/Codegen/CudaText.h"

#include <string>

namespace tg::codegen {

/// Types, conversions and the tensor-core/async-copy wrappers for `type`.
std::string cudaPrelude(AttentionElementType type);

} // namespace tg::codegen

#endif // TG_CODEGEN_CUDAPRELUDE_H
