// The JSON API's numbers against the store's (test_db.h has the known database).
#include "dashboard/api.h"

#include <gtest/gtest.h>

#include <cmath>

#include "metrics/result_json.h"
#include "metrics/timeslice.h"
#include "report/compare.h"
#include "dashboard/api_fixture.h"
#include "dashboard/test_db.h"

namespace frontier::dashboard {
namespace {

using nlohmann::json;
using testing::kT1;
using ApiTest = testing::ApiFixture;

TEST_F(ApiTest, RunsListEveryRunWithItsStoredFigures) {
  json j = Get("/api/runs", "");
  EXPECT_EQ(j["total"], 3);
  ASSERT_EQ(j["runs"].size(), 3u);
  // Newest first by default.
  EXPECT_EQ(j["runs"][0]["id"], 3);
  const json& a = j["runs"][2];
  EXPECT_EQ(a["label"], "nightly/h200#1");
  EXPECT_EQ(a["points"], 6);
  EXPECT_EQ(a["planned_points"], 6);
  EXPECT_EQ(a["stack"], "vllm");
  EXPECT_EQ(a["version"], "0.9");
  EXPECT_DOUBLE_EQ(a["peak_total_tput_per_gpu"].get<double>(), 820);   // best single point
  EXPECT_DOUBLE_EQ(a["peak_interactivity"].get<double>(), 102);
  EXPECT_EQ(j["facets"]["hardware"], json({"h200", "mi325x", "x"}));
  EXPECT_EQ(j["facets"]["stack"], json({"sglang", "vllm"}));
}

TEST_F(ApiTest, MetaNamesTheDatabaseWithoutItsPassword) {
  Api api(*data_, ApiOptions{"PostgreSQL://frontier:SECRETXYZ@db.example/results?password=SECRETXYZ", false, "test"});
  ApiResponse r = api.Handle("GET", "/api/meta", "", "");
  ASSERT_EQ(r.status, 200) << r.body;
  EXPECT_EQ(r.body.find("SECRETXYZ"), std::string::npos) << r.body;
  EXPECT_EQ(json::parse(r.body)["db"], "PostgreSQL://frontier:***@db.example/results?password=***");
}

TEST_F(ApiTest, RunsFilterSearchAndSort) {
  EXPECT_EQ(Get("/api/runs", "hardware=H200")["total"], 1);
  // Any of a GPU's catalog names finds it (data/hardware/h200.json: alias h200-sxm).
  EXPECT_EQ(Get("/api/runs", "hardware=h200-sxm")["total"], 1);
  EXPECT_EQ(Get("/api/runs", "stack=sglang&version=0.4")["runs"][0]["id"], 2);
  EXPECT_EQ(Get("/api/runs", "source=imported")["total"], 1);
  EXPECT_EQ(Get("/api/runs", "source=measured")["total"], 2);
  EXPECT_EQ(Get("/api/runs", "workload=1k1k&model=llama-3.1-70b")["total"], 2);
  EXPECT_EQ(Get("/api/runs", "from=2026-01-11")["total"], 2);
  EXPECT_EQ(Get("/api/runs", "from=2026-01-11&to=2026-01-11")["total"], 1);
  EXPECT_EQ(Get("/api/runs", "q=MI325")["runs"][0]["id"], 2);
  EXPECT_EQ(Get("/api/runs", "q=%3Cscript")["runs"][0]["id"], 3);
  json by_peak = Get("/api/runs", "sort=-peak");
  EXPECT_EQ(by_peak["runs"][0]["id"], 1);
  EXPECT_EQ(by_peak["runs"][1]["id"], 2);
  json paged = Get("/api/runs", "sort=date&limit=1&offset=1");
  EXPECT_EQ(paged["total"], 3);
  ASSERT_EQ(paged["runs"].size(), 1u);
  EXPECT_EQ(paged["runs"][0]["id"], 2);
}

TEST_F(ApiTest, BadParametersAre400sNamingTheParameter) {
  for (const char* q : {"sort=fastest", "limit=0", "limit=abc", "from=2026-13-01", "source=guessed",
                        "hardwre=h200", "q=%zz"}) {
    json j = Get("/api/runs", q, 400);
    ASSERT_TRUE(j.contains("error")) << q;
    EXPECT_FALSE(j["error"].get<std::string>().empty());
  }
  EXPECT_NE(Get("/api/runs", "sort=fastest", 400)["error"].get<std::string>().find("'sort'"), std::string::npos);
  EXPECT_NE(Get("/api/runs", "hardwre=h200", 400)["error"].get<std::string>().find("hardwre"), std::string::npos);
  Get("/api/frontier", "run=abc", 400);
  Get("/api/frontier", "run=1&y=per_banana", 400);
  Get("/api/frontier", "run=1&at=-5", 400);
  Get("/api/frontier", "run=99", 404);
  Get("/api/point", "", 400);
  Get("/api/point", "id=0", 400);
  Get("/api/point", "id=12345", 404);
  Get("/api/compare", "baseline=1&candidate=77", 404);
  Get("/api/live", "since=-1", 400);
  Get("/api/nothing", "", 404);
  EXPECT_EQ(api_->Handle("POST", "/api/runs", "", "").status, 405);
}

TEST_F(ApiTest, FrontierMeansIntervalsAndFlagsMatchTheStore) {
  json j = Get("/api/frontier", "run=1&run=2");
  ASSERT_EQ(j["series"].size(), 2u);
  const json& a = j["series"][0];
  EXPECT_EQ(a["run_id"], 1);
  ASSERT_EQ(a["points"].size(), 3u);
  const json& p1 = a["points"][0];  // concurrency 1: interactivity 100, 102; total 100, 110
  EXPECT_DOUBLE_EQ(p1["load"].get<double>(), 1);
  EXPECT_DOUBLE_EQ(p1["x"].get<double>(), 101);
  EXPECT_NEAR(p1["x_err"].get<double>(), kT1 * 1.0, 1e-3);   // s = sqrt(2), s/sqrt(2) = 1
  EXPECT_DOUBLE_EQ(p1["y"].get<double>(), 105);
  EXPECT_NEAR(p1["y_err"].get<double>(), kT1 * 5.0, 1e-2);   // s = 7.071, s/sqrt(2) = 5
  EXPECT_EQ(p1["n"], 2);
  EXPECT_EQ(p1["ids"], json({1, 2}));
  EXPECT_TRUE(p1["frontier"].get<bool>());
  const json& p4 = a["points"][1];
  EXPECT_DOUBLE_EQ(p4["y"].get<double>(), 305);
  EXPECT_DOUBLE_EQ(p4["x_err"].get<double>(), 0);            // equal repetitions: no spread
  // Run 2's repetitions are equal: no error bars.
  EXPECT_DOUBLE_EQ(j["series"][1]["points"][2]["y"].get<double>(), 600);
  EXPECT_DOUBLE_EQ(j["series"][1]["points"][2]["y_err"].get<double>(), 0);
  // Other axes: output throughput, median TTFT.
  json o = Get("/api/frontier", "run=1&y=output&x=ttft_p50");
  EXPECT_DOUBLE_EQ(o["series"][0]["points"][0]["y"].get<double>(), 52.5);
  EXPECT_DOUBLE_EQ(o["series"][0]["points"][0]["x"].get<double>(), 11);
}

TEST_F(ApiTest, FrontierPerDollarAndPerJouleUseTheHardwareFacts) {
  // $3.60/GPU-hour: tokens per $ = tok/s/GPU x 3600 / 3.6 = 1000 x tok/s/GPU; h200 TDP 700 W.
  json d = Get("/api/frontier", "run=1&y=per_dollar");
  EXPECT_NEAR(d["series"][0]["points"][0]["y"].get<double>(), 105000, 1e-6);
  EXPECT_NEAR(d["series"][0]["points"][0]["y_err"].get<double>(), 1000 * kT1 * 5.0, 10);
  json e = Get("/api/frontier", "run=1&y=per_joule");
  EXPECT_NEAR(e["series"][0]["points"][1]["y"].get<double>(), 305.0 / 700, 1e-12);
  // A hardware without a price: no y, and a note saying why.
  json x = Get("/api/frontier", "run=3&y=per_dollar");
  EXPECT_TRUE(x["series"][0]["points"][0]["y"].is_null());
  ASSERT_EQ(x["notes"].size(), 1u);
  EXPECT_NE(x["notes"][0].get<std::string>().find("--price"), std::string::npos);
}

TEST_F(ApiTest, PerJouleIsMeasuredWhereAPointMeasuredItElseTheTdpBound) {
  // One more point of run 1 (h200, TDP 700 W) that measured its energy with NVML:
  // 1,200 tok/s/GPU over 8 GPUs for 10 s at 560 W mean: 96,000 tokens / 44,800 J.
  store::PointRecord p = testing::KnownPoint(1, 64, 0, 20, 1200, 600, 90);
  p.metrics.energy.emplace().joules = 44800;
  p.metrics.energy->mean_w = 560;
  p.metrics.energy->peak_w = 690;
  p.metrics.tokens_per_joule = 96000.0 / 44800;
  p.summary_json = R"({"median_ttft_ms": 90.0, "energy": {"source": "nvml", "joules": 44800}})";
  ASSERT_TRUE(writer_->AddPoint(p, {}).ok());
  DashboardData data(*reader_, [](const std::string&) -> std::optional<report::HardwareFacts> {
    return report::HardwareFacts{3.6, "test", 700};
  });
  Api api(data, ApiOptions{path_, false, "test"});
  ApiResponse r = api.Handle("GET", "/api/frontier", "run=1&y=per_joule", "");
  ASSERT_EQ(r.status, 200) << r.body;
  const json j = json::parse(r.body);
  int measured = 0, bound = 0;
  for (const auto& pt : j["series"][0]["points"]) {
    if (pt["load"].get<double>() == 64) {
      ++measured;
      EXPECT_EQ(pt["y_kind"], "measured");
      EXPECT_NEAR(pt["y"].get<double>(), 96000.0 / 44800, 1e-12);
      EXPECT_DOUBLE_EQ(pt["y_err"].get<double>(), 0);
      EXPECT_EQ(pt["energy"]["label"], "measured (nvml)");
      EXPECT_NEAR(pt["energy"]["tdp_bound_tokens_per_joule"].get<double>(), 1200.0 / 700, 1e-12);
      // The bound is the lower one: the GPUs drew less than their TDP.
      EXPECT_LT(pt["energy"]["tdp_bound_tokens_per_joule"].get<double>(), pt["y"].get<double>());
    } else {
      ++bound;
      EXPECT_EQ(pt["y_kind"], "tdp_bound");
      EXPECT_TRUE(pt["energy"].is_null());
    }
  }
  EXPECT_EQ(measured, 1);
  EXPECT_EQ(bound, 3);
  ASSERT_EQ(j["energy"].size(), 1u);
  EXPECT_EQ(j["energy"][0]["label"], "measured (nvml)");
  EXPECT_NEAR(j["energy"][0]["joules"].get<double>(), 44800, 1e-9);
  // Any other y axis carries the energy beside the point but plots the throughput.
  const json t = json::parse(api.Handle("GET", "/api/frontier", "run=1&y=total", "").body);
  for (const auto& pt : t["series"][0]["points"])
    if (pt["load"].get<double>() == 64) {
      EXPECT_DOUBLE_EQ(pt["y"].get<double>(), 1200);
      EXPECT_EQ(pt["y_kind"], "");
      EXPECT_EQ(pt["energy"]["label"], "measured (nvml)");
    }
}

TEST_F(ApiTest, IsoTableIsFrontierReportsAtThePickedInteractivity) {
  json j = Get("/api/frontier", "run=1&run=2&at=80");
  EXPECT_DOUBLE_EQ(j["at"].get<double>(), 80);
  ASSERT_EQ(j["iso"].size(), 1u);
  const json& row = j["iso"][0]["rows"][0];
  EXPECT_DOUBLE_EQ(row["interactivity"].get<double>(), 80);
  // Run 1 has a frontier point at exactly 80 tok/s/user: its mean, 305.
  EXPECT_NEAR(row["cells"][0]["total"].get<double>(), 305, 1e-9);
  EXPECT_NEAR(row["cells"][0]["ratio_total"].get<double>(), 1, 1e-12);
  EXPECT_NEAR(row["cells"][0]["usd_per_m_total"].get<double>(), 3.6 / (305 * 3600) * 1e6, 1e-9);
  EXPECT_NEAR(row["cells"][0]["tokens_per_joule"].get<double>(), 305.0 / 700, 1e-12);
  // Run 2 between its (70, 250) and (90, 90): monotone interpolation stays between them,
  // and equals what `frontier report` computes.
  const double b = row["cells"][1]["total"].get<double>();
  EXPECT_GT(b, 90);
  EXPECT_LT(b, 250);
  report::ReportOptions o;
  o.run_ids = {1, 2};
  o.targets = {80};
  auto rep = report::BuildReport(*writer_, o);
  ASSERT_TRUE(rep.ok());
  EXPECT_DOUBLE_EQ(b, *rep->workloads[0].iso_total[0].tput[1]);
  EXPECT_NEAR(row["cells"][1]["ratio_total"].get<double>(), b / 305, 1e-12);
  // Outside a frontier there is no value (never extrapolated).
  json far = Get("/api/frontier", "run=1&run=2&at=101.5");
  EXPECT_TRUE(far["iso"][0]["rows"][0]["cells"][1]["total"].is_null());
}

TEST_F(ApiTest, FrontierWithoutRunsShowsTheLatestSweep) {
  json j = Get("/api/frontier", "");
  EXPECT_TRUE(j["default_runs"].get<bool>());
  EXPECT_EQ(j["runs"], json({3}));  // the newest run with points: the import
}

TEST_F(ApiTest, PointDetailHistogramsTimeslicesAndReproduce) {
  json j = Get("/api/point", "id=1");
  EXPECT_EQ(j["point"]["key"], "1k1k|concurrency=1|rep=0");
  EXPECT_EQ(j["run"]["label"], "nightly/h200#1");
  EXPECT_EQ(j["requests"]["ok"], 4);
  // TTFT 50, 60, 70, 80 ms: 20 bins from 50 to 80, every request counted once.
  const json& ttft = j["histograms"]["ttft_ms"];
  ASSERT_EQ(ttft["counts"].size(), 20u);
  EXPECT_DOUBLE_EQ(ttft["edges"][0].get<double>(), 50);
  EXPECT_DOUBLE_EQ(ttft["edges"][20].get<double>(), 80);
  int64_t total = 0;
  for (auto& c : ttft["counts"]) total += c.get<int64_t>();
  EXPECT_EQ(total, 4);
  EXPECT_EQ(ttft["counts"][0], 1);
  EXPECT_EQ(ttft["counts"][19], 1);
  // TPOT = (end - first) / (tokens - 1) = 1000 ms / 10; all equal: one bin holds all four.
  EXPECT_DOUBLE_EQ(j["histograms"]["tpot_ms"]["edges"][0].get<double>(), 100);
  EXPECT_EQ(j["histograms"]["tpot_ms"]["counts"][0], 4);
  EXPECT_DOUBLE_EQ(j["histograms"]["itl_ms"]["edges"][0].get<double>(), 100);
  // Percentiles from the stored summary, in order mean, median, p99.
  const json& pct = j["percentiles"]["ttft"];
  ASSERT_EQ(pct.size(), 3u);
  EXPECT_EQ(pct[0]["stat"], "mean");
  EXPECT_EQ(pct[2]["stat"], "p99");
  EXPECT_DOUBLE_EQ(pct[2]["value"].get<double>(), 79.7);
  EXPECT_EQ(j["reproduce"]["command"], "frontier sweep plans/nightly.yaml --db reproduce.db");
  EXPECT_EQ(j["reproduce"]["original_command"], "frontier sweep plans/nightly.yaml --db nightly.db");
  EXPECT_NE(j["reproduce"]["note"].get<std::string>().find("1k1k|concurrency=1|rep=0"), std::string::npos);
  // A point without requests has no histogram and no timeline.
  json bare = Get("/api/point", "id=2");
  EXPECT_TRUE(bare["histograms"]["ttft_ms"]["counts"].empty());
  EXPECT_TRUE(bare["series"]["timeslices"].is_null());
  EXPECT_TRUE(bare["series"]["timeslices_from"].is_null());
  EXPECT_TRUE(bare["series"]["server"]["kv_usage_pct"].empty());
  // An imported run is reproduced by importing its file again.
  json imp = Get("/api/point", "id=13");
  EXPECT_EQ(imp["reproduce"]["command"], "frontier db import evil.json --db reproduce.db");
}

TEST_F(ApiTest, CompareIsFrontierComparesAnalysis) {
  json j = Get("/api/compare", "baseline=1&candidate=2");
  ASSERT_TRUE(j["ready"].get<bool>());
  auto expected = report::CompareRuns(*writer_, 1, 2, analysis::RegressionOptions{});
  ASSERT_TRUE(expected.ok());
  EXPECT_EQ(j["regressions"], expected->regressions);
  EXPECT_EQ(j["improvements"], expected->improvements);
  ASSERT_EQ(j["deltas"].size(), expected->deltas.size());
  EXPECT_EQ(j["verdict"], "regression");
  // Regressions first; each with its noise bound.
  EXPECT_EQ(j["deltas"][0]["verdict"], "regression");
  for (const auto& d : j["deltas"]) {
    EXPECT_GE(d["threshold"].get<double>(), 0.01 * std::abs(d["baseline"].get<double>()) - 1e-9);
    EXPECT_TRUE(d["noise_measured"].get<bool>());
  }
  // Total throughput at concurrency 16: 810 -> 600 is a regression beyond a noise of
  // t(1 - 0.05/2, Welch dof) * sqrt(s_b^2/2 + 0).
  bool found = false;
  for (const auto& d : j["deltas"]) {
    if (d["key"] == "1k1k|concurrency=16" && d["metric"] == "total_tput_per_gpu") {
      found = true;
      EXPECT_DOUBLE_EQ(d["baseline"].get<double>(), 810);
      EXPECT_DOUBLE_EQ(d["candidate"].get<double>(), 600);
      EXPECT_NEAR(d["relative_change"].get<double>(), -210.0 / 810, 1e-12);
      EXPECT_EQ(d["verdict"], "regression");
    }
  }
  EXPECT_TRUE(found);
  // A run against itself: nothing beyond the noise.
  EXPECT_EQ(Get("/api/compare", "baseline=1&candidate=1")["verdict"], "no change beyond noise");
  // Not chosen yet: the runs to choose from.
  json none = Get("/api/compare", "");
  EXPECT_FALSE(none["ready"].get<bool>());
  EXPECT_EQ(none["runs"].size(), 3u);
}

TEST_F(ApiTest, OverTimeHeadlinesPerRunByDate) {
  // A second run of nightly/h200 a day later, 10 % faster at every point.
  store::RunInfo r = *writer_->GetRun(1);
  r.created_utc = "2026-01-13T00:00:00Z";
  const int64_t id = writer_->CreateRun(r)->id;
  const std::initializer_list<std::tuple<double, double, double>> faster = {
      {1.0, 101.0, 115.5}, {4.0, 80.0, 335.5}, {16.0, 41.0, 891.0}};
  for (auto [conc, x, t] : faster)
    ASSERT_TRUE(writer_->AddPoint(testing::KnownPoint(id, conc, 0, x, t, t / 2, 10), {}).ok());
  json j = Get("/api/over-time", "config=nightly/h200&at=80");
  EXPECT_EQ(j["config"], "nightly/h200");
  ASSERT_EQ(j["rows"].size(), 2u);
  EXPECT_EQ(j["rows"][0]["run_id"], 1);
  EXPECT_EQ(j["rows"][1]["run_id"], id);
  EXPECT_DOUBLE_EQ(j["rows"][0]["peak_total_tput_per_gpu"].get<double>(), 810);  // mean of 800, 820
  EXPECT_DOUBLE_EQ(j["rows"][0]["total_tput_per_gpu_at"].get<double>(), 305);
  EXPECT_DOUBLE_EQ(j["rows"][1]["total_tput_per_gpu_at"].get<double>(), 335.5);
  EXPECT_DOUBLE_EQ(j["rows"][1]["max_interactivity"].get<double>(), 101);
  // With no configuration named, the one with the most runs.
  EXPECT_EQ(Get("/api/over-time", "")["config"], "nightly/h200");
  Get("/api/over-time", "config=nope/none", 404);
}

TEST_F(ApiTest, LiveSendsOnlyWhatWasStoredAfterSince) {
  json all = Get("/api/live", "since=0");
  EXPECT_EQ(all["points"].size(), 13u);
  EXPECT_EQ(all["last_id"], 13);
  json none = Get("/api/live", "since=13");
  EXPECT_TRUE(none["points"].empty());
  // A point stored by a writer (a running sweep) shows up on the next call.
  ASSERT_TRUE(writer_->AddPoint(testing::KnownPoint(2, 64, 0, 20, 700, 350, 60), {}).ok());
  json fresh = Get("/api/live", "since=13");
  ASSERT_EQ(fresh["points"].size(), 1u);
  EXPECT_EQ(fresh["points"][0]["id"], 14);
  EXPECT_DOUBLE_EQ(fresh["points"][0]["total_tput_per_gpu"].get<double>(), 700);
  EXPECT_EQ(fresh["last_id"], 14);
  // The newest run's sweep invocation (the import) is the one in progress.
  ASSERT_EQ(fresh["progress"].size(), 1u);
  EXPECT_EQ(fresh["progress"][0]["id"], 3);
}

TEST_F(ApiTest, ImportIsOffUnlessAllowedAndThenStoresTheFile) {
  const std::string vllm = R"({"completed": 10, "output_throughput": 500.0, "total_token_throughput": 1500.0,
                                "num_prompts": 10, "max_concurrency": 4, "median_tpot_ms": 20.0,
                                "backend": "vllm", "model_id": "m"})";
  ApiResponse off = api_->Handle("POST", "/api/import", "name=r.json", vllm);
  EXPECT_EQ(off.status, 403);
  EXPECT_NE(off.body.find("--allow-import"), std::string::npos);
  DashboardData writable(*writer_, nullptr);
  Api api(writable, ApiOptions{path_, true, "test"});
  ApiResponse bad = api.Handle("POST", "/api/import", "name=r.json", R"({"x": 1})");
  EXPECT_EQ(bad.status, 400) << bad.body;
  ApiResponse ok = api.Handle("POST", "/api/import", "name=r.json&gpus=2", vllm);
  ASSERT_EQ(ok.status, 200) << ok.body;
  json j = json::parse(ok.body);
  ASSERT_EQ(j["imported"].size(), 1u);
  const int64_t id = j["imported"][0]["id"].get<int64_t>();
  auto points = writer_->ListPoints(id);
  ASSERT_TRUE(points.ok());
  ASSERT_EQ(points->size(), 1u);
  EXPECT_DOUBLE_EQ(points->front().metrics.total_token_throughput_per_gpu, 750);  // 1500 / 2 GPUs
  EXPECT_EQ(writer_->GetRun(id)->provenance.at("file"), "upload:r.json");
}

TEST_F(ApiTest, AMalformedUploadOrSummaryIsAnAnswerNeverACrash) {
  DashboardData writable(*writer_, nullptr);
  Api api(writable, ApiOptions{path_, true, "test"});
  // Per-request arrays of the wrong type: the importer's JSON library throws; the request
  // gets an error and the API goes on answering.
  ApiResponse r = api.Handle("POST", "/api/import", "name=odd.json",
                             R"({"completed": 1, "output_throughput": 1, "total_token_throughput": 2,
                                 "ttfts": [0.1], "input_lens": ["many"]})");
  EXPECT_GE(r.status, 400) << r.body;
  EXPECT_TRUE(json::parse(r.body).contains("error"));
  EXPECT_EQ(api.Handle("GET", "/api/runs", "", "").status, 200);
  // A stored summary whose keys look like percentiles but are not numbers is skipped.
  store::PointRecord p = testing::KnownPoint(2, 128, 0, 10, 100, 50, 60);
  p.summary_json = R"({"p._ttft_ms": 1, "p99_ttft_ms": 7, "pX_tpot_ms": 2})";
  auto id = writer_->AddPoint(p, {});
  ASSERT_TRUE(id.ok());
  json j = Get("/api/point", "id=" + std::to_string(*id));
  ASSERT_EQ(j["percentiles"]["ttft"].size(), 1u);
  EXPECT_EQ(j["percentiles"]["ttft"][0]["stat"], "p99");
  EXPECT_FALSE(j["percentiles"].contains("tpot"));
}

TEST_F(ApiTest, StoredStringsCannotCloseATagInTheJson) {
  ApiResponse r = api_->Handle("GET", "/api/runs", "", "");
  EXPECT_EQ(r.body.find("<script>"), std::string::npos);
  EXPECT_NE(r.body.find("\\u003cscript\\u003ealert(1)\\u003c/script\\u003e"), std::string::npos);
  // ... and still decode to the same text.
  json j = json::parse(r.body);
  EXPECT_EQ(j["runs"][0]["system"], "<script>alert(1)</script>");
  EXPECT_EQ(SafeJson(json{{"a", "x&y>z"}}), R"({"a":"x\u0026y\u003ez"})");
  // Invalid UTF-8 in a stored string is replaced, not a failure.
  EXPECT_EQ(SafeJson(json{{"a", std::string("\xff")}}), "{\"a\":\"\xEF\xBF\xBD\"}");
}

// A judged point shows its verdict with the first reason in the frontier's
// points and its whole verdict and trial on its page; others show none.
TEST_F(ApiTest, AJudgedPointShowsItsVerdictAndTrial) {
  store::PointRecord p = testing::KnownPoint(2, 96, 0, 10, 100, 50, 60);
  p.verdict_json = R"({"result":"INVALID","reasons":["TPOT p99 61.0 ms > 40 ms","min duration"],"scenario":"Server"})";
  p.trial_json = R"({"index":3,"step":"bisect","decision":"invalid: bisecting [64, 128) at 96"})";
  auto id = writer_->AddPoint(p, {});
  ASSERT_TRUE(id.ok()) << id.status().ToString();
  json j = Get("/api/frontier", "run=2");
  int judged = 0, plain = 0;
  for (const auto& pt : j["series"][0]["points"]) {
    if (pt["load"] == 96) {
      EXPECT_EQ(pt["verdict"], "INVALID: TPOT p99 61.0 ms > 40 ms");
      EXPECT_EQ(pt["trial"], 3);
      EXPECT_EQ(pt["decision"], "invalid: bisecting [64, 128) at 96");
      ++judged;
    } else {
      EXPECT_EQ(pt["verdict"], "");
      EXPECT_TRUE(pt["trial"].is_null());
      ++plain;
    }
  }
  EXPECT_EQ(judged, 1);
  EXPECT_GT(plain, 0);
  json d = Get("/api/point", "id=" + std::to_string(*id));
  EXPECT_EQ(d["point"]["verdict"]["result"], "INVALID");
  EXPECT_EQ(d["point"]["verdict"]["reasons"][1], "min duration");
  EXPECT_EQ(d["point"]["trial"]["step"], "bisect");
  EXPECT_TRUE(d["run"]["search"].is_null());
}

}  // namespace
}  // namespace frontier::dashboard
