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

// MLPerf LoadGen's rule (loadgen/results.cc): sorted[floor(n p / 100)], no
// interpolation, the last element when the index reaches n.
TEST(StatsTest, LoadgenIndexPercentile) {
  const auto m = PercentileMethod::kLoadgenIndex;
  std::vector<double> x = {15, 20, 35, 40, 50};
  EXPECT_DOUBLE_EQ(Percentile(x, 0, m), 15.0);
  EXPECT_DOUBLE_EQ(Percentile(x, 40, m), 35.0);   // index floor(2.0) = 2
  EXPECT_DOUBLE_EQ(Percentile(x, 50, m), 35.0);   // index floor(2.5) = 2
  EXPECT_DOUBLE_EQ(Percentile(x, 99, m), 50.0);   // index floor(4.95) = 4
  EXPECT_DOUBLE_EQ(Percentile(x, 100, m), 50.0);  // index 5 clamped to 4
  // 1000 samples 1..1000: p99 is sorted[990] = 991 (numpy's linear gives 990.01).
  std::vector<double> y;
  for (int i = 1000; i >= 1; --i) y.push_back(i);
  EXPECT_DOUBLE_EQ(Percentile(y, 99, m), 991.0);
  EXPECT_DOUBLE_EQ(Percentile(y, 99), 990.01);
  std::vector<double> copy = y;
  const std::vector<double> ps = {99, 50, 90};
  EXPECT_EQ(Percentiles(copy, ps, m), (std::vector<double>{991, 501, 901}));
  // The bucketed path of large samples gives the same element.
  std::vector<double> big;
  for (int i = 0; i < 100'000; ++i) big.push_back((i * 7919) % 100'000);
  EXPECT_EQ(Percentiles(big, ps, m), (std::vector<double>{99'000, 50'000, 90'000}));
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
  // Given the minimum and maximum (as Summarize gathers them), the same values exactly.
  std::vector<double> ranged = x;
  const std::vector<double> with_range = Percentiles(ranged, ps, 3.0, 1e6);
  for (size_t i = 0; i < ps.size(); ++i) EXPECT_EQ(with_range[i], got[i]) << ps[i];
  std::vector<double> same_ranged(70'000, 4.25);
  for (double v : Percentiles(same_ranged, ps, 4.25, 4.25)) EXPECT_EQ(v, 4.25);
}

TEST(StatsTest, EmptySampleIsZero) {
  std::vector<double> x;
  EXPECT_EQ(Mean(x), 0.0);
  EXPECT_EQ(StdDev(x), 0.0);
  EXPECT_EQ(Percentile(x, 99), 0.0);
}

}  // namespace
}  // namespace frontier
