// The host masks' value type (tg/Masks/AttentionMasks.h) against a
// brute-force reading of tg.attention's masks (TGOps.td), and the limits it
// hands to the device rule (masks.cuh, MaskRule).
#include "tg/Masks/AttentionMasks.h"

#include <gtest/gtest.h>

#include <random>

namespace {
using tgc::masks::AttentionMasks;
using tgc::masks::Causal;

/// TGOps.td, read literally: padding keeps q < len_q and kv < len_kv; the
/// causal mask keeps kv <= diag; the window keeps
/// diag - window_left <= kv <= diag + window_right.
bool visibleByDefinition(const AttentionMasks &m, int64_t q, int64_t kv,
                         int64_t lenQ, int64_t lenKv) {
  if (q >= lenQ || kv >= lenKv)
    return false;
  int64_t diag = m.causal == Causal::BottomRight ? q + lenKv - lenQ : q;
  if (m.causal != Causal::None && kv > diag)
    return false;
  if (m.windowLeft && kv < diag - *m.windowLeft)
    return false;
  if (m.windowRight && kv > diag + *m.windowRight)
    return false;
  return true;
}

TEST(AttentionMasks, VisibleMatchesTheDefinition) {
  std::mt19937 rng(5);
  const std::optional<int64_t> windows[] = {std::nullopt, 0, 3, 17};
  for (Causal causal : {Causal::None, Causal::TopLeft, Causal::BottomRight})
    for (std::optional<int64_t> left : windows)
      for (std::optional<int64_t> right : windows)
        for (int trial = 0; trial < 6; ++trial) {
          AttentionMasks m;
          m.causal = causal;
          m.windowLeft = left;
          m.windowRight = right;
          int64_t sq = 1 + rng() % 40, skv = 1 + rng() % 40;
          // Padded lengths may be shorter than the shapes.
          int64_t lenQ = trial % 2 ? 1 + rng() % sq : sq;
          int64_t lenKv = trial % 3 ? 1 + rng() % skv : skv;
          for (int64_t q = 0; q < sq; ++q) {
            for (int64_t kv = 0; kv < skv; ++kv)
              ASSERT_EQ(m.visible(q, kv, lenQ, lenKv),
                        visibleByDefinition(m, q, kv, lenQ, lenKv))
                  << "q " << q << " kv " << kv;
            if (q >= lenQ)
              continue;
            // visibleKeys is the span of the visible keys (or empty).
            auto [first, last] = m.visibleKeys(q, lenQ, lenKv);
            for (int64_t kv = 0; kv < skv; ++kv)
              EXPECT_EQ(kv >= first && kv <= last,
                        visibleByDefinition(m, q, kv, lenQ, lenKv))
                  << "row " << q << " kv " << kv;
          }
        }
}

TEST(AttentionMasks, DiagonalFollowsTheAlignment) {
  AttentionMasks m;
  EXPECT_EQ(m.diagonal(3, 8, 20), 3);
  m.causal = Causal::TopLeft;
  EXPECT_EQ(m.diagonal(3, 8, 20), 3);
  m.causal = Causal::BottomRight;
  EXPECT_EQ(m.diagonal(3, 8, 20), 15);
}

TEST(AttentionMasks, DeviceLimits) {
  AttentionMasks m;
  EXPECT_FALSE(m.hasUpper());
  EXPECT_FALSE(m.hasLeft());
  EXPECT_EQ(m.rightLimit(), 0);
  EXPECT_EQ(m.leftLimit(), 0);
  // Causal: the diagonal, whatever window_right adds.
  m.causal = Causal::BottomRight;
  m.windowRight = 9;
  EXPECT_TRUE(m.hasUpper());
  EXPECT_EQ(m.rightBound(), 0);
  EXPECT_EQ(m.rightLimit(), 0);
  // window_right alone; huge windows are clamped to 2^30 for int32 math.
  m.causal = Causal::None;
  EXPECT_EQ(m.rightLimit(), 9);
  m.windowRight = int64_t(1) << 40;
  m.windowLeft = int64_t(1) << 35;
  EXPECT_EQ(m.rightBound(), int64_t(1) << 40);
  EXPECT_EQ(m.rightLimit(), int64_t(1) << 30);
  EXPECT_TRUE(m.hasLeft());
  EXPECT_EQ(m.leftLimit(), int64_t(1) << 30);
  m.windowLeft = 4;
  EXPECT_EQ(m.leftLimit(), 4);
}

} // namespace
