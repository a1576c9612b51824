// tgc's one Philox (compiler/lib/Codegen/device/philox.cuh), compiled on the
// host as the reference interpreter compiles it: Random123's known-answer
// vectors, the documented tg.dropout mapping (key, counter, word, threshold)
// against an independent implementation written from its definition, and
// the pair and 32-bit keep words the attention kernels use against the
// one-element keep bit the generic kernels and the reference use. The same
// text is what every kernel pastes (NVRTC compiles it in the generator
// tests), so these checks hold for the device code too.
#include "device/philox.cuh"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <random>

namespace {

//===----------------------------------------------------------------------===//
// Random123 kat_vectors, "philox4x32 10 <counter x4> <key x2> <expected x4>"
//===----------------------------------------------------------------------===//

struct KnownAnswer {
  uint32_t counter[4], key[2], expected[4];
};

const KnownAnswer kAnswers[] = {
    {{0, 0, 0, 0}, {0, 0}, {0x6627e8d5, 0xe169c58d, 0xbc57ac4c, 0x9b00dbd8}},
    {{0xffffffff, 0xffffffff, 0xffffffff, 0xffffffff},
     {0xffffffff, 0xffffffff},
     {0x408f276d, 0x41c83b0e, 0xa20bc7c6, 0x6d5451fd}},
    {{0x243f6a88, 0x85a308d3, 0x13198a2e, 0x03707344},
     {0xa4093822, 0x299f31d0},
     {0xd16cfe09, 0x94fdcceb, 0x5001e420, 0x24126ea1}},
};

TEST(Philox, KnownAnswers) {
  for (const KnownAnswer &a : kAnswers) {
    PhiloxWords w = philox4x32_10(a.counter[0], a.counter[1], a.counter[2], a.counter[3],
                                  PhiloxKey{a.key[0], a.key[1]});
    EXPECT_EQ(w.w0, a.expected[0]);
    EXPECT_EQ(w.w1, a.expected[1]);
    EXPECT_EQ(w.w2, a.expected[2]);
    EXPECT_EQ(w.w3, a.expected[3]);
  }
}

//===----------------------------------------------------------------------===//
// The threshold and the keep bit of one element
//===----------------------------------------------------------------------===//

TEST(Philox, DropoutThreshold) {
  EXPECT_EQ(dropout_threshold(0.0), 0u);
  EXPECT_EQ(dropout_threshold(-0.0), 0u);
  EXPECT_EQ(dropout_threshold(0.5), 0x80000000u);
  EXPECT_EQ(dropout_threshold(0.25), 0x40000000u);
  EXPECT_EQ(dropout_threshold(0.1), 429496729u); // floor(429496729.6)
  EXPECT_EQ(dropout_threshold(std::nextafter(1.0, 0.0)), 0xffffffffu);
}

TEST(Philox, DropoutKeepUsesWordIndexModFour) {
  // seed = offset = 0 and indices 0..3 use counter (0,0,0,0), key (0,0):
  // the words of the all-zeros known answer.
  const unsigned threshold = 0x9b00dbd8;
  EXPECT_FALSE(dropout_keep(0, 0, 0, threshold)); // 0x6627e8d5
  EXPECT_TRUE(dropout_keep(0, 0, 1, threshold));  // 0xe169c58d
  EXPECT_TRUE(dropout_keep(0, 0, 2, threshold));  // 0xbc57ac4c
  EXPECT_TRUE(dropout_keep(0, 0, 3, threshold));  // equal: kept
  EXPECT_FALSE(dropout_keep(0, 0, 3, threshold + 1));
  EXPECT_TRUE(dropout_keep(0, 0, 0, 0)); // threshold 0 (p = 0) keeps all
}

TEST(Philox, DropoutKeepCounterAndKeyLayout) {
  // key = (lo(seed), hi(seed)), counter = (lo(i/4), hi(i/4), lo(off),
  // hi(off)): the pi vector's key and counter words 2..3 as seed and offset.
  const uint64_t seed = 0x299f31d0a4093822ull, offset = 0x0370734413198a2eull;
  for (uint64_t i : {0ull, 1ull, 5ull, 4ull * 0x100000003ull + 2}) {
    const uint64_t group = i / 4;
    PhiloxWords w = philox4x32_10(uint32_t(group), uint32_t(group >> 32), 0x13198a2e,
                                  0x03707344, PhiloxKey{0xa4093822, 0x299f31d0});
    const uint32_t word = philox_word(w, unsigned(i % 4));
    EXPECT_TRUE(dropout_keep(seed, offset, i, word));
    EXPECT_FALSE(word != 0xffffffff && dropout_keep(seed, offset, i, word + 1));
  }
}

/// The tg.dropout mapping written out directly from its definition, with
/// an independent Philox 4x32-10.
bool referenceKeep(uint64_t seed, uint64_t offset, uint64_t i, double p) {
  uint32_t c[4] = {uint32_t(i / 4), uint32_t((i / 4) >> 32), uint32_t(offset),
                   uint32_t(offset >> 32)};
  uint32_t k[2] = {uint32_t(seed), uint32_t(seed >> 32)};
  for (int r = 0; r < 10; ++r) {
    uint64_t p0 = uint64_t(0xD2511F53u) * c[0], p1 = uint64_t(0xCD9E8D57u) * c[2];
    uint32_t n[4] = {uint32_t(p1 >> 32) ^ c[1] ^ k[0], uint32_t(p1),
                     uint32_t(p0 >> 32) ^ c[3] ^ k[1], uint32_t(p0)};
    std::copy(n, n + 4, c);
    k[0] += 0x9E3779B9u;
    k[1] += 0xBB67AE85u;
  }
  return c[i % 4] >= uint64_t(std::floor(p * 4294967296.0));
}

TEST(Philox, KeepMatchesTheMapping) {
  std::mt19937_64 rng(7);
  for (double p : {0.1, 0.5, 0.9}) {
    const unsigned threshold = dropout_threshold(p);
    for (int t = 0; t < 2000; ++t) {
      uint64_t seed = rng(), offset = rng() >> (t % 40);
      // Indices near group boundaries and past 2^32 (hi counter word).
      uint64_t i = (rng() >> (t % 3 == 0 ? 20 : 40)) + uint64_t(t % 4);
      ASSERT_EQ(dropout_keep(seed, offset, i, threshold), referenceKeep(seed, offset, i, p))
          << "i=" << i;
      bool k0, k1;
      dropout_keep_pair(i, philox_key(seed), offset, threshold, k0, k1);
      ASSERT_EQ(k0, referenceKeep(seed, offset, i, p)) << "i=" << i;
      ASSERT_EQ(k1, referenceKeep(seed, offset, i + 1, p)) << "i+1=" << i + 1;
    }
  }
}

TEST(Philox, KeepRateMatchesTheProbability) {
  const double p = 0.1;
  const unsigned threshold = dropout_threshold(p);
  int kept = 0;
  const int n = 200000;
  for (int i = 0; i < n; ++i)
    kept += dropout_keep(42, 7, uint64_t(i), threshold);
  EXPECT_NEAR(double(kept) / n, 1.0 - p, 0.005);
}

//===----------------------------------------------------------------------===//
// The 32-bit keep word (the attention backward) against the keep bits
//===----------------------------------------------------------------------===//

TEST(Philox, KeepBits32MatchKeepBits) {
  std::mt19937_64 rng(5);
  for (double p : {0.1, 0.5}) {
    const unsigned threshold = dropout_threshold(p);
    for (int t = 0; t < 300; ++t) {
      uint64_t seed = rng(), offset = rng() >> (t % 50);
      uint64_t i = (rng() >> (t % 2 ? 20 : 36)) + uint64_t(t % 4); // every alignment
      unsigned bits = dropout_keep_bits32(i, philox_key(seed), offset, threshold);
      for (int j = 0; j < 32; ++j)
        ASSERT_EQ((bits >> j) & 1u, unsigned(dropout_keep(seed, offset, i + j, threshold)))
            << "i=" << i << " j=" << j;
    }
  }
}

} // namespace
