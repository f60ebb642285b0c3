#include <gtest/gtest.h>

#include <filesystem>

#include <nlohmann/json.hpp>

#include "store/import_export.h"
#include "store/sqlite_store.h"

namespace frontier::store {
namespace {

const std::string kData = FRONTIER_STORE_TESTDATA;

std::unique_ptr<Store> FreshStore(const std::string& name) {
  auto p = std::filesystem::temp_directory_path() /
           ("frontier_import_" + name + "_" + std::to_string(::getpid()) + ".db");
  std::filesystem::remove(p);
  auto s = OpenStore(p.string());
  EXPECT_TRUE(s.ok());
  return std::move(*s);
}

TEST(Import, VllmResultBecomesOneImportedPointWithRequests) {
  auto store = FreshStore("vllm");
  ImportOptions o;
  o.num_gpus = 2;
  o.hardware = "h100";
  auto runs = ImportFile(*store, kData + "/vllm_bench_serve.json", o);
  ASSERT_TRUE(runs.ok()) << runs.status().ToString();
  ASSERT_EQ(runs->size(), 1u);
  EXPECT_EQ(runs->front().system, "vllm:meta-llama/Llama-3.1-8B-Instruct");
  EXPECT_EQ(runs->front().config.at("hardware"), "h100");
  auto points = store->ListPoints(runs->front().id);
  ASSERT_TRUE(points.ok());
  ASSERT_EQ(points->size(), 1u);
  const PointRecord& p = points->front();
  EXPECT_EQ(p.source, "imported");
  EXPECT_EQ(p.load_kind, "concurrency");
  EXPECT_DOUBLE_EQ(p.load_value, 2);
  EXPECT_EQ(p.metrics.completed, 3);
  EXPECT_EQ(p.metrics.failed, 1);
  EXPECT_DOUBLE_EQ(p.metrics.output_tput_per_gpu, 7.5);    // 15 tok/s over 2 GPUs
  EXPECT_DOUBLE_EQ(p.metrics.total_tput_per_gpu, 82.5);    // 165 / 2
  EXPECT_DOUBLE_EQ(p.metrics.median_tpot_ms, 20.0);
  EXPECT_DOUBLE_EQ(p.metrics.interactivity, 50.0);         // 1000 / 20 ms
  EXPECT_DOUBLE_EQ(p.metrics.p99_ttft_ms, 139.6);
  auto req = store->ListRequests(p.id);
  ASSERT_TRUE(req.ok());
  ASSERT_EQ(req->size(), 4u);
  EXPECT_EQ((*req)[0].first_token_ns, 110'000'000);
  EXPECT_NEAR(static_cast<double>((*req)[0].end_ns), 110e6 + 9 * 20e6, 1e3);
  EXPECT_EQ((*req)[0].events, 10);
  EXPECT_FALSE((*req)[3].ok);
}

TEST(Import, InferenceXGroupsByHardwareFrameworkPrecisionAndConvertsSeconds) {
  auto store = FreshStore("ix");
  auto runs = ImportFile(*store, kData + "/agg_llama70b_fp8.json", {});
  ASSERT_TRUE(runs.ok()) << runs.status().ToString();
  ASSERT_EQ(runs->size(), 2u);
  EXPECT_EQ((*runs)[0].system, "h200-vllm-fp8");
  EXPECT_EQ((*runs)[1].system, "mi325x-sglang-fp8");
  auto h200 = store->ListPoints((*runs)[0].id);
  ASSERT_TRUE(h200.ok());
  ASSERT_EQ(h200->size(), 4u);
  const PointMetrics& a = (*h200)[0].metrics;
  EXPECT_EQ(a.num_gpus, 8);                          // from tp
  EXPECT_DOUBLE_EQ(a.total_tput_per_gpu, 120.5);
  EXPECT_DOUBLE_EQ(a.output_tput_per_gpu, 60.25);
  EXPECT_DOUBLE_EQ(a.total_token_throughput, 964.0);  // 120.5 x 8
  EXPECT_DOUBLE_EQ(a.median_ttft_ms, 75.0);           // 0.075 s
  EXPECT_DOUBLE_EQ(a.median_tpot_ms, 10.0);
  EXPECT_DOUBLE_EQ(a.p99_ttft_ms, 200.0);
  EXPECT_DOUBLE_EQ(a.interactivity, 100.0);
  // The second identical tp=8 config at conc 64 is a repetition, tp=4 is a separate point.
  EXPECT_EQ((*h200)[1].repetition, 0);
  EXPECT_EQ((*h200)[2].repetition, 1);
  EXPECT_EQ((*h200)[3].repetition, 0);
  EXPECT_EQ((*h200)[3].settings.at("tp"), "4");
  EXPECT_EQ((*h200)[3].metrics.num_gpus, 4);
  auto mi = store->ListPoints((*runs)[1].id);
  ASSERT_EQ(mi->size(), 1u);
  EXPECT_EQ(mi->front().metrics.num_gpus, 12);  // 4 prefill + 8 decode
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

TEST(Import, AValueOfTheWrongTypeIsAnErrorNamingTheFileNotACrash) {
  auto store = FreshStore("wrongtype");
  auto r = ImportText(*store, R"({"completed": 1, "output_throughput": 1, "total_token_throughput": 2,
                                  "ttfts": [0.1], "input_lens": ["many"]})",
                      "odd.json", {});
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), StatusCode::kInvalidArgument);
  EXPECT_NE(r.status().message().find("odd.json"), std::string::npos) << r.status().message();
  EXPECT_TRUE(store->ListRuns()->empty());
}

TEST(Export, JsonAndCsvCarryEveryPoint) {
  auto store = FreshStore("export");
  ASSERT_TRUE(ImportFile(*store, kData + "/agg_llama70b_fp8.json", {}).ok());
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
