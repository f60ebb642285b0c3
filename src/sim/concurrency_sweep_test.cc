#include "sim/concurrency_sweep.h"

#include <gtest/gtest.h>

#include "sim/engine/testing.h"

namespace frontier::sim {
namespace {

SweepPoint Point(double interactivity, double tput) {
  SweepPoint p;
  p.summary.interactivity = interactivity;
  p.summary.output_throughput_per_gpu = tput;
  return p;
}

TEST(ConcurrencySweepTest, MarksOnlyUndominatedPoints) {
  std::vector<SweepPoint> pts = {Point(100, 10), Point(80, 50), Point(70, 40), Point(50, 90), Point(50, 80),
                                 Point(0, 200)};
  MarkPareto(pts);
  EXPECT_TRUE(pts[0].pareto);
  EXPECT_TRUE(pts[1].pareto);
  EXPECT_FALSE(pts[2].pareto);  // (80, 50) beats it on both
  EXPECT_TRUE(pts[3].pareto);
  EXPECT_FALSE(pts[4].pareto);  // same interactivity, less throughput
  EXPECT_FALSE(pts[5].pareto);  // no interactivity measured
}

TEST(ConcurrencySweepTest, OnePointPerConcurrencyWithItsCap) {
  std::vector<workload::RequestSpec> reqs(64);
  for (int i = 0; i < 64; ++i) reqs[static_cast<size_t>(i)] = {i, 256, 32, {}, {}};
  int calls = 0;
  Result<std::vector<SweepPoint>> pts = SweepConcurrency(
      testing::TinyConfig(), reqs, workload::LoadOptions{}, {1, 4, 16}, metrics::SummaryOptions{}, SimulateOptions{},
      [&](const SweepPoint& p, const RunResult& run) {
        ++calls;
        EXPECT_EQ(run.requests.size(), 64u);
        EXPECT_EQ(p.summary.max_concurrent_requests, p.concurrency);
        return Status::Ok();
      });
  ASSERT_TRUE(pts.ok());
  EXPECT_EQ(calls, 3);
  ASSERT_EQ(pts->size(), 3u);
  EXPECT_FALSE(SweepConcurrency(testing::TinyConfig(), reqs, workload::LoadOptions{}, {0},
                                metrics::SummaryOptions{})
                   .ok());
}

}  // namespace
}  // namespace frontier::sim
