// The Philox4x32-10 text pasted into every generated kernel, compiled on the
// host and checked against the Random123 known-answer vectors.
#include <gtest/gtest.h>

#define TG_PHILOX_FN inline
#include "Philox.inc"

namespace {

struct KnownAnswer {
  tg_philox_words counter;
  unsigned int key0, key1;
  tg_philox_words expected;
};

// Random123 kat_vectors, philox4x32 with 10 rounds.
const KnownAnswer kAnswers[] = {
    {{0, 0, 0, 0}, 0, 0, {0x6627e8d5, 0xe169c58d, 0xbc57ac4c, 0x9b00dbd8}},
    {{0xffffffff, 0xffffffff, 0xffffffff, 0xffffffff},
     0xffffffff,
     0xffffffff,
     {0x408f276d, 0x41c83b0e, 0xa20bc7c6, 0x6d5451fd}},
    {{0x243f6a88, 0x85a308d3, 0x13198a2e, 0x03707344},
     0xa4093822,
     0x299f31d0,
     {0xd16cfe09, 0x94fdcceb, 0x5001e420, 0x24126ea1}},
};

TEST(Philox, KnownAnswers) {
  for (const KnownAnswer &answer : kAnswers) {
    tg_philox_words words =
        tg_philox4x32_10(answer.counter, answer.key0, answer.key1);
    EXPECT_EQ(words.w0, answer.expected.w0);
    EXPECT_EQ(words.w1, answer.expected.w1);
    EXPECT_EQ(words.w2, answer.expected.w2);
    EXPECT_EQ(words.w3, answer.expected.w3);
  }
}

TEST(Philox, KeepBitUsesTheDocumentedCounterAndWord) {
  const long long seed = 0x123456789abcdefLL, offset = 0x7000000000000005LL;
  const unsigned long long index = (1ULL << 34) + 6; // group 2^32 + 1, word 2
  tg_philox_words counter = {1, 1, 5, 0x70000000};
  tg_philox_words words = tg_philox4x32_10(counter, 0x89abcdefu, 0x01234567u);
  EXPECT_EQ(tg_dropout_keep(seed, offset, index, words.w2),
            true); // word >= threshold when equal
  if (words.w2 != 0xffffffffu) {
    EXPECT_EQ(tg_dropout_keep(seed, offset, index, words.w2 + 1), false);
  }
}

TEST(Philox, KeepRateMatchesTheProbability) {
  const double prob = 0.1;
  const unsigned int threshold =
      static_cast<unsigned int>(prob * 4294967296.0);
  int kept = 0;
  const int n = 200000;
  for (int i = 0; i < n; ++i)
    kept += tg_dropout_keep(42, 7, static_cast<unsigned long long>(i),
                            threshold);
  EXPECT_NEAR(static_cast<double>(kept) / n, 1.0 - prob, 0.005);
  for (int i = 0; i < 64; ++i)
    EXPECT_TRUE(tg_dropout_keep(-1, -1, i, 0)); // threshold 0 keeps all
}

} // namespace
