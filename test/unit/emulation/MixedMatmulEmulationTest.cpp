// The mixed-input matmul kernel (device/mixed_matmul.cuh) on the device
// emulator (DeviceEmulator.h), against a float64 product of the converted
// weight: every weight type, the prologue forms the generator writes
// (MixedMatmulKernel.cpp: identity, packed per column or per group of rows,
// generic), rows that are not a tile multiple, columns that
// end inside a CTA, a K tail inside a step and split K with its combine.
// Outputs start as NaN; every output is checked.

#include "../DeviceEmulator.h"

#include "mixed_matmul.cuh"

#include <gtest/gtest.h>

#include <cmath>
#include <random>
#include <vector>

namespace tg::device::mixed {
// The dynamic shared memory of the emulated CTAs (one at a time).
alignas(128) unsigned char smem_raw[229376];
} // namespace tg::device::mixed

namespace {

using tg::device::Elem;
using tg::device::Narrow;

template <Elem E, Narrow W, long long M, long long N, long long K, int MTile, int Splits,
          long long KPerSplit, int Warps = 4, int BlockK = 64, int Stages = 4, int WarpN = 32,
          long long Group = 0, int KSlices = 1>
struct Cfg {
  static constexpr Elem kElem = E;
  static constexpr Narrow kWeight = W;
  static constexpr long long kM = M, kN = N, kK = K;
  static constexpr int kMTile = MTile;
  static constexpr int kWarps = Warps, kWarpN = WarpN, kBlockK = BlockK, kStages = Stages;
  static constexpr long long kGroup = Group;
  static constexpr int kKSlices = KSlices;
  // The launch (the generator's choice in MixedMatmulKernel.cpp).
  static constexpr int kSplits = Splits;
  static constexpr long long kKPerSplit = KPerSplit;
};

float toFloat16(unsigned short bits, bool bf16) {
  return bf16 ? emu::bf16ToFloat(bits) : emu::f16ToFloat(bits);
}
unsigned short fromFloat16(float value, bool bf16) {
  return bf16 ? emu::floatToBf16(value) : emu::floatToF16(value);
}

/// A weight byte's value as tg.cast defines it (exact); for i4 the byte's
/// low nibble.
double narrowValue(unsigned char byte, Narrow w) {
  if (w == Narrow::I4)
    return static_cast<int>((byte & 15) ^ 8) - 8;
  if (w == Narrow::I8)
    return static_cast<signed char>(byte);
  int sign = byte & 0x80 ? -1 : 1;
  if (w == Narrow::E4M3) {
    int e = (byte >> 3) & 15, m = byte & 7;
    if (e == 15 && m == 7)
      return NAN;
    return sign * (e ? std::ldexp(1.0 + m / 8.0, e - 7) : std::ldexp(m / 8.0, -6));
  }
  int e = (byte >> 2) & 31, m = byte & 3;
  if (e == 31)
    return m ? NAN : sign * INFINITY;
  return sign * (e ? std::ldexp(1.0 + m / 4.0, e - 15) : std::ldexp(m / 4.0, -14));
}

// GroupScale: (w - zero) * scale with [K / G, N] zero points and scales
// (C::kGroup rows per group), each step rounded.
enum class Form { Identity, ColumnScale, GroupScale, Generic };

template <class C>
void runCase(Form form, unsigned seed) {
  constexpr bool kBf16 = C::kElem == Elem::BF16;
  constexpr long long M = C::kM, N = C::kN, K = C::kK;
  std::mt19937 rng(seed);
  constexpr bool kI4 = C::kWeight == Narrow::I4;
  std::vector<unsigned short> x(M * K);
  std::vector<unsigned char> w(kI4 ? K * N / 2 : K * N);
  std::vector<float> scale(N), rowScale(K);
  constexpr long long kGroups = C::kGroup ? K / C::kGroup : 1;
  std::vector<float> groupScale(kGroups * N), groupZero(kGroups * N);
  std::uniform_real_distribution<float> uniform(-1.0f, 1.0f);
  for (auto &v : x)
    v = fromFloat16(uniform(rng), kBf16);
  for (auto &b : w) {
    b = static_cast<unsigned char>(rng());
    // Keep fp8 weights finite (NaN weights are checked separately).
    if (C::kWeight == Narrow::E4M3 && (b & 0x7f) == 0x7f)
      b ^= 1;
    if (C::kWeight == Narrow::E5M2 && (b & 0x7c) == 0x7c)
      b &= 0xfb;
  }
  for (auto &s : scale)
    s = toFloat16(fromFloat16(0.5f + uniform(rng) * 0.25f, kBf16), kBf16);
  for (auto &s : rowScale)
    s = toFloat16(fromFloat16(1.0f + uniform(rng) * 0.5f, kBf16), kBf16);
  for (auto &s : groupScale)
    s = toFloat16(fromFloat16(0.25f + uniform(rng) * 0.125f, kBf16), kBf16);
  for (auto &z : groupZero)
    z = toFloat16(fromFloat16(2.0f * uniform(rng), kBf16), kBf16);

  auto round16 = [&](double v) { return toFloat16(fromFloat16(float(v), kBf16), kBf16); };
  // The converted weight as the generated prologues define it.
  auto weightAt = [&](long long k, long long n) -> double {
    if (kI4)
      return narrowValue(static_cast<unsigned char>(w[(k * N + n) / 2] >> (n % 2 * 4)), C::kWeight);
    return narrowValue(w[k * N + n], C::kWeight);
  };
  auto converted = [&](long long k, long long n) -> double {
    double v = weightAt(k, n);
    switch (form) {
    case Form::Identity:
      return round16(v);
    case Form::ColumnScale:
      return round16(round16(v) * scale[n]);
    case Form::GroupScale: {
      long long g = (k / C::kGroup) * N + n;
      return round16(round16(round16(v) - groupZero[g]) * groupScale[g]);
    }
    case Form::Generic:
      return round16(round16(v) * rowScale[k] * scale[n]); // one rounding of the f32 product
    }
    return 0;
  };

  std::vector<float> y(M * N, NAN);
  std::vector<float> partials(C::kSplits * M * N, NAN);
  // Per column (and group): the column scale, or the group's zero point
  // and scale; and the group the data is for, which the prologue checks.
  auto column = [&](long long n, long long k) {
    auto both = [&](float value) {
      unsigned s = fromFloat16(value, kBf16);
      return s | (s << 16);
    };
    tg::device::mixed::Pairs<3> c{};
    if (form == Form::GroupScale) {
      long long g = k / C::kGroup;
      c.v[0] = both(groupZero[g * N + n]);
      c.v[1] = both(groupScale[g * N + n]);
      c.v[2] = static_cast<unsigned>(g);
    } else {
      c.v[0] = both(scale[n]);
    }
    return c;
  };
  auto prologue = [&](const tg::device::mixed::Pairs<3> &col, unsigned word, int sel, long long k0, long long k1,
                      long long n) {
    unsigned pair = tg::device::mixed::narrow_pair<C::kWeight, C::kElem>(word, sel);
    switch (form) {
    case Form::Identity:
      return pair;
    case Form::ColumnScale:
      return kBf16 ? tg::device::mul_bf16x2(pair, col.v[0]) : tg::device::mul_f16x2(pair, col.v[0]);
    case Form::GroupScale:
      EXPECT_EQ(k0 / C::kGroup, col.v[2]) << "column data of another group at row " << k0;
      EXPECT_EQ(k1 / C::kGroup, col.v[2]) << "a pair across groups at row " << k1;
      pair = kBf16 ? tg::device::sub_bf16x2(pair, col.v[0]) : tg::device::sub_f16x2(pair, col.v[0]);
      return kBf16 ? tg::device::mul_bf16x2(pair, col.v[1]) : tg::device::mul_f16x2(pair, col.v[1]);
    case Form::Generic:
      break;
    }
    float v0 = tg::device::mixed::pair_to_float<C::kWeight>(word, sel, 0);
    float v1 = tg::device::mixed::pair_to_float<C::kWeight>(word, sel, 1);
    float r0 = round16(double(round16(v0)) * rowScale[k0] * scale[n]);
    float r1 = round16(double(round16(v1)) * rowScale[k1] * scale[n]);
    return tg::device::pack2<C::kElem>(r0, r1);
  };
  auto epilogue = [&](float acc, long long m, long long n) {
    EXPECT_TRUE(std::isnan(y[m * N + n])) << "written twice: " << m << ", " << n;
    y[m * N + n] = acc;
  };
  constexpr unsigned kBlockN = C::kWarpN * C::kWarps;
  emu::Dim3 grid{unsigned((N + kBlockN - 1) / kBlockN), unsigned((M + C::kMTile - 1) / C::kMTile),
                 unsigned(C::kSplits)};
  size_t smem = tg::device::mixed::shared_bytes(C::kMTile, C::kBlockK, kBlockN, C::kStages,
                                                tg::device::mixed::weight_bits(C::kWeight));
  ASSERT_LE(smem, sizeof(tg::device::mixed::smem_raw));
  emu::launch(grid, {32u * C::kWarps * C::kKSlices, 1, 1}, tg::device::mixed::smem_raw, smem, [&] {
    tg::device::mixed::mixed_matmul<C>(x.data(), w.data(), partials.data(), C::kKPerSplit, column, prologue,
                                       epilogue);
  });
  if (C::kSplits > 1)
    emu::launch({unsigned((M * N + 255) / 256), 1, 1}, {256, 1, 1}, tg::device::mixed::smem_raw, 0,
                [&] { tg::device::mixed::mixed_matmul_combine<C>(partials.data(), C::kSplits, epilogue); });

  for (long long m = 0; m < M; ++m)
    for (long long n = 0; n < N; ++n) {
      double ref = 0, magnitude = 0;
      for (long long k = 0; k < K; ++k) {
        double term = double(toFloat16(x[m * K + k], kBf16)) * converted(k, n);
        ref += term;
        magnitude += std::fabs(term);
      }
      float got = y[m * N + n];
      ASSERT_FALSE(std::isnan(got)) << "y[" << m << "][" << n << "] not written";
      ASSERT_NEAR(got, ref, 1e-5 * magnitude + 1e-6) << "y[" << m << "][" << n << "]";
    }
}

TEST(MixedMatmulEmulation, I8IdentityOneCta) {
  runCase<Cfg<Elem::BF16, Narrow::I8, 16, 128, 256, 16, 1, 256>>(Form::Identity, 1);
}

TEST(MixedMatmulEmulation, I8ColumnScaleSplitKWithTail) {
  // K 200: split 0 is rows 0-127, split 1 rows 128-199 (its second step ends
  // inside the step); 5 rows; 48 columns end inside the CTA's 128.
  runCase<Cfg<Elem::BF16, Narrow::I8, 5, 48, 200, 16, 2, 128>>(Form::ColumnScale, 2);
}

TEST(MixedMatmulEmulation, E4M3GenericF16TwoColumnBlocksTwoRowBlocks) {
  runCase<Cfg<Elem::F16, Narrow::E4M3, 40, 160, 128, 32, 1, 128>>(Form::Generic, 3);
}

TEST(MixedMatmulEmulation, E5M2ColumnScaleSixtyFourRows) {
  runCase<Cfg<Elem::BF16, Narrow::E5M2, 70, 32, 72, 64, 1, 128>>(Form::ColumnScale, 4);
}

TEST(MixedMatmulEmulation, EightWarpsKSteps128ThreeStages) {
  // 256 columns per CTA (one and a half CTAs of 384), K steps of 128 in a
  // 3-stage ring, split K whose second split ends inside a step.
  runCase<Cfg<Elem::BF16, Narrow::I8, 9, 384, 336, 16, 2, 256, 8, 128, 3>>(Form::ColumnScale, 5);
}

TEST(MixedMatmulEmulation, SixtyFourColumnsPerWarp) {
  // 4 warps of 64 columns: 256 per CTA, two ldmatrix per k16 step; 320
  // columns end inside the second CTA; 8 warps x 64 = 512-byte rows.
  runCase<Cfg<Elem::BF16, Narrow::E4M3, 20, 320, 192, 32, 2, 128, 4, 64, 3, 64>>(Form::ColumnScale, 7);
  runCase<Cfg<Elem::F16, Narrow::I8, 3, 512, 128, 16, 1, 128, 8, 64, 2, 64>>(Form::Identity, 8);
}

TEST(MixedMatmulEmulation, I4EveryPrologueForm) {
  // 4 warps of 64 columns (128-byte rows of nibbles): identity over two
  // CTAs of columns and a K tail; column scale with split K and 64 rows in
  // two row blocks; the generic prologue in f16 with 32 columns of a CTA's
  // 256 (N % 32 == 0 is the kernel's rule for i4).
  runCase<Cfg<Elem::BF16, Narrow::I4, 16, 512, 200, 16, 1, 256, 4, 128, 4, 64>>(Form::Identity, 11);
  runCase<Cfg<Elem::BF16, Narrow::I4, 70, 96, 384, 64, 2, 192, 4, 64, 4, 64>>(Form::ColumnScale, 12);
  runCase<Cfg<Elem::F16, Narrow::I4, 5, 32, 136, 16, 1, 256, 4, 128, 3, 64>>(Form::Generic, 13);
  runCase<Cfg<Elem::F16, Narrow::I4, 33, 288, 256, 32, 2, 128, 8, 64, 2, 64>>(Form::Identity, 14);
}

TEST(MixedMatmulEmulation, GroupScalesAndZeroPoints) {
  // Groups of 32 rows, four per K step of 128 (i4, the generator's tile);
  // groups of 128 rows over two K steps of 64 with split K whose second
  // split starts in the middle of a group (row 192); groups of 48 rows,
  // which start at any k16 step of a K step of 64 (f16, i8, two splits of
  // 128 rows and a tail of 96 ... 240).
  runCase<Cfg<Elem::BF16, Narrow::I4, 16, 256, 256, 16, 1, 256, 4, 128, 3, 64, 32>>(Form::GroupScale, 21);
  runCase<Cfg<Elem::BF16, Narrow::I4, 5, 96, 384, 16, 2, 192, 4, 64, 3, 64, 128>>(Form::GroupScale, 22);
  runCase<Cfg<Elem::F16, Narrow::I8, 9, 64, 240, 16, 2, 128, 4, 64, 4, 32, 48>>(Form::GroupScale, 23);
  runCase<Cfg<Elem::BF16, Narrow::E4M3, 33, 128, 256, 32, 1, 256, 8, 128, 3, 32, 128>>(Form::GroupScale, 24);
}

TEST(MixedMatmulEmulation, TwoKSlices) {
  // Two sets of warps, each taking half of every K step: i4 with groups of
  // 128 rows (one per K step of 128) over two splits and a row tail; i8
  // identity with 64-row tiles; e4m3 with groups of two K steps.
  runCase<Cfg<Elem::BF16, Narrow::I4, 20, 256, 512, 16, 2, 256, 4, 128, 3, 64, 128, 2>>(Form::GroupScale, 31);
  runCase<Cfg<Elem::F16, Narrow::I8, 70, 96, 200, 64, 1, 256, 4, 64, 3, 32, 0, 2>>(Form::Identity, 32);
  runCase<Cfg<Elem::BF16, Narrow::E4M3, 9, 64, 512, 16, 1, 512, 8, 64, 4, 32, 128, 2>>(Form::GroupScale, 33);
}

TEST(MixedMatmulEmulation, TwoStagesF16E4M3Identity) {
  runCase<Cfg<Elem::F16, Narrow::E4M3, 24, 64, 512, 32, 1, 512, 4, 128, 2>>(Form::Identity, 6);
}

TEST(MixedMatmulEmulation, NarrowConversionsAreExact) {
  // Every byte of every weight type through the kernel's conversion.
  for (int b = 0; b < 256; ++b) {
    unsigned word = unsigned(b) * 0x01010101u;
    double i8 = narrowValue(b, Narrow::I8), e4 = narrowValue(b, Narrow::E4M3),
           e5 = narrowValue(b, Narrow::E5M2);
    EXPECT_EQ(double(tg::device::mixed::narrow_to_float<Narrow::I8>(word, 2)), i8) << b;
    float f4 = tg::device::mixed::narrow_to_float<Narrow::E4M3>(word, 1);
    float f5 = tg::device::mixed::narrow_to_float<Narrow::E5M2>(word, 3);
    if (std::isnan(e4))
      EXPECT_TRUE(std::isnan(f4)) << b;
    else
      EXPECT_EQ(double(f4), e4) << b;
    if (std::isnan(e5))
      EXPECT_TRUE(std::isnan(f5)) << b;
    else
      EXPECT_EQ(double(f5), e5) << b;
  }
}

template <Narrow W, Elem E>
void checkPairs() {
  // Every pair of bytes, in both positions of a word: the packed exact
  // conversion equals the 16-bit rounding of the exact value (exact for
  // every weight type in bf16 and f16), NaN stays NaN, infinities stay.
  constexpr bool kBf16 = E == Elem::BF16;
  for (int lo = 0; lo < 256; ++lo)
    for (int hi = 0; hi < 256; hi += 7) {
      for (bool odd : {false, true}) {
        unsigned word = odd ? (unsigned(lo) << 8) | (unsigned(hi) << 24) | 0x00a5005au
                            : unsigned(lo) | (unsigned(hi) << 16) | 0x5a00a500u;
        unsigned pair = tg::device::mixed::narrow_pair<W, E>(word, odd);
        for (int half = 0; half < 2; ++half) {
          double want = narrowValue(half ? hi : lo, W);
          float got = toFloat16(static_cast<unsigned short>(half ? pair >> 16 : pair & 0xffffu), kBf16);
          if (std::isnan(want))
            ASSERT_TRUE(std::isnan(got)) << lo << " " << hi << " " << odd;
          else
            ASSERT_EQ(double(got), want) << lo << " " << hi << " " << odd << " half " << half;
        }
      }
    }
}

TEST(MixedMatmulEmulation, I4PairsAreExact) {
  // Every nibble pair at every position of a word, both 16-bit types: the
  // packed conversion and the per-element one give the exact value.
  for (unsigned lo = 0; lo < 16; ++lo)
    for (unsigned hi = 0; hi < 16; ++hi)
      for (int sel = 0; sel < 4; ++sel) {
        const unsigned word = 0x9a5c3e71u & ~((0xfu << (4 * sel)) | (0xfu << (16 + 4 * sel)));
        const unsigned w = word | (lo << (4 * sel)) | (hi << (16 + 4 * sel));
        const double want[2] = {narrowValue(lo, Narrow::I4), narrowValue(hi, Narrow::I4)};
        for (bool bf16 : {true, false}) {
          unsigned pair = bf16 ? tg::device::mixed::narrow_pair<Narrow::I4, Elem::BF16>(w, sel)
                               : tg::device::mixed::narrow_pair<Narrow::I4, Elem::F16>(w, sel);
          for (int half = 0; half < 2; ++half)
            ASSERT_EQ(double(toFloat16(static_cast<unsigned short>(half ? pair >> 16 : pair & 0xffffu), bf16)),
                      want[half])
                << lo << " " << hi << " sel " << sel << (bf16 ? " bf16" : " f16");
        }
        for (int second = 0; second < 2; ++second)
          ASSERT_EQ(double(tg::device::mixed::pair_to_float<Narrow::I4>(w, sel, second)), want[second]);
      }
}

TEST(MixedMatmulEmulation, NarrowPairsAreExact) {
  checkPairs<Narrow::I8, Elem::BF16>();
  checkPairs<Narrow::I8, Elem::F16>();
  checkPairs<Narrow::E4M3, Elem::BF16>();
  checkPairs<Narrow::E4M3, Elem::F16>();
  checkPairs<Narrow::E5M2, Elem::BF16>();
  checkPairs<Narrow::E5M2, Elem::F16>();
}

} // namespace
