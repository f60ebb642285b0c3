#include <gtest/gtest.h>

#include <cmath>

#include "analysis/regression.h"

namespace frontier::analysis {
namespace {

PointSamples Point(const std::string& key, std::vector<double> tput, std::vector<double> ttft) {
  PointSamples p;
  p.key = key;
  p.metrics["total_tput_per_gpu"] = std::move(tput);
  p.metrics["median_ttft_ms"] = std::move(ttft);
  return p;
}

const std::vector<MetricSpec> kMetrics = {{"total_tput_per_gpu", true}, {"median_ttft_ms", false}};

TEST(Regression, FlagsAKnownDropBeyondNoiseWithItsSignAndSize) {
  // Baseline tput 1000 +- 10 (s = 10), candidate 900 +- 10: a 10% drop, far beyond noise.
  auto b = Point("c16", {990, 1000, 1010}, {100, 101, 99});
  auto c = Point("c16", {890, 900, 910}, {100, 102, 98});
  auto r = FindRegressions({b}, {c}, kMetrics, {});
  ASSERT_EQ(r.deltas.size(), 2u);
  const MetricDelta& t = r.deltas[0];
  EXPECT_EQ(t.metric, "total_tput_per_gpu");
  EXPECT_DOUBLE_EQ(t.baseline, 1000);
  EXPECT_DOUBLE_EQ(t.candidate, 900);
  EXPECT_NEAR(t.relative_change, -0.10, 1e-12);
  EXPECT_TRUE(t.noise_measured);
  EXPECT_TRUE(t.regression);
  EXPECT_FALSE(t.improvement);
  // Noise: se = sqrt(100/3 + 100/3) = 8.165, dof 4, t = 2.776 -> threshold 22.67.
  EXPECT_NEAR(t.threshold, 2.776 * std::sqrt(200.0 / 3), 1e-6);
  EXPECT_FALSE(r.deltas[1].regression);  // TTFT unchanged within noise
  EXPECT_EQ(r.regressions, 1);
}

TEST(Regression, ADifferenceInsideTheMeasuredNoiseIsNotFlagged) {
  // Noisy baseline (s = 50): a 3% drop in the mean is inside the noise band.
  auto b = Point("c16", {950, 1000, 1050}, {100, 100, 100});
  auto c = Point("c16", {920, 970, 1020}, {100, 100, 100});
  auto r = FindRegressions({b}, {c}, kMetrics, {});
  EXPECT_NEAR(r.deltas[0].relative_change, -0.03, 1e-12);
  EXPECT_FALSE(r.deltas[0].regression);
  EXPECT_EQ(r.regressions, 0);
  // The same 3% drop with quiet repetitions (s = 1) is a regression.
  auto bq = Point("c16", {999, 1000, 1001}, {100, 100, 100});
  auto cq = Point("c16", {969, 970, 971}, {100, 100, 100});
  EXPECT_EQ(FindRegressions({bq}, {cq}, kMetrics, {}).regressions, 1);
}

TEST(Regression, LowerIsBetterMetricsAndImprovements) {
  auto b = Point("c1", {1000, 1000}, {100, 101});
  auto c = Point("c1", {1200, 1201}, {150, 151});  // more throughput, much worse TTFT
  auto r = FindRegressions({b}, {c}, kMetrics, {});
  EXPECT_TRUE(r.deltas[0].improvement);
  EXPECT_TRUE(r.deltas[1].regression);
  EXPECT_NEAR(r.deltas[1].relative_change, 0.4975, 1e-3);
  EXPECT_EQ(r.improvements, 1);
  EXPECT_EQ(r.regressions, 1);
}

TEST(Regression, SingleRepetitionUsesTheRelativeThresholdAndUnmatchedPointsAreListed) {
  RegressionOptions o;
  o.unmeasured_threshold = 0.05;
  auto b = Point("c1", {1000}, {100});
  auto small = Point("c1", {960}, {100});  // -4%: within 5%
  auto big = Point("c1", {940}, {100});    // -6%: beyond
  EXPECT_EQ(FindRegressions({b}, {small}, kMetrics, o).regressions, 0);
  auto r = FindRegressions({b, Point("c2", {1}, {1})}, {big, Point("c4", {1}, {1})}, kMetrics, o);
  EXPECT_EQ(r.regressions, 1);
  EXPECT_FALSE(r.deltas[0].noise_measured);
  EXPECT_NEAR(r.deltas[0].threshold, 50, 1e-9);
  EXPECT_EQ(r.only_baseline, (std::vector<std::string>{"c2"}));
  EXPECT_EQ(r.only_candidate, (std::vector<std::string>{"c4"}));
}

}  // namespace
}  // namespace frontier::analysis
