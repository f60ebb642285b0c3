#include <gtest/gtest.h>

#include <fstream>
#include <iterator>
#include <map>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "store/import_export.h"
#include "store/schema.h"
#include "store/sqlite_store.h"
#include "store/verdict_test_util.h"
#include "util/scratch.h"
#include "util/test_paths.h"

namespace frontier::store {
namespace {

// The sample files under src/store/testdata.
std::string Data() { return testing_util::TestPath("FRONTIER_SOURCE_DIR") + "/src/store/testdata"; }

// A new database `name` in the test's scratch folder (removed with the
// folder, -wal and -shm included: declare the folder before the store).
std::unique_ptr<Store> FreshStore(const testing_util::ScratchDir& dir, const std::string& name) {
  auto s = OpenStore(dir.Path(name + ".db"));
  EXPECT_TRUE(s.ok()) << s.status().ToString();
  return std::move(*s);
}

TEST(Import, VllmResultBecomesOneImportedPointWithRequests) {
  testing_util::ScratchDir tmp("import");
  auto store = FreshStore(tmp, "vllm");
  ImportOptions o;
  o.num_gpus = 2;
  o.hardware = "h100";
  auto runs = ImportFile(*store, Data() + "/vllm_bench_serve.json", o);
  ASSERT_TRUE(runs.ok()) << runs.status().ToString();
  ASSERT_EQ(runs->size(), 1u);
  EXPECT_EQ(runs->front().system, "vllm:meta-llama/Llama-3.1-8B-Instruct");
  EXPECT_EQ(runs->front().config.at("hardware"), "h100");
  auto points = store->ListPoints(runs->front().id);
  ASSERT_TRUE(points.ok());
  ASSERT_EQ(points->size(), 1u);
  const PointRecord& p = points->front();
  EXPECT_EQ(p.source, Source::kImported);
  EXPECT_EQ(p.load_kind, LoadKind::kConcurrency);
  EXPECT_DOUBLE_EQ(p.load_value, 2);
  EXPECT_EQ(p.metrics.completed, 3);
  EXPECT_EQ(p.metrics.failed, 1);
  EXPECT_DOUBLE_EQ(p.metrics.output_throughput_per_gpu, 7.5);    // 15 tok/s over 2 GPUs
  EXPECT_DOUBLE_EQ(p.metrics.total_token_throughput_per_gpu, 82.5);    // 165 / 2
  EXPECT_DOUBLE_EQ(p.metrics.tpot_ms.median, 20.0);
  EXPECT_DOUBLE_EQ(p.metrics.interactivity, 50.0);         // 1000 / 20 ms
  EXPECT_DOUBLE_EQ(store::P99(p.metrics.ttft_ms), 139.6);
  auto req = store->ListRequests(p.id);
  ASSERT_TRUE(req.ok());
  ASSERT_EQ(req->size(), 4u);
  EXPECT_EQ((*req)[0].first_token_ns, 110'000'000);
  EXPECT_NEAR(static_cast<double>((*req)[0].end_ns), 110e6 + 9 * 20e6, 1e3);
  EXPECT_EQ((*req)[0].events, 10);
  EXPECT_FALSE((*req)[3].ok);
}

TEST(Import, InferenceXGroupsByHardwareFrameworkPrecisionAndConvertsSeconds) {
  testing_util::ScratchDir tmp("import");
  auto store = FreshStore(tmp, "ix");
  auto runs = ImportFile(*store, Data() + "/agg_llama70b_fp8.json", {});
  ASSERT_TRUE(runs.ok()) << runs.status().ToString();
  ASSERT_EQ(runs->size(), 2u);
  EXPECT_EQ((*runs)[0].system, "h200-vllm-fp8");
  EXPECT_EQ((*runs)[1].system, "mi325x-sglang-fp8");
  auto h200 = store->ListPoints((*runs)[0].id);
  ASSERT_TRUE(h200.ok());
  ASSERT_EQ(h200->size(), 4u);
  const metrics::Summary& a = (*h200)[0].metrics;
  EXPECT_EQ((*h200)[0].num_gpus, 8);                         // from tp
  EXPECT_DOUBLE_EQ(a.total_token_throughput_per_gpu, 120.5);
  EXPECT_DOUBLE_EQ(a.output_throughput_per_gpu, 60.25);
  EXPECT_DOUBLE_EQ(a.total_token_throughput, 964.0);  // 120.5 x 8
  EXPECT_DOUBLE_EQ(a.ttft_ms.median, 75.0);           // 0.075 s
  EXPECT_DOUBLE_EQ(a.tpot_ms.median, 10.0);
  EXPECT_DOUBLE_EQ(store::P99(a.ttft_ms), 200.0);
  EXPECT_DOUBLE_EQ(a.interactivity, 100.0);
  // The second identical tp=8 config at conc 64 is a repetition, tp=4 is a separate point.
  EXPECT_EQ((*h200)[1].repetition, 0);
  EXPECT_EQ((*h200)[2].repetition, 1);
  EXPECT_EQ((*h200)[3].repetition, 0);
  EXPECT_EQ((*h200)[3].settings.at("tp"), "4");
  EXPECT_EQ((*h200)[3].num_gpus, 4);
  auto mi = store->ListPoints((*runs)[1].id);
  ASSERT_EQ(mi->size(), 1u);
  EXPECT_EQ(mi->front().num_gpus, 12);  // 4 prefill + 8 decode
}

TEST(Import, SingleInferenceXObjectAndBadFilesNameTheProblem) {
  auto one = ParseResultFile(
      R"({"hw":"b200","conc":8,"tput_per_gpu":10,"output_tput_per_gpu":5,"tp":2,"median_tpot":0.02})",
      "agg_one.json", {});
  ASSERT_TRUE(one.ok());
  EXPECT_DOUBLE_EQ(one->front().points.front().metrics.interactivity, 50.0);  // from median_tpot

  auto missing = ParseResultFile(R"([{"hw":"b200","tput_per_gpu":1,"output_tput_per_gpu":1}])",
                                 "agg_bad.json", {});
  ASSERT_FALSE(missing.ok());
  EXPECT_NE(missing.status().message().find("agg_bad.json: record 0: field 'conc'"),
            std::string::npos);
  auto neither = ParseResultFile(R"({"hello": 1})", "x.json", {});
  ASSERT_FALSE(neither.ok());
  EXPECT_NE(neither.status().message().find("x.json"), std::string::npos);
  EXPECT_FALSE(ParseResultFile("{not json", "y.json", {}).ok());
}

// A valid vLLM result with one field replaced by `patch` (a JSON object merged in).
std::string VllmWith(const std::string& patch) {
  nlohmann::json j = nlohmann::json::parse(R"({"completed": 3, "num_prompts": 4, "output_throughput": 15,
    "total_token_throughput": 165, "max_concurrency": 2, "median_tpot_ms": 20, "p99_tpot_ms": 25,
    "ttfts": [0.11, 0.10, 0.15, 0], "itls": [[0.02], [0.02], [0.02], []],
    "input_lens": [100, 100, 100, 100], "output_lens": [2, 2, 2, 0]})");
  j.merge_patch(nlohmann::json::parse(patch));
  return j.dump();
}

std::string InferenceXWith(const std::string& patch) {
  nlohmann::json j = nlohmann::json::parse(
      R"({"hw": "b200", "conc": 8, "tp": 2, "tput_per_gpu": 10, "output_tput_per_gpu": 5, "median_ttft": 0.1})");
  j.merge_patch(nlohmann::json::parse(patch));
  return nlohmann::json::array({j}).dump();
}

// A frontier result's series over time (scraped samples, timeslices) come
// with the point; a file without them gives a point without.
TEST(Import, AFrontierResultKeepsItsSeriesOverTime) {
  auto with = ParseResultFile(VllmWith(R"({"server_metrics": {"samples": {"t_s": [0.5]}},
                                           "timeslices": {"slice_s": 2, "plateau_in_flight": 4}})"),
                              "v.json", {});
  ASSERT_TRUE(with.ok()) << with.status().ToString();
  ASSERT_EQ(with->size(), 1u);
  ASSERT_EQ(with->front().points.size(), 1u);
  const PointSeries& s = with->front().points[0].series;
  EXPECT_EQ(nlohmann::json::parse(s.server_metrics_json), nlohmann::json::parse(R"({"samples": {"t_s": [0.5]}})"));
  EXPECT_EQ(nlohmann::json::parse(s.timeslices_json),
            nlohmann::json::parse(R"({"slice_s": 2, "plateau_in_flight": 4})"));
  auto without = ParseResultFile(VllmWith("{}"), "v.json", {});
  ASSERT_TRUE(without.ok());
  EXPECT_TRUE(without->front().points[0].series.empty());
}

TEST(Import, AFrontierResultKeepsItsMeasuredEnergy) {
  auto r = ParseResultFile(VllmWith(R"({"total_input_tokens": 300, "total_output_tokens": 6,
                                        "energy": {"source": "nvml", "method": "energy counter", "joules": 500,
                                          "mean_power_w": 250, "peak_power_w": 300, "window_s": 2,
                                          "devices": [{"name": "gpu0", "joules": 500}]}})"),
                           "v.json", {});
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  const PointRecord& p = r->front().points[0];
  ASSERT_TRUE(p.metrics.energy.has_value());
  EXPECT_DOUBLE_EQ(p.metrics.energy->joules, 500);
  EXPECT_DOUBLE_EQ(p.metrics.energy->mean_w, 250);
  EXPECT_DOUBLE_EQ(p.metrics.energy->peak_w, 300);
  EXPECT_DOUBLE_EQ(p.metrics.tokens_per_joule, 306.0 / 500);
  const auto summary = nlohmann::json::parse(p.summary_json);
  EXPECT_EQ(summary["energy"]["source"], "nvml");
  EXPECT_EQ(summary["energy"]["label"], "measured (nvml)");
  auto bad = ParseResultFile(VllmWith(R"({"energy": {"source": "nvml", "joules": "lots"}})"), "v.json", {});
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.status().message().find("v.json: energy: joules"), std::string::npos) << bad.status().message();
}

TEST(Import, AWrongTypeAnywhereIsAnErrorNamingTheFieldNotACrash) {
  // Each of these aborted the process (an uncaught JSON type error) or was
  // silently read as 0.
  const std::pair<std::string, std::string> cases[] = {
      {R"({"itls": "nope"})", "v.json: itls must be a list with one entry per request, got \"nope\""},
      {R"({"itls": [[0.02], "x", [0.02], []]})", "v.json: itls[1] must be a list of seconds, got \"x\""},
      {R"({"itls": [[0.02], ["a"], [0.02], []]})", "v.json: itls[1][0] must be a number in [0, 1000000], got 'a'"},
      {R"({"input_lens": [100, "many", 100, 100]})",
       "v.json: input_lens[1] must be an integer in [0, 2147483647], got \"many\""},
      {R"({"input_lens": [100, 1e10, 100, 100]})",
       "v.json: input_lens[1] must be an integer in [0, 2147483647], got 10000000000.0"},
      {R"({"mean_ttft_ms": "fast"})", "v.json: mean_ttft_ms must be a number in [0, 1000000000], got 'fast'"},
      {R"({"mean_ttft_ms": {"value": 3}})",
       "v.json: mean_ttft_ms must be a number in [0, 1000000000], got {\"value\":3}"},
      {R"({"model_id": ["a"]})", "v.json: model_id must be a string, got [\"a\"]"},
      {R"({"errors": [1, 2, 3, 4]})", "v.json: errors[0] must be a string, got 1"},
  };
  for (const auto& [patch, message] : cases) {
    auto r = ParseResultFile(VllmWith(patch), "v.json", {});
    ASSERT_FALSE(r.ok()) << patch;
    EXPECT_EQ(r.status().code(), StatusCode::kInvalidArgument) << patch;
    EXPECT_EQ(r.status().message(), message) << patch;
  }
}

TEST(Import, NumbersOutsideAnyPhysicalRangeAreRefusedWithTheirRange) {
  const std::pair<std::string, std::string> vllm[] = {
      {R"({"completed": 1e30})", "v.json: completed must be an integer in [0, 1000000000000], got 1e+30"},
      {R"({"completed": -1})", "v.json: completed must be an integer in [0, 1000000000000], got -1"},
      {R"({"ttfts": [null, 0.1, 0.1, 0]})", "v.json: ttfts[0] must be a number in [0, 1000000], got null"},
      {R"({"ttfts": [0.1, "a", 0.1, 0]})", "v.json: ttfts[1] must be a number in [0, 1000000], got 'a'"},
      {R"({"ttfts": [0.1, -1, 0.1, 0]})", "v.json: ttfts[1] must be a number in [0, 1000000], got -1"},
      {R"({"ttfts": [0.1, 1e308, 0.1, 0]})", "v.json: ttfts[1] must be a number in [0, 1000000], got 1e+308"},
      {R"({"max_concurrency": -5})", "v.json: max_concurrency must be an integer in [1, 10000000], got -5"},
      {R"({"max_concurrency": 2.5})", "v.json: max_concurrency must be an integer in [1, 10000000], got 2.5"},
      {R"({"output_throughput": 1e308})", "v.json: output_throughput must be a number in [0, 1000000000], got 1e+308"},
      {R"({"request_rate": -2, "max_concurrency": null})",
       "v.json: request_rate must be a number in [1e-09, 1000000000], got -2"},
      {R"({"total_output_tokens": 18446744073709551615})",
       "v.json: total_output_tokens must be an integer in [0, 1000000000000000], got 18446744073709551615"},
      {R"({"duration": "nan"})", "v.json: duration must be a number in [0, 1000000000], got 'nan'"},
  };
  for (const auto& [patch, message] : vllm) {
    auto r = ParseResultFile(VllmWith(patch), "v.json", {});
    ASSERT_FALSE(r.ok()) << patch;
    EXPECT_EQ(r.status().message(), message) << patch;
  }
  const std::pair<std::string, std::string> ix[] = {
      {R"({"conc": -1})", "agg.json: record 0: conc must be an integer in [1, 10000000], got -1"},
      {R"({"num_gpus": 0})", "agg.json: record 0: num_gpus must be an integer in [1, 1000000], got 0"},
      {R"({"tp": 0})", "agg.json: record 0: tp must be an integer in [1, 1000000], got 0"},
      {R"({"tput_per_gpu": 1e308})", "agg.json: record 0: tput_per_gpu must be a number in [0, 1000000000], got 1e+308"},
      {R"({"median_ttft": -0.1})", "agg.json: record 0: median_ttft must be a number in [0, 1000000], got -0.1"},
      {R"({"hw": 7})", "agg.json: record 0: hw must be a string, got 7"},
      {R"({"hw": ""})", "agg.json: record 0: field 'hw' is missing or empty; is this an InferenceX agg_*.json result?"},
      {R"({"tp": null})",
       "agg.json: record 0: the GPU count is missing: give num_gpus, num_prefill_gpu + num_decode_gpu, or tp "
       "(per-GPU throughput means nothing without it)"},
      {R"({"tput_per_gpu": 900000, "num_gpus": 1000000})",
       "agg.json: record 0: total_token_throughput must be a number in [0, 1000000000], got 900000000000"},
  };
  for (const auto& [patch, message] : ix) {
    auto r = ParseResultFile(InferenceXWith(patch), "agg.json", {});
    ASSERT_FALSE(r.ok()) << patch;
    EXPECT_EQ(r.status().message(), message) << patch;
  }
  ImportOptions zero;
  zero.num_gpus = 0;
  EXPECT_EQ(ParseResultFile(VllmWith("{}"), "v.json", zero).status().message(),
            "--gpus must be an integer in [1, 1000000], got 0");
}

TEST(Import, FiguresThatContradictEachOtherAreRefused) {
  const std::pair<std::string, std::string> cases[] = {
      {R"({"completed": 5})", "v.json: completed (5) exceeds num_prompts (4); the file contradicts itself"},
      {R"({"output_throughput": 200})",
       "v.json: the output throughput (200) exceeds the total token throughput (165) it is part of; the file "
       "contradicts itself"},
      {R"({"median_tpot_ms": 30})",
       "v.json: the median tpot (30 ms) exceeds its p99 (25 ms); the file contradicts itself"},
      {R"({"input_lens": [1, 2]})",
       "v.json: input_lens has 2 entries but ttfts has 4; the per-request lists must be as long as each other"},
      {R"({"itls": [[600000, 600000], [], [], []]})",
       "v.json: request 0 lasts 1200000.11 s (ttft + itls), more than the 1000000 s bound"},
  };
  for (const auto& [patch, message] : cases) {
    auto r = ParseResultFile(VllmWith(patch), "v.json", {});
    ASSERT_FALSE(r.ok()) << patch;
    EXPECT_EQ(r.status().message(), message) << patch;
  }
  auto ix = ParseResultFile(InferenceXWith(R"({"output_tput_per_gpu": 11})"), "agg.json", {});
  EXPECT_EQ(ix.status().message(),
            "agg.json: record 0: the output throughput (22) exceeds the total token throughput (20) it is part "
            "of; the file contradicts itself");
  // The valid base documents import, so each case above fails for its own field only.
  EXPECT_TRUE(ParseResultFile(VllmWith("{}"), "v.json", {}).ok());
  EXPECT_TRUE(ParseResultFile(InferenceXWith("{}"), "agg.json", {}).ok());
}

TEST(Import, DeepNestingAndEndlessFilesEndPromptlyWithAnError) {
  auto deep = ParseResultFile(std::string(100000, '[') + std::string(100000, ']'), "deep.json", {});
  ASSERT_FALSE(deep.ok());
  EXPECT_EQ(deep.status().message(), "deep.json: nested deeper than 64 levels; not a vLLM or InferenceX result");
  testing_util::ScratchDir tmp("import");
  auto store = FreshStore(tmp, "zero");
  auto zero = ImportFile(*store, "/dev/zero", {});
  ASSERT_FALSE(zero.ok());
  EXPECT_EQ(zero.status().message(),
            "/dev/zero: larger than 512 MiB, the bound on imported result files (docs/limits.md); set "
            "FRONTIER_MAX_INPUT_MB to raise it");
}

TEST(Import, AValueOfTheWrongTypeIsAnErrorNamingTheFileNotACrash) {
  testing_util::ScratchDir tmp("import");
  auto store = FreshStore(tmp, "wrongtype");
  auto r = ImportText(*store, R"({"completed": 1, "output_throughput": 1, "total_token_throughput": 2,
                                  "ttfts": [0.1], "input_lens": ["many"]})",
                      "odd.json", {});
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), StatusCode::kInvalidArgument);
  EXPECT_NE(r.status().message().find("odd.json"), std::string::npos) << r.status().message();
  EXPECT_TRUE(store->ListRuns()->empty());
}

TEST(Export, JsonAndCsvCarryEveryPoint) {
  testing_util::ScratchDir tmp("import");
  auto store = FreshStore(tmp, "export");
  ASSERT_TRUE(ImportFile(*store, Data() + "/agg_llama70b_fp8.json", {}).ok());
  auto js = ExportJson(*store);
  ASSERT_TRUE(js.ok());
  auto j = nlohmann::json::parse(*js);
  ASSERT_EQ(j["runs"].size(), 2u);
  EXPECT_EQ(j["runs"][0]["points"].size(), 4u);
  EXPECT_DOUBLE_EQ(j["runs"][0]["points"][0]["tput_per_gpu"].get<double>(), 120.5);
  auto csv = ExportCsv(*store);
  ASSERT_TRUE(csv.ok());
  size_t lines = 0;
  for (char c : *csv) lines += c == '\n';
  EXPECT_EQ(lines, 1u + 5u);  // header + 5 points
  EXPECT_NE(csv->find("mi325x-sglang-fp8"), std::string::npos);
  EXPECT_EQ(csv->rfind("run_id,run,system,hardware,id,", 0), 0u);
}

}  // namespace
}  // namespace frontier::store

// --- frontier's own export, read back by import --------------------------------

namespace frontier::store {
namespace {

// The texts of every point of `s`, in id order, with their series: key ->
// {verdict_json, trial_json, summary_json, server_metrics_json, timeslices_json}.
std::map<std::string, std::vector<std::string>> PointTexts(Store& s) {
  std::map<std::string, std::vector<std::string>> out;
  auto points = s.ListPoints(0);
  EXPECT_TRUE(points.ok());
  if (!points.ok()) return out;
  for (const auto& p : *points) {
    auto series = s.GetPointSeries(p.id);
    EXPECT_TRUE(series.ok());
    out[p.key] = {p.verdict_json, p.trial_json, p.summary_json, series.ok() ? series->server_metrics_json : "?",
                  series.ok() ? series->timeslices_json : "?"};
  }
  return out;
}

TEST(ExportImport, FrontierExportRoundTripsVerdictsTrialsSearchAndSeriesByteForByte) {
  testing_util::ScratchDir tmp("import");
  auto from = FreshStore(tmp, "export_from");
  const int64_t run_id = testing_verdict::RoundTripVerdicts(*from);
  ASSERT_GT(run_id, 0);
  // A fourth point with a summary and both series, as a measured run stores them.
  PointRecord p = testing_verdict::JudgedPoint(run_id, 16, testing_verdict::kValidVerdict, "");
  p.summary_json = R"({"completed":2000,"mean_ttft_ms":12.5})";
  p.series.server_metrics_json = R"({"kind":"vllm","samples":{"t_s":[0.5,1.0],"vllm:num_requests_running":[3,4]}})";
  p.series.timeslices_json = R"({"window_s":1.0,"windows":{"completed":[7,9],"phase":["warmup","steady"]}})";
  ASSERT_TRUE(from->AddPoint(p, {}).ok());
  ASSERT_TRUE(from->SetRunStatus(run_id, SystemStatus::Broken("server died at concurrency 32")).ok());

  auto text = ExportJson(*from);
  ASSERT_TRUE(text.ok()) << text.status().ToString();
  auto parsed = ParseResultFile(*text, "export.json", {});
  ASSERT_TRUE(parsed.ok()) << parsed.status().ToString();
  ASSERT_EQ(parsed->size(), 1u);
  auto to = FreshStore(tmp, "export_to");
  auto runs = StoreParsedRuns(*to, std::move(*parsed));
  ASSERT_TRUE(runs.ok()) << runs.status().ToString();

  auto before = from->GetRun(run_id), after = to->GetRun(runs->front().id);
  ASSERT_TRUE(before.ok() && after.ok());
  EXPECT_EQ(after->search_json, testing_verdict::kSearch);
  EXPECT_EQ(after->search_json, before->search_json);
  EXPECT_EQ(after->source, Source::kSimulated);  // the run stays what it was, not "imported"
  EXPECT_EQ(after->status.reason, "server died at concurrency 32");
  EXPECT_EQ(after->created_utc, before->created_utc);
  EXPECT_EQ(after->provenance.at("imported_from"), "export.json");

  const auto want = PointTexts(*from), got = PointTexts(*to);
  ASSERT_EQ(got.size(), 4u);
  EXPECT_EQ(got, want);
  const auto& judged = got.at(PointKey("w", LoadKind::kRequestRate, 8, 0));
  EXPECT_EQ(judged[0], testing_verdict::kInvalidVerdict);
  EXPECT_EQ(got.at(PointKey("w", LoadKind::kRequestRate, 4, 0))[1], testing_verdict::kTrial);
  EXPECT_EQ(got.at(PointKey("w", LoadKind::kRequestRate, 16, 0))[3], p.series.server_metrics_json);
  EXPECT_EQ(got.at(PointKey("w", LoadKind::kRequestRate, 16, 0))[4], p.series.timeslices_json);

  // Exported again, the import is the same document but for ids and the import's provenance.
  auto again = ExportJson(*to);
  ASSERT_TRUE(again.ok());
  auto a = nlohmann::json::parse(*text), b = nlohmann::json::parse(*again);
  for (auto* doc : {&a, &b})
    for (auto& r : (*doc)["runs"]) {
      r.erase("id");
      r.erase("label");
      r.erase("provenance");
      for (auto& q : r["points"]) q.erase("id");
    }
  EXPECT_EQ(a, b);
}

TEST(ExportImport, CsvSaysEachPointsVerdict) {
  testing_util::ScratchDir tmp("import");
  auto s = FreshStore(tmp, "csv_verdict");
  ASSERT_GT(testing_verdict::RoundTripVerdicts(*s), 0);
  auto csv = ExportCsv(*s);
  ASSERT_TRUE(csv.ok());
  std::vector<std::string> lines;
  for (size_t at = 0; at < csv->size();) {
    const size_t nl = csv->find('\n', at);
    lines.push_back(csv->substr(at, nl - at));
    at = nl + 1;
  }
  ASSERT_EQ(lines.size(), 4u);  // header and three points
  EXPECT_NE(lines[0].find(",verdict,verdict_reason,settings"), std::string::npos) << lines[0];
  EXPECT_EQ(lines[0].find("verdict_json"), std::string::npos);
  EXPECT_NE(lines[1].find(",INVALID,TTFT p99 640.25 ms > 450 ms,"), std::string::npos) << lines[1];
  EXPECT_NE(lines[2].find(",VALID,,"), std::string::npos) << lines[2];
  EXPECT_NE(lines[3].find(",,,"), std::string::npos) << lines[3];
}

TEST(ExportImport, ABadExportIsRefusedNamingTheRunPointAndField) {
  const std::string run = R"({"schema_version":5,"runs":[{"sweep":"s","system":"h200","source":"simulated",)";
  const std::string point = R"("points":[{"key":"w|concurrency=4|rep=0","load_kind":"concurrency","load_value":4,)"
                            R"("num_gpus":8,"completed":10)";
  const struct {
    std::string text, message;
  } cases[] = {
      {run + R"("points":[]}]})", ""},
      {R"({"schema_version":5,"runs":{}})",
       "e.json: runs must be a list; is this a `frontier db export` JSON file?"},
      {R"({"schema_version":5,"runs":[{"sweep":"s","system":"h200","source":"guessed"}]})",
       "e.json: runs[0]: source must be measured, simulated or imported, got 'guessed'"},
      {run + point + R"(,"verdict_json":"{\"result\":\"MAYBE\"}"}]}]})",
       "e.json: runs[0]: points[0]: verdict_json must be a JSON object whose \"result\" is VALID or INVALID, got "
       "'{\"result\":\"MAYBE\"}'"},
      {run + point + R"(,"series":{"timeslices_json":"[1]"}}]}]})",
       "e.json: runs[0]: points[0]: series: timeslices_json must be \"\" or a JSON object as text, got '[1]'"},
      {run + point + "}," + point.substr(std::string(R"("points":[)").size()) + "}]}]}",
       "e.json: runs[0]: points[1]: key 'w|concurrency=4|rep=0' appears twice in its run"},
      {run + R"("points":[{"key":"k","load_kind":"concurrency","load_value":4,"num_gpus":0}]}]})",
       "e.json: runs[0]: points[0]: num_gpus must be an integer in [1, 1000000], got 0"},
      // A load kind or source the store does not know, named with the ones it does.
      {run + R"("points":[{"key":"k","load_kind":"qps","load_value":4}]}]})",
       "e.json: runs[0]: points[0]: load_kind must be concurrency, request_rate or probe, got 'qps'"},
      {run + R"("points":[{"key":"k","load_value":4}]}]})",
       "e.json: runs[0]: points[0]: load_kind must be concurrency, request_rate or probe, got ''"},
      {run + point + R"(,"source":"guessed"}]}]})",
       "e.json: runs[0]: points[0]: source must be measured, simulated or imported, got 'guessed'"},
      // A probe point's size (here 2^30 bytes) passes any request rate and is held to the probe's range.
      {run + R"("points":[{"key":"k","load_kind":"probe","load_value":1073741824,"num_gpus":1}]}]})", ""},
      {run + R"("points":[{"key":"k","load_kind":"probe","load_value":2e15,"num_gpus":1}]}]})",
       "e.json: runs[0]: points[0]: load_value must be a number in [0, 1e+15], got 2e+15"},
      {run + R"("points":[{"key":"k","load_kind":"request_rate","load_value":1073741824,"num_gpus":1}]}]})",
       "e.json: runs[0]: points[0]: load_value must be a number in [0, 1000000000], got 1073741824"},
      {run + R"("search_json":")" + std::string(200, '[') + R"("}]})",
       "e.json: runs[0]: search_json is nested deeper than 64 levels"},
      // A figure out of its column's range is named as the file names it (the column is total_tput_per_gpu).
      {run + point + R"(,"tput_per_gpu":2e9}]}]})",
       "e.json: runs[0]: points[0]: tput_per_gpu must be a number in [0, 1000000000], got 2000000000"},
      {run + point + R"(,"duration":5e11}]}]})",
       "e.json: runs[0]: points[0]: duration must be a number in [0, 1000000000], got 500000000000"},
  };
  for (const auto& c : cases) {
    auto r = ParseResultFile(c.text, "e.json", {});
    if (c.message.empty()) {
      EXPECT_TRUE(r.ok()) << r.status().ToString();
    } else {
      EXPECT_EQ(r.status().message(), c.message) << c.text;
    }
  }
}

// export_v5.json and export_v5.csv were written by `frontier db export` before
// the export read its keys from the schema's column table (store/schema.cc):
// the file format users hold, with `duration` and `tput_per_gpu` where the
// columns are duration_s and total_tput_per_gpu.
std::string Slurp(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), {});
}

TEST(ExportImport, AnExportOfThePreviousFormatImportsEveryFigureIntoItsColumn) {
  testing_util::ScratchDir tmp("import");
  auto s = FreshStore(tmp, "v5");
  auto runs = ImportFile(*s, Data() + "/export_v5.json", {});
  ASSERT_TRUE(runs.ok()) << runs.status().ToString();
  auto points = s->ListPoints(runs->front().id);
  ASSERT_TRUE(points.ok());
  ASSERT_EQ(points->size(), 1u);
  const metrics::Summary& m = points->front().metrics;
  EXPECT_EQ(m.duration_s, 12.5);                  // "duration"
  EXPECT_EQ(m.total_token_throughput_per_gpu, 153.84375);     // "tput_per_gpu"
  EXPECT_EQ(m.output_throughput_per_gpu, 51.3125);
  EXPECT_EQ(m.request_throughput, 3.25);
  EXPECT_EQ(m.output_throughput, 410.5);
  EXPECT_EQ(m.total_token_throughput, 1230.75);
  EXPECT_EQ(m.interactivity, 41.5);
  EXPECT_EQ(m.ttft_ms.mean, 120.5);
  EXPECT_EQ(m.ttft_ms.median, 110.25);
  EXPECT_EQ(store::P99(m.ttft_ms), 310.75);
  EXPECT_EQ(m.tpot_ms.mean, 24.5);
  EXPECT_EQ(m.tpot_ms.median, 24.0);
  EXPECT_EQ(store::P99(m.tpot_ms), 30.5);
  EXPECT_EQ(m.itl_ms.mean, 23.5);
  EXPECT_EQ(m.itl_ms.median, 22.75);
  EXPECT_EQ(store::P99(m.itl_ms), 40.25);
  EXPECT_EQ(m.e2el_ms.mean, 3100.5);
  EXPECT_EQ(m.e2el_ms.median, 3000.25);
  EXPECT_EQ(store::P99(m.e2el_ms), 4100.75);
  EXPECT_EQ(m.max_concurrent_requests, 16);
}

// export_v6.* are export_v5.* with schema version 6's four energy columns
// (energy_j, mean_power_w, peak_power_w, tokens_per_joule; 0 when not
// measured) after max_concurrent_requests: every other byte is unchanged.
// export_v7.json is export_v6.json with schema_version 7 (a database keeps
// each plan text once; an export still writes each run's text).
TEST(ExportImport, ExportWritesThePreviousFormatByteForByte) {
  testing_util::ScratchDir tmp("import");
  auto s = FreshStore(tmp, "v5_again");
  ASSERT_TRUE(ImportFile(*s, Data() + "/export_v5.json", {}).ok());
  auto csv = ExportCsv(*s);
  ASSERT_TRUE(csv.ok());
  EXPECT_EQ(*csv, Slurp(Data() + "/export_v6.csv"));
  auto js = ExportJson(*s);
  ASSERT_TRUE(js.ok());
  // The import adds its own provenance (the file, the time); the file had none.
  auto doc = nlohmann::ordered_json::parse(*js);
  doc["runs"][0]["provenance"] = nlohmann::ordered_json::object();
  EXPECT_EQ(doc.dump(2) + "\n", Slurp(Data() + "/export_v7.json"));
  // And a v6 export imports back to the same file.
  auto again = FreshStore(tmp, "v6_again");
  ASSERT_TRUE(ImportFile(*again, Data() + "/export_v6.json", {}).ok());
  auto csv6 = ExportCsv(*again);
  ASSERT_TRUE(csv6.ok());
  EXPECT_EQ(*csv6, Slurp(Data() + "/export_v6.csv"));
}

}  // namespace
}  // namespace frontier::store
