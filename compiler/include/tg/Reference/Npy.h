#ifndef TG_REFERENCE_NPY_H
#define TG_REFERENCE_NPY_H

// Reading and writing NumPy .npy files (format versions 1.0-3.0, C order,
// little-endian) for graph inputs and outputs.

#include "tg/Reference/Interpreter.h"

#include "llvm/Support/Error.h"

#include <string>
#include <vector>

namespace mlir::tg::ref {

/// A .npy array as read from disk. Values are converted to double exactly
/// (64-bit integers must have magnitude <= 2^53).
struct NpyArray {
  std::string descr; // numpy dtype string, e.g. "<f4", "|i1", "|b1"
  std::vector<int64_t> shape;
  std::vector<double> values;
};

/// Limits on a .npy input: the file's size, and the elements (each becomes
/// a double in the reference interpreter).
constexpr uint64_t kMaxNpyBytes = uint64_t(1) << 32;
constexpr uint64_t kMaxNpyElements = kMaxHostElements;

/// Parses the bytes of a .npy file. Errors say what is wrong (bad magic,
/// truncated data or bytes after it, unsupported dtype or byte order, Fortran
/// order, more than kMaxNpyElements elements).
llvm::Expected<NpyArray> parseNpy(llvm::StringRef bytes);
llvm::Expected<NpyArray> readNpy(llvm::StringRef path);

/// Converts `array` into a tensor of `type`. The shape must match exactly.
/// Float arguments take float arrays (values rounded to the element type,
/// e.g. float32 data for bf16); integer and i1 arguments take integer or
/// bool arrays whose values fit.
llvm::Expected<HostTensor> npyToTensor(const NpyArray &array,
                                       RankedTensorType type);

/// The numpy dtype a tensor of `elementType` is stored as: f32 "<f4", f16
/// "<f2", bf16/f8E4M3FN/f8E5M2 "<f4" (numpy has no such dtypes; values are
/// exact in float32), i1 "|b1", i8 and i4 "|i1" (i4: one value in [-8, 7]
/// per byte), i32 "<i4", i64 "<i8".
std::string npyDescr(Type elementType);

/// The bytes of `tensor` as a version 1.0 .npy file.
std::string serializeNpy(const HostTensor &tensor);
llvm::Error writeNpy(llvm::StringRef path, const HostTensor &tensor);

} // namespace mlir::tg::ref

#endif // TG_REFERENCE_NPY_H
