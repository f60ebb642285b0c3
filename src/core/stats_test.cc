#include "core/stats.h"

#include <gtest/gtest.h>

#include <vector>

namespace frontier {
namespace {

// Expected values computed with numpy 1.26: np.percentile(x, p), np.std(x).
TEST(StatsTest, MatchesNumpyLinearPercentile) {
  std::vector<double> x = {15, 20, 35, 40, 50};
  EXPECT_DOUBLE_EQ(Percentile(x, 0), 15.0);
  EXPECT_DOUBLE_EQ(Percentile(x, 100), 50.0);
  EXPECT_DOUBLE_EQ(Percentile(x, 50), 35.0);
  EXPECT_DOUBLE_EQ(Percentile(x, 40), 29.0);   // rank 1.6: 20 + 0.6 * 15
  EXPECT_DOUBLE_EQ(Percentile(x, 99), 49.6);   // rank 3.96: 40 + 0.96 * 10
  EXPECT_DOUBLE_EQ(Median(std::vector<double>{4, 1, 3, 2}), 2.5);
}

TEST(StatsTest, MeanAndPopulationStdDev) {
  std::vector<double> x = {2, 4, 4, 4, 5, 5, 7, 9};
  EXPECT_DOUBLE_EQ(Mean(x), 5.0);
  EXPECT_DOUBLE_EQ(StdDev(x), 2.0);
}

TEST(StatsTest, SelectionPercentilesMatchSortedOnes) {
  // Shuffled values with duplicates; every percentile in any order.
  std::vector<double> x;
  for (int i = 0; i < 1001; ++i) x.push_back(static_cast<double>((i * 7919) % 613) / 3.0);
  const std::vector<double> ps = {99.9, 50, 0, 90, 99, 100, 33.3, 50};
  std::vector<double> copy = x;
  std::vector<double> got = Percentiles(copy, ps);
  ASSERT_EQ(got.size(), ps.size());
  for (size_t i = 0; i < ps.size(); ++i) EXPECT_DOUBLE_EQ(got[i], Percentile(x, ps[i])) << ps[i];
  std::vector<double> empty;
  EXPECT_EQ(Percentiles(empty, ps), std::vector<double>(ps.size(), 0.0));
}

// From 65,536 samples the percentiles are taken by counting into buckets:
// still exactly the sorted sample's, with duplicates, a long tail and a
// constant sample.
TEST(StatsTest, BucketedPercentilesOfALargeSampleMatchSortedOnes) {
  std::vector<double> x;
  for (int i = 0; i < 200'000; ++i) {
    const double u = static_cast<double>((static_cast<int64_t>(i) * 7919) % 100'003) / 100'003.0;
    x.push_back(i % 5 == 0 ? 12.5 : 3.0 + 40.0 * u * u * u);  // many repeats and a skew
  }
  x.push_back(1e6);  // one far outlier squeezes everything else into few buckets
  const std::vector<double> ps = {0, 1, 50, 90, 95, 99, 99.9, 100, 37.5};
  std::vector<double> copy = x;
  std::vector<double> got = Percentiles(copy, ps);
  for (size_t i = 0; i < ps.size(); ++i) EXPECT_DOUBLE_EQ(got[i], Percentile(x, ps[i])) << ps[i];
  std::vector<double> same(70'000, 4.25);
  for (double v : Percentiles(same, ps)) EXPECT_DOUBLE_EQ(v, 4.25);
}

TEST(StatsTest, EmptySampleIsZero) {
  std::vector<double> x;
  EXPECT_EQ(Mean(x), 0.0);
  EXPECT_EQ(StdDev(x), 0.0);
  EXPECT_EQ(Percentile(x, 99), 0.0);
}

}  // namespace
}  // namespace frontier
