// The search against a system of known capacity, driven by the real timing
// core (RunLoad) on a ManualClock: a server with S slots that holds each request
// for a fixed time serves at most S / hold requests per second. Virtual time,
// so the test is exact and fast on a loaded machine.
#include "loadgen/search.h"

#include <gtest/gtest.h>

#include <deque>
#include <map>

namespace frontier::loadgen {
namespace {

constexpr Nanos kMs = kNanosPerMilli;

// S slots, first-come first-served; a request holds its slot for 100 ms: its
// first token at 20 ms, then 10 more tokens 8 ms apart. Capacity S / 0.1 s.
class SlotsTarget final : public Target {
 public:
  SlotsTarget(ManualClock& clock, int slots) : clock_(clock), slots_(slots) {}
  std::string Name() const override { return "slots"; }
  const Clock& clock() const override { return clock_; }
  void Describe(RunResult*) const override {}
  void Issue(int64_t id, const workload::RequestSpec&) override {
    sent_[id] = clock_.Now();
    if (static_cast<int>(running_.size()) < slots_) {
      running_.emplace(clock_.Now() + kHold, id);
    } else {
      waiting_.push_back(id);
    }
  }
  void Poll(Nanos deadline, CompletionSink& sink) override {
    if (!running_.empty() && running_.begin()->first <= deadline) {
      const auto [end, id] = *running_.begin();
      running_.erase(running_.begin());
      clock_.Set(std::max(clock_.Now(), end));
      sink.OnComplete(Finish(id, end));
      if (!waiting_.empty()) {  // the slot passes to the next in line when this one ends
        running_.emplace(end + kHold, waiting_.front());
        waiting_.pop_front();
      }
    } else if (deadline > clock_.Now()) {
      clock_.Set(deadline);
    }
  }
  void AbortAll(const char* reason, CompletionSink& sink) override {
    for (const auto& [end, id] : running_) sink.OnComplete(Aborted(id, reason));
    for (int64_t id : waiting_) sink.OnComplete(Aborted(id, reason));
    running_.clear();
    waiting_.clear();
  }
  size_t InFlight() const override { return running_.size() + waiting_.size(); }

  static constexpr Nanos kHold = 100 * kMs;

 private:
  RequestRecord Finish(int64_t id, Nanos end) {
    RequestRecord r;
    r.id = id;
    r.sent_ns = sent_[id];
    const Nanos start = end - kHold;
    r.first_token_ns = start + 20 * kMs;
    for (int i = 0; i < 11; ++i) r.events.push_back({r.first_token_ns + i * 8 * kMs, 1});
    r.end_ns = end;
    r.output_tokens = 11;
    r.usage_reported = true;
    r.ok = true;
    return r;
  }
  RequestRecord Aborted(int64_t id, const char* reason) {
    RequestRecord r;
    r.id = id;
    r.sent_ns = sent_[id];
    r.end_ns = clock_.Now();
    r.failure = reason;
    return r;
  }

  ManualClock& clock_;
  int slots_;
  std::multimap<Nanos, int64_t> running_;  // end -> id
  std::deque<int64_t> waiting_;
  std::map<int64_t, Nanos> sent_;
};

class SlotsRunner final : public TrialRunner {
 public:
  explicit SlotsRunner(int slots) : slots_(slots) {
    for (int i = 0; i < 100; ++i) specs_.push_back({i, 64, 11, {}, {}});
  }
  std::string Name() const override { return "slots"; }
  Result<PointOutcome> Run(const workload::LoadOptions& load, const PointOptions& point, Observer* observer,
                           const std::atomic<bool>* stop) override {
    ManualClock clock(1'000 * kNanosPerSecond);
    SlotsTarget target(clock, slots_);
    PointOptions o = point;
    o.run.grace = 0;
    ++runs_;
    return RunPoint(target, specs_, load, o, observer, stop);
  }
  int runs() const { return runs_; }

 private:
  int slots_;
  std::vector<workload::RequestSpec> specs_;
  int runs_ = 0;
};

SearchOptions MaxQps() {
  SearchOptions o;
  o.goal = SearchGoal::kMaxValidQps;
  o.axis = SearchAxis::kRate;
  o.rules.scenario = Scenario::kServer;
  o.rules.min_duration_s = 30;
  o.rules.min_query_count = 600;  // early stopping needs 459 with none over the limit
  o.rules.constraints = {{LatencyMetric::kTtft, 99, 200}, {LatencyMetric::kTpot, 99, 40}};
  o.start = 15;
  o.base.seed = 3;
  return o;
}

// 8 slots x (1 / 0.1 s) = 80 req/s. Above it the queue grows by (rate - 80)
// per second: at 1.03 x 80 the last of 30 s waits 2.4 x 30 / 80 = 0.9 s, far
// over the 180 ms of queueing the 200 ms TTFT limit leaves, so every rate over
// 1.03 x capacity is INVALID; at 0.75 x capacity an 8-server queue with fixed
// service waits well under 0.18 s at its 99th percentile, so the answer lies
// in [0.75, 1.03] x 80.
TEST(SearchTest, MaxValidQpsConvergesToTheKnownCapacity) {
  SlotsRunner runner(8);
  std::vector<int> seen;
  auto result = Search(runner, MaxQps(), [&](const Trial& t, const SearchResult& so_far) {
    seen.push_back(t.index);
    EXPECT_EQ(so_far.trials.size(), seen.size());
    return Status::Ok();
  });
  ASSERT_TRUE(result.ok()) << result.status().message();
  ASSERT_TRUE(result->best.has_value());
  const Trial& best = result->trials[*result->best];
  EXPECT_TRUE(best.verdict.valid);
  EXPECT_GE(best.value, 0.75 * 80);
  EXPECT_LE(best.value, 1.03 * 80);
  // Converged: the lowest invalid rate is within 2 % above the answer.
  ASSERT_TRUE(result->invalid_above.has_value());
  EXPECT_EQ(*result->valid_below, best.value);
  EXPECT_LE(*result->invalid_above / best.value - 1, 0.02);
  EXPECT_NE(result->stop_reason.find("converged"), std::string::npos);
  // Every trial is recorded, in order, with its verdict and decision; the
  // answer is the highest valid rate tried.
  EXPECT_EQ(static_cast<int>(result->trials.size()), runner.runs());
  EXPECT_EQ(seen.size(), result->trials.size());
  for (const Trial& t : result->trials) {
    EXPECT_FALSE(t.decision.empty());
    if (t.verdict.valid) {
      EXPECT_LE(t.value, best.value);
    }
  }
  // Bracketing doubled from 15: 15, 30 and 60 valid, then 120 (1.5 x the
  // capacity: completions lag arrivals by a third) is over-saturated, and the
  // detector stopped it within seconds of its 30.
  ASSERT_GE(result->trials.size(), 4u);
  for (int i = 0; i < 3; ++i) EXPECT_TRUE(result->trials[static_cast<size_t>(i)].verdict.valid) << i;
  const Trial& t120 = result->trials[3];
  EXPECT_EQ(t120.value, 120);
  EXPECT_TRUE(t120.stopped_early);
  EXPECT_FALSE(t120.verdict.valid);
  EXPECT_NE(t120.verdict.reasons.front().find("over-saturated"), std::string::npos);
  EXPECT_LT(t120.verdict.duration_s, 10);

  const nlohmann::json j = SearchResultJson(*result, MaxQps(), runner.Name());
  EXPECT_EQ(j["max_valid_qps"], best.value);
  EXPECT_EQ(j["trials"].size(), result->trials.size());
  EXPECT_EQ(j["trial_count"], result->trials.size());
  EXPECT_EQ(j["trials"][3]["stopped_early"], true);
  EXPECT_EQ(j["trials"][*result->best]["verdict"]["result"], "VALID");
  EXPECT_EQ(j["trials"][0]["result"]["request_rate"], 15);
}

// Throughput per GPU under an SLO, over concurrency: with 8 slots, more than 8
// streams only queue, so TTFT grows by a hold (100 ms) per 8 extra streams and
// throughput stays at 80 req/s. A TTFT p99 limit of 150 ms allows a queue of
// one hold: the highest concurrency meeting it is 16 (its waits are exactly
// one hold: TTFT 120 ms); 17 waits two holds (220 ms). Throughput is 80 req/s
// from 8 streams on, so the best point is the first one found at full
// throughput: a valid trial at concurrency 8 to 16.
TEST(SearchTest, MaxThroughputUnderAnSloOverConcurrency) {
  SlotsRunner runner(8);
  SearchOptions o;
  o.goal = SearchGoal::kMaxThroughput;
  o.axis = SearchAxis::kConcurrency;
  o.rules.constraints = {{LatencyMetric::kTtft, 99, 150}};
  o.base.num_prompts = 400;
  o.start = 1;
  o.point.summary.num_gpus = 2;
  auto result = Search(runner, o, {});
  ASSERT_TRUE(result.ok()) << result.status().message();
  EXPECT_EQ(*result->valid_below, 16);
  EXPECT_EQ(*result->invalid_above, 17);
  ASSERT_TRUE(result->best.has_value());
  const Trial& best = result->trials[*result->best];
  EXPECT_GE(best.value, 8);
  EXPECT_LE(best.value, 16);
  // 400 requests of 100 ms through 8 slots: 50 rounds, 5 s; 80 req/s, 40 per GPU.
  EXPECT_NEAR(best.summary.request_throughput, 80, 80 * 0.01);
  EXPECT_NEAR(best.summary.output_throughput_per_gpu, 80 * 11 / 2.0, 440 * 0.01);
  for (const Trial& t : result->trials) EXPECT_FALSE(t.stopped_early);  // closed loop: nothing to detect
}

TEST(SearchTest, RejectsInconsistentOptions) {
  SlotsRunner runner(1);
  SearchOptions o = MaxQps();
  o.axis = SearchAxis::kConcurrency;
  EXPECT_FALSE(Search(runner, o, {}).ok());
  o = MaxQps();
  o.rules.scenario = Scenario::kOffline;
  EXPECT_FALSE(Search(runner, o, {}).ok());
  o = MaxQps();
  o.start = 0;
  EXPECT_NE(Search(runner, o, {}).status().message().find("--start"), std::string::npos);
  EXPECT_EQ(runner.runs(), 0);
}

// With no valid load down to the floor, there is no answer, and it says so.
TEST(SearchTest, NoValidTrialMeansNoAnswer) {
  SlotsRunner runner(8);
  SearchOptions o = MaxQps();
  o.rules.constraints = {{LatencyMetric::kTtft, 99, 10}};  // below the fixed 20 ms
  o.start = 10;
  o.min_value = 2;
  auto result = Search(runner, o, {});
  ASSERT_TRUE(result.ok());
  EXPECT_FALSE(result->best.has_value());
  EXPECT_NE(result->stop_reason.find("no valid trial"), std::string::npos);
  EXPECT_EQ(result->trials.back().value, 2);
  EXPECT_TRUE(SearchResultJson(*result, o, "slots")["max_valid_qps"].is_null());
}

// A search cut by --max-trials stops at its last trial: the outcome handed to
// the callback with that trial (the one a recorder stores) already holds the
// stop reason, and no trial runs past the cap. Concurrency from 1 doubling
// with an SLO met up to 16 (see above): 1, 2, 4 are all valid, still bracketing.
TEST(SearchTest, MaxTrialsStopIsKnownWhenTheLastTrialIsReported) {
  SlotsRunner runner(8);
  SearchOptions o;
  o.goal = SearchGoal::kMaxThroughput;
  o.axis = SearchAxis::kConcurrency;
  o.rules.constraints = {{LatencyMetric::kTtft, 99, 150}};
  o.base.num_prompts = 100;
  o.start = 1;
  o.max_trials = 3;
  std::vector<std::string> reasons;
  auto result = Search(runner, o, [&](const Trial&, const SearchResult& so_far) {
    reasons.push_back(so_far.stop_reason);
    return Status::Ok();
  });
  ASSERT_TRUE(result.ok()) << result.status().message();
  EXPECT_EQ(runner.runs(), 3);
  ASSERT_EQ(reasons.size(), 3u);
  EXPECT_EQ(reasons[0], "");
  EXPECT_EQ(reasons[1], "");
  EXPECT_EQ(reasons[2], "stopped after --max-trials 3 trials");
  EXPECT_EQ(result->stop_reason, reasons[2]);
  EXPECT_EQ(result->trials.back().value, 4);
  EXPECT_EQ(result->trials.back().step, "stop");
  EXPECT_EQ(result->trials.back().decision, "valid: stopped after --max-trials 3 trials");
  EXPECT_EQ(result->trials[1].step, "bracket");
}

}  // namespace
}  // namespace frontier::loadgen
