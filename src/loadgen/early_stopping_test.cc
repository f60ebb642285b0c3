// LoadGen's early-stopping test against numbers worked out from its published
// definition: inference_rules.adoc, appendix "Early Stopping Criterion"
// (github.com/mlcommons/inference_policies), implemented in loadgen/
// early_stopping.cc and used by PerformanceSummary::EarlyStopping in
// loadgen/results.cc (github.com/mlcommons/inference): the least h with
// P[Binomial(h + t, 1 - p) <= t] < 1 - c, with p = 0.99, c = 0.99, d = 0.
#include "loadgen/early_stopping.h"

#include <gtest/gtest.h>

#include <cmath>
#include <vector>

namespace frontier::loadgen {
namespace {

const EarlyStoppingOptions kP99;  // p = 0.99, c = 0.99, d = 0

// t = 0: Odds(h, 0) = 0.99^h, so h is the least with 0.99^h < 0.01:
// 0.99^458 = 0.010017 >= 0.01 and 0.99^459 = 0.009917 < 0.01, h = 459.
TEST(EarlyStoppingTest, NoOverLatencyQueriesNeed459) {
  EXPECT_GE(std::pow(0.99, 458), 0.01);
  EXPECT_LT(std::pow(0.99, 459), 0.01);
  EXPECT_EQ(MinPassingQueries(0, kP99), 459);
  EXPECT_NEAR(EarlyStoppingOdds(459, 0, kP99), std::pow(0.99, 459), 1e-12);
}

// t = 1: Odds(h, 1) = 0.99^(h+1) + (h+1) x 0.01 x 0.99^h, which is 0.0100010 at
// h = 660 and 0.0099140 at h = 661: 661 + 1 = 662 queries, the count
// mlperf.conf sets as MultiStream's min_query_count (*.MultiStream.min_query_count = 662).
TEST(EarlyStoppingTest, OneOverLatencyQueryNeeds662Queries) {
  auto closed_form = [](int h) { return std::pow(0.99, h + 1) + (h + 1) * 0.01 * std::pow(0.99, h); };
  EXPECT_GE(closed_form(660), 0.01);
  EXPECT_LT(closed_form(661), 0.01);
  EXPECT_NEAR(EarlyStoppingOdds(660, 1, kP99), closed_form(660), 1e-12);
  EXPECT_NEAR(EarlyStoppingOdds(661, 1, kP99), closed_form(661), 1e-12);
  EXPECT_EQ(MinPassingQueries(1, kP99) + 1, 662);
}

// Larger t, from the binomial sum evaluated in exact rational arithmetic
// (sum_{x<=t} C(h+t, x) (1/100)^x (99/100)^(h+t-x) < 1/100, least h):
//   t:  2    3    5     10    20    50
//   h:  836  998  1302  2000  3284  6848
// Each lies inside the bracket LoadGen's MinPassingQueriesFinder searches on
// its first call, [99 t + 459, 459 t + 460], so LoadGen returns the same.
TEST(EarlyStoppingTest, MinPassingQueriesMatchesExactBinomialSums) {
  const std::vector<std::pair<int64_t, int64_t>> table = {{2, 836},   {3, 998},   {5, 1302},
                                                          {10, 2000}, {20, 3284}, {50, 6848}};
  for (auto [t, h] : table) {
    EXPECT_EQ(MinPassingQueries(t, kP99), h) << "t = " << t;
    EXPECT_GE(h, 99 * t + 459);
    EXPECT_LE(h, 459 * t + 460);
  }
}

// The 90th percentile (SingleStream's): t = 0 -> 44 (0.9^44 = 0.00970), t = 1
// -> 63, so LoadGen asks SingleStream runs for at least 63 + 1 = 64 queries.
TEST(EarlyStoppingTest, NinetiethPercentile) {
  EarlyStoppingOptions p90;
  p90.percentile = 0.90;
  EXPECT_LT(std::pow(0.9, 44), 0.01);
  EXPECT_GE(std::pow(0.9, 43), 0.01);
  EXPECT_EQ(MinPassingQueries(0, p90), 44);
  EXPECT_EQ(MinPassingQueries(1, p90), 63);
  EXPECT_EQ(MinPassingQueries(2, p90), 79);
  EXPECT_EQ(MinPassingQueries(3, p90), 94);
}

// The Server rule: n queries with t over the limit pass when n >= h(t) + t.
// 10 over the limit need 2000 + 10 = 2010 queries: 2010 pass, 2009 do not.
TEST(EarlyStoppingTest, ServerPassesAtExactlyTheRequiredCount) {
  for (int n : {2009, 2010}) {
    std::vector<double> samples(static_cast<size_t>(n), 100.0);
    for (int i = 0; i < 10; ++i) samples[static_cast<size_t>(i)] = 500.0;
    const EarlyStoppingResult r = EarlyStopping(samples, 450.0, kP99);
    EXPECT_EQ(r.overlatency, 10);
    EXPECT_EQ(r.required, 2010);
    EXPECT_EQ(r.met, n == 2010) << n;
  }
  // A sample equal to the limit is not over it (LoadGen counts latency > limit).
  std::vector<double> at_limit(459, 450.0);
  EXPECT_TRUE(EarlyStopping(at_limit, 450.0, kP99).met);
  EXPECT_FALSE(EarlyStopping(std::vector<double>(458, 1.0), 450.0, kP99).met);
}

// The estimate: the largest t with n >= h(t) + t; report the t-th largest.
// n = 1000: h(2) + 2 = 838 <= 1000 < h(3) + 3 = 1001, t = 2, the 2nd largest;
// n = 1001: t = 3. With samples 1..n ms the estimates are n - 1 and n - 2.
// Below h(1) + 1 = 662 queries there is no estimate.
TEST(EarlyStoppingTest, PercentileEstimate) {
  for (auto [n, rank] : {std::pair{1000, 2}, std::pair{1001, 3}, std::pair{662, 1}, std::pair{2010, 10}}) {
    std::vector<double> samples;
    for (int i = n; i >= 1; --i) samples.push_back(i);  // unsorted input
    const EarlyStoppingResult r = EarlyStopping(samples, 1e9, kP99);
    ASSERT_TRUE(r.estimate.has_value()) << n;
    EXPECT_EQ(r.estimate_rank, rank) << n;
    EXPECT_EQ(*r.estimate, n - rank + 1) << n;
  }
  EXPECT_FALSE(EarlyStopping(std::vector<double>(661, 1.0), 1e9, kP99).estimate.has_value());
}

}  // namespace
}  // namespace frontier::loadgen
