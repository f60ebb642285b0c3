#include "power/integrate.h"

#include <cmath>

#include <gtest/gtest.h>

namespace frontier::power {
namespace {

constexpr Nanos kS = kNanosPerSecond;
const double kNaN = std::nan("");

PowerReading At(Nanos t, std::vector<double> e, std::vector<double> p) { return {t, std::move(e), std::move(p)}; }

TEST(IntegrateTest, CounterDifferenceInterpolatedAtTheWindowsEnds) {
  // A counter at 0, 100, 300, 600 J at 0..3 s: 100 W, then 200 W, then 300 W.
  std::vector<PowerReading> r = {At(0, {0}, {kNaN}), At(1 * kS, {100}, {kNaN}), At(2 * kS, {300}, {kNaN}),
                                 At(3 * kS, {600}, {kNaN})};
  auto e = Integrate(r, {"gpu0"}, kS / 2, 5 * kS / 2);  // [0.5 s, 2.5 s]
  ASSERT_TRUE(e.ok()) << e.status().message();
  // E(2.5) = 450, E(0.5) = 50.
  EXPECT_DOUBLE_EQ(e->joules, 400);
  EXPECT_DOUBLE_EQ(e->window_s, 2);
  EXPECT_DOUBLE_EQ(e->mean_w, 200);
  EXPECT_EQ(e->method, "energy counter");
  // Slopes of the intervals that overlap the window: 100, 200, 300 W.
  EXPECT_DOUBLE_EQ(e->peak_w, 300);
  EXPECT_EQ(e->samples, 2);  // the readings at 1 s and 2 s
  ASSERT_EQ(e->devices.size(), 1u);
  EXPECT_DOUBLE_EQ(e->devices[0].joules, 400);
}

TEST(IntegrateTest, PowerIntegratedByTrapezoids) {
  // Two devices: a ramp 100 -> 300 W over 2 s, and a constant 50 W.
  std::vector<PowerReading> r = {At(0, {kNaN, kNaN}, {100, 50}), At(1 * kS, {kNaN, kNaN}, {200, 50}),
                                 At(2 * kS, {kNaN, kNaN}, {300, 50})};
  auto e = Integrate(r, {"a", "b"}, 0, 2 * kS);
  ASSERT_TRUE(e.ok()) << e.status().message();
  EXPECT_EQ(e->method, "power integrated");
  EXPECT_DOUBLE_EQ(e->devices[0].joules, 400);  // (100+200)/2 + (200+300)/2
  EXPECT_DOUBLE_EQ(e->devices[1].joules, 100);
  EXPECT_DOUBLE_EQ(e->joules, 500);
  EXPECT_DOUBLE_EQ(e->devices[0].peak_w, 300);
  EXPECT_DOUBLE_EQ(e->peak_w, 350);
  EXPECT_DOUBLE_EQ(e->mean_w, 250);
  // A window inside one interval: P(0.25) = 125, P(0.75) = 175 -> 75 J over 0.5 s.
  auto inner = Integrate(r, {"a", "b"}, kS / 4, 3 * kS / 4);
  ASSERT_TRUE(inner.ok());
  EXPECT_DOUBLE_EQ(inner->devices[0].joules, 75);
  EXPECT_EQ(inner->samples, 0);
}

TEST(IntegrateTest, CounterPreferredAndPowerGivesThePeak) {
  std::vector<PowerReading> r = {At(0, {10}, {90}), At(1 * kS, {110}, {140}), At(2 * kS, {210}, {95})};
  auto e = Integrate(r, {"gpu0"}, 0, 2 * kS);
  ASSERT_TRUE(e.ok());
  EXPECT_EQ(e->method, "energy counter");
  EXPECT_DOUBLE_EQ(e->joules, 200);
  EXPECT_DOUBLE_EQ(e->peak_w, 140);
}

TEST(IntegrateTest, RefusesWindowsTheReadingsDoNotCover) {
  std::vector<PowerReading> r = {At(1 * kS, {0}, {kNaN}), At(2 * kS, {100}, {kNaN})};
  EXPECT_FALSE(Integrate(r, {"gpu0"}, 0, 2 * kS).ok());
  EXPECT_FALSE(Integrate(r, {"gpu0"}, kS, 3 * kS).ok());
  EXPECT_FALSE(Integrate(r, {"gpu0"}, 2 * kS, kS).ok());
  EXPECT_FALSE(Integrate(std::vector<PowerReading>{r[0]}, {"gpu0"}, kS, kS + 1).ok());
  // Neither a counter in every reading nor power readings.
  std::vector<PowerReading> gaps = {At(0, {0}, {kNaN}), At(1 * kS, {kNaN}, {kNaN})};
  auto e = Integrate(gaps, {"gpu0"}, 0, kS);
  ASSERT_FALSE(e.ok());
  EXPECT_NE(e.status().message().find("gpu0"), std::string::npos);
}

TEST(IntegrateTest, UnwrapStepCountsOneWrap) {
  double prev = -1;
  EXPECT_DOUBLE_EQ(UnwrapStep(900, 1000, &prev), 0);   // the first reading: the origin
  EXPECT_DOUBLE_EQ(UnwrapStep(950, 1000, &prev), 50);
  EXPECT_DOUBLE_EQ(UnwrapStep(30, 1000, &prev), 80);   // 950 -> 1000 -> 0 -> 30
  EXPECT_DOUBLE_EQ(UnwrapStep(30, 1000, &prev), 0);
}

}  // namespace
}  // namespace frontier::power
