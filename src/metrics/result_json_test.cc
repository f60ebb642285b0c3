#include "metrics/result_json.h"

#include <gtest/gtest.h>

#include <cmath>
#include <fstream>
#include <utility>

#include "core/atomic_file.h"
#include "metrics/verdict_label.h"
#include "util/scratch.h"

namespace frontier::metrics {
namespace {

constexpr Nanos kMs = kNanosPerMilli;

RunResult TwoRequestRun() {
  RunResult run;
  run.model = "m";
  run.served_model = "served-m";
  run.command_line = "frontier bench --model m";
  run.start_time_utc = "2026-11-30T14:00:00Z";
  run.requested_settings["request_rate"] = "inf";
  RequestRecord a;
  a.id = 0;
  a.ok = true;
  a.usage_reported = true;
  a.prompt_tokens = 10;
  a.output_tokens = 5;
  a.sent_ns = 0;
  a.events = {{100 * kMs, 1}, {120 * kMs, 1}, {140 * kMs, 3}};
  a.first_token_ns = 100 * kMs;
  a.end_ns = 140 * kMs;
  RequestRecord b;
  b.id = 1;
  b.failure = failure::kRateLimited;
  b.failure_detail = "slow down \xff";  // invalid UTF-8 must not throw
  b.http_status = 429;
  b.end_ns = 200 * kMs;
  run.requests = {a, b};
  return run;
}

TEST(ResultJsonTest, VllmFieldNamesAndValues) {
  RunResult run = TwoRequestRun();
  SummaryOptions o;
  o.num_gpus = 2;
  Summary s = Summarize(run, o);
  nlohmann::json j = ResultToJson(run, s, o);
  EXPECT_EQ(j["completed"], 1);
  EXPECT_EQ(j["failed"], 1);
  EXPECT_EQ(j["total_output_tokens"], 5);
  EXPECT_DOUBLE_EQ(j["duration"].get<double>(), 0.2);
  EXPECT_DOUBLE_EQ(j["output_throughput"].get<double>(), 25.0);
  EXPECT_DOUBLE_EQ(j["output_throughput_per_gpu"].get<double>(), 12.5);
  EXPECT_DOUBLE_EQ(j["mean_ttft_ms"].get<double>(), 100.0);
  EXPECT_DOUBLE_EQ(j["mean_tpot_ms"].get<double>(), 10.0);  // (140-100)/(5-1)
  EXPECT_DOUBLE_EQ(j["median_e2el_ms"].get<double>(), 140.0);
  EXPECT_TRUE(j.contains("p99.9_itl_ms"));
  EXPECT_TRUE(j.contains("p99_icl_ms"));
  EXPECT_TRUE(j.contains("mean_client_queue_time_ms"));
  EXPECT_DOUBLE_EQ(j["interactivity"].get<double>(), 100.0);
  EXPECT_TRUE(j["request_goodput"].is_null());
  EXPECT_EQ(j["failures_by_reason"]["http_429"], 1);
  EXPECT_EQ(j["frontier"]["format_version"], 1);
  EXPECT_EQ(j["frontier"]["served_model"], "served-m");
  EXPECT_EQ(j["frontier"]["requested_settings"]["request_rate"], "inf");
  EXPECT_EQ(j["frontier"]["interrupted"], false);
}

TEST(ResultJsonTest, ASimulatedRunCarriesItsBandAndAMeasuredOneNone) {
  RunResult run = TwoRequestRun();
  SummaryOptions o;
  const Summary s = Summarize(run, o);
  const nlohmann::json measured = ResultToJson(run, s, o);
  for (const char* k : {"band_half_width", "band_points", "band_basis", "band_flags"})
    EXPECT_FALSE(measured.contains(k)) << k;
  Result<ResultDocument> none = ReadResultDocument(measured, "m.json");
  ASSERT_TRUE(none.ok()) << none.status().ToString();
  EXPECT_FALSE(none->band.has_value());

  run.source = RunSource::kSimulated;
  run.band = PredictionBand{0.125, 30, "MLA / tp / nvidia", {"GPU never calibrated (b200)"}};
  const nlohmann::json j = ResultToJson(run, s, o);
  EXPECT_DOUBLE_EQ(j["band_half_width"].get<double>(), 0.125);
  EXPECT_EQ(j["band_points"], 30);
  EXPECT_EQ(j["band_basis"], "MLA / tp / nvidia");
  EXPECT_EQ(j["band_flags"], nlohmann::json::array({"GPU never calibrated (b200)"}));
  Result<ResultDocument> back = ReadResultDocument(j, "s.json");
  ASSERT_TRUE(back.ok()) << back.status().ToString();
  ASSERT_TRUE(back->band.has_value());
  EXPECT_EQ(*back->band, *run.band);

  nlohmann::json bad = j;
  bad["band_half_width"] = -0.1;
  EXPECT_EQ(ReadResultDocument(bad, "s.json").status().message().find("s.json: band_half_width"), 0u)
      << ReadResultDocument(bad, "s.json").status().message();
  bad = j;
  bad["band_flags"] = {1, 2};
  EXPECT_EQ(ReadResultDocument(bad, "s.json").status().message(), "s.json: band_flags must be an array of strings");
}

TEST(ResultJsonTest, WriteThenReadBackTheSummary) {
  RunResult run = TwoRequestRun();
  SummaryOptions o;
  Summary s = Summarize(run, o);
  testing_util::ScratchDir tmp("result_json");
  const std::string path = tmp.Path("result.json");
  ASSERT_TRUE(WriteResultJson(path, run, s, o).ok());
  auto back = ReadResultSummary(path);
  ASSERT_TRUE(back.ok()) << back.status().ToString();
  EXPECT_EQ(back->completed, 1);
  EXPECT_DOUBLE_EQ(back->tpot_ms.mean, s.tpot_ms.mean);
  ASSERT_TRUE(back->itl_ms.At(99.9).has_value());
  EXPECT_DOUBLE_EQ(*back->itl_ms.At(99.9), *s.itl_ms.At(99.9));
  EXPECT_EQ(back->failures_by_reason.at("http_429"), 1);
  EXPECT_FALSE(ReadResultSummary("/nonexistent.json").ok());
}

TEST(ResultJsonTest, MeasuredEnergyGivesTokensPerJouleAndIsReadBack) {
  RunResult run = TwoRequestRun();
  EnergyMeasurement e;
  e.source = "nvml";
  e.method = "energy counter";
  e.window_s = 0.2;
  e.joules = 60;  // 15 tokens (10 in, 5 out): 0.25 tokens per joule
  e.mean_w = 300;
  e.peak_w = 410;
  e.samples = 2;
  e.interval_s = 0.1;
  e.devices = {{"gpu0 H200", 20, 100, 130}, {"gpu1 H200", 40, 200, 280}};
  run.energy = e;
  SummaryOptions o;
  Summary s = Summarize(run, o);
  EXPECT_DOUBLE_EQ(s.tokens_per_joule, 0.25);
  EXPECT_DOUBLE_EQ(s.output_tokens_per_joule, 5.0 / 60);
  EXPECT_EQ(EnergyLabel(s), "measured (nvml)");
  const nlohmann::json j = ResultToJson(run, s, o);
  EXPECT_EQ(j["energy"]["label"], "measured (nvml)");
  EXPECT_DOUBLE_EQ(j["energy"]["devices"][1]["peak_power_w"].get<double>(), 280);
  EXPECT_DOUBLE_EQ(j["tokens_per_joule"].get<double>(), 0.25);
  auto back = SummaryFromResultJson(j, "r.json");
  ASSERT_TRUE(back.ok()) << back.status().ToString();
  ASSERT_TRUE(back->energy.has_value());
  EXPECT_EQ(back->energy->source, "nvml");
  EXPECT_DOUBLE_EQ(back->energy->joules, 60);
  EXPECT_DOUBLE_EQ(back->energy->peak_w, 410);
  ASSERT_EQ(back->energy->devices.size(), 2u);
  EXPECT_DOUBLE_EQ(back->energy->devices[1].mean_w, 200);
  EXPECT_DOUBLE_EQ(back->tokens_per_joule, 0.25);
  // Without a measurement: no energy keys, and the label is the bound.
  Summary none = Summarize(TwoRequestRun(), o);
  EXPECT_EQ(EnergyLabel(none), "TDP bound");
  EXPECT_FALSE(ResultToJson(TwoRequestRun(), none, o).contains("energy"));
  // A broken energy object is refused by field.
  nlohmann::json bad = j;
  bad["energy"]["joules"] = -1;
  auto refused = SummaryFromResultJson(bad, "r.json");
  ASSERT_FALSE(refused.ok());
  EXPECT_NE(refused.status().message().find("r.json: energy: joules"), std::string::npos) << refused.status().message();
}

TEST(ResultJsonTest, ReadsAVllmFile) {
  // The shape `vllm bench serve --save-result` writes (abridged).
  auto doc = nlohmann::json::parse(R"({"date": "20250101-000000", "backend": "vllm",
    "completed": 100, "total_input_tokens": 102400, "total_output_tokens": 12800,
    "request_throughput": 5.0, "request_goodput": null, "output_throughput": 640.0,
    "total_token_throughput": 5760.0, "mean_ttft_ms": 30.5, "median_ttft_ms": 28.0,
    "std_ttft_ms": 4.0, "p99_ttft_ms": 45.0, "mean_tpot_ms": 12.5, "median_tpot_ms": 12.0,
    "std_tpot_ms": 1.0, "p99_tpot_ms": 15.0, "duration": 20.0})");
  auto s = SummaryFromResultJson(doc, "vllm.json");
  ASSERT_TRUE(s.ok());
  EXPECT_EQ(s->completed, 100);
  EXPECT_FALSE(s->goodput_requested);
  EXPECT_DOUBLE_EQ(*s->ttft_ms.At(99), 45.0);
  EXPECT_DOUBLE_EQ(s->interactivity, 1000.0 / 12.0);
  EXPECT_FALSE(SummaryFromResultJson(nlohmann::json::array(), "x").ok());
}

TEST(ResultJsonTest, EveryFigureWrittenIsReadBack) {
  // A session run's summary, cancellations and ideal hit rate: fields only
  // some results carry, each set to a value the reader must return as is.
  Summary s;
  s.completed = 7;
  s.failed = 2;
  s.cancelled = 1;
  s.warmup = 3;
  s.output_throughput = 50;
  s.total_token_throughput = 500;
  s.output_throughput_per_gpu = 25;
  s.total_token_throughput_per_gpu = 250;
  s.tpot_ms.median = 20;
  s.interactivity = 50;
  s.ideal_prefix_hit_rate = 0.375;
  s.ideal_hit_block_tokens = 16;
  s.has_sessions = true;
  s.sessions_completed = 4;
  s.sessions_failed = 1;
  s.session_end_reasons["turn_failed"] = 1;
  s.turn_ttft_ms.median = 11;
  s.turn_ttft_ms.percentiles = {{99, 31}};
  s.session_latency_ms.mean = 900;
  s.failures_by_reason["http_500"] = 2;
  SummaryOptions o;
  o.num_gpus = 2;
  const nlohmann::json doc = ResultToJson(RunResult{}, s, o);
  Result<ResultDocument> back = ReadResultDocument(doc, "r.json");
  ASSERT_TRUE(back.ok()) << back.status().ToString();
  const Summary& r = back->summary;
  EXPECT_EQ(r.completed, 7);
  EXPECT_EQ(r.failed, 2);
  EXPECT_EQ(r.cancelled, 1);
  EXPECT_EQ(r.warmup, 3);
  EXPECT_DOUBLE_EQ(r.output_throughput_per_gpu, 25);
  EXPECT_DOUBLE_EQ(r.interactivity, 50);
  EXPECT_DOUBLE_EQ(r.ideal_prefix_hit_rate, 0.375);
  EXPECT_EQ(r.ideal_hit_block_tokens, 16);
  EXPECT_TRUE(r.has_sessions);
  EXPECT_EQ(r.sessions_completed, 4);
  EXPECT_EQ(r.sessions_failed, 1);
  EXPECT_EQ(r.session_end_reasons.at("turn_failed"), 1);
  EXPECT_DOUBLE_EQ(r.turn_ttft_ms.median, 11);
  EXPECT_DOUBLE_EQ(*r.turn_ttft_ms.At(99), 31);
  EXPECT_DOUBLE_EQ(r.session_latency_ms.mean, 900);
  EXPECT_EQ(r.failures_by_reason.at("http_500"), 2);
  EXPECT_TRUE(back->requests.empty());
}

TEST(ResultJsonTest, AVllmFileGivesItsLoadAndItsRequests) {
  auto doc = nlohmann::json::parse(R"({"backend": "vllm", "model_id": "m", "completed": 2,
    "num_prompts": 3, "request_rate": "inf", "max_concurrency": 4, "output_throughput": 10,
    "total_token_throughput": 110, "ttfts": [0.1, 0, 0.2], "itls": [[0.02, 0.03], [], []],
    "input_lens": [50, 50, 60], "output_lens": [3, 0, 1], "errors": ["", "boom", ""]})");
  Result<ResultDocument> d = ReadResultDocument(doc, "v.json");
  ASSERT_TRUE(d.ok()) << d.status().ToString();
  EXPECT_EQ(d->summary.failed, 1);  // num_prompts - completed
  EXPECT_EQ(d->max_concurrency, 4);
  ASSERT_TRUE(d->request_rate.has_value());
  EXPECT_TRUE(std::isinf(*d->request_rate));
  EXPECT_EQ(d->settings.at("request_rate"), "inf");
  EXPECT_EQ(d->settings.at("max_concurrency"), "4");
  EXPECT_TRUE(d->has_errors);
  ASSERT_EQ(d->requests.size(), 3u);
  EXPECT_EQ(d->requests[0].input_len, 50);
  EXPECT_EQ(d->requests[0].output_len, 3);
  EXPECT_DOUBLE_EQ(d->requests[0].end_s, 0.1 + 0.02 + 0.03);
  EXPECT_EQ(d->requests[0].chunks, 3);  // the first token, then one per gap
  EXPECT_EQ(d->requests[1].chunks, 0);  // ttft 0: failed
  EXPECT_EQ(d->requests[2].chunks, 1);
  // The file's own "failed" wins over num_prompts - completed (a frontier
  // result counts cancelled requests in neither).
  doc["failed"] = 0;
  EXPECT_EQ(ReadResultDocument(doc, "v.json")->summary.failed, 0);
}

TEST(ResultJsonTest, TheLoadIsWrittenWithVllmsKeysAndReadBack) {
  // All at once, no cap, bounded by duration only: vLLM's "inf" and nulls.
  EXPECT_EQ(ResultLoadToJson(ResultLoad{}).dump(),
            R"({"burstiness":1.0,"max_concurrency":null,"num_prompts":null,"request_rate":"inf"})");
  ResultLoad load;
  load.request_rate = 4.5;
  load.burstiness = 0.5;
  load.max_concurrency = 16;
  load.num_prompts = 200;
  nlohmann::json doc = ResultLoadToJson(load);
  EXPECT_EQ(doc.dump(), R"({"burstiness":0.5,"max_concurrency":16,"num_prompts":200,"request_rate":4.5})");
  doc.update(nlohmann::json::parse(R"({"completed": 150, "output_throughput": 1, "total_token_throughput": 2})"));
  Result<ResultDocument> d = ReadResultDocument(doc, "r.json");
  ASSERT_TRUE(d.ok()) << d.status().ToString();
  EXPECT_EQ(d->request_rate, 4.5);
  EXPECT_EQ(d->burstiness, 0.5);
  EXPECT_EQ(d->max_concurrency, 16);
  EXPECT_EQ(d->num_prompts, 200);
  EXPECT_EQ(d->summary.failed, 50);  // num_prompts - completed: the file has no "failed"
  EXPECT_EQ(d->settings.at("request_rate"), "4.5");
  EXPECT_EQ(d->settings.at("burstiness"), "0.5");
}

TEST(ResultJsonTest, TheSummaryKeysAreTheResultsLessTheRunsKeys) {
  RunResult run = TwoRequestRun();
  SummaryOptions o;
  o.num_gpus = 4;
  const Summary s = Summarize(run, o);
  nlohmann::json file = ResultToJson(run, s, o);
  // The run's keys, and the windows the store keeps in a table of their own.
  for (const char* k : {"date", "model_id", "num_gpus", "frontier", "timeslices"}) {
    ASSERT_TRUE(file.contains(k)) << k;
    file.erase(k);
  }
  EXPECT_EQ(SummaryToJson(s), file);
}

// A stored summary's latency statistics, read by key as SummaryToJson writes
// them: mean, std, median, then the percentiles by P; other metrics' keys,
// non-numbers and unknown stats are left out.
TEST(ResultJsonTest, LatencyStatsInDisplayOrder) {
  Summary s;
  s.ttft_ms.mean = 75;
  s.ttft_ms.std = 5;
  s.ttft_ms.median = 74;
  s.ttft_ms.percentiles = {{99.9, 98}, {50, 74}, {99, 90}};
  s.tpot_ms.mean = 10;
  nlohmann::json j = SummaryToJson(s);
  j["p95_ttft_ms"] = "fast";   // not a number
  j["max_ttft_ms"] = 120;      // not a statistic of the schema
  j["pxx_ttft_ms"] = 1;        // not a percentile
  const std::vector<std::pair<std::string, double>> want = {{"mean", 75}, {"std", 5},  {"median", 74},
                                                             {"p50", 74},  {"p99", 90}, {"p99.9", 98}};
  EXPECT_EQ(LatencyStats(j, "ttft"), want);
  EXPECT_EQ(LatencyStats(j, "tpot").front(), (std::pair<std::string, double>{"mean", 10}));
  EXPECT_TRUE(LatencyStats(j, "nope").empty());
  EXPECT_TRUE(LatencyStats(nlohmann::json::array(), "ttft").empty());
}

TEST(VerdictLabelTest, TheTwoWordsBothWays) {
  static_assert(std::string_view(VerdictLabel(true)) == "VALID");
  static_assert(std::string_view(VerdictLabel(false)) == "INVALID");
  EXPECT_EQ(ParseVerdictLabel("VALID"), true);
  EXPECT_EQ(ParseVerdictLabel("INVALID"), false);
  EXPECT_EQ(ParseVerdictLabel("valid"), std::nullopt);
  EXPECT_EQ(ParseVerdictLabel(""), std::nullopt);
  EXPECT_EQ(ParseVerdictLabel("VALID "), std::nullopt);
}

TEST(ResultJsonTest, AFigureOutOfItsRangeNamesTheFieldTheValueAndTheRange) {
  const std::pair<std::string, std::string> cases[] = {
      {R"({"p99_itl_ms": -3})", "r.json: p99_itl_ms must be a number in [0, 1000000000], got -3"},
      {R"({"std_e2el_ms": "slow"})", "r.json: std_e2el_ms must be a number in [0, 1000000000], got 'slow'"},
      {R"({"failures_by_reason": {"http_500": "x"}})",
       "r.json: failures_by_reason.http_500 must be an integer in [0, 1000000000000], got \"x\""},
      {R"({"failures_by_reason": [1]})", "r.json: failures_by_reason must be an object of counts, got [1]"},
      {R"({"ideal_prefix_hit_rate": 1.5})", "r.json: ideal_prefix_hit_rate must be a number in [0, 1], got 1.5"},
      {R"({"num_gpus": 0})", "r.json: num_gpus must be an integer in [1, 1000000], got 0"},
      {R"({"usage_from_server": 1})", "r.json: usage_from_server must be true or false, got 1"},
      {R"({"sessions_completed": -1})",
       "r.json: sessions_completed must be an integer in [0, 1000000000000], got -1"},
      {R"({"output_throughput": null})",
       "r.json: field 'output_throughput' is missing; is this a `vllm bench serve` result?"},
  };
  for (const auto& [patch, message] : cases) {
    auto doc = nlohmann::json::parse(R"({"completed": 1, "output_throughput": 1, "total_token_throughput": 2})");
    doc.merge_patch(nlohmann::json::parse(patch));
    Result<ResultDocument> d = ReadResultDocument(doc, "r.json");
    ASSERT_FALSE(d.ok()) << patch;
    EXPECT_EQ(d.status().code(), StatusCode::kInvalidArgument) << patch;
    EXPECT_EQ(d.status().message(), message) << patch;
  }
}

TEST(ResultJsonTest, RequestRecordsRoundTripThroughJsonl) {
  RunResult run = TwoRequestRun();
  run.requests[0].server_timings = {.prompt_n = 7, .prompt_ms = 1.5, .predicted_n = 4, .predicted_ms = 2.25};
  testing_util::ScratchDir tmp("result_json");
  const std::string path = tmp.Path("req.jsonl");
  {
    RequestJsonlWriter w;
    ASSERT_TRUE(w.Open(path).ok());
    for (const auto& r : run.requests) ASSERT_TRUE(w.Write(r).ok());
    // Flushed per record: readable before Close.
    auto text = ReadFile(path);
    ASSERT_TRUE(text.ok());
    EXPECT_EQ(std::count(text->begin(), text->end(), '\n'), 2);
  }
  std::ifstream in(path);
  std::string line;
  std::vector<RequestRecord> back;
  while (std::getline(in, line)) {
    auto r = RequestRecordFromJson(nlohmann::json::parse(line));
    ASSERT_TRUE(r.ok()) << r.status().ToString();
    back.push_back(*r);
  }
  ASSERT_EQ(back.size(), 2u);
  EXPECT_EQ(back[0].events.size(), 3u);
  EXPECT_EQ(back[0].events[2].tokens, 3);
  EXPECT_EQ(back[0].events[2].t_ns, 140 * kMs);
  EXPECT_EQ(back[1].failure, "http_429");
  EXPECT_EQ(back[1].http_status, 429);
  EXPECT_EQ(back[0].server_timings.prompt_n, 7);
  EXPECT_DOUBLE_EQ(back[0].server_timings.prompt_ms, 1.5);
  EXPECT_EQ(back[0].server_timings.predicted_n, 4);
  EXPECT_DOUBLE_EQ(back[0].server_timings.predicted_ms, 2.25);
  EXPECT_FALSE(back[1].server_timings.given());  // none given, none written
  RequestJsonlWriter bad;
  EXPECT_FALSE(bad.Open("/nonexistent/dir/x.jsonl").ok());
}

}  // namespace
}  // namespace frontier::metrics
