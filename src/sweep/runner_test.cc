#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <condition_variable>
#include <map>
#include <mutex>

#include "store/sqlite_store.h"
#include "sweep/fake_run_test_util.h"
#include "sweep/runner.h"
#include "loadgen/verdict.h"
#include "util/scratch.h"

namespace frontier::sweep {
namespace {

const char* kPlan = R"(name: fake
systems:
  - {name: a, hardware: h200, gpus: 2, sim: {model: m}}
  - {name: b, hardware: h200, gpus: 1, sim: {model: m}}
workloads:
  - {name: w, input_len: 10, output_len: 5}
load:
  concurrency: [1, 2, 4]
  prompts_per_concurrency: 4
repetitions: 2
)";

// Scripted session: fails the points named in `fail` as many times as given.
struct Script {
  std::map<std::string, int> fail;   // "system|key" -> failures left
  std::map<std::string, std::string> fail_requests;  // "system|key" -> every request fails for this reason
  std::set<std::string> start_fails; // systems whose session cannot start
  std::vector<std::string> calls;
  int64_t stop_after = -1;           // set *stop after this many calls
  std::atomic<bool>* stop = nullptr;
  ManualClock* clock = nullptr;        // advanced 1 ms per request of a point
  std::vector<std::optional<loadgen::ScenarioRules>> rules;  // as each point got them
};

class FakeSession final : public Session {
 public:
  FakeSession(Script* s, std::string system) : s_(s), system_(std::move(system)) {}
  Result<loadgen::PointOutcome> RunPoint(const PointSpec& p, const loadgen::PointOptions& o) override {
    s_->calls.push_back(system_ + "|" + p.key);
    s_->rules.push_back(o.rules);
    if (s_->clock) s_->clock->Advance(p.num_prompts * kNanosPerMilli);
    if (s_->stop && static_cast<int64_t>(s_->calls.size()) == s_->stop_after) s_->stop->store(true);
    auto it = s_->fail.find(system_ + "|" + p.key);
    if (it != s_->fail.end() && it->second > 0) {
      --it->second;
      return Unavailable("scripted failure");
    }
    loadgen::PointOutcome out;
    out.run = testing_run::FakeRun(p.num_prompts);
    if (auto f = s_->fail_requests.find(system_ + "|" + p.key); f != s_->fail_requests.end())
      for (auto& q : out.run.requests) {
        q.ok = false;
        q.failure = f->second;
      }
    out.summary = metrics::Summarize(out.run, o.summary);
    if (o.rules) {  // as RunPoint judges: INVALID at the highest rate, for the test
      out.verdict = loadgen::Verdict{};
      out.verdict->valid = p.load_value < 4;
      out.verdict->queries = 7;
      if (!out.verdict->valid) out.verdict->reasons = {"scripted reason"};
    }
    return out;
  }

 private:
  Script* s_;
  std::string system_;
};

SessionFactory Factory(Script* s) {
  return [s](const Plan&, const SystemSpec& sys) -> Result<std::unique_ptr<Session>> {
    if (s->start_fails.count(sys.name)) return Unavailable("health check timed out");
    return std::unique_ptr<Session>(std::make_unique<FakeSession>(s, sys.name));
  };
}

// A new database `name` in the test's scratch folder (removed with the
// folder, -wal and -shm included: declare the folder before the store).
std::unique_ptr<store::Store> FreshStore(const testing_util::ScratchDir& dir, const std::string& name) {
  return std::move(store::OpenStore(dir.Path(name + ".db")).value());
}

TEST(Runner, RunsTheWholeMatrixIntoTheStoreWithProgress) {
  auto plan = ParsePlan(kPlan, "fake.yaml");
  ASSERT_TRUE(plan.ok()) << plan.status().ToString();
  testing_util::ScratchDir tmp("runner");
  auto store = FreshStore(tmp, "all");
  Script script;
  std::vector<SweepProgress> seen;
  ManualClock clock(0);
  SweepOptions o;
  o.clock = &clock;
  o.provenance = {{"command_line", "frontier sweep fake.yaml"}};
  o.on_progress = [&](const SweepProgress& p) {
    seen.push_back(p);
    clock.Advance(kNanosPerSecond);
  };
  auto out = RunSweep(*plan, *store, Factory(&script), o);
  ASSERT_TRUE(out.ok()) << out.status().ToString();
  EXPECT_EQ(out->total, 12);
  EXPECT_EQ(out->ran, 12);
  EXPECT_EQ(script.calls.size(), 12u);
  auto points = store->ListPoints(0);
  ASSERT_EQ(points->size(), 12u);
  // Per-GPU throughput uses the system's GPUs: 8 requests x 15 tokens over 5 ms on 2 GPUs.
  const auto& p = (*points)[2];  // a, concurrency 2, rep 0
  EXPECT_EQ(p.key, "w|concurrency=2|rep=0");
  EXPECT_EQ(p.metrics.completed, 8);
  EXPECT_NEAR(p.metrics.total_token_throughput_per_gpu, 120 / 0.005 / 2, 1e-6);
  EXPECT_EQ(p.source, store::Source::kSimulated);
  EXPECT_EQ(store->ListRequests(p.id)->size(), 8u);
  ASSERT_FALSE(seen.empty());
  EXPECT_EQ(seen.back().done, 12);
  EXPECT_EQ(seen.back().total, 12);
  EXPECT_EQ(seen.back().eta_s, 0);
  // Each run records how many points it will hold when whole (12 over 2 systems).
  auto runs = store->ListRuns();
  ASSERT_TRUE(runs.ok());
  ASSERT_EQ(runs->size(), 2u);
  for (const auto& r : *runs) EXPECT_EQ(r.provenance.at("planned_points"), "6");
  // Each is its system of the plan, with the sweep's provenance and the plan's file.
  const char* systems[] = {"a", "b"};
  for (size_t i = 0; i < 2; ++i) {
    const store::RunInfo& r = (*runs)[i];
    EXPECT_EQ(r.sweep, "fake");
    EXPECT_EQ(r.plan_hash, plan->hash);
    EXPECT_EQ(r.plan_text, kPlan);
    EXPECT_EQ(r.system, systems[i]);
    EXPECT_EQ(r.source, store::Source::kSimulated);
    EXPECT_EQ(r.config, plan->systems[i].Config());
    EXPECT_EQ(r.provenance, (std::map<std::string, std::string>{{"command_line", "frontier sweep fake.yaml"},
                                                                {"plan_file", "fake.yaml"},
                                                                {"planned_points", "6"}}));
  }
}

TEST(Runner, EtaWeighsPointsByTheirRequests) {
  auto plan = ParsePlan(kPlan, "fake.yaml");
  testing_util::ScratchDir tmp("runner");
  auto store = FreshStore(tmp, "eta");
  ManualClock clock(0);
  Script script;
  script.clock = &clock;
  std::vector<double> etas;
  SweepOptions o;
  o.clock = &clock;
  o.on_progress = [&](const SweepProgress& p) {
    if (p.event == "done") etas.push_back(p.eta_s);
  };
  ASSERT_TRUE(RunSweep(*plan, *store, Factory(&script), o).ok());
  // 112 requests in all (2 x 2 x (1 + 2 + 4) x 4 prompts); every request takes 1 ms.
  ASSERT_EQ(etas.size(), 12u);
  EXPECT_NEAR(etas[0], 0.108, 1e-12);  // after the first point (4 requests)
  EXPECT_NEAR(etas[4], 0.072, 1e-12);  // after 4 + 4 + 8 + 8 + 16
  EXPECT_NEAR(etas.back(), 0.0, 1e-12);
}

TEST(Runner, RetriesOnceThenDeclaresTheSystemBrokenAndCarriesOn) {
  auto plan = ParsePlan(kPlan, "fake.yaml");
  testing_util::ScratchDir tmp("runner");
  auto store = FreshStore(tmp, "retry");
  Script script;
  script.fail["a|w|concurrency=1|rep=1"] = 1;  // fails once: the retry succeeds
  script.fail["a|w|concurrency=2|rep=0"] = 2;  // fails twice: a is broken
  auto out = RunSweep(*plan, *store, Factory(&script), {});
  ASSERT_TRUE(out.ok());
  ASSERT_EQ(out->broken.size(), 1u);
  EXPECT_NE(out->broken[0].find("a: point w|concurrency=2|rep=0 failed twice"), std::string::npos);
  EXPECT_EQ(out->ran, 2 + 6);   // a: two points before the break; b: all six
  EXPECT_EQ(out->failed, 4);    // a's remaining four points
  auto runs = store->ListRuns();
  EXPECT_FALSE((*runs)[0].status.ok());
  EXPECT_EQ((*runs)[0].status.ToString().rfind("broken: ", 0), 0u);
  EXPECT_TRUE((*runs)[1].status.ok());
  auto pts = store->ListPoints((*runs)[0].id);
  ASSERT_EQ(pts->size(), 2u);
  EXPECT_EQ((*pts)[1].attempts, 2);
}

// A session whose points may run three at once, each system's first point
// ending only after its third has: the points are stored and reported in the
// plan's order all the same, and a point that fails twice breaks its system
// with the points before it stored and none after.
struct Parallel {
  std::mutex mu;
  std::condition_variable cv;
  std::vector<std::string> ended;  // "system|key", in the order the runs ended
  std::set<std::string> fail;      // "system|key" that fail every attempt
  bool Ended(const std::string& id) const { return std::find(ended.begin(), ended.end(), id) != ended.end(); }
};

class ParallelSession final : public Session {
 public:
  ParallelSession(Parallel* p, std::string system) : p_(p), system_(std::move(system)) {}
  unsigned Parallelism() const override { return 3; }
  Result<loadgen::PointOutcome> RunPoint(const PointSpec& p, const loadgen::PointOptions& o) override {
    const std::string id = system_ + "|" + p.key;
    std::unique_lock<std::mutex> lock(p_->mu);
    if (p.key == "w|concurrency=1|rep=0") {
      // A bound only so that a runner that ran one point at a time fails instead of hanging.
      EXPECT_TRUE(p_->cv.wait_for(lock, std::chrono::seconds(60),
                                  [&] { return p_->Ended(system_ + "|w|concurrency=2|rep=0"); }))
          << id;
    }
    p_->ended.push_back(id);
    p_->cv.notify_all();
    if (p_->fail.count(id)) return Unavailable("scripted failure");
    loadgen::PointOutcome out;
    out.run = testing_run::FakeRun(p.num_prompts);
    out.summary = metrics::Summarize(out.run, o.summary);
    return out;
  }

 private:
  Parallel* p_;
  std::string system_;
};

TEST(Runner, PointsRunAtOnceAreStoredAndReportedInThePlansOrder) {
  auto plan = ParsePlan(kPlan, "fake.yaml");
  testing_util::ScratchDir tmp("runner");
  auto store = FreshStore(tmp, "parallel");
  Parallel shared;
  shared.fail = {"b|w|concurrency=2|rep=0"};
  SessionFactory factory = [&shared](const Plan&, const SystemSpec& sys) -> Result<std::unique_ptr<Session>> {
    return std::unique_ptr<Session>(std::make_unique<ParallelSession>(&shared, sys.name));
  };
  std::vector<std::string> events;  // "system event point"
  SweepOptions o;
  o.on_progress = [&](const SweepProgress& p) {
    if (p.event != "start") events.push_back(p.system + " " + p.event + " " + p.point);
  };
  auto out = RunSweep(*plan, *store, factory, o);
  ASSERT_TRUE(out.ok()) << out.status().ToString();
  // The first point of each system ended after its third.
  const auto at = [&](const std::string& id) {
    return std::find(shared.ended.begin(), shared.ended.end(), id) - shared.ended.begin();
  };
  EXPECT_LT(at("a|w|concurrency=2|rep=0"), at("a|w|concurrency=1|rep=0"));
  EXPECT_LT(at("b|w|concurrency=2|rep=0"), at("b|w|concurrency=1|rep=0"));
  const std::vector<std::string> keys = {"w|concurrency=1|rep=0", "w|concurrency=1|rep=1", "w|concurrency=2|rep=0",
                                         "w|concurrency=2|rep=1", "w|concurrency=4|rep=0", "w|concurrency=4|rep=1"};
  auto runs = store->ListRuns();
  auto a = store->ListPoints((*runs)[0].id);
  ASSERT_EQ(a->size(), 6u);
  for (size_t i = 0; i < keys.size(); ++i) EXPECT_EQ((*a)[i].key, keys[i]);
  auto b = store->ListPoints((*runs)[1].id);
  ASSERT_EQ(b->size(), 2u);
  EXPECT_EQ((*b)[0].key, keys[0]);
  EXPECT_EQ((*b)[1].key, keys[1]);
  EXPECT_EQ(out->broken,
            (std::vector<std::string>{"b: point w|concurrency=2|rep=0 failed twice: scripted failure"}));
  EXPECT_EQ(out->ran, 6 + 2);
  EXPECT_EQ(out->failed, 4);
  std::vector<std::string> want;
  for (const std::string& k : keys) want.push_back("a done " + k);
  want.insert(want.end(), {"b done " + keys[0], "b done " + keys[1], "b retry " + keys[2], "b broken " + keys[2]});
  EXPECT_EQ(events, want);
}

TEST(Runner, APointWhereNoRequestCompletedSaysWhyEachFailed) {
  auto plan = ParsePlan(kPlan, "fake.yaml");
  testing_util::ScratchDir tmp("runner");
  auto store = FreshStore(tmp, "none");
  Script script;
  script.fail_requests["b|w|concurrency=1|rep=0"] = "http_429";  // each of its 4 requests, on both attempts
  auto out = RunSweep(*plan, *store, Factory(&script), {});
  ASSERT_TRUE(out.ok());
  EXPECT_EQ(out->broken, (std::vector<std::string>{
                             "b: point w|concurrency=1|rep=0 failed twice: no request completed (4 http_429)"}));
  auto runs = store->ListRuns();
  EXPECT_EQ((*runs)[1].status.ToString(),
            "broken: point w|concurrency=1|rep=0 failed twice: no request completed (4 http_429)");
  EXPECT_EQ(store->ListPoints((*runs)[1].id)->size(), 0u);
}

TEST(Runner, ASessionThatCannotStartBreaksOnlyItsSystem) {
  auto plan = ParsePlan(kPlan, "fake.yaml");
  testing_util::ScratchDir tmp("runner");
  auto store = FreshStore(tmp, "start");
  Script script;
  script.start_fails = {"a"};
  auto out = RunSweep(*plan, *store, Factory(&script), {});
  ASSERT_TRUE(out.ok());
  EXPECT_EQ(out->failed, 6);
  EXPECT_EQ(out->ran, 6);
  EXPECT_EQ(out->broken, (std::vector<std::string>{"a: health check timed out"}));
}

// A workload file that does not open stops the sweep before any system starts (and before a search's
// first trial): it used to be found at each point, after a launched server had come up, and each point
// broke twice.
TEST(Runner, AWorkloadFileThatDoesNotOpenIsNamedBeforeAnySystemStarts) {
  testing_util::ScratchDir tmp("runner");
  std::string text = kPlan;
  text.replace(text.find("{name: w, input_len: 10, output_len: 5}"), 39, "{name: w, dataset: trace, path: gone.jsonl}");
  auto plan = ParsePlan(text, tmp.Path("fake.yaml"));
  ASSERT_TRUE(plan.ok()) << plan.status().ToString();
  auto store = FreshStore(tmp, "files");
  Script script;
  auto out = RunSweep(*plan, *store, Factory(&script), {});
  ASSERT_FALSE(out.ok());
  EXPECT_EQ(out.status().message(), tmp.Path("fake.yaml") + ":6: workloads[0].path: cannot open " +
                                        tmp.Path("gone.jsonl") + ": No such file or directory");
  EXPECT_TRUE(script.calls.empty());
  // The file there, the plan runs.
  tmp.Write("gone.jsonl", "");
  EXPECT_TRUE(CheckWorkloadFiles(*plan).ok());
}

TEST(Runner, ResumeRunsOnlyMissingPointsAndNeverDuplicates) {
  auto plan = ParsePlan(kPlan, "fake.yaml");
  testing_util::ScratchDir tmp("runner");
  auto store = FreshStore(tmp, "resume");
  std::atomic<bool> stop{false};
  Script first;
  first.stop = &stop;
  first.stop_after = 5;
  SweepOptions o;
  o.stop = &stop;
  auto out = RunSweep(*plan, *store, Factory(&first), o);
  ASSERT_TRUE(out.ok());
  EXPECT_TRUE(out->interrupted);
  EXPECT_EQ(store->ListPoints(0)->size(), 5u);

  Script second;
  SweepOptions r;
  r.resume = true;
  auto again = RunSweep(*plan, *store, Factory(&second), r);
  ASSERT_TRUE(again.ok());
  EXPECT_EQ(again->skipped, 5);
  EXPECT_EQ(again->ran, 7);
  EXPECT_EQ(second.calls.size(), 7u);
  for (const auto& c : second.calls)
    for (const auto& f : first.calls) EXPECT_NE(c, f) << "re-ran " << c;
  auto points = store->ListPoints(0);
  ASSERT_EQ(points->size(), 12u);
  std::set<std::pair<int64_t, std::string>> keys;
  for (const auto& p : *points) EXPECT_TRUE(keys.insert({p.run_id, p.key}).second);
  EXPECT_EQ(store->ListRuns()->size(), 2u);  // the same two runs, resumed

  // A third resume has nothing to do; a changed plan is a new sweep.
  Script third;
  auto none = RunSweep(*plan, *store, Factory(&third), r);
  EXPECT_EQ(none->ran, 0);
  EXPECT_TRUE(third.calls.empty());
  auto changed = ParsePlan(std::string(kPlan) + "seed: 7\n", "fake.yaml");
  auto fresh = RunSweep(*changed, *store, Factory(&third), r);
  EXPECT_EQ(fresh->ran, 12);
}

// A plan's scenario reaches every point as rules (the point's load value its
// target QPS), and the point's verdict is reported with it.
TEST(Runner, ScenarioRulesReachEachPointAndTheVerdictIsReported) {
  std::string text = kPlan;
  const std::string grid = "  concurrency: [1, 2, 4]\n  prompts_per_concurrency: 4\n";
  text.replace(text.find(grid), grid.size(), "  request_rate: [2, 4]\n");
  text += "scenario: {name: server, min_duration_s: 5, slo: [ttft_p99:450]}\n";
  auto plan = ParsePlan(text, "fake.yaml");
  ASSERT_TRUE(plan.ok()) << plan.status().ToString();
  testing_util::ScratchDir tmp("runner");
  auto store = FreshStore(tmp, "scenario");
  Script script;
  std::vector<std::string> done;
  SweepOptions o;
  o.on_progress = [&](const SweepProgress& p) {
    if (p.event == "done") done.push_back(p.point + " " + p.detail);
  };
  auto out = RunSweep(*plan, *store, Factory(&script), o);
  ASSERT_TRUE(out.ok()) << out.status().ToString();
  ASSERT_EQ(script.rules.size(), 8u);  // 2 systems x 2 rates x 2 repetitions
  for (size_t i = 0; i < script.rules.size(); ++i) {
    ASSERT_TRUE(script.rules[i].has_value()) << i;
    EXPECT_EQ(script.rules[i]->scenario, loadgen::Scenario::kServer);
    EXPECT_DOUBLE_EQ(*script.rules[i]->target_qps, (i / 2) % 2 == 0 ? 2 : 4) << script.calls[i];
    EXPECT_DOUBLE_EQ(script.rules[i]->min_duration_s, 5);
    ASSERT_EQ(script.rules[i]->constraints.size(), 1u);
    EXPECT_DOUBLE_EQ(script.rules[i]->constraints[0].limit_ms, 450);
  }
  ASSERT_EQ(done.size(), 8u);
  EXPECT_EQ(done[0], "w|request_rate=2|rep=0 VALID");
  EXPECT_EQ(done[2], "w|request_rate=4|rep=0 INVALID: scripted reason");
  auto points = store->ListPoints(out->run_ids[0]);
  ASSERT_TRUE(points.ok());
  ASSERT_EQ(points->size(), 4u);
  EXPECT_EQ((*points)[0].settings.at("scenario"), "server");
  EXPECT_EQ((*points)[0].settings.at("target_qps"), "2");
  EXPECT_EQ((*points)[0].settings.at("num_prompts"), "7");  // the count the scenario issued
  // Each point's verdict is stored with it: VALID at 2 QPS, INVALID with its reason at 4.
  for (const auto& pt : *points) {
    auto v = store::ParseVerdict(pt.verdict_json);
    ASSERT_TRUE(v.ok()) << v.status().ToString();
    ASSERT_TRUE(v->judged) << pt.key;
    const bool at_two = pt.settings.at("target_qps") == "2";
    EXPECT_EQ(v->valid, at_two) << pt.key;
    EXPECT_EQ(v->first_reason, at_two ? "" : "scripted reason") << pt.key;
  }

  // Rules a system cannot have (a Server scenario with no constraints: no
  // benchmark for model m, no slo) fail the sweep before anything runs.
  std::string bare = text;
  bare.replace(bare.find(", slo: [ttft_p99:450]"), 21, "");
  auto unjudged = ParsePlan(bare, "fake.yaml");
  ASSERT_TRUE(unjudged.ok()) << unjudged.status().ToString();
  auto empty = FreshStore(tmp, "scenario_bad");
  Script none;
  auto bad = RunSweep(*unjudged, *empty, Factory(&none), SweepOptions{});
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.status().message(),
            "fake.yaml:10: scenario: system a: scenario server needs latency constraints: scenario.mlperf_benchmark "
            "NAME (data/mlperf/benchmarks.json) or scenario.slo ttft_p99:MS tpot_p99:MS");
  EXPECT_TRUE(none.calls.empty());
  EXPECT_TRUE(empty->ListRuns()->empty());
}

}  // namespace
}  // namespace frontier::sweep
