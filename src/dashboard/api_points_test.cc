// The JSON API's views of single points: time slices from stored series or
// from request rows, search runs and their trials, prediction bands.
#include <gtest/gtest.h>

#include <cmath>
#include <string>
#include <vector>

#include "dashboard/api.h"
#include "dashboard/api_fixture.h"
#include "dashboard/test_db.h"
#include "metrics/result_json.h"
#include "metrics/timeslice.h"

namespace frontier::dashboard {
namespace {

using nlohmann::json;
using ApiTest = testing::ApiFixture;

// The four known requests (test_db.h) as a run: sent at 0, 1, 2, 3 s, first
// token 50, 60, 70, 80 ms later, ending 1000 ms after it, 11 tokens each; with
// `events`, one token per stream event every 100 ms from the first token.
RunResult KnownRun(bool events) {
  RunResult run;
  for (const auto& row : testing::KnownRequests()) {
    RequestRecord r;
    r.id = row.idx;
    r.ok = true;
    r.prompt_tokens = row.prompt_tokens;
    r.output_tokens = row.output_tokens;
    r.scheduled_ns = row.scheduled_ns;
    r.sent_ns = row.sent_ns;
    r.first_token_ns = row.first_token_ns;
    r.end_ns = row.end_ns;
    for (int k = 0; events && k < 11; ++k) r.events.push_back({row.first_token_ns + k * int64_t{100'000'000}, 1});
    run.requests.push_back(r);
  }
  return run;
}

// A column of the served windows as numbers.
std::vector<double> Col(const json& ts, const char* name) {
  std::vector<double> out;
  for (const auto& v : ts["windows"][name]) out.push_back(v.get<double>());
  return out;
}

// Point 1 has request rows and no stored series: its windows are
// metrics::ComputeTimeslices' over the rows. By hand: the run spans 0 ..
// 4.08 s (the last request ends at 3 + 0.08 + 1), so the window is 0.2 s
// (4.08 / 30 rounded up to 1-2-5) and there are 21, the last 0.08 s long. Each
// request ends in window 5, 10, 15 and 20 (at 1.05, 2.06, 3.07, 4.08 s), where
// its 11 tokens count (token times are not stored). One request is in flight
// at a time except where one ends as the next began: window 5 holds 0.05 s of
// the first and all 0.2 s of the second (1.25 on average).
TEST_F(ApiTest, APointWithoutStoredSeriesIsSlicedFromItsRequestRowsByMetrics) {
  json j = Get("/api/point", "id=1");
  const json& ts = j["series"]["timeslices"];
  EXPECT_EQ(j["series"]["timeslices_from"], "request rows");
  EXPECT_NEAR(ts["slice_s"].get<double>(), 0.2, 1e-12);
  const auto start = Col(ts, "start_s"), end = Col(ts, "end_s"), completed = Col(ts, "completed");
  const auto tokens = Col(ts, "output_tokens"), flight = Col(ts, "mean_in_flight");
  ASSERT_EQ(start.size(), 21u);
  EXPECT_NEAR(start[20], 4.0, 1e-9);
  EXPECT_NEAR(end[20], 4.08, 1e-9);
  for (size_t k = 0; k < 21; ++k) {
    const bool ends_here = k == 5 || k == 10 || k == 15 || k == 20;
    EXPECT_EQ(completed[k], ends_here ? 1 : 0) << "window " << k;
    EXPECT_EQ(tokens[k], ends_here ? 11 : 0) << "window " << k;
  }
  EXPECT_NEAR(flight[0], 1.0, 1e-9);
  EXPECT_NEAR(flight[5], 1.25, 1e-9);
  EXPECT_NEAR(flight[10], 1.30, 1e-9);
  EXPECT_NEAR(flight[15], 1.35, 1e-9);
  EXPECT_NEAR(flight[20], 1.0, 1e-9);
  EXPECT_NEAR(Col(ts, "output_throughput")[20], 11 / 0.08, 1e-6);
  EXPECT_NEAR(Col(ts, "ttft_p50_ms")[5], 50, 1e-6);
  EXPECT_NEAR(Col(ts, "ttft_p50_ms")[20], 80, 1e-6);
  EXPECT_NEAR(Col(ts, "tpot_p99_ms")[10], 100, 1e-6);
  // The plateau is 1 in flight; every window is level or between level ones: all steady.
  ASSERT_TRUE(ts["steady"].is_object());
  EXPECT_NEAR(ts["steady"]["start_s"].get<double>(), 0, 1e-12);
  EXPECT_NEAR(ts["steady"]["end_s"].get<double>(), 4.08, 1e-9);
  EXPECT_EQ(ts["steady"]["output_tokens"], 44);
  // And the whole object is what metrics computes for those requests.
  EXPECT_EQ(ts, metrics::TimeslicesToJson(metrics::ComputeTimeslices(KnownRun(false), {})));
  EXPECT_TRUE(j["series"]["server"]["queue"].empty());
}

// A point stored with its series shows those: the windows cut when it ran
// (here from token events, so tokens fall where they streamed, not at each
// request's end) and the server's samples.
TEST_F(ApiTest, APointWithStoredSeriesShowsThemAsStored) {
  store::PointRecord p = testing::KnownPoint(1, 2, 0, 100, 100, 50, 10);
  const metrics::Timeslices cut = metrics::ComputeTimeslices(KnownRun(true), {});
  p.series.timeslices_json = metrics::TimeslicesToJson(cut).dump();
  ServerMetrics sm;
  sm.source = "http://127.0.0.1:8000/metrics";
  sm.kind = "vllm";
  const double kv[] = {0.1, 0.5, 0.9}, running[] = {1, 4, 4}, waiting[] = {0, 2, 0};
  for (int i = 0; i < 3; ++i) {
    sm.samples.push_back({int64_t{i} * 1'000'000'000, {{"vllm:kv_cache_usage_perc", kv[i]},
                                                        {"vllm:num_requests_running", running[i]},
                                                        {"vllm:num_requests_waiting", waiting[i]}}});
  }
  p.series.server_metrics_json = metrics::ServerMetricsToJson(sm).dump();
  auto id = writer_->AddPoint(p, testing::KnownRequests());
  ASSERT_TRUE(id.ok()) << id.status().ToString();

  json j = Get("/api/point", "id=" + std::to_string(*id));
  const json& ts = j["series"]["timeslices"];
  EXPECT_EQ(j["series"]["timeslices_from"], "stored");
  EXPECT_EQ(ts, metrics::TimeslicesToJson(cut));
  // Window 0 (0 .. 0.2 s): the first request's tokens at 50 and 150 ms.
  EXPECT_EQ(Col(ts, "output_tokens")[0], 2);
  // Window 5 (1.0 .. 1.2 s): the first request's last token at 1.05 s and the
  // second's first two at 1.06 and 1.16 s.
  EXPECT_EQ(Col(ts, "output_tokens")[5], 3);
  double sum = 0;
  for (double t : Col(ts, "output_tokens")) sum += t;
  EXPECT_EQ(sum, 44);
  const json& server = j["series"]["server"];
  ASSERT_EQ(server["kv_usage_pct"].size(), 1u);
  EXPECT_EQ(server["kv_usage_pct"][0]["t_s"], json({0.0, 1.0, 2.0}));
  const auto pct = server["kv_usage_pct"][0]["values"];
  EXPECT_NEAR(pct[0].get<double>(), 10, 1e-9);
  EXPECT_NEAR(pct[2].get<double>(), 90, 1e-9);
  ASSERT_EQ(server["queue"].size(), 2u);
  EXPECT_EQ(server["queue"][0]["name"], "running");
  EXPECT_EQ(server["queue"][0]["values"], json({1.0, 4.0, 4.0}));
  EXPECT_EQ(server["queue"][1]["name"], "waiting");
  EXPECT_EQ(server["queue"][1]["values"], json({0.0, 2.0, 0.0}));
}

// A search run: its outcome and its trials in the order the search ran them,
// each with its verdict (every reason) and decision.
TEST_F(ApiTest, ASearchRunShowsItsAnswerAndItsTrialsInOrder) {
  store::RunInfo r;
  r.sweep = "search";
  r.system = "h200-vllm";
  r.source = store::Source::kMeasured;
  r.config = {{"hardware", "h200"}, {"gpus", "1"}};
  r.search_json = R"({"goal":"max_valid_qps","axis":"request_rate","runner":"http","stop_reason":"bracket within 10%",)"
                  R"("bracket":{"valid":8,"invalid":9},"trial_count":3,"max_valid_qps":8,)"
                  R"("answer":{"trial":2,"value":8,"request_throughput":7.9,"output_throughput":1011,)"
                  R"("output_throughput_per_gpu":1011,"interactivity":40}})";
  auto run = writer_->CreateRun(r);
  ASSERT_TRUE(run.ok()) << run.status().ToString();
  struct Trial { int index; double qps; const char* verdict; const char* step; const char* decision; };
  // Stored out of order (as a copied database may hold them): shown by index.
  const Trial trials[] = {
      {1, 16, R"({"result":"INVALID","reasons":["TTFT p99 2100 ms > 2000 ms","TPOT p99 61 ms > 40 ms"],"scenario":"Server"})",
       "bracket", "invalid: bisecting [4, 16)"},
      {0, 4, R"({"result":"VALID","reasons":[],"scenario":"Server"})", "bracket", "valid: doubling to 16"},
      {2, 8, R"({"result":"VALID","reasons":[],"scenario":"Server"})", "bisect", "valid: bracket [8, 16) within tolerance: stop"}};
  for (const auto& t : trials) {
    store::PointRecord p = testing::KnownPoint(run->id, 1, 0, 40, 1000, 500, 100);
    p.load_kind = store::LoadKind::kRequestRate;
    p.load_value = t.qps;
    p.key = store::PointKey("1k1k", store::LoadKind::kRequestRate, t.qps, 0) + "|trial=" + std::to_string(t.index);
    p.verdict_json = t.verdict;
    p.trial_json = json{{"index", t.index}, {"value", t.qps}, {"step", t.step}, {"decision", t.decision}}.dump();
    ASSERT_TRUE(writer_->AddPoint(p, {}).ok());
  }
  json j = Get("/api/run", "id=" + std::to_string(run->id));
  EXPECT_EQ(j["run"]["label"], "search/h200-vllm#" + std::to_string(run->id));
  EXPECT_EQ(j["search"]["answer"]["value"], 8);
  EXPECT_EQ(j["search"]["stop_reason"], "bracket within 10%");
  EXPECT_EQ(j["search_line"], report::SearchLine(r.search_json));
  EXPECT_EQ(j["trials"], 3);
  EXPECT_EQ(j["judged"], 3);
  EXPECT_EQ(j["invalid"], 1);
  const json& pts = j["points"];
  ASSERT_EQ(pts.size(), 3u);
  for (int i = 0; i < 3; ++i) EXPECT_EQ(pts[i]["trial"]["index"], i);
  EXPECT_EQ(pts[0]["load"], 4);
  EXPECT_EQ(pts[1]["load"], 16);
  EXPECT_EQ(pts[2]["load"], 8);
  EXPECT_EQ(pts[1]["verdict_cell"], "INVALID: TTFT p99 2100 ms > 2000 ms");
  EXPECT_EQ(pts[1]["verdict"]["reasons"], json({"TTFT p99 2100 ms > 2000 ms", "TPOT p99 61 ms > 40 ms"}));
  EXPECT_EQ(pts[1]["trial"]["decision"], "invalid: bisecting [4, 16)");
  EXPECT_EQ(pts[0]["verdict_cell"], "VALID");
  EXPECT_EQ(pts[2]["trial"]["step"], "bisect");
  // A run that is not a search: no outcome, no trials, its points by id.
  json plain = Get("/api/run", "id=1");
  EXPECT_TRUE(plain["search"].is_null());
  EXPECT_EQ(plain["search_line"], "");
  EXPECT_EQ(plain["trials"], 0);
  EXPECT_EQ(plain["judged"], 0);
  ASSERT_EQ(plain["points"].size(), 6u);
  EXPECT_EQ(plain["points"][0]["id"], 1);
  EXPECT_EQ(plain["points"][5]["id"], 6);
  EXPECT_TRUE(plain["points"][0]["verdict"].is_null());
  EXPECT_EQ(plain["points"][0]["verdict_cell"], "");
  // An unknown run is a 404, a missing id a 400 naming it.
  EXPECT_NE(Get("/api/run", "id=99", 404)["error"].get<std::string>().find("run 99"), std::string::npos);
  EXPECT_NE(Get("/api/run", "", 400)["error"].get<std::string>().find("'id'"), std::string::npos);
}


// A simulated run with a prediction band beside the measured ones: the
// frontier, run and point views give its band (bounds on the plotted y), the
// measured points none.
TEST_F(ApiTest, ASimulatedPointsBandIsInEveryViewAndAMeasuredPointHasNone) {
  store::RunInfo run;
  run.sweep = "predicted";
  run.system = "b200";
  run.source = store::Source::kSimulated;
  run.config = {{"hardware", "b200"}, {"gpus", "8"}};
  auto created = writer_->CreateRun(run);
  ASSERT_TRUE(created.ok());
  const PredictionBand band{0.2, 12, "dense / tp / nvidia", {"GPU never calibrated (b200)"}};
  for (double c : {1.0, 4.0}) {
    store::PointRecord p = testing::KnownPoint(created->id, c, 0, 100 / c, 500 * c, 250 * c, 10 * c);
    p.source = store::Source::kSimulated;
    p.band = band;
    ASSERT_TRUE(writer_->AddPoint(p, {}).ok());
  }
  const json j = Get("/api/frontier", "run=1&run=" + std::to_string(created->id));
  ASSERT_EQ(j["series"].size(), 2u);
  for (const auto& s : j["series"]) {
    const bool simulated = s["run_id"] == created->id;
    EXPECT_DOUBLE_EQ(s["frontier_band"].get<double>(), simulated ? 0.2 : 0.0);
    for (const auto& p : s["points"]) {
      if (!simulated) {
        EXPECT_TRUE(p["band"].is_null());
        continue;
      }
      ASSERT_TRUE(p["band"].is_object());
      EXPECT_DOUBLE_EQ(p["band"]["half_width"].get<double>(), 0.2);
      EXPECT_EQ(p["band"]["points"], 12);
      EXPECT_EQ(p["band"]["basis"], "dense / tp / nvidia");
      EXPECT_EQ(p["band"]["flags"], json::array({"GPU never calibrated (b200)"}));
      EXPECT_EQ(p["band"]["cell"], "\u00b120%");
      EXPECT_DOUBLE_EQ(p["band"]["lo"].get<double>(), p["y"].get<double>() * 0.8);
      EXPECT_DOUBLE_EQ(p["band"]["hi"].get<double>(), p["y"].get<double>() * 1.2);
    }
  }
  const json rv = Get("/api/run", "id=" + std::to_string(created->id));
  ASSERT_EQ(rv["points"].size(), 2u);
  EXPECT_EQ(rv["points"][0]["band"]["cell"], "\u00b120%");
  EXPECT_TRUE(Get("/api/run", "id=1")["points"][0]["band"].is_null());
  const json pv = Get("/api/point", "id=" + rv["points"][0]["id"].dump());
  EXPECT_EQ(pv["point"]["band"]["describe"], "+/-20% (dense / tp / nvidia, 12 results)");
}

}  // namespace
}  // namespace frontier::dashboard
