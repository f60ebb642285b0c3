// A stored point's summary and its result file share one schema (metrics'):
// the same keys with the same values, and the verdict's word is the one
// metrics writes.
#include <gtest/gtest.h>

#include <limits>
#include <optional>
#include <set>
#include <string>

#include <nlohmann/json.hpp>

#include "metrics/result_json.h"
#include "metrics/verdict_label.h"
#include "store/records.h"
#include "store/schema.h"
#include "store/store.h"
#include "util/scratch.h"

namespace frontier::store {
namespace {

using nlohmann::json;
constexpr Nanos kMs = kNanosPerMilli;

// Two ok requests and a rate-limited one, times known: TTFT 100 and 50 ms,
// E2EL 140 and 90 ms, TPOT 10 ms each ((140 - 100) / 4, (90 - 50) / 4).
RunResult ThreeRequestRun() {
  RunResult run;
  run.model = "m";
  run.start_time_utc = "2026-11-30T14:00:00Z";
  RequestRecord a;
  a.id = 0;
  a.ok = true;
  a.usage_reported = true;
  a.prompt_tokens = 10;
  a.output_tokens = 5;
  a.events = {{100 * kMs, 1}, {120 * kMs, 1}, {140 * kMs, 3}};
  a.first_token_ns = 100 * kMs;
  a.end_ns = 140 * kMs;
  RequestRecord b = a;
  b.id = 1;
  b.scheduled_ns = b.sent_ns = 10 * kMs;
  b.events = {{60 * kMs, 2}, {100 * kMs, 3}};
  b.first_token_ns = 60 * kMs;
  b.end_ns = 100 * kMs;
  RequestRecord c;
  c.id = 2;
  c.failure = failure::kRateLimited;
  c.http_status = 429;
  c.end_ns = 200 * kMs;
  run.requests = {a, b, c};
  return run;
}

// A session run's summary with every optional part set (goodput, steady
// span, cancellations, ideal hit rate, sessions), values chosen by hand.
metrics::Summary EverythingSummary() {
  metrics::Summary s;
  s.completed = 7;
  s.failed = 2;
  s.warmup = 3;
  s.duration_s = 2.5;
  s.request_throughput = 2.8;
  s.goodput_requested = true;
  s.request_goodput = 2.0;
  s.output_throughput = 50;
  s.total_token_throughput = 500;
  s.output_throughput_per_gpu = 25;
  s.total_token_throughput_per_gpu = 250;
  s.interactivity = 50;
  s.tpot_ms.median = 20;
  s.icl_ms.mean = 21.5;
  s.client_queue_ms.percentiles = {{99, 0.75}};
  s.failures_by_reason["http_500"] = 2;
  s.cancelled = 1;
  s.ideal_prefix_hit_rate = 0.375;
  s.ideal_hit_block_tokens = 16;
  s.has_sessions = true;
  s.sessions_completed = 4;
  s.sessions_failed = 1;
  s.session_end_reasons["turn_failed"] = 1;
  s.turn_ttft_ms.percentiles = {{99, 31}};
  s.session_latency_ms.mean = 900;
  s.timeslices.steady = true;
  s.timeslices.steady_output_throughput = 48;
  s.timeslices.steady_request_throughput = 2.5;
  metrics::Timeslice t;
  t.end_s = 1;
  s.timeslices.slice_s = 1;
  s.timeslices.slices = {t};
  return s;
}

// The result file's keys that are not the summary's: the run's, the load's
// and the caller's extra fields, provenance, and the series the store keeps
// in their own table.
const std::set<std::string> kRunKeys = {"date",        "model_id",    "num_gpus",       "timeslices",
                                        "frontier",    "server_metrics", "request_rate", "burstiness",
                                        "max_concurrency", "num_prompts", "backend"};

json ResultFileSummary(const RunResult& run, const metrics::Summary& s) {
  metrics::SummaryOptions o;
  o.num_gpus = 2;
  metrics::ResultLoad load;
  load.max_concurrency = 4;
  load.num_prompts = 3;
  json extra = metrics::ResultLoadToJson(load);
  extra["backend"] = "vllm";
  json file = metrics::ResultToJson(run, s, o, &extra);
  for (const auto& k : kRunKeys) file.erase(k);
  return file;
}

TEST(StoredSummary, HasTheResultFilesSummaryKeysWithTheSameValues) {
  const RunResult run = ThreeRequestRun();
  metrics::SummaryOptions o;
  const metrics::Summary measured = metrics::Summarize(run, o);
  for (const metrics::Summary& s : {measured, EverythingSummary()}) {
    const json stored = json::parse(store::SummaryToJson(s));
    EXPECT_EQ(stored, ResultFileSummary(run, s));  // same keys, same values, nothing more or less
  }

  // Figures known by hand, under the result file's names, in the stored text.
  const json m = json::parse(store::SummaryToJson(measured));
  EXPECT_EQ(m["completed"], 2);
  EXPECT_EQ(m["failed"], 1);
  EXPECT_DOUBLE_EQ(m["mean_ttft_ms"].get<double>(), 75.0);
  EXPECT_DOUBLE_EQ(m["median_e2el_ms"].get<double>(), 115.0);
  EXPECT_DOUBLE_EQ(m["mean_tpot_ms"].get<double>(), 10.0);
  EXPECT_DOUBLE_EQ(m["duration"].get<double>(), 0.2);
  EXPECT_DOUBLE_EQ(m["output_throughput"].get<double>(), 50.0);  // 10 tokens / 0.2 s
  EXPECT_EQ(m["failures_by_reason"]["http_429"], 1);
  EXPECT_TRUE(m["request_goodput"].is_null());  // no SLO given, as vLLM writes it
  EXPECT_TRUE(m.contains("p99_icl_ms"));        // frontier's own metrics are kept too
  EXPECT_TRUE(m.contains("mean_client_queue_time_ms"));
  EXPECT_FALSE(m.contains("timeslices"));       // kept in the series table, not twice

  const json e = json::parse(store::SummaryToJson(EverythingSummary()));
  EXPECT_DOUBLE_EQ(e["mean_icl_ms"].get<double>(), 21.5);
  EXPECT_DOUBLE_EQ(e["p99_client_queue_time_ms"].get<double>(), 0.75);
  EXPECT_EQ(e["warmup_requests"], 3);
  EXPECT_DOUBLE_EQ(e["request_goodput"].get<double>(), 2.0);
  EXPECT_DOUBLE_EQ(e["steady_output_throughput"].get<double>(), 48);
  EXPECT_EQ(e["session_end_reasons"]["turn_failed"], 1);
  EXPECT_DOUBLE_EQ(e["p99_turn_ttft_ms"].get<double>(), 31);
}

TEST(StoredSummary, ReadsBackThroughTheResultReaderAsItWasWritten) {
  const metrics::Summary s = EverythingSummary();
  testing_util::ScratchDir tmp("records");  // removed at the end, also when an assertion fails
  const std::string path = tmp.Path("records.db");
  auto store = OpenStore(path);
  ASSERT_TRUE(store.ok()) << store.status().ToString();
  RunInfo run;
  run.sweep = "schema";
  run.system = "sys";
  run.source = Source::kMeasured;
  auto created = (*store)->CreateRun(run);
  ASSERT_TRUE(created.ok()) << created.status().ToString();
  PointRecord p;
  p.run_id = created->id;
  p.workload = "w";
  p.load_value = 4;
  p.key = PointKey(p.workload, p.load_kind, p.load_value, 0);
  p.source = Source::kMeasured;
  p.num_gpus = 2;
  p.metrics = s;
  p.summary_json = store::SummaryToJson(s);
  ASSERT_TRUE((*store)->AddPoint(p, {}).ok());
  auto points = (*store)->ListPoints(created->id);
  ASSERT_TRUE(points.ok());
  ASSERT_EQ(points->size(), 1u);
  EXPECT_EQ((*points)[0].summary_json, p.summary_json);  // stored byte for byte

  // metrics' one reader takes the stored summary back to the same figures.
  auto back = metrics::SummaryFromResultJson(json::parse((*points)[0].summary_json), "point");
  ASSERT_TRUE(back.ok()) << back.status().ToString();
  EXPECT_EQ(back->completed, 7);
  EXPECT_EQ(back->warmup, 3);
  EXPECT_EQ(back->cancelled, 1);
  EXPECT_TRUE(back->goodput_requested);
  EXPECT_DOUBLE_EQ(back->request_goodput, 2.0);
  EXPECT_DOUBLE_EQ(back->icl_ms.mean, 21.5);
  EXPECT_DOUBLE_EQ(*back->client_queue_ms.At(99), 0.75);
  EXPECT_DOUBLE_EQ(back->timeslices.steady_output_throughput, 48);
  EXPECT_EQ(back->sessions_completed, 4);
  EXPECT_DOUBLE_EQ(back->session_latency_ms.mean, 900);
}

TEST(VerdictViewLabel, IsMetricsWord) {
  VerdictView v;
  EXPECT_EQ(v.Label(), "");
  v.judged = true;
  v.valid = true;
  EXPECT_EQ(v.Label(), metrics::VerdictLabel(true));
  v.valid = false;
  EXPECT_EQ(v.Label(), metrics::VerdictLabel(false));
  // What ParseVerdict accepts is exactly what VerdictLabel writes.
  EXPECT_TRUE(ParseVerdict(R"({"result":"VALID"})")->valid);
  EXPECT_FALSE(ParseVerdict(R"({"result":"INVALID"})")->valid);
  const auto lower = ParseVerdict(R"({"result":"valid"})");
  ASSERT_FALSE(lower.ok());
  EXPECT_EQ(lower.status().message(),
            "verdict_json must be a JSON object whose \"result\" is VALID or INVALID, got "
            "'{\"result\":\"valid\"}'");
}

// The columns read a summary as the points table has always kept it: a p99
// the summary did not compute and energy it did not measure are 0, and a
// count kept as REAL is its value.
TEST(Columns, ReadASummaryAsTheTableKeepsIt) {
  metrics::Summary s;
  s.ttft_ms.median = 40;
  s.ttft_ms.percentiles = {{50, 40}, {99, 120}};
  s.max_concurrent_requests = 7;
  s.tokens_per_joule = 9;  // without energy: not a measurement
  auto get = [&](const char* name) { return FindDoubleColumn(name)->Get(s); };
  EXPECT_EQ(get("median_ttft_ms"), 40);
  EXPECT_EQ(get("p99_ttft_ms"), 120);
  EXPECT_EQ(get("p99_tpot_ms"), 0);
  EXPECT_EQ(get("max_concurrent_requests"), 7);
  EXPECT_EQ(get("energy_j"), 0);
  EXPECT_EQ(get("tokens_per_joule"), 0);
  EXPECT_EQ(FindDoubleColumn("no_such_column"), nullptr);
}

// Every column's value comes back from a summary it was set on; zeros set on
// the energy columns leave the summary without a measurement.
TEST(Columns, SetThenGetIsTheValue) {
  metrics::Summary s;
  for (int i = 0; i < kNumDoubleColumns; ++i) kDoubleColumns[i].Set(s, i + 1);
  for (int i = 0; i < kNumDoubleColumns; ++i) EXPECT_EQ(kDoubleColumns[i].Get(s), i + 1) << kDoubleColumns[i].name;
  ASSERT_TRUE(s.energy.has_value());
  EXPECT_EQ(s.energy->joules, FindDoubleColumn("energy_j")->Get(s));

  metrics::Summary zeros;
  for (int i = 0; i < kNumDoubleColumns; ++i) kDoubleColumns[i].Set(zeros, 0);
  EXPECT_FALSE(zeros.energy.has_value());
  for (int i = 0; i < kNumDoubleColumns; ++i) EXPECT_EQ(kDoubleColumns[i].Get(zeros), 0) << kDoubleColumns[i].name;
}

TEST(PointKey, KeepsPrintfsSixDigitsAndNeverLetsTwoLoadsShareAKey) {
  // The keys stored so far (%g): a database written before keeps its keys for --resume and compare.
  EXPECT_EQ(PointKey("1k1k", LoadKind::kConcurrency, 16, 2), "1k1k|concurrency=16|rep=2");
  EXPECT_EQ(PointKey("w", LoadKind::kRequestRate, 0.5, 0), "w|request_rate=0.5|rep=0");
  EXPECT_EQ(PointKey("w", LoadKind::kConcurrency, 1000000, 0), "w|concurrency=1e+06|rep=0");
  EXPECT_EQ(PointKey("w", LoadKind::kRequestRate, 123456, 0), "w|request_rate=123456|rep=0");
  // Six digits would have written 2.5e+06 for both concurrencies, and 1.23457 for both rates: a plan's
  // second point was then "already stored" on --resume.
  EXPECT_EQ(PointKey("w", LoadKind::kConcurrency, 2500001, 0), "w|concurrency=2500001|rep=0");
  EXPECT_EQ(PointKey("w", LoadKind::kConcurrency, 2500002, 0), "w|concurrency=2500002|rep=0");
  EXPECT_EQ(PointKey("w", LoadKind::kRequestRate, 1.2345671, 0), "w|request_rate=1.2345671|rep=0");
  EXPECT_EQ(PointKey("w", LoadKind::kRequestRate, 0.1, 0), "w|request_rate=0.1|rep=0");
}

// A finite rate is the point's load, a concurrency cap beside it limits it
// (a plan's request_rate point with max_concurrency, vLLM's --request-rate
// with --max-concurrency); a cap alone is a concurrency point.
TEST(SetPointLoad, AFiniteRateIsTheLoadAndACapAloneIsAConcurrency) {
  PointRecord p;
  SetPointLoad(2, 4.0, &p);
  EXPECT_EQ(p.load_kind, LoadKind::kRequestRate);
  EXPECT_EQ(p.load_value, 4.0);
  SetPointLoad(2, std::numeric_limits<double>::infinity(), &p);
  EXPECT_EQ(p.load_kind, LoadKind::kConcurrency);
  EXPECT_EQ(p.load_value, 2.0);
  SetPointLoad(2, std::nullopt, &p);
  EXPECT_EQ(p.load_kind, LoadKind::kConcurrency);
  SetPointLoad(std::nullopt, std::nullopt, &p);
  EXPECT_EQ(p.load_kind, LoadKind::kRequestRate);
  EXPECT_EQ(p.load_value, bounds::kInfiniteRate);
}

}  // namespace
}  // namespace frontier::store
