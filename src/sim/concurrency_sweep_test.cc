#include "sim/concurrency_sweep.h"

#include <unistd.h>

#include <cstdio>
#include <fstream>
#include <string>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "loadgen/point.h"
#include "sim/engine/testing.h"
#include "sim/sim_target.h"

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
      testing::TinyConfig(), reqs, workload::LoadOptions{}, {1, 4, 16}, SimulateOptions{},
      [&](const SweepPoint& p, const SweepPointRun& r) {
        ++calls;
        EXPECT_EQ(r.outcome.run.requests.size(), 64u);
        EXPECT_EQ(r.load.max_concurrency, p.concurrency);
        EXPECT_EQ(r.load.num_prompts, 64);
        EXPECT_EQ(p.summary.max_concurrent_requests, p.concurrency);
        return Status::Ok();
      });
  ASSERT_TRUE(pts.ok());
  EXPECT_EQ(calls, 3);
  ASSERT_EQ(pts->size(), 3u);
  EXPECT_FALSE(SweepConcurrency(testing::TinyConfig(), reqs, workload::LoadOptions{}, {0}).ok());
}

// A sweep's point is the one point `frontier simulate --max-concurrency c`
// runs: the same requests, summary and result file, the ideal prefix-cache
// hit rate of token-id prompts included (the sweep once ran its points
// apart from loadgen::RunPoint and left it out).
TEST(ConcurrencySweepTest, APointIsTheOnePointRunAtItsConcurrency) {
  std::vector<workload::RequestSpec> reqs(48);
  for (int i = 0; i < 48; ++i) {
    workload::RequestSpec& r = reqs[static_cast<size_t>(i)];
    r.id = i;
    r.input_len = 64;
    r.output_len = 16;
    r.prompt_token_ids.assign(64, 7);  // alike but for the last token
    r.prompt_token_ids[63] = i;
  }
  const std::string dir = ::testing::TempDir() + "/sweep_point_" + std::to_string(::getpid());
  SweepOptions o;
  o.point.result_json = dir + ".json";
  o.point.summary.num_gpus = testing::TinyConfig().gpus;
  o.point.model = "tiny";
  workload::LoadOptions load;
  load.num_prompts = 48;
  std::vector<SweepPointRun> runs;
  Result<std::vector<SweepPoint>> pts =
      SweepConcurrency(testing::TinyConfig(), reqs, load, {2, 8}, o, [&](const SweepPoint&, const SweepPointRun& r) {
        runs.push_back(r);
        return Status::Ok();
      });
  ASSERT_TRUE(pts.ok()) << pts.status().message();
  ASSERT_EQ(runs.size(), 2u);

  SimTarget target(testing::TinyConfig(), SimulateOptions{});
  loadgen::PointOptions one = o.point;
  one.run = VirtualRunOptions(false);
  one.result_json.clear();
  load.max_concurrency = 8;
  Result<loadgen::PointOutcome> alone = loadgen::RunPoint(target, reqs, load, one, nullptr, &target.stop());
  ASSERT_TRUE(alone.ok());
  const loadgen::PointOutcome& swept = runs[1].outcome;
  EXPECT_EQ(runs[1].load.max_concurrency, 8);
  EXPECT_EQ(swept.run.requests.size(), alone->run.requests.size());
  EXPECT_NEAR(swept.run.ideal_prefix_hit_rate, alone->run.ideal_prefix_hit_rate, 1e-12);
  // 16-token blocks: each prompt's first 3 of 4 blocks are the first prompt's,
  // so 47 x 3 hits of 48 x 4 blocks.
  EXPECT_DOUBLE_EQ(swept.run.ideal_prefix_hit_rate, 141.0 / 192.0);
  EXPECT_EQ(swept.summary.completed, alone->summary.completed);
  EXPECT_DOUBLE_EQ(swept.summary.output_throughput, alone->summary.output_throughput);
  EXPECT_DOUBLE_EQ(swept.summary.ttft_ms.mean, alone->summary.ttft_ms.mean);
  EXPECT_EQ(swept.run.model, "tiny");

  // Each point's file, named for its concurrency, as RunPoint writes it.
  for (int c : {2, 8}) {
    const std::string path = dir + ".c" + std::to_string(c) + ".json";
    std::ifstream in(path);
    ASSERT_TRUE(in.good()) << path;
    const nlohmann::json j = nlohmann::json::parse(in);
    EXPECT_EQ(j.at("max_concurrency"), c);
    EXPECT_EQ(j.at("completed"), 48);
    EXPECT_TRUE(j.contains("ideal_prefix_hit_rate")) << j.dump();
    std::remove(path.c_str());
  }
}

}  // namespace
}  // namespace frontier::sim
