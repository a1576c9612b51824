#include "Summary.h"

#include "tgc/Numerics.h"

#include "tg/Dialect/TG/IR/TGShapes.h"

#include "mlir/IR/BuiltinTypes.h"

#include <cmath>
#include <cstdio>

using namespace mlir;
using namespace mlir::tg;
using namespace mlir::tg::run;

namespace {
/// The element's bit pattern and its width in bits.
std::pair<uint64_t, unsigned> bitsOf(double value, Type type) {
  auto floatFormat = [&]() -> std::optional<tgc::Format> {
    if (type.isF32())
      return tgc::Format::F32;
    if (type.isBF16())
      return tgc::Format::BF16;
    if (type.isF16())
      return tgc::Format::F16;
    if (isa<Float8E4M3FNType>(type))
      return tgc::Format::F8E4M3FN;
    if (isa<Float8E5M2Type>(type))
      return tgc::Format::F8E5M2;
    return std::nullopt;
  }();
  if (floatFormat) {
    tgc::FormatSpec spec = tgc::formatSpec(*floatFormat);
    auto width = static_cast<unsigned>(spec.totalBits());
    // toBits would saturate an f8E5M2 infinity (held, e.g., from a
    // constant); encode it as the format's infinity instead.
    if (std::isinf(value) && spec.hasInfinity)
      return {(std::signbit(value) ? 1u << (width - 1) : 0u) |
                  (((1u << spec.exponentBits) - 1u) << spec.mantissaBits),
              width};
    return {tgc::toBits(*floatFormat, value), width};
  }
  unsigned width = type.getIntOrFloatBitWidth();
  auto bits = static_cast<uint64_t>(tgc::doubleToInt64Wrapping(value));
  if (width < 64)
    bits &= (uint64_t{1} << width) - 1;
  return {bits, width};
}
} // namespace

uint64_t mlir::tg::run::bitHash(const ref::HostTensor &tensor) {
  uint64_t hash = 0xcbf29ce484222325ull;
  for (double value : tensor.values) {
    auto [bits, width] = bitsOf(value, tensor.elementType);
    for (unsigned byte = 0; byte < (width + 7) / 8; ++byte) {
      hash ^= (bits >> (8 * byte)) & 0xFF;
      hash *= 0x100000001b3ull;
    }
  }
  return hash;
}

std::string mlir::tg::run::formatValue(double value, int precision,
                                      bool integer) {
  if (integer && std::isfinite(value) && std::fabs(value) < 0x1p63)
    return std::to_string(static_cast<long long>(value));
  if (std::isnan(value))
    return "nan";
  if (std::isinf(value))
    return value > 0 ? "inf" : "-inf";
  if (value == 0.0)
    return std::signbit(value) ? "-0" : "0";
  char buffer[64];
  std::snprintf(buffer, sizeof(buffer), "%.*g", precision, value);
  return buffer;
}

void mlir::tg::run::printSummary(llvm::raw_ostream &os, llvm::StringRef role,
                                 llvm::StringRef name,
                                 const ref::HostTensor &tensor,
                                 const SummaryOptions &options) {
  double min = INFINITY, max = -INFINITY, sum = 0.0;
  int64_t nans = 0;
  for (double value : tensor.values) {
    if (std::isnan(value)) {
      ++nans;
      continue;
    }
    min = std::min(min, value);
    max = std::max(max, value);
    sum += value;
  }
  int64_t counted = static_cast<int64_t>(tensor.values.size()) - nans;
  int p = options.precision;
  bool integer = isa<IntegerType>(tensor.elementType);
  os << role << " " << name << ": shape " << formatShape(tensor.shape)
     << " dtype " << ref::elementTypeName(tensor.elementType);
  if (counted > 0)
    os << " min " << formatValue(min, p, integer) << " max "
       << formatValue(max, p, integer)
       << " mean " << formatValue(sum / static_cast<double>(counted), p);
  if (nans > 0)
    os << " nan-count " << nans;
  char hash[32];
  std::snprintf(hash, sizeof(hash), "0x%016llx",
                static_cast<unsigned long long>(bitHash(tensor)));
  os << " sum " << formatValue(sum, p, integer) << " hash " << hash << "\n";
  if (!options.printValues)
    return;
  if (tensor.numElements() > options.maxValues) {
    os << "  values: (" << tensor.numElements()
       << " elements; more than --print-limit)\n";
    return;
  }
  os << "  values: [";
  for (size_t i = 0; i < tensor.values.size(); ++i)
    os << (i ? ", " : "") << formatValue(tensor.values[i], p, integer);
  os << "]\n";
}
