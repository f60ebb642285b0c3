// The timing core against a fake Target on a ManualClock: schedules, caps,
// warm-up, duration and stop are checked exactly, without a network.
#include "loadgen/runner.h"

#include <gtest/gtest.h>

#include <functional>
#include <map>

#include "metrics/summary.h"
#include "workload/arrival.h"

namespace frontier::loadgen {
namespace {

constexpr Nanos kMs = kNanosPerMilli;

// Each request takes latency(id): first token at half of it, end at all of it.
class FakeTarget final : public Target {
 public:
  FakeTarget(ManualClock& clock, std::function<Nanos(int64_t)> latency)
      : clock_(clock), latency_(std::move(latency)) {}
  std::string Name() const override { return "fake"; }
  const Clock& clock() const override { return clock_; }
  void Describe(RunResult*) const override {}
  void Issue(int64_t id, const workload::RequestSpec& spec) override {
    const Nanos now = clock_.Now();
    inflight_[id] = {now, now + latency_(id), spec.output_len};
    max_inflight_ = std::max(max_inflight_, inflight_.size());
  }
  void Poll(Nanos deadline, CompletionSink& sink) override {
    ++polls_;
    Nanos first_end = std::numeric_limits<Nanos>::max();
    for (auto& [id, f] : inflight_) first_end = std::min(first_end, f.end);
    if (first_end <= deadline) {
      clock_.Set(std::max(clock_.Now(), first_end));
      for (auto it = inflight_.begin(); it != inflight_.end();) {
        if (it->second.end <= clock_.Now()) {
          sink.OnComplete(Finish(it->first, it->second, nullptr));
          it = inflight_.erase(it);
        } else {
          ++it;
        }
      }
    } else if (deadline > clock_.Now()) {
      clock_.Set(deadline);
    }
  }
  void AbortAll(const char* reason, CompletionSink& sink) override {
    for (auto& [id, f] : inflight_) sink.OnComplete(Finish(id, f, reason));
    inflight_.clear();
  }
  size_t InFlight() const override { return inflight_.size(); }
  std::string ServedModel() const override { return "fake-model"; }
  size_t max_inflight() const { return max_inflight_; }
  int64_t polls() const { return polls_; }

 private:
  struct Flight {
    Nanos sent, end;
    int32_t tokens;
  };
  RequestRecord Finish(int64_t id, const Flight& f, const char* reason) {
    RequestRecord r;
    r.id = id;
    r.sent_ns = f.sent;
    if (reason) {
      r.failure = reason;
      r.end_ns = clock_.Now();
      return r;
    }
    r.ok = true;
    r.first_token_ns = f.sent + (f.end - f.sent) / 2;
    r.end_ns = f.end;
    r.events = {{r.first_token_ns, 1}, {f.end, f.tokens - 1}};
    r.output_tokens = f.tokens;
    return r;
  }
  ManualClock& clock_;
  std::function<Nanos(int64_t)> latency_;
  std::map<int64_t, Flight> inflight_;
  size_t max_inflight_ = 0;
  int64_t polls_ = 0;
};

std::vector<workload::RequestSpec> Specs(int n) {
  std::vector<workload::RequestSpec> s(static_cast<size_t>(n));
  for (int i = 0; i < n; ++i) {
    s[static_cast<size_t>(i)].id = i;
    s[static_cast<size_t>(i)].input_len = 10;
    s[static_cast<size_t>(i)].output_len = 5;
  }
  return s;
}

TEST(RunnerTest, ClosedLoopKeepsTheCapAndSendsWhenASlotFrees) {
  ManualClock clock(1000 * kMs);
  FakeTarget target(clock, [](int64_t) { return 10 * kMs; });
  workload::LoadOptions load;
  load.num_prompts = 6;
  load.max_concurrency = 2;
  RunOptions o;
  auto run = RunLoad(target, Specs(6), load, o, nullptr, nullptr);
  ASSERT_TRUE(run.ok()) << run.status().ToString();
  ASSERT_EQ(run->requests.size(), 6u);
  EXPECT_EQ(target.max_inflight(), 2u);
  const Nanos expect_sent[] = {0, 0, 10 * kMs, 10 * kMs, 20 * kMs, 20 * kMs};
  for (size_t i = 0; i < 6; ++i) {
    EXPECT_EQ(run->requests[i].sent_ns, expect_sent[i]) << i;
    EXPECT_EQ(run->requests[i].scheduled_ns, 0);  // all planned at 0: closed loop
    EXPECT_EQ(run->requests[i].requested_output_tokens, 5);
    EXPECT_EQ(run->requests[i].prompt_tokens, 10);
  }
  EXPECT_EQ(run->duration_ns, 30 * kMs);
  EXPECT_EQ(run->served_model, "fake-model");
  auto s = metrics::Summarize(*run, {});
  EXPECT_EQ(s.max_concurrent_requests, 2);
  EXPECT_DOUBLE_EQ(s.request_throughput, 6 / 0.030);
  // Waiting for a slot is client queue time: (0+0+10+10+20+20)/6 ms.
  EXPECT_DOUBLE_EQ(s.client_queue_ms.mean, 10.0);
}

TEST(RunnerTest, OpenLoopSendsAtThePlannedTimes) {
  ManualClock clock(5 * kNanosPerSecond);
  FakeTarget target(clock, [](int64_t) { return 1 * kMs; });
  workload::LoadOptions load;
  load.num_prompts = 200;
  load.request_rate = 100;
  load.seed = 4;
  RunOptions o;
  auto run = RunLoad(target, Specs(200), load, o, nullptr, nullptr);
  ASSERT_TRUE(run.ok());
  workload::ArrivalOptions a;
  a.request_rate = 100;
  a.seed = 4;
  auto plan = workload::PlanArrivals(200, a);
  ASSERT_TRUE(plan.ok());
  for (size_t i = 0; i < 200; ++i) {
    EXPECT_EQ(run->requests[i].scheduled_ns, (*plan)[i]);
    EXPECT_EQ(run->requests[i].sent_ns, (*plan)[i]);  // a fake clock: no lateness at all
  }
}

TEST(RunnerTest, ShardsIssueTheirPositionsOfOneScheduleAtAnAgreedStart) {
  // Three shards of 200 requests at 100 req/s, each starting at t = 1 s on its
  // clock: together they issue every position once, at the single run's times.
  workload::ArrivalOptions a;
  a.request_rate = 100;
  a.seed = 4;
  auto plan = workload::PlanArrivals(200, a);
  ASSERT_TRUE(plan.ok());
  std::map<int64_t, Nanos> scheduled;
  for (int64_t shard = 0; shard < 3; ++shard) {
    ManualClock clock(0);
    FakeTarget target(clock, [](int64_t) { return 30 * kMs; });
    workload::LoadOptions load;
    load.num_prompts = 200;
    load.request_rate = 100;
    load.seed = 4;
    load.shard_index = shard;
    load.shard_count = 3;
    load.start_at_ns = 1000 * kMs;
    auto run = RunLoad(target, Specs(200), load, RunOptions{}, nullptr, nullptr);
    ASSERT_TRUE(run.ok());
    EXPECT_EQ(run->requests.size(), shard < 2 ? 67u : 66u);
    for (const auto& r : run->requests) {
      EXPECT_EQ(r.id % 3, shard);
      EXPECT_TRUE(r.ok);
      EXPECT_EQ(r.sent_ns, r.scheduled_ns);  // relative to the agreed start, not to when RunLoad began
      EXPECT_TRUE(scheduled.emplace(r.id, r.scheduled_ns).second) << r.id;
    }
  }
  ASSERT_EQ(scheduled.size(), 200u);
  for (const auto& [id, t] : scheduled) EXPECT_EQ(t, (*plan)[static_cast<size_t>(id)]) << id;
  ManualClock clock(0);
  FakeTarget target(clock, [](int64_t) { return kMs; });
  workload::LoadOptions bad;
  bad.shard_index = 3;
  bad.shard_count = 3;
  auto r = RunLoad(target, Specs(10), bad, RunOptions{}, nullptr, nullptr);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().message(), "--shard 3/3: the shard must be in 0..2");
}

TEST(RunnerTest, CapBelowTheRateShowsAsClientQueueTime) {
  // 100 req/s planned but each takes 50 ms with one slot: the backlog grows
  // and latency from the planned time keeps it visible (no coordinated omission).
  ManualClock clock(0);
  FakeTarget target(clock, [](int64_t) { return 50 * kMs; });
  workload::LoadOptions load;
  load.num_prompts = 20;
  load.request_rate = 100;
  load.burstiness = 1e9;  // practically regular: 10 ms gaps
  load.max_concurrency = 1;
  RunOptions o;
  auto run = RunLoad(target, Specs(20), load, o, nullptr, nullptr);
  ASSERT_TRUE(run.ok());
  const auto& last = run->requests.back();
  EXPECT_EQ(last.sent_ns, 19 * 50 * kMs);
  EXPECT_NEAR(static_cast<double>(last.scheduled_ns), 190.0 * kMs, 0.01 * kMs);
  EXPECT_NEAR(static_cast<double>(last.sent_ns - last.scheduled_ns), 760.0 * kMs, 0.01 * kMs);
}

TEST(RunnerTest, WarmupRunsFirstAndIsLeftOut) {
  ManualClock clock(0);
  FakeTarget target(clock, [](int64_t id) { return id < 3 ? 100 * kMs : 10 * kMs; });
  workload::LoadOptions load;
  load.num_prompts = 4;
  load.warmup = 3;
  load.max_concurrency = 8;
  RunOptions o;
  auto run = RunLoad(target, Specs(7), load, o, nullptr, nullptr);
  ASSERT_TRUE(run.ok());
  ASSERT_EQ(run->requests.size(), 7u);
  for (int i = 0; i < 3; ++i) EXPECT_TRUE(run->requests[i].warmup);
  for (int i = 3; i < 7; ++i) {
    EXPECT_FALSE(run->requests[i].warmup);
    EXPECT_EQ(run->requests[i].scheduled_ns, 100 * kMs);  // measured phase starts after warm-up
    EXPECT_EQ(run->requests[i].sent_ns, 100 * kMs);
  }
  auto s = metrics::Summarize(*run, {});
  EXPECT_EQ(s.completed, 4);
  EXPECT_EQ(s.warmup, 3);
  EXPECT_DOUBLE_EQ(s.duration_s, 0.010);
  EXPECT_DOUBLE_EQ(s.e2el_ms.mean, 10.0);
}

TEST(RunnerTest, DurationStopsIssuingAndCyclesSpecs) {
  ManualClock clock(0);
  FakeTarget target(clock, [](int64_t) { return 30 * kMs; });
  workload::LoadOptions load;
  load.num_prompts = std::numeric_limits<int64_t>::max();
  load.duration_s = 1.0;
  load.max_concurrency = 2;
  RunOptions o;
  auto run = RunLoad(target, Specs(5), load, o, nullptr, nullptr);
  ASSERT_TRUE(run.ok()) << run.status().ToString();
  // Sends at 0, 30, ..., 990 ms (34 rounds of 2); nothing after 1 s.
  EXPECT_EQ(run->requests.size(), 68u);
  for (const auto& r : run->requests) {
    EXPECT_LT(r.sent_ns, 1000 * kMs);
    EXPECT_TRUE(r.ok);
  }
  EXPECT_EQ(run->requests.back().id, 67);
}

class StopAfter final : public Observer {
 public:
  StopAfter(int n, std::atomic<bool>* stop) : n_(n), stop_(stop) {}
  void OnProgress(const Progress& p) override { last_ = p; }
  void OnRequest(const RequestRecord&) override {
    if (--n_ == 0) stop_->store(true);
  }
  Progress last_;

 private:
  int n_;
  std::atomic<bool>* stop_;
};

TEST(RunnerTest, StopDrainsThenAbortsAfterTheGrace) {
  ManualClock clock(0);
  // Requests 0-1 take 10 ms, 2 takes 50 ms (ends within the grace), the rest 10 s.
  FakeTarget target(clock, [](int64_t id) {
    return id < 2 ? 10 * kMs : id == 2 ? 50 * kMs : 10 * kNanosPerSecond;
  });
  workload::LoadOptions load;
  load.num_prompts = 100;
  load.max_concurrency = 4;
  RunOptions o;
  o.grace = 200 * kMs;
  std::atomic<bool> stop{false};
  StopAfter obs(2, &stop);
  auto run = RunLoad(target, Specs(100), load, o, &obs, &stop);
  ASSERT_TRUE(run.ok());
  EXPECT_TRUE(run->interrupted);
  // Issued: 0-3 at t=0; the stop comes with the end of 0-1 at 10 ms, before
  // their slots are refilled. 2 ends within the grace; 3 is aborted at 210 ms.
  ASSERT_EQ(run->requests.size(), 4u);
  EXPECT_TRUE(run->requests[2].ok);
  EXPECT_FALSE(run->requests[3].ok);
  EXPECT_EQ(run->requests[3].failure, failure::kInterrupted);
  EXPECT_EQ(run->requests[3].end_ns, 210 * kMs);
  EXPECT_TRUE(obs.last_.stopping);
  EXPECT_EQ(obs.last_.completed, 3);
  EXPECT_EQ(obs.last_.failed, 1);
}

TEST(RunnerTest, RejectsAWorkloadSmallerThanTheWarmup) {
  ManualClock clock(0);
  FakeTarget target(clock, [](int64_t) { return kMs; });
  workload::LoadOptions load;
  load.warmup = 5;
  RunOptions o;
  auto run = RunLoad(target, Specs(5), load, o, nullptr, nullptr);
  ASSERT_FALSE(run.ok());
  EXPECT_NE(run.status().message().find("--warmup"), std::string::npos);
}

}  // namespace
}  // namespace frontier::loadgen
