// A plan with `search:` run by the sweep on the simulator: the search finds
// the capacity worked out by hand in sim/search_trial_test.cc and stores
// every trial with its verdict; --resume skips a finished search and runs an
// interrupted one again.
#include <gtest/gtest.h>

#include <atomic>
#include <map>
#include <string>

#include <nlohmann/json.hpp>

#include "sim/engine/testing.h"
#include "store/store.h"
#include "sweep/plan.h"
#include "sweep/runner.h"
#include "sweep/sessions.h"
#include "util/scratch.h"

namespace frontier::sweep {
namespace {

// The tiny model (sim/engine/testing.h) with 64 sequences at most, serving 1-token
// prompts and 32-token outputs: each request costs 41,980,928 B of memory
// traffic at 1 TB/s, so the batch, always full, serves at most
// 1 / 41.98 us = 23,820 requests/s (the terms: sim/search_trial_test.cc).
constexpr double kCapacity = 1e12 / 41'980'928.0;

// Server scenario, TTFT p99 <= 20 ms and TPOT p99 <= 1 ms over 2 s runs: at
// 1.03 x capacity the queue after 2 s waits 60 ms, over the limit; at 0.8 x
// capacity a 64-row batch queues far under 20 ms. So the highest valid QPS
// lies in [0.8, 1.03] x capacity.
const char* kPlan = R"(name: tiny-search
systems:
  - {name: tiny, hardware: toy, gpus: 1, sim: {model: tiny}}
workloads:
  - {name: one-in, dataset: random, input_len: 1, output_len: 32}
scenario: {name: server, min_duration_s: 2, min_query_count: 459, slo: [ttft_p99:20, tpot_p99:1]}
search: {start: 2000, tolerance: 0.01, max_trials: 20}
)";

sim::SimConfig TinyServer() {
  sim::SimConfig c = sim::testing::TinyConfig();
  c.max_num_seqs = 64;
  return c;
}

SessionFactory TinyFactory() {
  return [](const Plan& plan, const SystemSpec&) { return MakeSimSession(plan, TinyServer()); };
}

TEST(SearchPlan, ConvergesToTheHandComputedCapacityAndStoresEveryTrial) {
  Result<Plan> plan = ParsePlan(kPlan, "plans/tiny.yaml");
  ASSERT_TRUE(plan.ok()) << plan.status().ToString();
  EXPECT_EQ(plan->load.kind, store::LoadKind::kRequestRate);  // the search's axis
  EXPECT_TRUE(ExpandMatrix(*plan).empty());
  testing_util::ScratchDir tmp("search_plan");  // removed also when an assertion fails
  auto store = store::OpenStore(tmp.Path("search.db"));
  ASSERT_TRUE(store.ok()) << store.status().ToString();
  std::vector<std::string> events;
  SweepOptions o;
  o.provenance = {{"command_line", "frontier sweep plans/tiny.yaml"}};
  o.on_progress = [&](const SweepProgress& p) { events.push_back(p.event); };
  Result<SweepOutcome> out = RunSweep(*plan, **store, TinyFactory(), o);
  ASSERT_TRUE(out.ok()) << out.status().ToString();
  EXPECT_EQ(out->total, 1);
  EXPECT_EQ(out->ran, 1);
  EXPECT_EQ(out->failed, 0);

  auto runs = (*store)->ListRuns();
  ASSERT_TRUE(runs.ok());
  ASSERT_EQ(runs->size(), 1u);
  const store::RunInfo& run = runs->front();
  EXPECT_EQ(run.sweep, "tiny-search");
  EXPECT_EQ(run.system, "tiny");
  // The system's run as a grid stores it, plus the search's own keys.
  EXPECT_EQ(run.plan_hash, plan->hash);
  EXPECT_EQ(run.plan_text, kPlan);
  EXPECT_EQ(run.source, store::Source::kSimulated);
  std::map<std::string, std::string> config = plan->systems[0].Config();
  config["workload"] = "one-in";
  config["search_goal"] = "max_valid_qps";
  config["search_axis"] = "request_rate";
  EXPECT_EQ(run.config, config);
  EXPECT_EQ(run.provenance, (std::map<std::string, std::string>{{"command_line", "frontier sweep plans/tiny.yaml"},
                                                                {"plan_file", "plans/tiny.yaml"}}));
  const nlohmann::json outcome = nlohmann::json::parse(run.search_json);
  ASSERT_TRUE(outcome["max_valid_qps"].is_number()) << run.search_json;
  const double qps = outcome["max_valid_qps"];
  RecordProperty("max_valid_qps", std::to_string(qps));
  EXPECT_GE(qps / kCapacity, 0.8);
  EXPECT_LE(qps / kCapacity, 1.03);
  EXPECT_LE(outcome["bracket"]["invalid"].get<double>() / qps - 1, 0.01);
  EXPECT_EQ(outcome["stop_reason"].get<std::string>().rfind("converged", 0), 0u) << outcome["stop_reason"];

  // Every trial is a point with its verdict and its step; above the answer, all INVALID.
  auto points = (*store)->ListPoints(run.id);
  ASSERT_TRUE(points.ok());
  ASSERT_EQ(points->size(), outcome["trial_count"].get<size_t>());
  ASSERT_GE(points->size(), 5u);  // 2000 .. 32000 bracketing alone takes 5
  int valid = 0, trial_events = 0;
  for (const auto& p : *points) {
    const nlohmann::json v = nlohmann::json::parse(p.verdict_json);
    const nlohmann::json t = nlohmann::json::parse(p.trial_json);
    EXPECT_EQ(p.source, store::Source::kSimulated);
    EXPECT_EQ(p.load_kind, store::LoadKind::kRequestRate);
    EXPECT_EQ(t["value"].get<double>(), p.load_value);
    EXPECT_EQ(v["result"], t["valid"].get<bool>() ? "VALID" : "INVALID");
    if (p.load_value > qps) {
      EXPECT_EQ(v["result"], "INVALID") << p.load_value;
    }
    if (p.load_value == qps) {
      EXPECT_EQ(v["result"], "VALID");
    }
    valid += t["valid"].get<bool>() ? 1 : 0;
  }
  EXPECT_GE(valid, 1);
  for (const auto& e : events) trial_events += e == "trial" ? 1 : 0;
  EXPECT_EQ(static_cast<size_t>(trial_events), points->size());
  EXPECT_EQ(events.back(), "done");

  // --resume: the finished search is not run again.
  o.resume = true;
  Result<SweepOutcome> again = RunSweep(*plan, **store, TinyFactory(), o);
  ASSERT_TRUE(again.ok()) << again.status().ToString();
  EXPECT_EQ(again->ran, 0);
  EXPECT_EQ(again->skipped, 1);
  EXPECT_EQ((*store)->ListRuns()->size(), 1u);
}

TEST(SearchPlan, AnInterruptedSearchRunsAgainFromItsFirstTrialOnResume) {
  std::string text = kPlan;
  text.replace(text.find("tolerance: 0.01"), 15, "tolerance: 0.1");  // fewer trials: this test is about resuming
  Result<Plan> plan = ParsePlan(text, "plans/tiny.yaml");
  ASSERT_TRUE(plan.ok()) << plan.status().ToString();
  testing_util::ScratchDir tmp("search_plan");  // removed also when an assertion fails
  auto store = store::OpenStore(tmp.Path("search.db"));
  ASSERT_TRUE(store.ok());
  std::atomic<bool> stop{false};
  SweepOptions o;
  o.stop = &stop;
  int trials = 0;
  o.on_progress = [&](const SweepProgress& p) {
    if (p.event == "trial" && ++trials == 2) stop.store(true);  // Ctrl-C during the third trial
  };
  Result<SweepOutcome> cut = RunSweep(*plan, **store, TinyFactory(), o);
  ASSERT_TRUE(cut.ok()) << cut.status().ToString();
  EXPECT_TRUE(cut->interrupted);
  EXPECT_EQ(cut->ran, 0);
  auto first = (*store)->ListRuns();
  ASSERT_EQ(first->size(), 1u);
  EXPECT_EQ(nlohmann::json::parse(first->front().search_json)["stop_reason"], "interrupted");
  EXPECT_EQ((*store)->ListPoints(first->front().id)->size(), 3u);  // what it measured is kept

  stop.store(false);
  o.on_progress = nullptr;
  o.resume = true;
  Result<SweepOutcome> resumed = RunSweep(*plan, **store, TinyFactory(), o);
  ASSERT_TRUE(resumed.ok()) << resumed.status().ToString();
  EXPECT_EQ(resumed->ran, 1);
  EXPECT_EQ(resumed->skipped, 0);
  auto runs = (*store)->ListRuns();
  ASSERT_EQ(runs->size(), 2u);
  const store::RunInfo& old_run = runs->front().id < runs->back().id ? runs->front() : runs->back();
  const store::RunInfo& new_run = runs->front().id < runs->back().id ? runs->back() : runs->front();
  EXPECT_EQ(old_run.status.reason, "search interrupted; run again as run " + std::to_string(new_run.id));
  EXPECT_TRUE(new_run.status.ok());
  const nlohmann::json outcome = nlohmann::json::parse(new_run.search_json);
  EXPECT_EQ(outcome["stop_reason"].get<std::string>().rfind("converged", 0), 0u);
  EXPECT_EQ((*store)->ListPoints(new_run.id)->front().load_value, 2000);  // from its first trial
}

}  // namespace
}  // namespace frontier::sweep
