#include "serve/synthetic.h"

#include <gtest/gtest.h>

#include <set>
#include <string>

namespace frontier::serve {
namespace {

TEST(CountTextTokens, OneTokenPerShortWordAndOnePerEightBytesOfALongOne) {
  EXPECT_EQ(CountTextTokens(""), 0);
  EXPECT_EQ(CountTextTokens("   \n\t "), 0);
  EXPECT_EQ(CountTextTokens("the of and"), 3);
  EXPECT_EQ(CountTextTokens("  between\tanother\n"), 2);  // 7-byte words: one each
  EXPECT_EQ(CountTextTokens("12345678"), 1);
  EXPECT_EQ(CountTextTokens("123456789"), 2);
  EXPECT_EQ(CountTextTokens(std::string(80, 'x')), 10);
}

TEST(SyntheticToken, DeterministicPerSeedAndVariedAcrossPositions) {
  std::set<std::string> seen;
  for (int i = 0; i < 200; ++i) {
    const std::string_view t = SyntheticToken(42, i);
    EXPECT_EQ(t, SyntheticToken(42, i));
    ASSERT_GE(t.size(), 2u);
    EXPECT_EQ(t[0], ' ');
    EXPECT_EQ(CountTextTokens(t), 1) << t;  // a generated token re-counts as one token
    seen.insert(std::string(t));
  }
  EXPECT_GT(seen.size(), 50u);
  int differ = 0;
  for (int i = 0; i < 50; ++i) differ += SyntheticToken(42, i) != SyntheticToken(43, i);
  EXPECT_GT(differ, 40);
}

TEST(UnitDraw, UniformEnoughAndInRange) {
  double sum = 0;
  int below_tenth = 0;
  const int n = 100000;
  for (int i = 0; i < n; ++i) {
    const double u = UnitDraw(7, 3, static_cast<uint64_t>(i));
    ASSERT_GE(u, 0.0);
    ASSERT_LT(u, 1.0);
    sum += u;
    below_tenth += u < 0.1;
  }
  EXPECT_NEAR(sum / n, 0.5, 0.01);
  EXPECT_NEAR(static_cast<double>(below_tenth) / n, 0.1, 0.01);
}

}  // namespace
}  // namespace frontier::serve
