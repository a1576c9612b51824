#include <gtest/gtest.h>
// Replaced by the numerics tests (bf16/f16/fp8 rounding, Philox known answers).
TEST(Numerics, Placeholder) { EXPECT_TRUE(true); }
