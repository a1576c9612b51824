// Rounding to the narrow float formats. Expected values are hand-derived bit
// patterns (comments show the arithmetic), never produced by the code under
// test. (Philox: PhiloxTest.cpp.)
#include "tgc/Numerics.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <random>

using tgc::Format;

namespace {
const double kInf = std::numeric_limits<double>::infinity();
const double kNaN = std::numeric_limits<double>::quiet_NaN();

uint32_t bits(Format f, double v) { return tgc::toBits(f, v); }
double p2(int e) { return std::ldexp(1.0, e); }
} // namespace

//===----------------------------------------------------------------------===//
// bf16: 8 exponent bits, 7 fraction bits
//===----------------------------------------------------------------------===//

TEST(NumericsBF16, ExactValues) {
  EXPECT_EQ(bits(Format::BF16, 1.0), 0x3F80u);
  EXPECT_EQ(bits(Format::BF16, -2.0), 0xC000u);
  EXPECT_EQ(bits(Format::BF16, 0.0), 0x0000u);
  EXPECT_EQ(bits(Format::BF16, -0.0), 0x8000u);
  EXPECT_EQ(tgc::fromBits(Format::BF16, 0x3FC0), 1.5);
}

TEST(NumericsBF16, TiesToEven) {
  // 1 + 2^-8 lies halfway between 1 (fraction 0) and 1 + 2^-7 (fraction 1).
  EXPECT_EQ(bits(Format::BF16, 1.0 + p2(-8)), 0x3F80u);
  // 1 + 3*2^-8 lies halfway between fractions 1 and 2: goes to 2.
  EXPECT_EQ(bits(Format::BF16, 1.0 + 3 * p2(-8)), 0x3F82u);
  // Just above the halfway point rounds up.
  EXPECT_EQ(bits(Format::BF16, 1.0 + p2(-8) + p2(-30)), 0x3F81u);
  // Just below it rounds down.
  EXPECT_EQ(bits(Format::BF16, 1.0 + p2(-8) - p2(-30)), 0x3F80u);
  // Negative values round symmetrically.
  EXPECT_EQ(bits(Format::BF16, -(1.0 + 3 * p2(-8))), 0xBF82u);
}

TEST(NumericsBF16, OverflowAndSubnormals) {
  double maxBf16 = 255.0 * p2(120); // (2 - 2^-7) * 2^127, bits 0x7F7F
  EXPECT_EQ(bits(Format::BF16, maxBf16), 0x7F7Fu);
  // Halfway between max and 2^128: the tie goes to the even side, infinity.
  EXPECT_EQ(bits(Format::BF16, maxBf16 + p2(119)), 0x7F80u);
  EXPECT_EQ(bits(Format::BF16, maxBf16 + p2(118)), 0x7F7Fu);
  EXPECT_EQ(bits(Format::BF16, -1e39), 0xFF80u);
  // Smallest subnormal 2^-133; half of it ties to zero, 3/4 rounds up.
  EXPECT_EQ(bits(Format::BF16, p2(-133)), 0x0001u);
  EXPECT_EQ(bits(Format::BF16, p2(-134)), 0x0000u);
  EXPECT_EQ(bits(Format::BF16, 0.75 * p2(-133)), 0x0001u);
  EXPECT_EQ(bits(Format::BF16, 3 * p2(-134)), 0x0002u); // tie 1.5 -> 2
  EXPECT_EQ(tgc::fromBits(Format::BF16, 0x007F), 127 * p2(-133));
  EXPECT_EQ(tgc::fromBits(Format::BF16, 0x0080), p2(-126));
}

TEST(NumericsBF16, InfAndNaN) {
  EXPECT_EQ(bits(Format::BF16, kInf), 0x7F80u);
  EXPECT_EQ(bits(Format::BF16, -kInf), 0xFF80u);
  EXPECT_EQ(bits(Format::BF16, kNaN), 0x7FC0u);
  EXPECT_TRUE(std::isnan(tgc::roundTo(Format::BF16, kNaN)));
  EXPECT_TRUE(std::isnan(tgc::fromBits(Format::BF16, 0x7FC1)));
  EXPECT_EQ(tgc::fromBits(Format::BF16, 0xFF80), -kInf);
}

//===----------------------------------------------------------------------===//
// f16: 5 exponent bits, 10 fraction bits
//===----------------------------------------------------------------------===//

TEST(NumericsF16, KnownValues) {
  EXPECT_EQ(bits(Format::F16, 1.0), 0x3C00u);
  EXPECT_EQ(bits(Format::F16, 0.1), 0x2E66u);       // 0.0999755859375
  EXPECT_EQ(bits(Format::F16, 1.0 / 3.0), 0x3555u); // 0.333251953125
  EXPECT_EQ(tgc::roundTo(Format::F16, 0.1), 0.0999755859375);
  // 1 + 2^-11 is halfway between 1 and 1 + 2^-10: ties to even (1).
  EXPECT_EQ(bits(Format::F16, 1.0 + p2(-11)), 0x3C00u);
  EXPECT_EQ(bits(Format::F16, 1.0 + 3 * p2(-11)), 0x3C02u);
}

TEST(NumericsF16, OverflowAndSubnormals) {
  EXPECT_EQ(bits(Format::F16, 65504.0), 0x7BFFu);
  EXPECT_EQ(bits(Format::F16, 65519.0), 0x7BFFu);
  EXPECT_EQ(bits(Format::F16, 65520.0), 0x7C00u); // tie -> even -> inf
  EXPECT_EQ(bits(Format::F16, -70000.0), 0xFC00u);
  EXPECT_EQ(bits(Format::F16, p2(-24)), 0x0001u);       // smallest subnormal
  EXPECT_EQ(bits(Format::F16, 1023 * p2(-24)), 0x03FFu); // largest subnormal
  EXPECT_EQ(bits(Format::F16, p2(-14)), 0x0400u);       // smallest normal
  EXPECT_EQ(bits(Format::F16, p2(-25)), 0x0000u);       // tie -> 0
  EXPECT_EQ(bits(Format::F16, -p2(-25)), 0x8000u);      // keeps the sign
  EXPECT_EQ(bits(Format::F16, 3 * p2(-25)), 0x0002u);   // tie 1.5 -> 2
  EXPECT_EQ(bits(Format::F16, kNaN), 0x7E00u);
}

#ifdef __FLT16_MAX__
// The compiler's own double -> _Float16 conversion is an independent
// reference for f16.
TEST(NumericsF16, MatchesCompilerFloat16) {
  std::mt19937_64 rng(7);
  for (int i = 0; i < 200000; ++i) {
    double exponent = static_cast<double>(rng() % 44) - 28.0;
    double mantissa = 1.0 + static_cast<double>(rng() >> 11) * p2(-53);
    double value = std::ldexp(mantissa, static_cast<int>(exponent));
    if (rng() & 1)
      value = -value;
    auto reference = static_cast<double>(static_cast<_Float16>(value));
    ASSERT_EQ(tgc::roundTo(Format::F16, value), reference) << value;
  }
}
#endif

//===----------------------------------------------------------------------===//
// f32 against the hardware conversion
//===----------------------------------------------------------------------===//

TEST(NumericsF32, MatchesHardwareFloat) {
  std::mt19937_64 rng(3);
  for (int i = 0; i < 200000; ++i) {
    int exponent = static_cast<int>(rng() % 320) - 160; // incl. subnormals
    double mantissa = 1.0 + static_cast<double>(rng() >> 11) * p2(-53);
    double value = std::ldexp(mantissa, exponent);
    auto reference = static_cast<double>(static_cast<float>(value));
    ASSERT_EQ(tgc::roundTo(Format::F32, value), reference) << value;
    float asFloat = static_cast<float>(value);
    uint32_t expectedBits;
    static_assert(sizeof(expectedBits) == sizeof(asFloat));
    std::memcpy(&expectedBits, &asFloat, sizeof(asFloat));
    ASSERT_EQ(tgc::toBits(Format::F32, value), expectedBits) << value;
  }
  EXPECT_EQ(tgc::roundTo(Format::F32, 1e39), kInf);
}

//===----------------------------------------------------------------------===//
// fp8
//===----------------------------------------------------------------------===//

TEST(NumericsF8E4M3FN, RoundingAndSaturation) {
  EXPECT_EQ(bits(Format::F8E4M3FN, 1.0), 0x38u);       // exponent field 7
  EXPECT_EQ(bits(Format::F8E4M3FN, 1.0625), 0x38u);    // tie 1 | 1.125 -> 1
  EXPECT_EQ(bits(Format::F8E4M3FN, 1.1875), 0x3Au);    // tie 1.125 | 1.25
  EXPECT_EQ(bits(Format::F8E4M3FN, 448.0), 0x7Eu);     // largest finite
  EXPECT_EQ(bits(Format::F8E4M3FN, 464.0), 0x7Eu);     // tie 448 | (480)
  EXPECT_EQ(bits(Format::F8E4M3FN, 1000.0), 0x7Eu);    // saturates
  EXPECT_EQ(bits(Format::F8E4M3FN, -1e30), 0xFEu);
  EXPECT_EQ(bits(Format::F8E4M3FN, kInf), 0x7Eu);      // no inf: saturates
  EXPECT_EQ(bits(Format::F8E4M3FN, -kInf), 0xFEu);
  EXPECT_EQ(bits(Format::F8E4M3FN, kNaN), 0x7Fu);
  EXPECT_EQ(tgc::roundTo(Format::F8E4M3FN, 500.0), 448.0);
  EXPECT_EQ(bits(Format::F8E4M3FN, p2(-9)), 0x01u);    // smallest subnormal
  EXPECT_EQ(bits(Format::F8E4M3FN, p2(-10)), 0x00u);   // tie -> 0
  EXPECT_EQ(bits(Format::F8E4M3FN, 3 * p2(-10)), 0x02u);
  EXPECT_EQ(bits(Format::F8E4M3FN, p2(-6)), 0x08u);    // smallest normal
  EXPECT_EQ(tgc::fromBits(Format::F8E4M3FN, 0x78), 256.0); // exp 15 is normal
  EXPECT_TRUE(std::isnan(tgc::fromBits(Format::F8E4M3FN, 0x7F)));
  EXPECT_TRUE(std::isnan(tgc::fromBits(Format::F8E4M3FN, 0xFF)));
  EXPECT_EQ(tgc::fromBits(Format::F8E4M3FN, 0x07), 7 * p2(-9));
}

TEST(NumericsF8E5M2, RoundingAndSaturation) {
  EXPECT_EQ(bits(Format::F8E5M2, 1.0), 0x3Cu);
  EXPECT_EQ(bits(Format::F8E5M2, 1.125), 0x3Cu);  // tie 1 | 1.25 -> 1
  EXPECT_EQ(bits(Format::F8E5M2, 1.375), 0x3Eu);  // tie 1.25 | 1.5 -> 1.5
  EXPECT_EQ(bits(Format::F8E5M2, 57344.0), 0x7Bu);
  EXPECT_EQ(bits(Format::F8E5M2, 1e6), 0x7Bu);    // saturates
  EXPECT_EQ(bits(Format::F8E5M2, kInf), 0x7Bu);   // saturates too
  EXPECT_EQ(bits(Format::F8E5M2, -kInf), 0xFBu);
  EXPECT_EQ(bits(Format::F8E5M2, kNaN), 0x7Eu);
  EXPECT_EQ(bits(Format::F8E5M2, p2(-16)), 0x01u); // smallest subnormal
  EXPECT_EQ(bits(Format::F8E5M2, p2(-17)), 0x00u);
  EXPECT_EQ(tgc::fromBits(Format::F8E5M2, 0x7C), kInf);
  EXPECT_TRUE(std::isnan(tgc::fromBits(Format::F8E5M2, 0x7D)));
}

// Every bit pattern decodes and re-encodes to itself (NaNs to the canonical
// NaN, f8E5M2's infinities saturate); values increase with the pattern among
// positives.
TEST(Numerics, RoundTripEveryPattern) {
  for (Format f : {Format::BF16, Format::F16, Format::F8E4M3FN,
                   Format::F8E5M2}) {
    tgc::FormatSpec spec = tgc::formatSpec(f);
    uint32_t count = 1u << spec.totalBits();
    double previous = -1.0;
    for (uint32_t b = 0; b < count; ++b) {
      double value = tgc::fromBits(f, b);
      if (std::isnan(value)) {
        EXPECT_EQ(tgc::toBits(f, value), spec.nanBits);
        continue;
      }
      if (std::isinf(value) && spec.saturates) {
        // f8E5M2 has infinities but conversions saturate them.
        EXPECT_EQ(tgc::roundTo(f, value), std::copysign(spec.maxFinite, value));
      } else {
        ASSERT_EQ(tgc::toBits(f, value), b) << tgc::formatName(f) << " " << b;
        ASSERT_EQ(tgc::roundTo(f, value), value);
      }
      if (b < count / 2) {
        ASSERT_GT(value, previous) << tgc::formatName(f) << " " << b;
        previous = value;
      }
    }
    EXPECT_EQ(previous, spec.hasInfinity ? kInf : spec.maxFinite);
  }
}

//===----------------------------------------------------------------------===//
// Integers
//===----------------------------------------------------------------------===//

TEST(NumericsInt, WrapAndSaturate) {
  EXPECT_EQ(tgc::wrapToWidth(200, 8), -56);
  EXPECT_EQ(tgc::wrapToWidth(-129, 8), 127);
  EXPECT_EQ(tgc::wrapToWidth(int64_t{1} << 32, 32), 0);
  EXPECT_EQ(tgc::wrapToWidth(2147483648LL, 32), -2147483648LL);
  EXPECT_EQ(tgc::wrapToWidth(3, 1), 1);
  EXPECT_EQ(tgc::floatToIntSaturating(1e10, 32), 2147483647);
  EXPECT_EQ(tgc::floatToIntSaturating(-1e10, 32), -2147483648LL);
  EXPECT_EQ(tgc::floatToIntSaturating(-3.7, 8), -3);
  EXPECT_EQ(tgc::floatToIntSaturating(300.5, 8), 127);
  EXPECT_EQ(tgc::floatToIntSaturating(kNaN, 32), 0);
  EXPECT_EQ(tgc::floatToIntSaturating(1e30, 64),
            std::numeric_limits<int64_t>::max());
  EXPECT_EQ(tgc::doubleToInt64Wrapping(p2(64) + p2(12)), 4096);
}
