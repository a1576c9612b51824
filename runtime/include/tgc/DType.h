#ifndef TGC_DTYPE_H
#define TGC_DTYPE_H

// Element types of plan buffers. Names follow the tg dialect (MLIR builtin
// type spellings); numeric values are part of the C ABI (tgc_dtype_t).

#include <cstdint>
#include <optional>
#include <string_view>

// Exported API: the library is built with hidden visibility
// (cmake/TgcSharedLibrary.cmake).
#pragma GCC visibility push(default)

namespace tgc {

enum class DType : int {
  BF16 = 1,
  F16 = 2,
  F32 = 3,
  F8E4M3FN = 4,
  F8E5M2 = 5,
  I8 = 6,
  I32 = 7,
  I64 = 8,
  I1 = 9, // stored as one byte per element (0 or 1)
  I4 = 10, // two's complement, two per byte: element i in byte i / 2, low nibble first
};

/// Bits per element (4 for I4).
unsigned dtypeBits(DType type);
/// Bytes per element of the whole-byte types; 0 for I4 (use dtypeBits or
/// storageBytes).
unsigned dtypeSize(DType type);
/// Bytes that `elements` consecutive elements occupy (rounded up to a byte).
uint64_t storageBytes(DType type, uint64_t elements);
/// "bf16", "f8E4M3FN", "i1", ...
const char *dtypeName(DType type);
std::optional<DType> parseDType(std::string_view name);
/// Whether `value` is one of the enumerators (for values from the C API).
bool isValidDType(int value);

} // namespace tgc

#pragma GCC visibility pop

#endif // TGC_DTYPE_H
