#include <gtest/gtest.h>

#include <cmath>
#include <vector>

#include "analysis/cost.h"
#include "analysis/frontier.h"
#include "analysis/iso.h"
#include "analysis/repetitions.h"

namespace frontier::analysis {
namespace {

OperatingPoint P(double x, double total, double output = -1) {
  OperatingPoint p;
  p.interactivity = x;
  p.total_tput_per_gpu = total;
  p.output_tput_per_gpu = output < 0 ? total / 2 : output;
  return p;
}

TEST(Pareto, KeepsOnlyNonDominatedPointsOrderedByInteractivity) {
  // Hand-made set: (x, y). Dominated: (15, 500) by (20, 800); (40, 300) by (40, 400);
  // (5, 900) by (10, 1000). Ignored: y = 0 and x = NaN.
  std::vector<OperatingPoint> pts = {P(10, 1000), P(20, 800), P(15, 500), P(40, 400),
                                     P(40, 300),  P(80, 100), P(5, 900),  P(90, 0),
                                     P(std::nan(""), 5000)};
  auto f = ParetoFrontier(pts, Throughput::kTotal);
  EXPECT_EQ(f, (std::vector<size_t>{0, 1, 3, 5}));
  // On output throughput a point can be on the frontier that is not on the total one.
  pts[2].output_tput_per_gpu = 450;  // (15, 450) beats (20, 400) at x = 15
  auto fo = ParetoFrontier(pts, Throughput::kOutput);
  EXPECT_EQ(fo, (std::vector<size_t>{0, 2, 1, 3, 5}));
}

TEST(Pareto, DuplicatesKeepOneAndEqualXKeepsTheHigher) {
  std::vector<OperatingPoint> pts = {P(10, 100), P(10, 100), P(10, 200)};
  EXPECT_EQ(ParetoFrontier(pts, Throughput::kTotal), (std::vector<size_t>{2}));
  EXPECT_TRUE(ParetoFrontier({}, Throughput::kTotal).empty());
}

TEST(Interpolate, PassesThroughPointsIsExactOnALineAndNeverExtrapolates) {
  Curve line{{10, 20, 40, 80}, {1000, 900, 700, 300}};  // y = 1100 - 10x
  for (double x : {10.0, 12.5, 20.0, 33.0, 55.5, 80.0}) {
    auto y = Interpolate(line, x);
    ASSERT_TRUE(y.has_value()) << x;
    EXPECT_NEAR(*y, 1100 - 10 * x, 1e-9) << x;
  }
  EXPECT_FALSE(Interpolate(line, 9.999).has_value());
  EXPECT_FALSE(Interpolate(line, 80.001).has_value());
  EXPECT_FALSE(Interpolate(Curve{}, 10).has_value());
  Curve one{{25}, {400}};
  EXPECT_DOUBLE_EQ(*Interpolate(one, 25), 400);
  EXPECT_FALSE(Interpolate(one, 26).has_value());
}

TEST(Interpolate, MonotoneWithoutOvershootOnAKinkedFrontier) {
  // A sharp knee, where a natural cubic spline would overshoot.
  Curve c{{1, 2, 3, 50, 100}, {5000, 4990, 4980, 100, 90}};
  double prev = 1e18;
  for (double x = 1; x <= 100; x += 0.25) {
    auto y = Interpolate(c, x);
    ASSERT_TRUE(y.has_value());
    EXPECT_LE(*y, prev + 1e-9) << "not decreasing at " << x;
    // Within its bracketing points.
    size_t k = 0;
    while (k + 1 < c.x.size() && c.x[k + 1] < x) ++k;
    const double hi = c.y[k], lo = c.y[std::min(k + 1, c.y.size() - 1)];
    EXPECT_LE(*y, hi + 1e-9);
    EXPECT_GE(*y, lo - 1e-9);
    prev = *y;
  }
  for (size_t i = 0; i < c.x.size(); ++i) EXPECT_NEAR(*Interpolate(c, c.x[i]), c.y[i], 1e-9);
}

TEST(Iso, RatiosAtEqualInteractivityAndNoValueOutsideAFrontier) {
  // A: y = 2000 - 10x on [10, 100]; B: half of A on [10, 50].
  Series a{"A", {P(10, 1900), P(50, 1500), P(100, 1000)}};
  Series b{"B", {P(10, 950), P(30, 850), P(50, 750)}};
  auto rows = CompareAtInteractivity({a, b}, {25, 50, 75}, Throughput::kTotal);
  ASSERT_EQ(rows.size(), 3u);
  EXPECT_NEAR(*rows[0].tput[0], 1750, 1e-9);
  EXPECT_NEAR(*rows[0].tput[1], 875, 1e-9);
  EXPECT_NEAR(*rows[0].ratio[1], 0.5, 1e-12);
  EXPECT_DOUBLE_EQ(*rows[0].ratio[0], 1.0);
  EXPECT_NEAR(*rows[1].ratio[1], 0.5, 1e-12);
  EXPECT_TRUE(rows[2].tput[0].has_value());
  EXPECT_FALSE(rows[2].tput[1].has_value());  // B's frontier stops at 50: no extrapolation
  EXPECT_FALSE(rows[2].ratio[1].has_value());
  EXPECT_EQ(DefaultTargets({a, b}, Throughput::kTotal),
            (std::vector<double>{10, 20, 25, 30, 40, 50}));
}

TEST(Cost, DollarsPerMillionTokensAndTokensPerJoule) {
  // $3.60/GPU-hour at 1000 tok/s/GPU: 3.6M tokens per hour per GPU -> $1 per million.
  EXPECT_NEAR(*CostPerMillionTokens(3.6, 1000), 1.0, 1e-12);
  EXPECT_NEAR(*CostPerMillionTokens(2.0, 500), 2.0 / 1.8, 1e-12);
  EXPECT_FALSE(CostPerMillionTokens(0, 1000).has_value());
  EXPECT_FALSE(CostPerMillionTokens(2, 0).has_value());
  EXPECT_NEAR(*TokensPerJoule(1400, 700), 2.0, 1e-12);
  EXPECT_FALSE(TokensPerJoule(1400, 0).has_value());
  // $3.60/GPU-hour at 1000 tok/s/GPU: 3.6M tokens per hour for $3.60 -> 1M tokens per dollar.
  EXPECT_NEAR(*TokensPerDollar(3.6, 1000), 1e6, 1e-6);
  EXPECT_FALSE(TokensPerDollar(0, 1000).has_value());
}

TEST(Repetitions, StudentTConfidenceInterval) {
  // Samples 10, 12, 14: mean 12, s = 2, t(0.975, 2) = 4.303 -> half width 4.303 * 2 / sqrt(3).
  std::vector<double> x = {10, 12, 14};
  MeanCi ci = MeanConfidence(x);
  EXPECT_DOUBLE_EQ(ci.mean, 12);
  EXPECT_NEAR(ci.stddev, 2, 1e-12);
  EXPECT_NEAR(ci.half_width, 4.303 * 2 / std::sqrt(3.0), 1e-9);
  EXPECT_TRUE(ci.measured);
  std::vector<double> one = {5};
  EXPECT_FALSE(MeanConfidence(one).measured);
  EXPECT_EQ(MeanConfidence(one).half_width, 0);
  EXPECT_NEAR(StudentT(0.95, 1000), 1.962, 2e-3);  // tends to z = 1.96
  EXPECT_NEAR(StudentT(0.99, 5), 4.032, 1e-9);
}

}  // namespace
}  // namespace frontier::analysis
