#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <sstream>

#include "report/compare.h"
#include "report/hardware_facts.h"
#include "report/html.h"
#include "report/model.h"
#include "report/svg.h"
#include "report/terminal.h"
#include "store/sqlite_store.h"
#include "util/scratch.h"

namespace frontier::report {
namespace {

// A new database `name` in the test's scratch folder (removed with the
// folder, -wal and -shm included: declare the folder before the store).
std::unique_ptr<store::Store> FreshStore(const testing_util::ScratchDir& dir, const std::string& name) {
  return std::move(store::OpenStore(dir.Path(name + ".db")).value());
}

// A run whose point at concurrency c has interactivity 200/c and total
// throughput scale*100*c per GPU (output half of it), with repetitions
// offset by -d, 0, +d.
int64_t AddRun(store::Store& s, const std::string& system, const std::string& hw, double scale,
               std::vector<double> loads, int reps, double d = 0) {
  store::RunInfo run;
  run.sweep = "test";
  run.system = system;
  run.source = store::Source::kSimulated;
  run.config = {{"hardware", hw}, {"gpus", "8"}};
  auto r = s.CreateRun(run);
  EXPECT_TRUE(r.ok());
  for (double c : loads) {
    for (int k = 0; k < reps; ++k) {
      store::PointRecord p;
      p.run_id = r->id;
      p.workload = "1k1k";
      p.load_value = c;
      p.repetition = k;
      p.key = store::PointKey("1k1k", store::LoadKind::kConcurrency, c, k);
      p.source = store::Source::kSimulated;
      const double off = reps == 3 ? (k - 1) * d : 0;
      p.metrics.interactivity = 200.0 / c;
      p.metrics.total_token_throughput_per_gpu = scale * 100 * c + off;
      p.metrics.output_throughput_per_gpu = scale * 50 * c + off / 2;
      p.metrics.ttft_ms.median = 20 + c;
      p.metrics.tpot_ms.median = c * 5;
      EXPECT_TRUE(s.AddPoint(p, {}).ok());
    }
  }
  return r->id;
}

TEST(Report, AggregatesRepetitionsAndComparesAtEqualInteractivity) {
  testing_util::ScratchDir tmp("report");
  auto s = FreshStore(tmp, "model");
  AddRun(*s, "alpha", "h200", 2.0, {1, 2, 4, 8}, 3, 10);
  AddRun(*s, "beta", "mi325x", 1.0, {1, 2, 4, 8}, 1);
  ReportOptions o;
  o.hardware["h200"] = {3.6, "test", 700};
  auto r = BuildReport(*s, o);
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  ASSERT_EQ(r->series.size(), 2u);
  EXPECT_EQ(r->stored_points, 16);
  const auto& a = r->series[0];
  ASSERT_EQ(a.points.size(), 4u);
  EXPECT_DOUBLE_EQ(a.points[1].total_tput_per_gpu.mean, 400);  // 2 x 100 x 2
  // Repetitions 390, 400, 410: s = 10, t(0.975, 2) = 4.303.
  EXPECT_NEAR(a.points[1].total_tput_per_gpu.half_width, 4.303 * 10 / std::sqrt(3.0), 1e-9);
  EXPECT_TRUE(a.points[3].on_total_frontier);
  // At every common interactivity alpha delivers exactly 2x beta.
  ASSERT_EQ(r->workloads.size(), 1u);
  const auto& w = r->workloads[0];
  ASSERT_FALSE(w.targets.empty());
  for (const auto& row : w.iso_total) {
    ASSERT_TRUE(row.ratio[1].has_value()) << row.interactivity;
    EXPECT_NEAR(*row.ratio[1], 0.5, 1e-9) << row.interactivity;
  }
  // Cost at 25 tok/s/user (concurrency 8): 3.6 $/h at 1600 tok/s/GPU -> 0.625 $/M.
  for (size_t t = 0; t < w.targets.size(); ++t) {
    if (w.targets[t] != 25) continue;
    EXPECT_NEAR(*w.cost[t].usd_per_m_total[0], 3.6 / (1600 * 3600.0) * 1e6, 1e-9);
    EXPECT_NEAR(*w.cost[t].tokens_per_joule[0], 1600.0 / 700, 1e-9);
    EXPECT_FALSE(w.cost[t].usd_per_m_total[1].has_value());  // no price for mi325x
  }
}

TEST(Report, HtmlHasEveryPointAndSystemAndReferencesNothingRemote) {
  testing_util::ScratchDir tmp("report");
  auto s = FreshStore(tmp, "html");
  AddRun(*s, "alpha<&>", "h200", 2.0, {1, 2, 4, 8}, 3, 10);
  AddRun(*s, "beta", "mi325x", 1.0, {1, 2, 4}, 1);
  store::RunInfo broken;  // a system that never produced a point still shows, with its status
  broken.sweep = "test";
  broken.system = "gamma-broken";
  broken.status = store::SystemStatus::Broken("health check timed out");
  ASSERT_TRUE(s->CreateRun(broken).ok());
  auto r = BuildReport(*s, {});
  ASSERT_TRUE(r.ok());
  const std::string html = RenderHtml(*r);
  EXPECT_NE(html.find("gamma-broken"), std::string::npos);
  EXPECT_NE(html.find("broken: health check timed out"), std::string::npos);
  auto points = s->ListPoints(0);
  ASSERT_EQ(points->size(), 15u);
  for (const auto& p : *points) {
    EXPECT_NE(html.find("id=\"pt-" + std::to_string(p.id) + "\""), std::string::npos) << p.id;
    EXPECT_NE(html.find("id=\"row-" + std::to_string(p.id) + "\""), std::string::npos) << p.id;
  }
  EXPECT_NE(html.find("alpha&lt;&amp;&gt;"), std::string::npos);
  EXPECT_EQ(html.find("alpha<&>"), std::string::npos);
  EXPECT_NE(html.find(">beta<"), std::string::npos);
  for (const char* remote : {"http:", "https:", "src=", "url(", "@import", "<link", "href="})
    EXPECT_EQ(html.find(remote), std::string::npos) << remote;
  EXPECT_NE(html.find("<svg"), std::string::npos);
  EXPECT_NE(html.find("data-tip=\""), std::string::npos);

  std::ostringstream text;
  PrintReport(*r, text);
  EXPECT_NE(text.str().find("alpha<&>"), std::string::npos);
  EXPECT_NE(text.str().find("15 stored points in 3 runs"), std::string::npos);
  EXPECT_NE(text.str().find("broken: health check timed out"), std::string::npos);
}

// A point stored with its series: three 1 s windows (steady in the middle)
// and three scrapes of a vLLM server.
store::PointSeries KnownSeries() {
  store::PointSeries s;
  s.timeslices_json = R"({"slice_s":1,"steady":{"start_s":1,"end_s":2,"output_throughput":40},
      "windows":{"start_s":[0,1,2],"end_s":[1,2,3],"output_throughput":[10,40,20]}})";
  s.server_metrics_json = R"({"samples":{"t_s":[0.5,1.5,2.5],"vllm:kv_cache_usage_perc":[0.1,0.5,null],
      "vllm:num_requests_running":[1,4,2],"vllm:num_requests_waiting":[0,3,0],
      "vllm:prefix_cache_queries_total":[0,100,300],"vllm:prefix_cache_hits_total":[0,50,200]}})";
  return s;
}

TEST(Report, OverTimeChartsReadThePointSeries) {
  const PointOverTime t = ParseOverTime(KnownSeries());
  EXPECT_DOUBLE_EQ(t.slice_s, 1);
  ASSERT_TRUE(t.steady);
  EXPECT_DOUBLE_EQ(t.steady_start_s, 1);
  EXPECT_DOUBLE_EQ(t.steady_end_s, 2);
  // A step line: each window's rate from its start to its end.
  const std::vector<std::pair<double, double>> steps = {{0, 10}, {1, 10}, {1, 40}, {2, 40}, {2, 20}, {3, 20}};
  EXPECT_EQ(t.output_tput.points, steps);
  ASSERT_EQ(t.kv_usage.size(), 1u);
  const std::vector<std::pair<double, double>> kv = {{0.5, 10}, {1.5, 50}};  // the null sample is skipped
  EXPECT_EQ(t.kv_usage[0].points, kv);
  ASSERT_EQ(t.queue.size(), 2u);
  EXPECT_EQ(t.queue[1].name, "waiting");
  EXPECT_DOUBLE_EQ(t.queue[1].points[1].second, 3);
  // Hit rate per scrape interval: 50 of 100, then 150 of 200.
  ASSERT_EQ(t.hit_rate.size(), 1u);
  const std::vector<std::pair<double, double>> hit = {{1.5, 50}, {2.5, 75}};
  EXPECT_EQ(t.hit_rate[0].points, hit);
  // Text that is not the JSON expected reads as nothing.
  EXPECT_TRUE(ParseOverTime({"not json", R"({"windows":{"start_s":"x"},"steady":7})"}).empty());

  testing_util::ScratchDir tmp("report");
  auto s = FreshStore(tmp, "over_time");
  const int64_t run = AddRun(*s, "alpha", "h200", 1.0, {1}, 1);
  store::PointRecord p;
  p.run_id = run;
  p.workload = "1k1k";
  p.load_value = 2;
  p.key = store::PointKey("1k1k", store::LoadKind::kConcurrency, 2, 0);
  p.source = store::Source::kMeasured;
  p.metrics.interactivity = 100;
  p.metrics.output_throughput = 23.3;
  p.series = KnownSeries();
  auto id = s->AddPoint(p, {});
  ASSERT_TRUE(id.ok()) << id.status().ToString();
  auto r = BuildReport(*s, {});
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  ASSERT_EQ(r->over_time.size(), 1u);  // the point without series has none
  EXPECT_TRUE(r->over_time.count(*id));
  const std::string html = RenderHtml(*r);
  EXPECT_NE(html.find("Over time: 1k1k|concurrency=2|rep=0 (point " + std::to_string(*id) + ")"), std::string::npos);
  EXPECT_NE(html.find("steady 1.0–2.0 s, 40.0 output tok/s (whole run 23.3)"), std::string::npos);
  EXPECT_NE(html.find("class=\"band\""), std::string::npos);
  EXPECT_NE(html.find("KV cache usage (server)"), std::string::npos);
  EXPECT_NE(html.find("Prefix-cache hit rate (server)"), std::string::npos);
}

TEST(Compare, StoredRunsWithAKnownDifference) {
  testing_util::ScratchDir tmp("report");
  auto s = FreshStore(tmp, "compare");
  const int64_t base = AddRun(*s, "base", "h200", 1.0, {1, 2}, 3, 1);
  const int64_t same = AddRun(*s, "same", "h200", 1.0, {1, 2}, 3, 1);
  const int64_t slow = AddRun(*s, "slow", "h200", 0.9, {1, 2}, 3, 1);
  auto ok = CompareRuns(*s, base, same, {});
  ASSERT_TRUE(ok.ok());
  EXPECT_EQ(ok->regressions, 0);
  auto bad = CompareRuns(*s, base, slow, {});
  ASSERT_TRUE(bad.ok());
  EXPECT_EQ(bad->regressions, 4);  // total and output throughput at both loads
  for (const auto& d : bad->deltas) {
    if (d.metric == "total_tput_per_gpu") {
      EXPECT_TRUE(d.regression);
      EXPECT_NEAR(d.relative_change, -0.10, 1e-9);
    }
  }
  std::ostringstream out;
  PrintComparison(*bad, "b", "c", out);
  EXPECT_NE(out.str().find("REGRESSION"), std::string::npos);
  EXPECT_EQ(CompareRuns(*s, base, 999, {}).status().code(), StatusCode::kNotFound);

  // References by sweep/system: a second "base" run makes "test/base" the newer one.
  const int64_t base2 = AddRun(*s, "base", "h200", 1.0, {1}, 1);
  EXPECT_EQ(*ResolveRunRef(*s, std::to_string(slow)), slow);
  EXPECT_EQ(*ResolveRunRef(*s, "test/base"), base2);
  EXPECT_EQ(*ResolveRunRef(*s, "test/base~1"), base);
  EXPECT_EQ(*ResolveRunRef(*s, "test/slow#" + std::to_string(slow)), slow);
  EXPECT_EQ(ResolveRunRef(*s, "test/base~2").status().code(), StatusCode::kNotFound);
  EXPECT_EQ(ResolveRunRef(*s, "test/nothing").status().code(), StatusCode::kNotFound);
  EXPECT_EQ(ResolveRunRef(*s, "test/base~x").status().code(), StatusCode::kNotFound);
}

// A hand-made failing point: the terminal and HTML reports show INVALID with
// its first reason, the passing one VALID, and a search run its trials,
// decisions and answer.
TEST(Report, ShowsVerdictsAndASearchsTrials) {
  testing_util::ScratchDir tmp("report");
  auto s = FreshStore(tmp, "verdict");
  store::RunInfo run;
  run.sweep = "search";
  run.system = "h200-sim";
  run.source = store::Source::kSimulated;
  run.config = {{"hardware", "h200"}, {"gpus", "8"}};
  auto r = s->CreateRun(run);
  ASSERT_TRUE(r.ok());
  const struct {
    double rate;
    const char* verdict;
    const char* trial;
  } rows[] = {
      {4, R"({"result":"VALID","reasons":[],"scenario":"Server"})",
       R"({"index":0,"value":4.0,"valid":true,"step":"bracket","decision":"valid: bracketing up to 8 req/s"})"},
      {8, R"j({"result":"INVALID","reasons":["TTFT p99 912.5 ms > 450 ms (llama2-70b Interactive)","second"],)j"
          R"("scenario":"Server"})",
       R"({"index":1,"value":8.0,"valid":false,"step":"stop","decision":"invalid: converged"})"},
  };
  for (const auto& row : rows) {
    store::PointRecord p;
    p.run_id = r->id;
    p.workload = "512/128";
    p.load_kind = store::LoadKind::kRequestRate;
    p.load_value = row.rate;
    p.key = store::PointKey(p.workload, p.load_kind, row.rate, 0) + "|trial=" + (row.rate == 4 ? "0" : "1");
    p.source = store::Source::kSimulated;
    p.metrics.interactivity = 100 / row.rate;
    p.metrics.total_token_throughput_per_gpu = 100 * row.rate;
    p.verdict_json = row.verdict;
    p.trial_json = row.trial;
    ASSERT_TRUE(s->AddPoint(p, {}).ok());
  }
  ASSERT_TRUE(s->SetRunSearch(r->id, R"({"goal":"max_valid_qps","axis":"request_rate","answer":{"trial":0,)"
                                     R"("value":4.0,"output_throughput_per_gpu":200.0},"stop_reason":"converged",)"
                                     R"("trial_count":2})")
                  .ok());
  // A run without verdicts shows no verdict column.
  AddRun(*s, "plain", "h200", 1.0, {1, 2}, 1);

  auto rep = BuildReport(*s, ReportOptions{});
  ASSERT_TRUE(rep.ok()) << rep.status().ToString();
  ASSERT_EQ(rep->series.size(), 2u);
  const SeriesReport& sr = rep->series[0];
  EXPECT_TRUE(sr.judged);
  EXPECT_TRUE(sr.trials);
  ASSERT_EQ(sr.points.size(), 2u);
  EXPECT_EQ(VerdictCell(sr.points[0].verdict), "VALID");
  EXPECT_EQ(VerdictCell(sr.points[1].verdict), "INVALID: TTFT p99 912.5 ms > 450 ms (llama2-70b Interactive)");
  EXPECT_EQ(sr.points[1].trial.index, 1);
  EXPECT_EQ(sr.search,
            "search max_valid_qps over request_rate: answer 4 (trial 0, 200 output tok/s/GPU); converged after 2 trials");
  EXPECT_FALSE(rep->series[1].judged);

  std::ostringstream text;
  PrintReport(*rep, text);
  const std::string t = text.str();
  EXPECT_NE(t.find("INVALID: TTFT p99 912.5 ms > 450 ms (llama2-70b Interactive)"), std::string::npos) << t;
  EXPECT_EQ(t.find("second"), std::string::npos) << "only the first reason is shown";
  EXPECT_NE(t.find("invalid: converged"), std::string::npos) << t;
  EXPECT_NE(t.find("answer 4 (trial 0"), std::string::npos) << t;
  // The plain run's table has no verdict column: "verdict" is a header once.
  size_t headers = 0;
  for (size_t at = t.find("verdict"); at != std::string::npos; at = t.find("verdict", at + 1)) ++headers;
  EXPECT_EQ(headers, 1u) << t;

  const std::string html = RenderHtml(*rep);
  EXPECT_NE(html.find("<th>verdict</th>"), std::string::npos);
  EXPECT_NE(html.find("INVALID: TTFT p99 912.5 ms &gt; 450 ms (llama2-70b Interactive)"), std::string::npos);
  EXPECT_NE(html.find("<td class=\"l\">VALID</td>"), std::string::npos);
  EXPECT_NE(html.find("<th>decision</th>"), std::string::npos);
}

}  // namespace
}  // namespace frontier::report

namespace frontier::report {
namespace {

// A simulated run whose points carry `band`, and a measured run beside it.
void AddBandedRuns(store::Store& s, const PredictionBand& band) {
  const int64_t sim = AddRun(s, "predicted", "b200", 2.0, {}, 1);
  for (double c : {1.0, 4.0, 16.0}) {
    store::PointRecord p;
    p.run_id = sim;
    p.workload = "1k1k";
    p.load_value = c;
    p.key = store::PointKey("1k1k", store::LoadKind::kConcurrency, c, 0);
    p.source = store::Source::kSimulated;
    p.metrics.interactivity = 200.0 / c;
    p.metrics.total_token_throughput_per_gpu = 100 * c;
    p.metrics.output_throughput_per_gpu = 50 * c;
    p.band = band;
    ASSERT_TRUE(s.AddPoint(p, {}).ok());
  }
  store::RunInfo run;
  run.sweep = "test";
  run.system = "measured";
  run.source = store::Source::kMeasured;
  run.config = {{"hardware", "h200"}, {"gpus", "8"}};
  const int64_t measured = s.CreateRun(run).value().id;
  for (double c : {1.0, 4.0}) {
    store::PointRecord p;
    p.run_id = measured;
    p.workload = "1k1k";
    p.load_value = c;
    p.key = store::PointKey("1k1k", store::LoadKind::kConcurrency, c, 0);
    p.source = store::Source::kMeasured;
    p.metrics.interactivity = 150.0 / c;
    p.metrics.total_token_throughput_per_gpu = 90 * c;
    p.metrics.output_throughput_per_gpu = 45 * c;
    ASSERT_TRUE(s.AddPoint(p, {}).ok());
  }
}

// The lines of `text` from the one starting with `from` up to the next blank line.
std::string Section(const std::string& text, const std::string& from) {
  const size_t at = text.find("\n" + from);
  if (at == std::string::npos) return "";
  const size_t end = text.find("\n\n", at + 1);
  return text.substr(at + 1, end == std::string::npos ? std::string::npos : end - at - 1);
}

TEST(ReportBand, ASimulatedSeriesShowsItsBandAndFlagsAndAMeasuredOneNone) {
  testing_util::ScratchDir tmp("report_band");
  auto s = FreshStore(tmp, "band");
  const PredictionBand band{0.137, 23, "dense / tp / nvidia", {"GPU never calibrated (b200)"}};
  AddBandedRuns(*s, band);
  auto r = BuildReport(*s, {});
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  ASSERT_EQ(r->series.size(), 2u);
  const SeriesReport& sim = r->series[0].name == "predicted" ? r->series[0] : r->series[1];
  const SeriesReport& measured = r->series[0].name == "predicted" ? r->series[1] : r->series[0];
  EXPECT_TRUE(sim.banded);
  EXPECT_FALSE(measured.banded);
  EXPECT_EQ(sim.band_flags, std::vector<std::string>{"GPU never calibrated (b200)"});
  EXPECT_DOUBLE_EQ(sim.frontier_band_total, 0.137);
  EXPECT_EQ(BandCell(sim.points[0].band), "\u00b114%");

  std::ostringstream text;
  PrintReport(*r, text);
  const std::string predicted = Section(text.str(), "predicted  [");
  ASSERT_FALSE(predicted.empty()) << text.str();
  EXPECT_NE(predicted.find("extrapolates: GPU never calibrated (b200)"), std::string::npos) << predicted;
  EXPECT_NE(predicted.find(" band"), std::string::npos) << predicted;
  // One "±14%" cell per point.
  size_t cells = 0;
  for (size_t at = predicted.find("\u00b114%"); at != std::string::npos; at = predicted.find("\u00b114%", at + 1))
    ++cells;
  EXPECT_EQ(cells, 3u) << predicted;
  const std::string meas = Section(text.str(), "measured  [");
  ASSERT_FALSE(meas.empty()) << text.str();
  EXPECT_EQ(meas.find("band"), std::string::npos) << meas;
  EXPECT_EQ(meas.find("\u00b1"), std::string::npos) << meas;
  EXPECT_EQ(meas.find("extrapolates"), std::string::npos) << meas;

  // The HTML report: error bars of the band on the simulated points, the
  // frontier's band as a shaded area, the flags beside the series.
  const std::string html = RenderHtml(*r);
  EXPECT_NE(html.find("<polygon class=\"pband\""), std::string::npos);
  EXPECT_NE(html.find("<rect class=\"pband\""), std::string::npos);
  EXPECT_NE(html.find("extrapolates: GPU never calibrated (b200)"), std::string::npos);
  // The tip of the point at concurrency 4: 400 tok/s/GPU +/- 13.7%.
  EXPECT_NE(html.find("prediction band +/-14% (dense / tp / nvidia, 23 results): 345.2 to 454.8 tok/s/GPU"),
            std::string::npos);
}

TEST(ReportBand, CompareSaysWhetherAChangeLiesWithinTheBand) {
  testing_util::ScratchDir tmp("report_band");
  auto s = FreshStore(tmp, "compare");
  const PredictionBand band{0.137, 23, "dense / tp / nvidia", {"GPU never calibrated (b200)"}};
  AddBandedRuns(*s, band);  // run 1 simulated (100 c tok/s/GPU), run 2 measured (90 c)
  Result<std::optional<PredictionBand>> sim = RunBand(*s, 1);
  ASSERT_TRUE(sim.ok()) << sim.status().ToString();
  ASSERT_TRUE(sim->has_value());
  EXPECT_EQ(**sim, band);
  Result<std::optional<PredictionBand>> measured = RunBand(*s, 2);
  ASSERT_TRUE(measured.ok());
  EXPECT_FALSE(measured->has_value());

  const ComparedBands bands{*sim, *measured};
  EXPECT_EQ(BandVerdict(bands, "total_tput_per_gpu", -0.10), "within \u00b114%");
  EXPECT_EQ(BandVerdict(bands, "total_tput_per_gpu", 0.20), "beyond \u00b114%");
  EXPECT_EQ(BandVerdict(bands, "median_ttft_ms", -0.10), "");  // the band is a throughput error
  EXPECT_EQ(BandVerdict(ComparedBands{}, "total_tput_per_gpu", 0.5), "");

  auto r = CompareRuns(*s, 1, 2, analysis::RegressionOptions{});
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  std::ostringstream out;
  PrintComparison(*r, "sim", "measured", out, bands);
  const std::string text = out.str();
  EXPECT_NE(text.find("baseline  sim  (simulated: prediction band +/-14% (dense / tp / nvidia, 23 results); "
                      "extrapolates: GPU never calibrated (b200))"),
            std::string::npos)
      << text;
  // 90 c against 100 c: -10 % on total throughput, within the band.
  EXPECT_NE(text.find("within \u00b114%"), std::string::npos) << text;
}

TEST(ReportBand, ADatabaseOfSchema5WithoutTheBandColumnsStillReports) {
  testing_util::ScratchDir tmp("report_band");
  const std::string path = tmp.Path("v5.db");
  {
    auto v5 = store::OpenSqliteStore(path, store::OpenMode::kCreate, 5);
    ASSERT_TRUE(v5.ok()) << v5.status().ToString();
    AddRun(**v5, "old", "h200", 1.0, {1, 4}, 1);
  }
  auto s = store::OpenStore(path, store::OpenMode::kReadOnly);
  ASSERT_TRUE(s.ok()) << s.status().ToString();
  ASSERT_EQ((*s)->SchemaVersion(), 5);
  auto r = BuildReport(**s, {});
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  ASSERT_EQ(r->series.size(), 1u);
  EXPECT_FALSE(r->series[0].banded);
  std::ostringstream text;
  PrintReport(*r, text);
  EXPECT_NE(text.str().find("old  ["), std::string::npos) << text.str();
  EXPECT_EQ(text.str().find("band"), std::string::npos) << text.str();
  EXPECT_NE(RenderHtml(*r).find("<svg"), std::string::npos);
}

TEST(ReportBand, TheFrontiersBandIsTheCurveAtPlusMinusTheBand) {
  std::vector<ChartSeries> cs(1);
  cs[0].color = "#000";
  cs[0].line = {{1, 100}, {2, 50}};
  for (const auto& [x, y] : cs[0].line) cs[0].area.push_back({x, y * 0.9, y * 1.1});
  Marker m;
  m.x = 1;
  m.y = 100;
  m.y_band_lo = 90;
  m.y_band_hi = 110;
  cs[0].markers.push_back(m);
  ChartOptions o;
  const std::string svg = RenderChart(cs, o);
  EXPECT_NE(svg.find("<polygon class=\"pband\""), std::string::npos) << svg;
  EXPECT_NE(svg.find("<rect class=\"pband\""), std::string::npos) << svg;
}


// A measured run of one point whose energy the store holds (energy_j > 0),
// and the same run without: the report and compare label the first
// "measured (nvml)" and the second "TDP bound".
TEST(Report, MeasuredEnergyBesideTheTdpBound) {
  testing_util::ScratchDir tmp("report");
  auto s = FreshStore(tmp, "energy");
  const int64_t plain = AddRun(*s, "plain", "h200", 1.0, {4}, 1);  // 400 total tok/s/GPU
  store::RunInfo run;
  run.sweep = "test";
  run.system = "measured";
  run.source = store::Source::kMeasured;
  run.config = {{"hardware", "h200"}, {"gpus", "8"}};
  auto r = s->CreateRun(run);
  ASSERT_TRUE(r.ok());
  for (int k = 0; k < 2; ++k) {
    store::PointRecord p;
    p.run_id = r->id;
    p.workload = "1k1k";
    p.load_value = 4;
    p.repetition = k;
    p.key = store::PointKey("1k1k", store::LoadKind::kConcurrency, 4, k);
    p.source = store::Source::kMeasured;
    p.metrics.interactivity = 50;
    p.metrics.total_token_throughput_per_gpu = 400;
    p.metrics.energy.emplace().joules = k == 0 ? 1000 : 1200;
    p.metrics.energy->mean_w = k == 0 ? 500 : 600;
    p.metrics.energy->peak_w = k == 0 ? 650 : 700;
    p.metrics.tokens_per_joule = k == 0 ? 4 : 2;
    p.summary_json = R"({"energy":{"source":"nvml","joules":1000}})";
    ASSERT_TRUE(s->AddPoint(p, {}).ok());
  }
  ReportOptions o;
  o.hardware["h200"] = {3.6, "test", 700};
  auto rep = BuildReport(*s, o);
  ASSERT_TRUE(rep.ok()) << rep.status().ToString();
  const std::vector<EnergyRow> rows = MeasuredEnergyRows(*rep);
  ASSERT_EQ(rows.size(), 1u);  // the plain run measured nothing
  EXPECT_EQ(rows[0].label, "measured (nvml)");
  EXPECT_DOUBLE_EQ(rows[0].joules, 1100);
  EXPECT_DOUBLE_EQ(rows[0].mean_w, 550);
  EXPECT_DOUBLE_EQ(rows[0].peak_w, 700);
  EXPECT_DOUBLE_EQ(rows[0].tokens_per_joule, 3);
  ASSERT_TRUE(rows[0].tdp_bound_tokens_per_joule.has_value());
  EXPECT_DOUBLE_EQ(*rows[0].tdp_bound_tokens_per_joule, 400.0 / 700);
  std::ostringstream text;
  PrintReport(*rep, text);
  EXPECT_NE(text.str().find("Measured energy per point"), std::string::npos) << text.str();
  EXPECT_NE(text.str().find("measured (nvml)"), std::string::npos);
  EXPECT_NE(RenderHtml(*rep).find("<h2>Measured energy</h2>"), std::string::npos);

  std::ostringstream cmp;
  ASSERT_TRUE(PrintEnergyComparison(*s, plain, r->id, 700, 700, cmp).ok());
  const std::string c = cmp.str();
  EXPECT_NE(c.find("0.571"), std::string::npos) << c;  // 400 / 700: the plain run's bound
  EXPECT_NE(c.find("TDP bound"), std::string::npos) << c;
  EXPECT_NE(c.find("3.000"), std::string::npos) << c;  // (4 + 2) / 2, measured
  EXPECT_NE(c.find("measured (nvml)"), std::string::npos) << c;
  // Neither run measured: nothing is printed.
  std::ostringstream none;
  ASSERT_TRUE(PrintEnergyComparison(*s, plain, plain, 700, 700, none).ok());
  EXPECT_EQ(none.str(), "");
}

TEST(HardwareFacts, PriceOverridesAreByLowerCaseNameAndABadOneIsNamed) {
  auto prices = ParsePriceOverrides({"XYZ-GPU=2.5"});
  ASSERT_TRUE(prices.ok());
  EXPECT_EQ(prices->at("xyz-gpu"), 2.5);
  auto bad = ParsePriceOverrides({"h200=0"});
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.status().message().find("got 'h200=0'"), std::string::npos);
  for (const char* junk : {"h200= 2.5", "h200=0x2", "h200=2.5x", "=2.5", "h200"})  // all of the number, as every number
    EXPECT_EQ(ParsePriceOverrides({junk}).status().message(),
              std::string("--price: expected HW=USD with USD in (0, 10000] (e.g. h200=3.5), got '") + junk + "'");
  // A hardware the catalog lacks keeps its override's price, and no power.
  store::RunInfo run;
  run.config["hardware"] = "XYZ-GPU";
  auto facts = HardwareFactsOfRuns({run}, "neocloud", *prices);
  ASSERT_EQ(facts.count("xyz-gpu"), 1u);
  EXPECT_EQ(facts.at("xyz-gpu").price_per_gpu_hour, 2.5);
  EXPECT_EQ(facts.at("xyz-gpu").price_source, "--price");
  EXPECT_EQ(RunTdpW(run), 0.0);
}

TEST(HardwareFacts, EveryNameOfAGpuIsPricedAndReportedAsOne) {
  // data/hardware/h100-sxm.json: name h100-sxm, alias h100, TDP 700 W; h200.json: name h200, alias h200-sxm.
  EXPECT_EQ(HardwareKey("H100"), "h100-sxm");
  EXPECT_EQ(HardwareKey("h100-sxm"), "h100-sxm");
  EXPECT_EQ(HardwareKey("h200-SXM"), "h200");
  EXPECT_EQ(HardwareKey("XYZ-GPU"), "xyz-gpu");
  EXPECT_EQ(HardwareKey(""), "");
  auto prices = ParsePriceOverrides({"h100=9.99"});
  ASSERT_TRUE(prices.ok());
  EXPECT_EQ(*prices, (std::map<std::string, double>{{"h100-sxm", 9.99}}));
  // `simulate --hardware h100` stores h100-sxm, a plan saying `hardware: h100` stores h100: one GPU, one price.
  // (--price h100 used to price only the second, and the first kept the catalog's price.)
  testing_util::ScratchDir tmp("report");
  auto s = FreshStore(tmp, "names");
  AddRun(*s, "by command", "h100-sxm", 1.0, {1, 8}, 1);
  AddRun(*s, "by plan", "h100", 1.0, {1, 8}, 1);
  auto runs = s->ListRuns();
  ASSERT_TRUE(runs.ok());
  ReportOptions o;
  o.hardware = HardwareFactsOfRuns(*runs, "neocloud", *prices);
  ASSERT_EQ(o.hardware.size(), 1u);
  EXPECT_EQ(o.hardware.at("h100-sxm").price_per_gpu_hour, 9.99);
  EXPECT_EQ(o.hardware.at("h100-sxm").price_source, "--price");
  EXPECT_EQ(o.hardware.at("h100-sxm").tdp_w, 700);
  EXPECT_EQ(RunTdpW((*runs)[1]), 700);
  auto r = BuildReport(*s, o);
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  ASSERT_EQ(r->series.size(), 2u);
  for (const auto& series : r->series) {
    EXPECT_EQ(series.hardware, "h100-sxm") << series.name;
    ASSERT_TRUE(series.facts.has_value()) << series.name;
    EXPECT_EQ(series.facts->price_per_gpu_hour, 9.99) << series.name;
  }
  EXPECT_EQ(UnusedPriceNote(*r, *prices), "");
  EXPECT_EQ(UnusedPriceNote(*r, {{"h100-sxm", 9.99}, {"h300", 2.5}, {"xyz", 1}}),
            "--price h300=2.5, xyz=1 prices no series: they are on h100-sxm");
  // Two prices for one GPU under two names are refused; the same price twice is not.
  EXPECT_EQ(ParsePriceOverrides({"h100=2", "H100-SXM=3"}).status().message(),
            "--price h100=2 and --price H100-SXM=3 price one GPU (h100-sxm) twice; give one");
  EXPECT_TRUE(ParsePriceOverrides({"h100=2", "h100-sxm=2"}).ok());
}
}  // namespace
}  // namespace frontier::report
