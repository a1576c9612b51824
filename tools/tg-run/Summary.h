#ifndef TG_TOOLS_TG_RUN_SUMMARY_H
#define TG_TOOLS_TG_RUN_SUMMARY_H

// The per-tensor summary tg-run prints: shape, dtype, min/max/mean and a
// checksum (the float64 sum of the values and an FNV-1a hash of their bit
// patterns in the element type), optionally followed by the values.

#include "tg/Reference/Interpreter.h"

#include "llvm/Support/raw_ostream.h"

namespace mlir::tg::run {

struct SummaryOptions {
  bool printValues = false;
  int64_t maxValues = 256; // print values only for tensors up to this size
  int precision = 6;       // significant digits
};

/// FNV-1a (64-bit) over each element's bit pattern in its element type,
/// ceil(width / 8) bytes little-endian per element (bf16 and f16: 2 bytes,
/// f32: 4, fp8 and i8 and i1: 1, i32: 4, i64: 8).
uint64_t bitHash(const ref::HostTensor &tensor);

/// Formats one value: integers exactly, floats with `precision` significant
/// digits ("inf", "-inf", "nan" for the special values).
std::string formatValue(double value, int precision, bool integer = false);

/// Prints "<role> <name>: ..." lines for `tensor`.
void printSummary(llvm::raw_ostream &os, llvm::StringRef role,
                  llvm::StringRef name, const ref::HostTensor &tensor,
                  const SummaryOptions &options);

} // namespace mlir::tg::run

#endif // TG_TOOLS_TG_RUN_SUMMARY_H
