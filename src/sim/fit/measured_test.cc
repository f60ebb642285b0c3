#include "sim/fit/measured.h"

#include <gtest/gtest.h>

#include "sim/engine/testing.h"

namespace frontier::sim {
namespace {

MeasuredPoint Point(const std::string& kind, double throughput) {
  MeasuredPoint p;
  p.id = "run/" + kind;
  p.source = "db point 1";
  p.closed_loop = kind == "concurrency";
  p.load_value = 8;
  p.output_throughput = throughput;
  return p;
}

// Only a closed-loop point with throughput is fitted, on the requests that
// completed in the measured window with a prompt and an output, renumbered.
TEST(MeasuredModels, KeepsClosedLoopPointsAndTheirCompletedMeasuredRequests) {
  MeasuredPoint p = Point("concurrency", 500);
  p.requests = {{true, true, 100, 10}, {false, false, 100, 10}, {true, false, 0, 10}, {true, false, 100, 0},
                {true, false, 120, 30}, {true, false, 80, 20}};
  MeasuredPoint rate = Point("request_rate", 500);
  rate.requests = {{true, false, 100, 10}};
  MeasuredPoint empty = Point("concurrency", 0);
  empty.requests = {{true, false, 100, 10}};
  Result<std::vector<ResultModel>> m = MeasuredModels({rate, p, empty}, testing::TinyConfig(), "db");
  ASSERT_TRUE(m.ok()) << m.status().message();
  ASSERT_EQ(m->size(), 1u);
  const ResultModel& r = m->front();
  EXPECT_EQ(r.result().id, "run/concurrency");
  EXPECT_EQ(r.result().concurrency, 8);
  EXPECT_DOUBLE_EQ(r.result().value, 500);
  ASSERT_EQ(r.requests().size(), 2u);
  EXPECT_EQ(r.requests()[0].id, 0);
  EXPECT_EQ(r.requests()[0].input_len, 120);
  EXPECT_EQ(r.requests()[1].output_len, 20);
}

TEST(MeasuredModels, NothingToFitNamesTheDatabase) {
  Result<std::vector<ResultModel>> m = MeasuredModels({Point("concurrency", 500)}, testing::TinyConfig(), "runs.db");
  ASSERT_FALSE(m.ok());
  EXPECT_EQ(m.status().message(), "--runs: no concurrency points with output throughput in runs.db");
}

}  // namespace
}  // namespace frontier::sim
