// The one builder every stored point goes through (sweep/point_store.h): the
// record a sweep's point, a command's (bench --db, simulate --db) and a
// search's trial get, key and settings exactly.
#include <gtest/gtest.h>
#include <sqlite3.h>

#include <map>
#include <string>

#include "store/sqlite_store.h"
#include "sweep/fake_run_test_util.h"
#include "sweep/point_store.h"
#include "sweep/runner.h"
#include "util/scratch.h"

namespace frontier::sweep {
namespace {

using Settings = std::map<std::string, std::string>;

// `n` requests (testing_run::FakeRun) with the settings a run reports of itself.
loadgen::PointOutcome Outcome(int64_t n, RunSource source) {
  loadgen::PointOutcome out;
  out.run = testing_run::FakeRun(n, source);
  out.run.num_gpus = 2;
  out.run.effective_settings = {{"power", "off"}, {"num_prompts", "999"}};  // the place's count wins
  metrics::SummaryOptions so;
  so.num_gpus = 2;
  out.summary = metrics::Summarize(out.run, so);
  return out;
}

// Fails each point's first attempt once when `retry` is set.
class OneOutcome final : public Session {
 public:
  explicit OneOutcome(bool retry) : retry_(retry) {}
  Result<loadgen::PointOutcome> RunPoint(const PointSpec& p, const loadgen::PointOptions&) override {
    if (retry_ && failed_.insert(p.key).second) return Unavailable("first attempt fails");
    return Outcome(p.num_prompts, RunSource::kSimulated);
  }

 private:
  bool retry_;
  std::set<std::string> failed_;
};

TEST(PointStore, ASweepPointsRecordFromTheOneBuilder) {
  auto plan = ParsePlan(R"(name: pin
systems:
  - {name: a, hardware: h200, gpus: 2, sim: {model: m}}
workloads:
  - {name: w, input_len: 10, output_len: 5}
load:
  concurrency: [4]
  prompts_per_concurrency: 5
repetitions: 2
seed: 40
)",
                        "pin.yaml");
  ASSERT_TRUE(plan.ok()) << plan.status().ToString();
  testing_util::ScratchDir tmp("point_store");
  auto store = std::move(store::OpenStore(tmp.Path("sweep.db")).value());
  auto factory = [](const Plan&, const SystemSpec&) -> Result<std::unique_ptr<Session>> {
    return std::unique_ptr<Session>(std::make_unique<OneOutcome>(/*retry=*/true));
  };
  auto out = RunSweep(*plan, *store, factory, SweepOptions{});
  ASSERT_TRUE(out.ok()) << out.status().ToString();
  ASSERT_EQ(out->ran, 2);
  auto points = store->ListPoints(out->run_ids.at(0));
  ASSERT_TRUE(points.ok()) << points.status().ToString();
  ASSERT_EQ(points->size(), 2u);
  const store::PointRecord& p = (*points)[1];
  EXPECT_EQ(p.key, "w|concurrency=4|rep=1");  // the key ExpandMatrix gives it, which --resume looks for
  EXPECT_EQ(p.workload, "w");
  EXPECT_EQ(p.load_kind, store::LoadKind::kConcurrency);
  EXPECT_EQ(p.load_value, 4);
  EXPECT_EQ(p.repetition, 1);
  EXPECT_EQ(p.source, store::Source::kSimulated);
  EXPECT_EQ(p.attempts, 2);
  EXPECT_EQ(p.num_gpus, 2);
  EXPECT_EQ(p.settings, (Settings{{"dataset", "random"},
                                  {"input_len", "10"},
                                  {"num_prompts", "20"},  // 5 x concurrency 4
                                  {"output_len", "5"},
                                  {"power", "off"},
                                  {"seed", "41"}}));  // the plan's seed + the repetition
  EXPECT_EQ(p.verdict_json, "");
  auto rows = store->ListRequests(p.id);
  ASSERT_TRUE(rows.ok()) << rows.status().ToString();
  EXPECT_EQ(rows->size(), 20u);
}

TEST(PointStore, ABenchPointsRecordFromTheOneBuilder) {
  testing_util::ScratchDir tmp("point_store");
  store::RunInfo run;
  run.sweep = "bench";
  run.system = "http://127.0.0.1:8000";
  run.source = store::Source::kMeasured;
  auto sink = PointSink::Start(std::move(store::OpenStore(tmp.Path("bench.db")).value()), run);
  ASSERT_TRUE(sink.ok()) << sink.status().ToString();
  workload::LoadOptions closed;
  closed.num_prompts = 6;
  closed.max_concurrency = 3;
  ASSERT_TRUE(sink->Record("random-10/5", closed, Outcome(6, RunSource::kMeasured), std::nullopt).ok());
  workload::LoadOptions open;
  open.num_prompts = 6;
  open.request_rate = 2.5;
  ASSERT_TRUE(sink->Record("random-10/5", open, Outcome(6, RunSource::kMeasured), std::nullopt).ok());
  EXPECT_EQ(sink->stored(), 2);

  auto store = std::move(store::OpenStore(tmp.Path("bench.db")).value());
  auto points = store->ListPoints(sink->run().id);
  ASSERT_TRUE(points.ok()) << points.status().ToString();
  ASSERT_EQ(points->size(), 2u);
  const store::PointRecord& c = (*points)[0];
  EXPECT_EQ(c.key, "random-10/5|concurrency=3|rep=0");
  EXPECT_EQ(c.load_kind, store::LoadKind::kConcurrency);
  EXPECT_EQ(c.load_value, 3);
  EXPECT_EQ(c.source, store::Source::kMeasured);
  EXPECT_EQ(c.attempts, 1);
  EXPECT_EQ(c.num_gpus, 2);
  EXPECT_EQ(c.settings, (Settings{{"max_concurrency", "3"}, {"num_prompts", "6"}, {"power", "off"}}));
  const store::PointRecord& r = (*points)[1];
  EXPECT_EQ(r.key, "random-10/5|request_rate=2.5|rep=0");
  EXPECT_EQ(r.load_kind, store::LoadKind::kRequestRate);
  EXPECT_EQ(r.load_value, 2.5);
  EXPECT_EQ(r.settings, (Settings{{"num_prompts", "6"}, {"power", "off"}}));
  auto rows = store->ListRequests(c.id);
  ASSERT_TRUE(rows.ok()) << rows.status().ToString();
  EXPECT_EQ(rows->size(), 6u);
}

TEST(PointStore, AnInterruptedOrEmptyCommandPointIsNotStored) {
  testing_util::ScratchDir tmp("point_store");
  store::RunInfo run;
  run.system = "s";
  run.source = store::Source::kSimulated;
  auto sink = PointSink::Start(std::move(store::OpenStore(tmp.Path("c.db")).value()), run);
  ASSERT_TRUE(sink.ok()) << sink.status().ToString();
  workload::LoadOptions load;
  load.max_concurrency = 1;
  loadgen::PointOutcome cut = Outcome(2, RunSource::kSimulated);
  cut.run.interrupted = true;
  ASSERT_TRUE(sink->Record("w", load, cut, std::nullopt).ok());
  ASSERT_TRUE(sink->Record("w", load, Outcome(0, RunSource::kSimulated), std::nullopt).ok());
  EXPECT_EQ(sink->stored(), 0);
  auto store = std::move(store::OpenStore(tmp.Path("c.db")).value());
  auto runs = store->ListRuns();
  ASSERT_TRUE(runs.ok());
  ASSERT_EQ(runs->size(), 1u);
  EXPECT_FALSE(runs->front().status.ok());  // no request completed: broken
}

// A command's failed run marks its stored run broken and keeps its error; when
// the mark cannot be written (here the runs table is gone under the store),
// the error says that too instead of leaving a whole-looking empty run.
TEST(PointStore, AFailedCommandRunIsMarkedBrokenOrSaysItCouldNotBe) {
  testing_util::ScratchDir tmp("point_store");
  store::RunInfo run;
  run.system = "s";
  run.source = store::Source::kMeasured;
  auto sink = PointSink::Start(std::move(store::OpenStore(tmp.Path("f.db")).value()), run);
  ASSERT_TRUE(sink.ok()) << sink.status().ToString();
  const Status failed = Unavailable("connect to 127.0.0.1:9: refused");
  const Status shown = sink->Failed(failed);
  EXPECT_EQ(shown.code(), StatusCode::kUnavailable);
  EXPECT_EQ(shown.message(), failed.message());
  {
    auto store = std::move(store::OpenStore(tmp.Path("f.db")).value());
    auto runs = store->ListRuns();
    ASSERT_TRUE(runs.ok());
    ASSERT_EQ(runs->size(), 1u);
    EXPECT_EQ(runs->front().status.reason, failed.message());
  }
  sqlite3* raw = nullptr;
  ASSERT_EQ(sqlite3_open(tmp.Path("f.db").c_str(), &raw), SQLITE_OK);
  ASSERT_EQ(sqlite3_exec(raw, "PRAGMA foreign_keys=OFF; ALTER TABLE runs RENAME TO runs_gone", nullptr, nullptr, nullptr),
            SQLITE_OK)
      << sqlite3_errmsg(raw);
  sqlite3_close(raw);
  const Status again = sink->Failed(failed);
  EXPECT_EQ(again.code(), StatusCode::kUnavailable);
  EXPECT_EQ(again.message().rfind(failed.message() + " (and run " + sink->run().Label() + " could not be marked broken: ", 0),
            0u)
      << again.message();
}

TEST(PointStore, ATrialsRecordFromTheOneBuilder) {
  loadgen::SearchOptions o;
  o.axis = loadgen::SearchAxis::kRate;
  o.point.summary.num_gpus = 4;
  o.point.effective_settings = {{"a", "search"}, {"c", "d"}};
  loadgen::Trial t;
  t.index = 3;
  t.value = 2.5;
  t.step = "bisect";
  t.decision = "valid: raise the floor";
  t.verdict.valid = true;
  t.result = {{"frontier", {{"source", "simulated"}, {"effective_settings", {{"a", "trial"}, {"n", 3}}}}}};
  PointPlace at = TrialPlace("random-10/5", t, o);
  at.run_id = 7;
  const store::PointRecord p = StoredTrial(at, t, o);
  EXPECT_EQ(p.run_id, 7);
  EXPECT_EQ(p.key, "random-10/5|request_rate=2.5|rep=0|trial=3");
  EXPECT_EQ(p.load_kind, store::LoadKind::kRequestRate);
  EXPECT_EQ(p.load_value, 2.5);
  EXPECT_EQ(p.source, store::Source::kSimulated);
  EXPECT_EQ(p.num_gpus, 4);
  EXPECT_EQ(p.settings, (Settings{{"a", "trial"}, {"c", "d"}, {"n", "3"}}));
  EXPECT_EQ(nlohmann::json::parse(p.trial_json),
            (nlohmann::json{{"index", 3},
                            {"value", 2.5},
                            {"valid", true},
                            {"step", "bisect"},
                            {"decision", "valid: raise the floor"},
                            {"stopped_early", false}}));
  // Without a provenance saying simulated, a trial is measured.
  t.result = nlohmann::json::object();
  EXPECT_EQ(StoredTrial(TrialPlace("w", t, o), t, o).source, store::Source::kMeasured);
}

}  // namespace
}  // namespace frontier::sweep
