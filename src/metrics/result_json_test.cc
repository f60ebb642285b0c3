#include "metrics/result_json.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <fstream>

#include "core/atomic_file.h"

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

TEST(ResultJsonTest, WriteThenReadBackTheSummary) {
  RunResult run = TwoRequestRun();
  SummaryOptions o;
  Summary s = Summarize(run, o);
  const std::string path = ::testing::TempDir() + "/result." + std::to_string(::getpid()) + ".json";
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

TEST(ResultJsonTest, RequestRecordsRoundTripThroughJsonl) {
  RunResult run = TwoRequestRun();
  const std::string path = ::testing::TempDir() + "/req." + std::to_string(::getpid()) + ".jsonl";
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
  RequestJsonlWriter bad;
  EXPECT_FALSE(bad.Open("/nonexistent/dir/x.jsonl").ok());
}

}  // namespace
}  // namespace frontier::metrics
