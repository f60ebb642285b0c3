// `frontier search --db`: every trial stored as a point of one run, its
// verdict the one the result file holds, and the answer with the run.
#include "search_test_util.h"
#include "store/store.h"
#include "util/scratch.h"

namespace frontier::serve::testing {
namespace {

TEST(SearchDb, StoresEveryTrialWithTheResultFilesVerdictAndTheAnswerWithTheRun) {
  testing_util::ScratchDir dir("search_db");
  const std::string db = dir.Path("search.db");
  const std::vector<std::string> args = {"search", "--model", "llama-3.1-8b", "--hardware", "h100-sxm",
                                         "--input-len", "256", "--output-len", "64", "--num-prompts", "200",
                                         "--slo", "ttft_p99:450", "tpot_p99:40", "--min-interactivity", "25",
                                         "--db", db, "--run-label", "nightly-search"};
  const Ran r = Frontier(args);
  ASSERT_EQ(r.rc, 0) << r.out;
  json j = r.result;
  ASSERT_TRUE(j["trials"].is_array()) << r.out;
  const size_t n = j["trials"].size();
  ASSERT_GE(n, 3u) << r.out;
  EXPECT_NE(r.out.find("stored " + std::to_string(n) + " trials as run nightly-search/"), std::string::npos) << r.out;

  auto s = store::OpenStore(db, store::OpenMode::kReadOnly);
  ASSERT_TRUE(s.ok()) << s.status().ToString();
  auto runs = (*s)->ListRuns();
  ASSERT_TRUE(runs.ok());
  ASSERT_EQ(runs->size(), 1u);
  const store::RunInfo& run = runs->front();
  EXPECT_EQ(run.sweep, "nightly-search");
  EXPECT_EQ(run.source, store::Source::kSimulated);
  EXPECT_EQ(run.config.at("search_goal"), "max_throughput_per_gpu");
  EXPECT_EQ(run.config.at("search_axis"), "concurrency");
  EXPECT_EQ(run.config.at("hardware"), "h100-sxm");
  EXPECT_EQ(run.config.at("gpus"), "1");
  // The answer stored with the run is the result file's.
  json outcome = json::parse(run.search_json, nullptr, false);
  ASSERT_TRUE(outcome.is_object()) << run.search_json;
  EXPECT_EQ(outcome["answer"], j["answer"]);
  EXPECT_EQ(outcome["stop_reason"], j["stop_reason"]);
  EXPECT_EQ(outcome["trial_count"], n);
  EXPECT_FALSE(outcome.contains("trials"));

  auto points = (*s)->ListPoints(run.id);
  ASSERT_TRUE(points.ok()) << points.status().ToString();
  ASSERT_EQ(points->size(), n);
  int valid = 0;
  for (size_t i = 0; i < n; ++i) {
    const store::PointRecord& p = (*points)[i];
    json t = j["trials"][i];
    EXPECT_EQ(json::parse(p.verdict_json), t["verdict"]) << "trial " << i;
    auto trial = store::ParseTrial(p.trial_json);
    ASSERT_TRUE(trial.ok() && trial->is_trial) << p.trial_json;
    EXPECT_EQ(trial->index, static_cast<int64_t>(i));
    EXPECT_EQ(trial->decision, t["decision"]);
    EXPECT_EQ(trial->step, t["step"]);
    EXPECT_EQ(p.load_kind, store::LoadKind::kConcurrency);
    EXPECT_EQ(p.load_value, t["value"].get<double>());
    EXPECT_EQ(p.source, store::Source::kSimulated);
    EXPECT_DOUBLE_EQ(p.metrics.output_throughput_per_gpu, t["result"]["output_throughput_per_gpu"].get<double>());
    const store::VerdictView v = *store::ParseVerdict(p.verdict_json);
    EXPECT_EQ(v.Label(), t["verdict"]["result"]);
    valid += v.valid ? 1 : 0;
  }
  // The last trial's step ends the search; the answer is a valid stored trial.
  EXPECT_EQ(store::ParseTrial(points->back().trial_json)->step, "stop");
  EXPECT_GE(valid, 1);
  const int64_t best = j["answer"]["trial"].get<int64_t>();
  EXPECT_EQ(store::ParseVerdict((*points)[static_cast<size_t>(best)].verdict_json)->Label(), "VALID");

  // A second search into the same database is a second run.
  ASSERT_EQ(Frontier(args, /*with_result=*/false).rc, 0);
  EXPECT_EQ((*store::OpenStore(db, store::OpenMode::kReadOnly))->ListRuns()->size(), 2u);
}

TEST(SearchDb, RunLabelWithoutDbIsAUsageError) {
  const Ran r = Frontier({"search", "--model", "llama-3.1-8b", "--hardware", "h100-sxm", "--slo", "ttft_p99:450",
                          "--run-label", "x"},
                         /*with_result=*/false);
  EXPECT_EQ(r.rc, 2) << r.out;
  EXPECT_NE(r.out.find("--run-label names the run stored in --db: give --db too"), std::string::npos) << r.out;
}

}  // namespace
}  // namespace frontier::serve::testing
