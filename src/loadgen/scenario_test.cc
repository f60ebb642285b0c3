// MLPerf scenario rules and verdicts on hand-made request records.
#include "loadgen/scenario.h"

#include <gtest/gtest.h>

#include <cstdlib>
#include <string>

#include "core/limits.h"
#include "loadgen/verdict.h"
#include "metrics/summary.h"
#include "workload/arrival.h"

namespace frontier::loadgen {
namespace {

constexpr Nanos kMs = kNanosPerMilli;

std::string DataDir() {
  const char* d = std::getenv("FRONTIER_DATA_DIR");
  return d != nullptr ? d : "data";
}

bool Mentions(const Verdict& v, const std::string& what) {
  for (const auto& r : v.reasons)
    if (r.find(what) != std::string::npos) return true;
  return false;
}

// n requests planned `gap` apart; each has `ttft` to its first token and then
// 10 more tokens `tpot` apart (11 output tokens).
RunResult Records(int n, Nanos gap, Nanos ttft, Nanos tpot) {
  RunResult run;
  for (int i = 0; i < n; ++i) {
    RequestRecord r;
    r.id = i;
    r.scheduled_ns = r.sent_ns = i * gap;
    r.first_token_ns = r.sent_ns + ttft;
    r.output_tokens = 11;
    r.end_ns = r.first_token_ns + 10 * tpot;
    r.ok = true;
    run.requests.push_back(r);
  }
  return run;
}

ScenarioRules ServerRules(double min_duration_s, int64_t min_count) {
  ScenarioRules r;
  r.scenario = Scenario::kServer;
  r.min_duration_s = min_duration_s;
  r.min_query_count = min_count;
  r.constraints = {{LatencyMetric::kTtft, 99, 450}, {LatencyMetric::kTpot, 99, 40}};
  return r;
}

Verdict JudgeRecords(const RunResult& run, const ScenarioRules& rules) {
  return Judge(run, rules, metrics::Summarize(run, {}), LatencyOrigin::kScheduled);
}

TEST(ScenarioTest, ParsesScenariosAndSlos) {
  EXPECT_EQ(*ParseScenario("interactive"), Scenario::kInteractive);
  EXPECT_NE(ParseScenario("Server").status().message().find("--scenario"), std::string::npos);
  auto slo = ParseSlo({"ttft_p99:450", "tpot_p90:40", "e2el:2000"});
  ASSERT_TRUE(slo.ok()) << slo.status().message();
  ASSERT_EQ(slo->size(), 3u);
  EXPECT_EQ((*slo)[0].metric, LatencyMetric::kTtft);
  EXPECT_EQ((*slo)[1].percentile, 90);
  EXPECT_EQ((*slo)[1].limit_ms, 40);
  EXPECT_EQ((*slo)[2].percentile, 99);  // a bare metric means p99
  EXPECT_EQ(FormatConstraint((*slo)[1]), "tpot_p90:40");
  for (const char* bad : {"ttft", "ttft:0", "ttft_p100:5", "itl_p99:5", "ttft_p99:x", "ttft_p99: 450",
                          "ttft_p99:0x10"}) {
    Result<std::vector<LatencyConstraint>> r = ParseSlo({bad});
    EXPECT_FALSE(r.ok()) << bad;
    EXPECT_NE(r.status().message().find("--slo"), std::string::npos) << bad;
    EXPECT_NE(r.status().message().find(bad), std::string::npos) << bad;
  }
  EXPECT_FALSE(ParseSlo({"ttft:1", "ttft_p90:2"}).ok());
}

// The table in data/mlperf/benchmarks.json holds MLPerf's published figures
// (mlperf.conf; inference_rules.adoc): Llama-2-70B Server TTFT/TPOT p99 2000/200 ms,
// Interactive 450/40 ms, Offline 24576 samples.
TEST(ScenarioTest, BenchmarkTableHasThePublishedConstraints) {
  auto table = LoadMlperfBenchmarks(DataDir());
  ASSERT_TRUE(table.ok()) << table.status().message();
  auto limits = [](const std::vector<LatencyConstraint>& cs) {
    std::pair<double, double> out;
    for (const auto& c : cs) (c.metric == LatencyMetric::kTtft ? out.first : out.second) = c.limit_ms;
    return out;
  };
  const MlperfBenchmark* l2 = FindBenchmark(*table, "llama-2-70b");  // by catalog model name
  ASSERT_NE(l2, nullptr);
  EXPECT_EQ(l2->name, "llama2-70b");
  EXPECT_EQ(limits(l2->server), std::make_pair(2000.0, 200.0));
  EXPECT_EQ(limits(l2->interactive), std::make_pair(450.0, 40.0));
  EXPECT_EQ(l2->offline_min_sample_count, 24576);
  EXPECT_EQ(limits(FindBenchmark(*table, "llama3_1-405b")->server), std::make_pair(6000.0, 175.0));
  EXPECT_EQ(limits(FindBenchmark(*table, "llama3_1-405b")->interactive), std::make_pair(4500.0, 80.0));
  EXPECT_EQ(limits(FindBenchmark(*table, "llama3_1-8b")->interactive), std::make_pair(500.0, 30.0));
  EXPECT_EQ(limits(FindBenchmark(*table, "mixtral-8x7b")->server), std::make_pair(2000.0, 200.0));
  EXPECT_TRUE(FindBenchmark(*table, "mixtral-8x7b")->interactive.empty());
  // MLPerf v6.0's gpt-oss-120b: Server 3000/80 ms, Interactive 2000/15 ms,
  // 6396 performance samples; found by the catalog's model name too.
  const MlperfBenchmark* oss = FindBenchmark(*table, "gpt-oss-120b");
  ASSERT_NE(oss, nullptr);
  EXPECT_EQ(limits(oss->server), std::make_pair(3000.0, 80.0));
  EXPECT_EQ(limits(oss->interactive), std::make_pair(2000.0, 15.0));
  EXPECT_EQ(oss->performance_sample_count, 6396);
  EXPECT_EQ(FindBenchmark(*table, "openai/gpt-oss-120b"), oss);
  EXPECT_EQ(limits(FindBenchmark(*table, "deepseek-r1")->interactive), std::make_pair(1500.0, 15.0));
  EXPECT_EQ(FindBenchmark(*table, "deepseek-r1")->offline_min_sample_count, 4388);
  for (const auto& b : *table) EXPECT_FALSE(b.source.empty()) << b.name;
}

TEST(ScenarioTest, ResolveFillsDefaultsAndNamesTheFlagAtFault) {
  auto table = LoadMlperfBenchmarks(DataDir());
  ASSERT_TRUE(table.ok());
  ScenarioRequest req;
  req.scenario = Scenario::kInteractive;
  req.target_qps = 10;
  auto r = ResolveScenario(req, *table, "llama-2-70b");
  ASSERT_TRUE(r.ok()) << r.status().message();
  EXPECT_EQ(r->benchmark, "llama2-70b");
  EXPECT_EQ(r->min_duration_s, 600);
  EXPECT_EQ(r->min_query_count, 459);  // LoadGen's 100, raised to early stopping's minimum at p99
  ASSERT_EQ(r->constraints.size(), 2u);
  EXPECT_EQ(r->constraints[0].limit_ms, 450);

  req.min_query_count = 50;  // an explicit count is kept
  EXPECT_EQ(ResolveScenario(req, *table, "llama-2-70b")->min_query_count, 50);
  req.min_query_count.reset();

  req.scenario = Scenario::kOffline;
  req.target_qps.reset();
  r = ResolveScenario(req, *table, "llama-2-70b");
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r->min_query_count, 24576);
  EXPECT_TRUE(r->constraints.empty());

  auto error = [&](ScenarioRequest q, std::string_view model) {
    return ResolveScenario(q, *table, model).status().message();
  };
  ScenarioRequest server;
  server.scenario = Scenario::kServer;
  EXPECT_NE(error(server, "llama-2-70b").find("--target-qps"), std::string::npos);
  server.target_qps = 1;
  EXPECT_NE(error(server, "unknown-model").find("--mlperf-benchmark"), std::string::npos);
  server.benchmark = "nope";
  EXPECT_NE(error(server, "").find("'nope'"), std::string::npos);
  ScenarioRequest mixtral;
  mixtral.scenario = Scenario::kInteractive;
  mixtral.target_qps = 1;
  mixtral.benchmark = "mixtral-8x7b";
  EXPECT_NE(error(mixtral, "").find("no Interactive"), std::string::npos);
  ScenarioRequest offline_slo;
  offline_slo.scenario = Scenario::kOffline;
  offline_slo.slo = {{LatencyMetric::kTtft, 99, 1}};
  EXPECT_NE(error(offline_slo, "").find("--slo"), std::string::npos);
  ScenarioRequest nothing;
  EXPECT_NE(error(nothing, "").find("--slo"), std::string::npos);
  ScenarioRequest bad_duration = server;
  bad_duration.benchmark = "llama2-70b";
  bad_duration.min_duration_s = -1;
  EXPECT_NE(error(bad_duration, "").find("--min-duration"), std::string::npos);
}

// Server: Poisson at the target QPS until a query is planned at or after the
// minimum duration, and at least the minimum count.
TEST(ScenarioTest, ServerLoadRunsPastTheMinimumDuration) {
  ScenarioRules rules = ServerRules(10, 100);
  rules.target_qps = 50;
  workload::LoadOptions base;
  base.seed = 7;
  auto load = ScenarioLoad(rules, base);
  ASSERT_TRUE(load.ok()) << load.status().message();
  EXPECT_EQ(load->request_rate, 50);
  EXPECT_EQ(load->burstiness, 1);
  auto plan = workload::PlanArrivals(load->num_prompts, {50, 1, 7});
  ASSERT_TRUE(plan.ok());
  EXPECT_GE(plan->back(), 10 * kNanosPerSecond);               // the last is at or after 10 s
  EXPECT_LT((*plan)[plan->size() - 2], 10 * kNanosPerSecond);  // and the one before is not
  ASSERT_TRUE(load->duration_s.has_value());
  EXPECT_GT(*load->duration_s, NanosToSeconds(plan->back()));  // the duration ends nothing
  // A minimum count beyond the duration's queries wins.
  rules.min_query_count = 5000;
  EXPECT_EQ(ScenarioLoad(rules, base)->num_prompts, 5000);
  // The scenario owns the arrivals.
  base.max_concurrency = 4;
  EXPECT_NE(ScenarioLoad(rules, base).status().message().find("--max-concurrency"), std::string::npos);
}

// Offline: max(min count, 1.1 x min duration x expected QPS), all at once.
TEST(ScenarioTest, OfflineLoadQueuesEverythingAtOnce) {
  ScenarioRules rules;
  rules.scenario = Scenario::kOffline;
  rules.min_query_count = 24576;
  auto load = ScenarioLoad(rules, {});
  ASSERT_TRUE(load.ok());
  EXPECT_TRUE(std::isinf(load->request_rate));
  EXPECT_FALSE(load->max_concurrency.has_value());
  EXPECT_EQ(load->num_prompts, 24576);
  rules.target_qps = 50;  // 1.1 x 600 x 50 = 33000
  EXPECT_EQ(ScenarioLoad(rules, {})->num_prompts, 33000);
}

// Scenario counts and durations are bounded like the flags they stand for,
// judged before the schedule is drawn (99999999999 queries were "out of
// memory", --min-duration 1e9 took 7.4 GB).
TEST(ScenarioTest, CountsAndDurationsPastTheRunBoundsAreRefusedUpFront) {
  auto error = [](const ScenarioRequest& req) {
    auto r = ResolveScenario(req, {}, "");
    return r.ok() ? std::string() : r.status().message();
  };
  ScenarioRequest offline;
  offline.scenario = Scenario::kOffline;
  offline.min_query_count = 99'999'999'999;
  EXPECT_NE(error(offline).find("--min-query-count must be an integer in [1, 10000000]"), std::string::npos)
      << error(offline);
  offline.min_query_count = kMaxRunRequests;
  EXPECT_EQ(error(offline), "");
  offline.min_duration_s = 1e10;
  EXPECT_NE(error(offline).find("--min-duration must be a number of seconds in (0, 1e9]"), std::string::npos);

  ScenarioRules server = ServerRules(1e9, 100);
  server.target_qps = 1;
  workload::LoadOptions base;
  auto load = ScenarioLoad(server, base);
  ASSERT_FALSE(load.ok());
  EXPECT_NE(load.status().message().find("--target-qps 1 x --min-duration 1000000000 asks for about"),
            std::string::npos)
      << load.status().message();
  server = ServerRules(10, kMaxRunRequests);
  server.target_qps = 50;
  base.warmup = 1;
  load = ScenarioLoad(server, base);
  ASSERT_FALSE(load.ok());
  EXPECT_NE(load.status().message().find("--warmup"), std::string::npos) << load.status().message();

  ScenarioRules off;
  off.scenario = Scenario::kOffline;
  off.min_query_count = 100;
  off.target_qps = 1e6;
  off.min_duration_s = 1e3;  // 1.1e9 samples
  load = ScenarioLoad(off, {});
  ASSERT_FALSE(load.ok());
  EXPECT_NE(load.status().message().find("samples; a run sends at most 10000000"), std::string::npos)
      << load.status().message();
}

// Minimum duration (Server): the last query's planned time. 600 queries 20 ms
// apart end at 11.98 s (>= 10 s); 400 end at 7.98 s.
TEST(VerdictTest, ServerMinimumDuration) {
  const ScenarioRules rules = ServerRules(10, 100);
  Verdict ok = JudgeRecords(Records(600, 20 * kMs, 100 * kMs, 20 * kMs), rules);
  EXPECT_TRUE(ok.valid) << (ok.reasons.empty() ? "" : ok.reasons[0]);
  EXPECT_NEAR(ok.duration_s, 11.98, 1e-9);
  EXPECT_NEAR(ok.scheduled_qps, 599 / 11.98, 1e-9);
  Verdict short_run = JudgeRecords(Records(400, 20 * kMs, 100 * kMs, 20 * kMs), rules);
  EXPECT_FALSE(short_run.valid);
  EXPECT_FALSE(short_run.min_duration_met);
  EXPECT_TRUE(short_run.min_queries_met);
  EXPECT_NEAR(short_run.duration_s, 7.98, 1e-9);
  EXPECT_TRUE(Mentions(short_run, "min duration"));
  // 400 queries also fail early stopping? No: 0 over the limit needs 459; they do.
  EXPECT_FALSE(short_run.early_stopping_met);
}

// Minimum count (Offline: samples in the one query); Offline's duration is
// the last sample's end.
TEST(VerdictTest, OfflineMinimumCountAndDuration) {
  ScenarioRules rules;
  rules.scenario = Scenario::kOffline;
  rules.min_duration_s = 1;
  rules.min_query_count = 1000;
  // Everything planned at 0; sample i ends at 100 ms + 10 x 1 ms + i ms.
  auto offline = [](int n) {
    RunResult run = Records(n, 0, 100 * kMs, kMs);
    for (int i = 0; i < n; ++i) run.requests[static_cast<size_t>(i)].end_ns += i * kMs;
    return run;
  };
  Verdict ok = Judge(offline(1000), rules, metrics::Summarize(offline(1000), {}), LatencyOrigin::kSent);
  EXPECT_TRUE(ok.valid);
  EXPECT_NEAR(ok.duration_s, 1.109, 1e-9);  // 110 ms + 999 ms
  Verdict few = Judge(offline(999), rules, metrics::Summarize(offline(999), {}), LatencyOrigin::kSent);
  EXPECT_FALSE(few.valid);
  EXPECT_FALSE(few.min_queries_met);
  EXPECT_TRUE(Mentions(few, "min sample count not met: 999 < 1000"));
  rules.min_duration_s = 2;
  EXPECT_FALSE(Judge(offline(1000), rules, metrics::Summarize(offline(1000), {}), LatencyOrigin::kSent)
                   .min_duration_met);
}

// Percentile (LoadGen's rule, sorted[floor(n p)]): 1000 queries, 9 with TTFT
// 500 ms: sorted[990] = 100 ms, met; 10 slow: sorted[990] = 500 ms, not met.
// Early stopping needs h(9) + 9 = 1874 and h(10) + 10 = 2010 queries, so both
// are INVALID by it, and 2010 queries with 10 slow pass every rule.
TEST(VerdictTest, PercentileConstraintsAndEarlyStopping) {
  const ScenarioRules rules = ServerRules(1, 100);
  auto with_slow = [](int n, int slow) {
    RunResult run = Records(n, 10 * kMs, 100 * kMs, 20 * kMs);
    for (int i = 0; i < slow; ++i) {
      RequestRecord& r = run.requests[static_cast<size_t>(i * 7)];
      r.first_token_ns = r.scheduled_ns + 500 * kMs;
      r.end_ns = r.first_token_ns + 10 * 20 * kMs;
    }
    return run;
  };
  Verdict nine = JudgeRecords(with_slow(1000, 9), rules);
  ASSERT_EQ(nine.checks.size(), 2u);
  EXPECT_DOUBLE_EQ(nine.checks[0].value_ms, 100);
  EXPECT_TRUE(nine.checks[0].met);
  EXPECT_TRUE(nine.constraints_met);
  EXPECT_FALSE(nine.early_stopping_met);
  EXPECT_EQ(nine.checks[0].early_stopping->overlatency, 9);
  EXPECT_EQ(nine.checks[0].early_stopping->required, 1874);
  EXPECT_FALSE(nine.valid);
  EXPECT_TRUE(Mentions(nine, "ttft_p99:450 early stopping not met"));

  Verdict ten = JudgeRecords(with_slow(1000, 10), rules);
  EXPECT_DOUBLE_EQ(ten.checks[0].value_ms, 500);
  EXPECT_FALSE(ten.constraints_met);
  EXPECT_TRUE(Mentions(ten, "ttft_p99:450 not met: p99 ttft is 500.00 ms > 450 ms"));
  EXPECT_DOUBLE_EQ(ten.checks[1].value_ms, 20);  // TPOT: (end - first) / 10
  EXPECT_TRUE(ten.checks[1].met);

  Verdict enough = JudgeRecords(with_slow(2010, 10), rules);
  EXPECT_TRUE(enough.valid) << (enough.reasons.empty() ? "" : enough.reasons[0]);
  EXPECT_EQ(enough.checks[0].early_stopping->required, 2010);
  // The estimate at n = 2010 discards the 9 highest: the 10th largest is a slow one.
  EXPECT_EQ(enough.checks[0].early_stopping->estimate_rank, 10);
  EXPECT_DOUBLE_EQ(*enough.checks[0].early_stopping->estimate, 500);
}

// The latency origin: in an open loop TTFT counts from the planned time, so a
// client that sent 400 ms late fails the 450 ms limit it would pass from the send.
TEST(VerdictTest, OpenLoopLatencyCountsFromThePlannedTime) {
  RunResult run = Records(2000, 10 * kMs, 100 * kMs, 20 * kMs);
  for (auto& r : run.requests) {
    r.sent_ns += 400 * kMs;
    r.first_token_ns += 400 * kMs;
    r.end_ns += 400 * kMs;
  }
  const ScenarioRules rules = ServerRules(1, 100);
  const metrics::Summary s = metrics::Summarize(run, {});
  EXPECT_DOUBLE_EQ(Judge(run, rules, s, LatencyOrigin::kScheduled).checks[0].value_ms, 500);
  EXPECT_DOUBLE_EQ(Judge(run, rules, s, LatencyOrigin::kSent).checks[0].value_ms, 100);
  workload::LoadOptions open;
  open.request_rate = 5;
  EXPECT_EQ(OriginFor(open), LatencyOrigin::kScheduled);
  EXPECT_EQ(OriginFor(workload::LoadOptions{}), LatencyOrigin::kSent);
}

TEST(VerdictTest, FailuresInterruptionsAndInteractivityAreReasons) {
  ScenarioRules slo;  // a plain SLO: no scenario
  slo.constraints = {{LatencyMetric::kTpot, 99, 40}};
  slo.min_interactivity = 60;  // 1000 / 20 ms = 50 tok/s/user
  RunResult run = Records(100, 10 * kMs, 100 * kMs, 20 * kMs);
  run.requests[3].ok = false;
  run.requests[3].failure = failure::kHttpStatus;
  run.interrupted = true;
  const Verdict v = JudgeRecords(run, slo);
  EXPECT_FALSE(v.valid);
  EXPECT_EQ(v.failed, 1);
  EXPECT_TRUE(Mentions(v, "1 of 100 requests failed (first: http_status)"));
  EXPECT_TRUE(Mentions(v, "interrupted"));
  EXPECT_TRUE(Mentions(v, "interactivity 50.00"));
  EXPECT_TRUE(v.constraints_met);
  EXPECT_TRUE(v.min_duration_met);  // no scenario: no run-length rules
  EXPECT_FALSE(v.checks[0].early_stopping.has_value());

  Verdict over = JudgeRecords(Records(100, 10 * kMs, 100 * kMs, 20 * kMs), ScenarioRules{});
  EXPECT_TRUE(over.valid);
  MarkOverSaturated(over, "at 3.0 s");
  EXPECT_FALSE(over.valid);
  EXPECT_EQ(over.reasons.front(), "over-saturated: at 3.0 s");
}

TEST(VerdictTest, PrintsLikeLoadgenAndWritesJson) {
  ScenarioRules rules = ServerRules(1, 100);
  rules.benchmark = "llama2-70b";
  rules.target_qps = 100;
  const Verdict v = JudgeRecords(Records(2000, 10 * kMs, 100 * kMs, 20 * kMs), rules);
  const std::string text = FormatVerdict(v, rules);
  EXPECT_NE(text.find("MLPerf Results Summary"), std::string::npos);
  EXPECT_NE(text.find("Scenario : server"), std::string::npos);
  EXPECT_NE(text.find("Result is : VALID"), std::string::npos);
  EXPECT_NE(text.find("Early stopping satisfied: Yes"), std::string::npos);
  EXPECT_NE(text.find("ttft Early Stopping Result:"), std::string::npos);
  const nlohmann::json j = VerdictJson(v, rules);
  EXPECT_EQ(j["result"], "VALID");
  EXPECT_EQ(j["scenario"], "server");
  EXPECT_EQ(j["constraints"][0]["metric"], "ttft");
  EXPECT_EQ(j["constraints"][0]["early_stopping"]["required"], 459);
}

}  // namespace
}  // namespace frontier::loadgen
