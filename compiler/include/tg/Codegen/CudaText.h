#ifndef TG_CODEGEN_CUDATEXT_H
#define TG_CODEGEN_CUDATEXT_H

// What both CUDA generators (compiler/lib/Codegen for the attention kernels,
// compiler/lib/Lowering for the generic kernels) write the same way, so that
// it is written once: float constants and the Philox dropout code.

#include <string>

namespace tg::codegen {

/// A float constant for CUDA source, rounded to f32 (nearest even) and
/// printed so that it reads back exactly: `0.0883883461f`, `2.0f`,
/// `(-0.5f)` (negative values parenthesised, so that they can follow any
/// operator). Infinities and NaN are f32 bit patterns
/// (`__int_as_float(0x7f800000)`), which are not constant expressions.
std::string floatLiteral(double value);

/// The device library's device/elementwise.cuh as pasted into a kernel
/// (with the philox.cuh it includes): the generic kernels' element
/// loads/stores, rounding, casts, integer ops and reductions, Philox 4x32-10
/// and the tg.dropout keep bit. Guarded, so a kernel may paste it next to
/// the attention library.
std::string cudaElementwiseSource();

/// The device library's device/mixed_matmul.cuh as pasted into a kernel
/// (with the headers it includes), for the mixed-input matmul kernels of
/// the generic generator.
std::string mixedMatmulLibrarySource();

} // namespace tg::codegen

#endif // TG_CODEGEN_CUDATEXT_H
