// `frontier bench --as-plan` and `frontier search --as-plan` end to end: the
// plan each prints, run with `frontier sweep`, measures what the command
// measures: bench against an in-process `frontier serve --profile fixed` (the
// same requests and tokens), search on the simulator (the same answer).
#include <filesystem>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "search_test_util.h"
#include "store/store.h"
#include "tests/cli_test_util.h"

namespace frontier::serve::testing {
namespace {

// Runs the binary with a shell command line of arguments; (exit status, stdout and stderr).
std::pair<int, std::string> Binary(const std::string& args) {
  return frontier::testing::RunCommand(testing_util::TestPath("FRONTIER_BIN") + " " + args);
}

// The runs of `db`, and each one's points.
std::vector<std::pair<store::RunInfo, std::vector<store::PointRecord>>> Stored(const std::string& db) {
  std::vector<std::pair<store::RunInfo, std::vector<store::PointRecord>>> out;
  auto s = store::OpenStore(db, store::OpenMode::kReadOnly);
  EXPECT_TRUE(s.ok()) << s.status().ToString();
  if (!s.ok()) return out;
  auto runs = (*s)->ListRuns();
  EXPECT_TRUE(runs.ok());
  for (const store::RunInfo& run : *runs) {
    auto points = (*s)->ListPoints(run.id);
    EXPECT_TRUE(points.ok());
    out.emplace_back(run, *points);
  }
  return out;
}

// A bench command line run as itself (its point stored) and as the sweep of
// the plan its --as-plan prints: each database holds one run of one point.
struct BenchAndItsPlan {
  std::string url;  // the fixed server's, from RunBenchAndItsPlanOnAFixedServer
  std::string plan_text, bench_db, sweep_db;
  store::RunInfo bench_run, sweep_run;
  store::PointRecord bench, sweep;
};

void RunBenchAndItsPlan(const std::string& flags, const testing_util::ScratchDir& tmp, BenchAndItsPlan* r) {
  const std::string plan = tmp.Path("plan.yaml");
  r->bench_db = tmp.Path("bench.db");
  r->sweep_db = tmp.Path("sweep.db");
  auto [rc, out] = Binary(flags + " --as-plan > " + plan);
  ASSERT_EQ(rc, 0) << out;
  r->plan_text = testing_util::Slurp(plan);
  EXPECT_FALSE(std::filesystem::exists(r->bench_db));  // nothing sent, nothing stored
  std::tie(rc, out) = Binary(flags + " --db " + r->bench_db);
  ASSERT_EQ(rc, 0) << out;
  std::tie(rc, out) = Binary("sweep " + plan + " --db " + r->sweep_db);
  ASSERT_EQ(rc, 0) << out;
  const auto benched = Stored(r->bench_db), swept = Stored(r->sweep_db);
  ASSERT_EQ(benched.size(), 1u);
  ASSERT_EQ(swept.size(), 1u);
  ASSERT_EQ(benched[0].second.size(), 1u);
  ASSERT_EQ(swept[0].second.size(), 1u);
  r->bench_run = benched[0].first;
  r->sweep_run = swept[0].first;
  r->bench = benched[0].second[0];
  r->sweep = swept[0].second[0];
}

// `bench --base-url URL FLAGS` against `frontier serve --profile fixed` (4
// slots) started here, run as RunBenchAndItsPlan runs it; r->url is the server's.
void RunBenchAndItsPlanOnAFixedServer(const std::string& flags, const testing_util::ScratchDir& tmp,
                                      BenchAndItsPlan* r) {
  std::unique_ptr<Server> server = StartFixedServer(/*slots=*/4);
  ASSERT_NE(server, nullptr);
  r->url = "http://127.0.0.1:" + std::to_string(server->port());
  RunBenchAndItsPlan("bench --base-url " + r->url + " " + flags, tmp, r);
}

TEST(BenchAsPlan, TheSweepOfThePrintedPlanSendsBenchsRequestsAndTokens) {
  testing_util::ScratchDir tmp("bench_as_plan");
  BenchAndItsPlan r;
  ASSERT_NO_FATAL_FAILURE(RunBenchAndItsPlanOnAFixedServer(
      "--model fixed --input-len 32 --output-len 16 --max-concurrency 2 "
      "--num-prompts 12 --no-progress",
      tmp, &r));
  EXPECT_EQ(r.plan_text.find("name: bench\n"), 0u);
  EXPECT_NE(r.plan_text.find("systems:\n"
                                           "  - name: \"" + r.url + "\"\n"
                                           "    model: fixed\n"
                                           "    base_url: \"" + r.url + "\"\n"
                                           "    backend: openai\n"
                                           "    gpus: 1\n"
                                           "workloads:\n"
                                           "  - {name: 32/16, input_len: 32, output_len: 16}\n"
                                           "load:\n"
                                           "  concurrency: [2]\n"
                                           "  num_prompts: 12\n"),
            std::string::npos)
      << r.plan_text;
  const store::PointRecord &b = r.bench, &s = r.sweep;
  EXPECT_EQ(r.sweep_run.system, r.bench_run.system);  // the same system name
  EXPECT_EQ(s.key, "32/16|concurrency=2|rep=0");  // the same point under the same key
  EXPECT_EQ(s.key, b.key);
  EXPECT_EQ(s.workload, b.workload);
  EXPECT_EQ(s.load_kind, b.load_kind);
  EXPECT_EQ(s.load_value, 2);
  EXPECT_EQ(b.metrics.completed, 12);
  EXPECT_EQ(s.metrics.completed, b.metrics.completed);
  EXPECT_EQ(b.metrics.total_output_tokens, 12 * 16);
  EXPECT_EQ(s.metrics.total_output_tokens, b.metrics.total_output_tokens);
  EXPECT_EQ(s.metrics.total_input_tokens, b.metrics.total_input_tokens);
}

TEST(BenchAsPlan, SecretsAreLeftOutAndFlagsWithoutPlanFormRefused) {
  auto [rc, out] = Binary("bench --base-url http://127.0.0.1:9 --model m --api-key sk-not-printed "
                          "--header 'Authorization: Bearer xyz' --max-concurrency 1 --num-prompts 4 --as-plan");
  ASSERT_EQ(rc, 0) << out;
  EXPECT_EQ(out.find("sk-not-printed"), std::string::npos) << out;
  EXPECT_EQ(out.find("xyz"), std::string::npos) << out;
  EXPECT_NE(out.find("\n# --api-key is left out: a plan holds no secret; a sweep sends $OPENAI_API_KEY when it is set"),
            std::string::npos)
      << out;
  EXPECT_NE(out.find("\n# --header is left out"), std::string::npos) << out;
  std::tie(rc, out) = Binary("bench --base-url http://127.0.0.1:9 --model m --max-concurrency 1 --shard 0/2 "
                             "--as-plan");
  EXPECT_EQ(rc, 2);
  EXPECT_EQ(out, "frontier bench: --shard has no plan form; drop it or run bench without --as-plan\n");
  std::tie(rc, out) = Binary("bench --base-url http://127.0.0.1:9 --model m --num-prompts 4 --as-plan");
  EXPECT_EQ(rc, 2);
  EXPECT_NE(out.find("one point sent all at once has no plan form"), std::string::npos) << out;
}

// A server whose synthetic model ends an answer with EOS near 6 tokens unless
// asked to ignore it, and a JSONL dataset asking 40: bench sends a dataset's
// prompts without ignore_eos (its answers end where the model ends them) and
// its --extra-body (min_tokens 8) and --usage, so each answer is 8 or 9 tokens.
// The sweep of its plan must send the same: before the plan's server points
// took the client settings bench makes, they asked every answer to run to 40.
TEST(BenchAsPlan, TheSweepSendsBenchsClientSettingsAndLeavesEosToADatasetsAnswers) {
  FixedProfile p;
  p.ttft_ms = 20;
  p.itl_ms = 5;
  p.slots = 4;
  ServeOptions o = TestOptions();
  o.model_name = "fixed";
  o.record_traces = false;
  o.natural_output_len = 6;  // EOS drawn in [3, 9] tokens
  std::unique_ptr<Server> server = StartServer(o, std::make_unique<FixedTiming>(p));
  ASSERT_NE(server, nullptr);
  const std::string url = "http://127.0.0.1:" + std::to_string(server->port());
  testing_util::ScratchDir tmp("bench_as_plan_client");
  std::string lines;
  for (int i = 0; i < 12; ++i) lines += "{\"prompt\": \"question number " + std::to_string(i) + "\", \"output_len\": 40}\n";
  const std::string data = tmp.Write("d.jsonl", lines);
  BenchAndItsPlan r;
  ASSERT_NO_FATAL_FAILURE(RunBenchAndItsPlan(
      "bench --base-url " + url + " --model fixed --dataset jsonl --dataset-path " + data +
          " --max-concurrency 2 --num-prompts 12 --extra-body '{\"min_tokens\": 8}' --usage final --timeout 30 "
          "--scrape-metrics --scrape-interval 0.2 --no-progress",
      tmp, &r));
  const std::string& text = r.plan_text;
  // The client's settings and the measurement: one list in key order, as the system's stored config.
  EXPECT_NE(text.find("    extra_body: \"{\\\"min_tokens\\\": 8}\"\n    scrape_interval_s: 0.2\n    scrape_metrics: true\n"
                      "    timeout_s: 30\n    usage: final\n"),
            std::string::npos)
      << text;
  EXPECT_EQ(text.find("ignore_eos"), std::string::npos) << text;  // the dataset's default, off
  const store::PointRecord &b = r.bench, &s = r.sweep;
  EXPECT_EQ(b.metrics.completed, 12);
  EXPECT_GE(b.metrics.total_output_tokens, 12 * 8);  // min_tokens reached the server
  EXPECT_LE(b.metrics.total_output_tokens, 12 * 9);  // and so did EOS: no answer ran to 40
  EXPECT_EQ(s.metrics.completed, b.metrics.completed);
  EXPECT_EQ(s.metrics.total_output_tokens, b.metrics.total_output_tokens);
  EXPECT_EQ(s.key, b.key);
  EXPECT_EQ(r.sweep_run.config.at("timeout_s"), "30");  // stored with the system
  EXPECT_EQ(r.sweep_run.config.at("usage"), "final");
  EXPECT_EQ(r.sweep_run.config.at("extra_body"), "{\"min_tokens\": 8}");
  // The server's metrics sampled beside both points, from the base URL's /metrics.
  for (const auto& [db, point] : {std::pair{r.bench_db, &b}, std::pair{r.sweep_db, &s}}) {
    auto store = store::OpenStore(db, store::OpenMode::kReadOnly);
    ASSERT_TRUE(store.ok()) << store.status().ToString();
    Result<store::PointSeries> series = (*store)->GetPointSeries(point->id);
    ASSERT_TRUE(series.ok()) << series.status().ToString();
    ASSERT_FALSE(series->server_metrics_json.empty()) << db;
    const nlohmann::json m = nlohmann::json::parse(series->server_metrics_json);
    EXPECT_EQ(m["source"], url + "/metrics") << m.dump();
    EXPECT_GE(m["scrapes"].get<int64_t>(), 1) << m.dump();
    EXPECT_EQ(m["scrape_failures"], 0) << m.dump();
  }
}

// A session workload's --session-rate is a plan's request_rate (sessions a
// second), so bench's multi-turn point and its plan's store the same point
// under the same key.
TEST(BenchAsPlan, ASessionRateIsThePlansRequestRateOfSessions) {
  testing_util::ScratchDir tmp("bench_as_plan_sessions");
  BenchAndItsPlan r;
  ASSERT_NO_FATAL_FAILURE(RunBenchAndItsPlanOnAFixedServer(
      "--model fixed --dataset multi-turn --mt-turns 2 --mt-message-len 16 "
      "--output-len 4 --session-rate 50 "
      "--max-concurrency 2 --num-prompts 8 --no-progress",
      tmp, &r));
  EXPECT_NE(r.plan_text.find("load:\n  request_rate: [50]\n  num_prompts: 8\n  max_concurrency: 2\n"),
            std::string::npos)
      << r.plan_text;
  const store::PointRecord &b = r.bench, &s = r.sweep;
  EXPECT_EQ(b.key, "multi-turn|request_rate=50|rep=0");
  EXPECT_EQ(s.key, b.key);
  EXPECT_EQ(b.metrics.completed, 8 * 2);  // 8 sessions of 2 turns
  EXPECT_EQ(s.metrics.completed, b.metrics.completed);
  EXPECT_EQ(s.metrics.total_output_tokens, b.metrics.total_output_tokens);
}

// The keys of a stored point's summary that hold a TTFT percentile ("p75_ttft_ms").
std::set<std::string> TtftPercentileKeys(const store::PointRecord& p) {
  std::set<std::string> keys;
  const nlohmann::json j = nlohmann::json::parse(p.summary_json);
  for (const auto& [k, v] : j.items())
    if (k.size() > 10 && k[0] == 'p' && k.ends_with("_ttft_ms")) keys.insert(k);
  return keys;
}

// The window of a stored point's per-window series.
double SliceSeconds(const std::string& db, const store::PointRecord& p) {
  auto store = store::OpenStore(db, store::OpenMode::kReadOnly);
  EXPECT_TRUE(store.ok()) << store.status().ToString();
  if (!store.ok()) return -1;
  Result<store::PointSeries> series = (*store)->GetPointSeries(p.id);
  EXPECT_TRUE(series.ok()) << series.status().ToString();
  if (!series.ok() || series->timeslices_json.empty()) return -1;
  return nlohmann::json::parse(series->timeslices_json).value("slice_s", -1.0);
}

// --percentiles, --timeslice, --duration and --grace have plan keys: the
// sweep of bench's plan summarises its point with bench's percentiles and
// window (not the defaults: five percentiles, a window of duration / 30), and
// stores bench's duration and grace.
TEST(BenchAsPlan, TheSweepSummarisesWithBenchsPercentilesAndWindow) {
  testing_util::ScratchDir tmp("bench_as_plan_summary");
  BenchAndItsPlan r;
  ASSERT_NO_FATAL_FAILURE(RunBenchAndItsPlanOnAFixedServer(
      "--model fixed --input-len 32 --output-len 16 --max-concurrency 2 "
      "--num-prompts 12 --percentiles 50,75 --timeslice 0.05 "
      "--duration 600 --grace 2 --no-progress",
      tmp, &r));
  EXPECT_NE(r.plan_text.find("    grace_s: 2\n"), std::string::npos) << r.plan_text;
  EXPECT_NE(r.plan_text.find("  num_prompts: 12\n  duration_s: 600\npercentiles: [50, 75]\ntimeslice_s: 0.05\n"),
            std::string::npos)
      << r.plan_text;
  const store::PointRecord &b = r.bench, &s = r.sweep;
  EXPECT_EQ(s.key, b.key);
  EXPECT_EQ(b.metrics.completed, 12);  // the count came first: 600 s is far off
  EXPECT_EQ(s.metrics.completed, b.metrics.completed);
  const std::set<std::string> want = {"p50_ttft_ms", "p75_ttft_ms"};
  EXPECT_EQ(TtftPercentileKeys(b), want) << b.summary_json;
  EXPECT_EQ(TtftPercentileKeys(s), TtftPercentileKeys(b)) << s.summary_json;
  EXPECT_EQ(SliceSeconds(r.bench_db, b), 0.05);
  EXPECT_EQ(SliceSeconds(r.sweep_db, s), SliceSeconds(r.bench_db, b));
  EXPECT_EQ(b.settings.at("duration_s"), "600");
  EXPECT_EQ(s.settings.at("duration_s"), b.settings.at("duration_s"));
  EXPECT_EQ(r.sweep_run.config.at("grace_s"), "2");  // stored with the system
}

TEST(SearchAsPlan, TheSweepOfThePrintedPlanFindsTheSearchsAnswer) {
  testing_util::ScratchDir tmp("search_as_plan");
  const std::string plan = tmp.Path("plan.yaml"), db = tmp.Path("sweep.db"), result = tmp.Path("r.json");
  const std::string search_db = tmp.Path("search.db");
  const std::string flags =
      "search --model llama-3.1-8b --hardware h100-sxm --input-len 256 --output-len 64 --num-prompts 200 "
      "--slo ttft_p99:450 tpot_p99:40 --min-interactivity 25 --max-trials 8";
  auto [rc, out] = Binary(flags + " --as-plan > " + plan);
  ASSERT_EQ(rc, 0) << out;
  EXPECT_EQ(testing_util::Slurp(plan),
            "name: search\n"
            "systems:\n"
            "  - name: \"simulated llama-3.1-8b on 1x h100-sxm\"\n"
            "    hardware: h100-sxm\n"
            "    gpus: 1\n"
            "    sim: {model: llama-3.1-8b}\n"
            "workloads:\n"
            "  - {name: 256/64, input_len: 256, output_len: 64}\n"
            "load:\n"
            "  num_prompts: 200\n"
            "scenario: {slo: [\"ttft_p99:450\", \"tpot_p99:40\"], min_interactivity: 25}\n"
            "search: {max_trials: 8}\n");
  std::tie(rc, out) = Binary(flags + " --result-json " + result + " --db " + search_db);
  ASSERT_EQ(rc, 0) << out;
  const json searched = json::parse(testing_util::Slurp(result));
  std::tie(rc, out) = Binary("sweep " + plan + " --db " + db);
  ASSERT_EQ(rc, 0) << out;
  const auto swept = Stored(db);
  ASSERT_EQ(swept.size(), 1u);
  const json found = json::parse(swept[0].first.search_json);
  ASSERT_TRUE(searched["answer"].is_object()) << searched.dump();
  ASSERT_TRUE(found["answer"].is_object()) << found.dump();
  EXPECT_EQ(found["answer"]["value"], searched["answer"]["value"]);
  EXPECT_EQ(found["answer"]["output_throughput"], searched["answer"]["output_throughput"]);
  EXPECT_EQ(found["trial_count"], searched["trial_count"]);
  EXPECT_EQ(found["stop_reason"], searched["stop_reason"]);
  EXPECT_EQ(swept[0].second.size(), searched["trials"].size());
  // Each trial under the key the search stores it by.
  const auto stored = Stored(search_db);
  ASSERT_EQ(stored.size(), 1u);
  ASSERT_EQ(stored[0].second.size(), swept[0].second.size());
  for (size_t i = 0; i < swept[0].second.size(); ++i) EXPECT_EQ(swept[0].second[i].key, stored[0].second[i].key);
  EXPECT_EQ(swept[0].second[0].key.rfind("256/64|concurrency=", 0), 0u) << swept[0].second[0].key;

  std::tie(rc, out) = Binary(flags + " --client-rtt-us 100 --as-plan");
  EXPECT_EQ(rc, 2);
  EXPECT_EQ(out, "frontier search: --client-rtt-us has no plan form; drop it or run search without --as-plan\n");
}

}  // namespace
}  // namespace frontier::serve::testing
