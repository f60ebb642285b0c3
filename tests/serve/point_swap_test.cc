// One point, two targets: the same workload, load and options run through
// loadgen::RunPoint against the simulator on its virtual clock (sim::SimTarget)
// and against `frontier serve`'s sim profile of the same configuration over
// HTTP (loadgen::HttpTarget). Only the Target differs, so both runs must come
// out of the same code: the same warm-up marking, the same closed-loop cap,
// the same token counts (the server reports usage, the simulator counts its
// emissions), the same summary and result-document shape with the load's
// fields written once, and provenance that differs only where the target
// describes itself (source, host, base_url).
#include <fstream>
#include <set>

#include "loadgen/http_target.h"
#include "loadgen/point.h"
#include "serve/sim_timing.h"
#include "serve_test_util.h"
#include "sim/engine/config.h"
#include "sim/sim_target.h"
#include "sim/simulate.h"
#include "util/scratch.h"
#include "workload/random_dataset.h"

namespace frontier::serve::testing {
namespace {

std::set<std::string> Keys(const json& j) {
  std::set<std::string> out;
  for (const auto& [k, v] : j.items()) out.insert(k);
  return out;
}

json ReadJson(const std::string& path) {
  std::ifstream in(path);
  return json::parse(in);
}

TEST(PointSwap, MeasuredAndSimulatedPointsGoThroughTheSameRunner) {
  sim::SimSpec spec;
  spec.model = "llama-3.1-70b";
  spec.hardware = "h200";
  spec.gpus = 8;
  spec.tp = 8;
  spec.precision = "fp8";
  auto config = sim::ResolveSimConfig(spec);
  ASSERT_TRUE(config.ok()) << config.status().message();

  workload::RandomDatasetOptions d;
  d.num_prompts = 12;
  d.input_len = 600;
  d.output_len = 24;
  d.range_ratio = 0.5;
  d.seed = 3;
  auto specs = workload::MakeRandomDataset(d);
  ASSERT_TRUE(specs.ok());
  int64_t measured_input = 0;
  for (size_t i = 2; i < specs->size(); ++i) measured_input += (*specs)[i].input_len;
  int64_t measured_output = 0;
  for (size_t i = 2; i < specs->size(); ++i) measured_output += (*specs)[i].output_len;

  workload::LoadOptions load;
  load.warmup = 2;
  load.num_prompts = 10;
  load.max_concurrency = 4;

  testing_util::ScratchDir tmp("point_swap");  // both result files, removed at the end
  loadgen::PointOptions common;
  common.summary.num_gpus = 8;
  common.extra_result_fields["backend"] = "test";

  // Simulated: virtual time.
  loadgen::PointOptions so = common;
  so.run = sim::VirtualRunOptions(false);
  so.result_json = tmp.Path("swap_sim.json");
  sim::SimTarget simulated(*config, sim::SimulateOptions{});
  auto sim_out = loadgen::RunPoint(simulated, *specs, load, so, nullptr, nullptr);
  ASSERT_TRUE(sim_out.ok()) << sim_out.status().message();

  // Measured: the same configuration served over loopback.
  auto server = StartServer(TestOptions(), std::make_unique<SimTiming>(*config, 1.0, config->model.max_context));
  ASSERT_TRUE(server);
  client::ClientOptions co;
  co.base_url = "http://127.0.0.1:" + std::to_string(server->port());
  co.model = "test-model";
  co.ignore_eos = true;
  auto http = loadgen::HttpTarget::Create(co);
  ASSERT_TRUE(http.ok()) << http.status().message();
  loadgen::PointOptions mo = common;
  mo.result_json = tmp.Path("swap_measured.json");
  auto measured = loadgen::RunPoint(**http, *specs, load, mo, nullptr, nullptr);
  ASSERT_TRUE(measured.ok()) << measured.status().message();

  for (const loadgen::PointOutcome* out : {&*sim_out, &*measured}) {
    const metrics::Summary& s = out->summary;
    SCOPED_TRACE(RunSourceName(out->run.source));
    EXPECT_EQ(s.completed, 10);
    EXPECT_EQ(s.failed, 0);
    EXPECT_EQ(s.warmup, 2);
    ASSERT_EQ(out->run.requests.size(), 12u);
    int warm = 0;
    for (const auto& r : out->run.requests) {
      warm += r.warmup;
      EXPECT_TRUE(r.ok) << r.failure;
    }
    EXPECT_EQ(warm, 2);
    EXPECT_EQ(s.total_input_tokens, measured_input);
    EXPECT_EQ(s.total_output_tokens, measured_output);
    EXPECT_EQ(s.max_concurrent_requests, 4);  // the closed loop's cap, reached with 10 requests
    EXPECT_GT(s.tpot_ms.median, 0);
    EXPECT_GT(s.ttft_ms.median, 0);
    EXPECT_EQ(out->run.num_gpus, 8);
    EXPECT_FALSE(out->run.frontier_version.empty());
    EXPECT_FALSE(out->run.start_time_utc.empty());
    EXPECT_FALSE(out->verdict.has_value());
  }
  EXPECT_EQ(sim_out->run.source, RunSource::kSimulated);
  EXPECT_EQ(measured->run.source, RunSource::kMeasured);
  EXPECT_EQ(sim_out->run.model, config->model.name);
  EXPECT_EQ(measured->run.model, "test-model");  // what the server reported serving

  json a = ReadJson(so.result_json);
  const json b = ReadJson(mo.result_json);
  // The engine's own account: a simulated point always has it, a measured one
  // when its server's /metrics was scraped (not here).
  ASSERT_TRUE(a.contains("server_metrics"));
  EXPECT_EQ(a["server_metrics"]["source"], "simulator");
  EXPECT_FALSE(b.contains("server_metrics"));
  a.erase("server_metrics");
  EXPECT_EQ(Keys(a), Keys(b));
  for (const json* j : {static_cast<const json*>(&a), &b}) {
    EXPECT_EQ((*j)["request_rate"], "inf");
    EXPECT_EQ((*j)["max_concurrency"], 4);
    EXPECT_EQ((*j)["num_prompts"], 10);
    EXPECT_EQ((*j)["backend"], "test");
    EXPECT_EQ((*j)["completed"], 10);
  }
  EXPECT_EQ(Keys(a["frontier"]), Keys(b["frontier"]));
}

}  // namespace
}  // namespace frontier::serve::testing
