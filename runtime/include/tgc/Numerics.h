#ifndef TGC_NUMERICS_H
#define TGC_NUMERICS_H

// Exact conversions between double and the narrow floating-point formats tgc
// computes in (f32, bf16, f16, f8E4M3FN, f8E5M2), plus the integer
// conversions of tg.cast. Plain C++17 with no dependencies: the CPU
// reference interpreter and the GPU runtime both use it.
//
// Rounding is round-to-nearest-even with correct subnormals. bf16, f16 and
// f32 overflow to infinity as IEEE does. The fp8 formats saturate: any
// finite overflow and any infinity become the largest finite value of the
// same sign (±448 for f8E4M3FN, which has no infinity; ±57344 for f8E5M2),
// as PTX `cvt ... .satfinite` does. NaN stays NaN (the canonical positive
// quiet NaN of the format).

#include <cmath>
#include <cstdint>
#include <limits>

namespace tgc {

enum class Format { F32, BF16, F16, F8E4M3FN, F8E5M2 };

/// The parameters that define a binary floating-point format.
struct FormatSpec {
  int exponentBits;
  int mantissaBits; // explicit fraction bits
  int bias;
  bool hasInfinity; // IEEE-style all-ones exponent for inf/NaN
  bool saturates;   // finite overflow and inf clamp to maxFinite
  uint32_t nanBits; // canonical NaN pattern
  double maxFinite;

  int totalBits() const { return 1 + exponentBits + mantissaBits; }
  /// Exponent of the smallest normal number.
  int minExponent() const { return 1 - bias; }
};

inline FormatSpec formatSpec(Format format) {
  switch (format) {
  case Format::F32:
    return {8, 23, 127, true, false, 0x7FC00000u,
            static_cast<double>(std::numeric_limits<float>::max())};
  case Format::BF16:
    return {8, 7, 127, true, false, 0x7FC0u, std::ldexp(255.0, 120)};
  case Format::F16:
    return {5, 10, 15, true, false, 0x7E00u, 65504.0};
  case Format::F8E4M3FN:
    // Exponent field 15 holds normal numbers except S.1111.111 (NaN).
    return {4, 3, 7, false, true, 0x7Fu, 448.0};
  case Format::F8E5M2:
    return {5, 2, 15, true, true, 0x7Eu, 57344.0};
  }
  return {8, 23, 127, true, false, 0x7FC00000u, 0.0};
}

inline const char *formatName(Format format) {
  switch (format) {
  case Format::F32:
    return "f32";
  case Format::BF16:
    return "bf16";
  case Format::F16:
    return "f16";
  case Format::F8E4M3FN:
    return "f8E4M3FN";
  case Format::F8E5M2:
    return "f8E5M2";
  }
  return "?";
}

namespace detail {
/// Rounds a non-negative integral-or-not `n` (< 2^53) to the nearest
/// integer, ties to even. Exact: floor and the subtraction lose nothing.
inline double roundHalfEven(double n) {
  double floor = std::floor(n);
  double fraction = n - floor;
  if (fraction > 0.5)
    return floor + 1.0;
  if (fraction < 0.5)
    return floor;
  return std::fmod(floor, 2.0) == 0.0 ? floor : floor + 1.0;
}

/// The exponent e with 2^e <= a < 2^(e+1), for finite a > 0.
inline int exponentOf(double a) {
  int e = 0;
  std::frexp(a, &e); // a = f * 2^e with f in [0.5, 1)
  return e - 1;
}
} // namespace detail

/// The value of `format` nearest to `value` (see the file comment for
/// overflow, saturation and NaN).
inline double roundTo(Format format, double value) {
  const FormatSpec spec = formatSpec(format);
  if (std::isnan(value))
    return std::numeric_limits<double>::quiet_NaN();
  double magnitude = std::fabs(value);
  double sign = std::signbit(value) ? -1.0 : 1.0;
  if (std::isinf(magnitude))
    return spec.saturates ? sign * spec.maxFinite : value;
  if (magnitude == 0.0)
    return value; // keeps the sign of zero
  // The spacing of representable numbers around `magnitude`: 2^(e - m) in
  // the binade of e, fixed at the smallest normal binade for subnormals.
  int exponent = detail::exponentOf(magnitude);
  if (exponent < spec.minExponent())
    exponent = spec.minExponent();
  int quantumExponent = exponent - spec.mantissaBits;
  double steps = std::ldexp(magnitude, -quantumExponent);
  double rounded = std::ldexp(detail::roundHalfEven(steps), quantumExponent);
  if (rounded > spec.maxFinite)
    rounded = spec.saturates ? spec.maxFinite
                             : std::numeric_limits<double>::infinity();
  return sign * rounded;
}

/// The bit pattern of roundTo(format, value), in the low totalBits() bits.
inline uint32_t toBits(Format format, double value) {
  const FormatSpec spec = formatSpec(format);
  double rounded = roundTo(format, value);
  if (std::isnan(rounded))
    return spec.nanBits;
  const int m = spec.mantissaBits;
  uint32_t signBit = std::signbit(rounded)
                         ? (1u << (spec.exponentBits + m))
                         : 0u;
  double magnitude = std::fabs(rounded);
  uint32_t exponentMask = (1u << spec.exponentBits) - 1u;
  if (std::isinf(magnitude))
    return signBit | (exponentMask << m);
  if (magnitude == 0.0)
    return signBit;
  int exponent = detail::exponentOf(magnitude);
  if (exponent < spec.minExponent()) {
    // Subnormal: exponent field 0, fraction counts steps of 2^(emin - m).
    auto fraction = static_cast<uint32_t>(
        std::ldexp(magnitude, m - spec.minExponent()));
    return signBit | fraction;
  }
  auto significand =
      static_cast<uint32_t>(std::ldexp(magnitude, m - exponent));
  uint32_t fraction = significand - (1u << m);
  auto biased = static_cast<uint32_t>(exponent + spec.bias);
  return signBit | (biased << m) | fraction;
}

/// The value of the bit pattern `bits` (low totalBits() bits) of `format`.
inline double fromBits(Format format, uint32_t bits) {
  const FormatSpec spec = formatSpec(format);
  const int m = spec.mantissaBits;
  uint32_t fractionMask = (1u << m) - 1u;
  uint32_t exponentMask = (1u << spec.exponentBits) - 1u;
  uint32_t fraction = bits & fractionMask;
  uint32_t biased = (bits >> m) & exponentMask;
  double sign = ((bits >> (spec.exponentBits + m)) & 1u) ? -1.0 : 1.0;
  if (biased == exponentMask) {
    if (spec.hasInfinity)
      return fraction == 0 ? sign * std::numeric_limits<double>::infinity()
                           : std::numeric_limits<double>::quiet_NaN();
    if (fraction == fractionMask) // f8E4M3FN: S.1111.111 is NaN
      return std::numeric_limits<double>::quiet_NaN();
  }
  if (biased == 0)
    return sign * std::ldexp(static_cast<double>(fraction),
                             spec.minExponent() - m);
  return sign * std::ldexp(static_cast<double>(fraction | (1u << m)),
                           static_cast<int>(biased) - spec.bias - m);
}

//===----------------------------------------------------------------------===//
// Integers (signed, two's complement, widths 1..64)
//===----------------------------------------------------------------------===//

/// `value` reduced modulo 2^bits into the signed range of a `bits`-wide
/// integer (bits = 1 gives 0 or 1: i1 is treated as unsigned).
inline int64_t wrapToWidth(int64_t value, unsigned bits) {
  if (bits >= 64)
    return value;
  uint64_t mask = (uint64_t{1} << bits) - 1u;
  uint64_t low = static_cast<uint64_t>(value) & mask;
  if (bits == 1)
    return static_cast<int64_t>(low);
  uint64_t signBit = uint64_t{1} << (bits - 1);
  return static_cast<int64_t>((low ^ signBit) - signBit);
}

/// An integral double reduced modulo 2^64 to int64 (no undefined behaviour
/// for magnitudes >= 2^63).
inline int64_t doubleToInt64Wrapping(double value) {
  if (!std::isfinite(value))
    return 0;
  double truncated = std::trunc(value);
  double wrapped = std::fmod(truncated, 18446744073709551616.0); // 2^64
  if (wrapped >= 9223372036854775808.0)
    wrapped -= 18446744073709551616.0;
  else if (wrapped < -9223372036854775808.0)
    wrapped += 18446744073709551616.0;
  return static_cast<int64_t>(wrapped);
}

/// tg.cast from a float to a `bits`-wide signed integer: truncates toward
/// zero and saturates to the integer's range; NaN gives 0. (For bits = 64 the
/// upper limit 2^63 - 1 is returned as an int64 exactly.)
inline int64_t floatToIntSaturating(double value, unsigned bits) {
  if (std::isnan(value))
    return 0;
  if (bits == 1)
    return value != 0.0 ? 1 : 0;
  double truncated = std::trunc(value);
  double lowest = -std::ldexp(1.0, static_cast<int>(bits) - 1);
  double limit = std::ldexp(1.0, static_cast<int>(bits) - 1); // exclusive
  if (truncated < lowest)
    return bits >= 64 ? std::numeric_limits<int64_t>::min()
                      : static_cast<int64_t>(lowest);
  if (truncated >= limit)
    return bits >= 64 ? std::numeric_limits<int64_t>::max()
                      : static_cast<int64_t>(limit) - 1;
  return static_cast<int64_t>(truncated);
}

} // namespace tgc

#endif // TGC_NUMERICS_H
