// The session load core against a scripted Target on a ManualClock: session
// schedules (turn k+1 at the end of turn k plus its think time), subagent
// fan-out and join, session caps and rates, growing contexts that carry the
// real answers, failures that end one session, cancellation and the ideal
// hit rate, all checked exactly.
#include "loadgen/session_runner.h"

#include <gtest/gtest.h>

#include <functional>
#include <map>

#include "loadgen/runner.h"
#include "metrics/summary.h"
#include "workload/cancel.h"

namespace frontier::loadgen {
namespace {

constexpr Nanos kMs = kNanosPerMilli;

// Request `id` takes latency(id) (first token at half of it) and answers
// output_len tokens whose ids are 1000 * (id + 1) + k. fail(id) fails it.
class ScriptTarget final : public Target {
 public:
  ScriptTarget(ManualClock& clock, std::function<Nanos(int64_t)> latency)
      : clock_(clock), latency_(std::move(latency)) {}
  std::string Name() const override { return "script"; }
  const Clock& clock() const override { return clock_; }
  void Describe(RunResult*) const override {}
  bool SupportsCancel() const override { return true; }
  void Issue(int64_t id, const workload::RequestSpec& spec) override {
    const Nanos now = clock_.Now();
    inflight_[id] = {now, now + latency_(id), spec};
    prompts_[id] = spec.prompt_token_ids;
    specs_[id] = spec;
    max_inflight_ = std::max(max_inflight_, inflight_.size());
  }
  bool Cancel(int64_t id, CompletionSink& sink) override {
    auto it = inflight_.find(id);
    if (it == inflight_.end()) return false;
    RequestRecord r;
    r.id = id;
    r.sent_ns = it->second.sent;
    r.end_ns = clock_.Now();
    r.cancelled = true;
    inflight_.erase(it);
    sink.OnComplete(std::move(r));
    return true;
  }
  void Poll(Nanos deadline, CompletionSink& sink) override {
    Nanos first_end = std::numeric_limits<Nanos>::max();
    for (auto& [id, f] : inflight_) first_end = std::min(first_end, f.end);
    if (first_end <= deadline) {
      clock_.Set(std::max(clock_.Now(), first_end));
      for (auto it = inflight_.begin(); it != inflight_.end();) {
        if (it->second.end <= clock_.Now()) {
          sink.OnComplete(Finish(it->first, it->second));
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
    for (auto& [id, f] : inflight_) {
      RequestRecord r;
      r.id = id;
      r.failure = reason;
      r.end_ns = clock_.Now();
      sink.OnComplete(std::move(r));
    }
    inflight_.clear();
  }
  size_t InFlight() const override { return inflight_.size(); }

  std::function<bool(int64_t)> fail = [](int64_t) { return false; };
  std::map<int64_t, std::vector<int32_t>> prompts_;
  std::map<int64_t, workload::RequestSpec> specs_;
  size_t max_inflight_ = 0;

 private:
  struct Flight {
    Nanos sent, end;
    workload::RequestSpec spec;
  };
  RequestRecord Finish(int64_t id, const Flight& f) {
    RequestRecord r;
    r.id = id;
    r.sent_ns = f.sent;
    r.end_ns = f.end;
    if (fail(id)) {
      r.failure = failure::kHttpStatus;
      return r;
    }
    r.ok = true;
    r.first_token_ns = f.sent + (f.end - f.sent) / 2;
    r.events = {{r.first_token_ns, 1}, {f.end, f.spec.output_len - 1}};
    r.output_tokens = f.spec.output_len;
    if (f.spec.want_output_ids)
      for (int32_t k = 0; k < f.spec.output_len; ++k) r.output_token_ids.push_back(1000 * (static_cast<int32_t>(id) + 1) + k);
    return r;
  }
  ManualClock& clock_;
  std::function<Nanos(int64_t)> latency_;
  std::map<int64_t, Flight> inflight_;
};

workload::RequestSpec Spec(std::vector<int32_t> tokens, int32_t out) {
  workload::RequestSpec s;
  s.input_len = static_cast<int32_t>(tokens.size());
  s.prompt_token_ids = std::move(tokens);
  s.output_len = out;
  return s;
}

workload::Session OneSession(int64_t id, int turns, Nanos think) {
  workload::Session s;
  s.id = id;
  for (int k = 0; k < turns; ++k) {
    workload::Turn t;
    t.request = Spec({10 + k, 20 + k}, 3);
    t.think_ns = think;
    s.turns.push_back(std::move(t));
  }
  return s;
}

TEST(SessionRunnerTest, TurnFollowsEndOfPreviousPlusThinkTime) {
  ManualClock clock;
  ScriptTarget target(clock, [](int64_t id) { return (10 + 5 * id) * kMs; });
  workload::SessionWorkload w;
  w.sessions.push_back(OneSession(0, 3, 0));
  w.sessions[0].turns[1].think_ns = 7 * kMs;
  w.sessions[0].turns[2].think_ns = 3 * kMs;
  workload::LoadOptions load;
  load.num_prompts = 1;
  auto r = RunSessions(target, w, load, RunOptions{}, nullptr, nullptr);
  ASSERT_TRUE(r.ok()) << r.status().message();
  ASSERT_EQ(r->requests.size(), 3u);
  // Turn 0: 0..10 ms. Turn 1 at 10 + 7 = 17, takes 15: ends 32. Turn 2 at 32 + 3 = 35, takes 20: ends 55.
  EXPECT_EQ(r->requests[0].sent_ns, 0);
  EXPECT_EQ(r->requests[1].scheduled_ns, 17 * kMs);
  EXPECT_EQ(r->requests[1].sent_ns, 17 * kMs);
  EXPECT_EQ(r->requests[2].sent_ns, 35 * kMs);
  EXPECT_EQ(r->requests[2].end_ns, 55 * kMs);
  for (int k = 0; k < 3; ++k) EXPECT_EQ(r->requests[static_cast<size_t>(k)].turn, k);
  ASSERT_EQ(r->sessions.size(), 1u);
  EXPECT_TRUE(r->sessions[0].ok);
  EXPECT_EQ(r->sessions[0].turns_done, 3);
  EXPECT_EQ(r->sessions[0].start_ns, 0);
  EXPECT_EQ(r->sessions[0].end_ns, 55 * kMs);
  const auto s = metrics::Summarize(*r, metrics::SummaryOptions{});
  EXPECT_EQ(s.sessions_completed, 1);
  EXPECT_DOUBLE_EQ(s.session_latency_ms.mean, 55.0);
  EXPECT_EQ(s.turn_e2el_ms.count, 3u);
  EXPECT_DOUBLE_EQ(s.turn_e2el_ms.mean, 15.0);   // 10, 15, 20
  EXPECT_DOUBLE_EQ(s.turn_ttft_ms.mean, 7.5);
}

TEST(SessionRunnerTest, SubagentsFanOutAtTurnEndAndJoinBeforeNextTurn) {
  ManualClock clock;
  // id 0: turn 0 (10 ms); ids 1, 2, 3: subagents (30, 10, 20 ms); id 4: turn 1.
  const std::map<int64_t, Nanos> lat = {{0, 10 * kMs}, {1, 30 * kMs}, {2, 10 * kMs}, {3, 20 * kMs}, {4, 5 * kMs}};
  ScriptTarget target(clock, [&](int64_t id) { return lat.at(id); });
  workload::SessionWorkload w;
  w.sessions.push_back(OneSession(0, 2, 4 * kMs));
  for (int j = 0; j < 3; ++j) w.sessions[0].turns[0].subagents.push_back(Spec({50 + j}, 2));
  workload::LoadOptions load;
  load.num_prompts = 1;
  auto r = RunSessions(target, w, load, RunOptions{}, nullptr, nullptr);
  ASSERT_TRUE(r.ok());
  ASSERT_EQ(r->requests.size(), 5u);
  for (int j = 1; j <= 3; ++j) {
    EXPECT_EQ(r->requests[static_cast<size_t>(j)].sent_ns, 10 * kMs);  // all at turn 0's end
    EXPECT_EQ(r->requests[static_cast<size_t>(j)].subagent, j - 1);
    EXPECT_EQ(r->requests[static_cast<size_t>(j)].turn, 0);
  }
  // Joined: the last subagent ends at 10 + 30 = 40; turn 1 at 40 + 4.
  EXPECT_EQ(r->requests[4].sent_ns, 44 * kMs);
  EXPECT_EQ(r->requests[4].turn, 1);
  EXPECT_EQ(r->requests[4].subagent, -1);
  EXPECT_EQ(r->sessions[0].end_ns, 49 * kMs);
  const auto s = metrics::Summarize(*r, metrics::SummaryOptions{});
  EXPECT_EQ(s.completed, 5);
  EXPECT_EQ(s.turn_e2el_ms.count, 2u);  // the turns, not the subagents
}

TEST(SessionRunnerTest, GrowingContextCarriesTheRealAnswers) {
  ManualClock clock;
  ScriptTarget target(clock, [](int64_t) { return 10 * kMs; });
  workload::SessionWorkload w;
  w.grow_context = true;
  w.sessions.push_back(OneSession(0, 3, 0));
  workload::LoadOptions load;
  load.num_prompts = 1;
  auto r = RunSessions(target, w, load, RunOptions{}, nullptr, nullptr, /*ideal_block_tokens=*/1);
  ASSERT_TRUE(r.ok());
  // Turn 0: {10, 20}; answer {1000, 1001, 1002}. Turn 1: that plus {11, 21};
  // answer {2000, 2001, 2002}. Turn 2: all of it plus {12, 22}.
  EXPECT_EQ(target.prompts_[0], (std::vector<int32_t>{10, 20}));
  EXPECT_EQ(target.prompts_[1], (std::vector<int32_t>{10, 20, 1000, 1001, 1002, 11, 21}));
  EXPECT_EQ(target.prompts_[2],
            (std::vector<int32_t>{10, 20, 1000, 1001, 1002, 11, 21, 2000, 2001, 2002, 12, 22}));
  EXPECT_EQ(r->requests[1].prompt_tokens, 7);
  EXPECT_EQ(r->effective_settings.at("session_answers_missing"), "0");
  // Ideal hit rate, 1-token blocks: 0 of 2, then 5 of 7 (the context), then 10 of 12.
  EXPECT_DOUBLE_EQ(r->ideal_prefix_hit_rate, 15.0 / 21.0);
}

TEST(SessionRunnerTest, GrowingTextContextOnATargetAnsweringInIdsGrowsByLength) {
  // The simulator's case: text prompts, answers that come back as ids (none
  // here: the script sends ids only when asked); the lengths still add up.
  ManualClock clock;
  ScriptTarget target(clock, [](int64_t) { return 10 * kMs; });
  workload::SessionWorkload w;
  w.grow_context = true;
  workload::Session s;
  for (int k = 0; k < 3; ++k) {
    workload::Turn t;
    t.request.prompt_text = "m" + std::to_string(k) + " w";
    t.request.input_len = 2;
    t.request.output_len = 3;
    t.think_ns = 0;
    s.turns.push_back(t);
  }
  w.sessions.push_back(s);
  workload::LoadOptions load;
  load.num_prompts = 1;
  auto r = RunSessions(target, w, load, RunOptions{}, nullptr, nullptr);
  ASSERT_TRUE(r.ok()) << r.status().message();
  ASSERT_EQ(target.specs_.size(), 3u);
  EXPECT_EQ(target.specs_[0].prompt_text, "m0 w");
  EXPECT_EQ(target.specs_[1].prompt_text, "m0 w\nm1 w");
  EXPECT_EQ(target.specs_[2].prompt_text, "m0 w\nm1 w\nm2 w");
  // 2; then 2 + 3 answered + 2; then 7 + 3 + 2.
  EXPECT_EQ(target.specs_[0].input_len, 2);
  EXPECT_EQ(target.specs_[1].input_len, 7);
  EXPECT_EQ(target.specs_[2].input_len, 12);
  for (const auto& [id, spec] : target.specs_) {
    EXPECT_FALSE(spec.want_output_ids) << "a Target answering in ids is asked for no answer: lengths suffice";
    EXPECT_TRUE(spec.prompt_token_ids.empty());
  }
  EXPECT_EQ(r->effective_settings.at("session_answers_missing"), "0");
  EXPECT_LT(r->ideal_prefix_hit_rate, 0) << "text prompts have no known tokens";
}

TEST(SessionRunnerTest, FailedTurnEndsOnlyItsSession) {
  ManualClock clock;
  ScriptTarget target(clock, [](int64_t id) { return (id + 1) * kMs; });
  target.fail = [](int64_t id) { return id == 1; };  // session 1's first turn
  workload::SessionWorkload w;
  for (int i = 0; i < 3; ++i) w.sessions.push_back(OneSession(i, 2, 0));
  workload::LoadOptions load;
  load.num_prompts = 3;
  auto r = RunSessions(target, w, load, RunOptions{}, nullptr, nullptr);
  ASSERT_TRUE(r.ok());
  ASSERT_EQ(r->sessions.size(), 3u);
  EXPECT_TRUE(r->sessions[0].ok);
  EXPECT_FALSE(r->sessions[1].ok);
  EXPECT_EQ(r->sessions[1].end_reason, "turn 0: http_status");
  EXPECT_EQ(r->sessions[1].turns_done, 0);
  EXPECT_TRUE(r->sessions[2].ok);
  EXPECT_EQ(r->requests.size(), 5u);  // session 1 sent one request only
  const auto s = metrics::Summarize(*r, metrics::SummaryOptions{});
  EXPECT_EQ(s.sessions_completed, 2);
  EXPECT_EQ(s.sessions_failed, 1);
  EXPECT_EQ(s.session_end_reasons.at("turn 0: http_status"), 1);
  EXPECT_EQ(s.failed, 1);
}

TEST(SessionRunnerTest, ConcurrencyCountsSessionsAndRateSpacesThem) {
  ManualClock clock;
  ScriptTarget target(clock, [](int64_t) { return 10 * kMs; });
  workload::SessionWorkload w;
  for (int i = 0; i < 4; ++i) w.sessions.push_back(OneSession(i, 2, 5 * kMs));
  workload::LoadOptions load;
  load.num_prompts = 4;
  load.max_concurrency = 2;
  auto r = RunSessions(target, w, load, RunOptions{}, nullptr, nullptr);
  ASSERT_TRUE(r.ok());
  // Each session: 10 + 5 + 10 = 25 ms. Sessions 2 and 3 start when 0 and 1 end.
  EXPECT_EQ(r->sessions[2].start_ns, 25 * kMs);
  EXPECT_EQ(r->sessions[3].start_ns, 25 * kMs);
  EXPECT_EQ(target.max_inflight_, 2u);
  // Trace arrivals: sessions start at their own offsets.
  ManualClock clock2;
  ScriptTarget t2(clock2, [](int64_t) { return 10 * kMs; });
  w.arrivals_given = true;
  w.sessions[0].arrival_ns = 30 * kMs;
  w.sessions[1].arrival_ns = 0;
  w.sessions[2].arrival_ns = 100 * kMs;
  w.sessions[3].arrival_ns = 1 * kMs;
  load.max_concurrency.reset();
  auto r2 = RunSessions(t2, w, load, RunOptions{}, nullptr, nullptr);
  ASSERT_TRUE(r2.ok());
  EXPECT_EQ(r2->sessions[0].start_ns, 0);        // the earliest arrival first
  EXPECT_EQ(r2->sessions[1].start_ns, 1 * kMs);
  EXPECT_EQ(r2->sessions[2].start_ns, 30 * kMs);
  EXPECT_EQ(r2->sessions[3].start_ns, 100 * kMs);
}

TEST(SessionRunnerTest, CancelledRequestsCountedApartAndEndTheirSession) {
  ManualClock clock;
  ScriptTarget target(clock, [](int64_t) { return 100 * kMs; });
  workload::SessionWorkload w;
  for (int i = 0; i < 4; ++i) w.sessions.push_back(OneSession(i, 1, 0));
  w.sessions[1].turns[0].request.cancel_after_ns = 30 * kMs;
  w.sessions[3].turns[0].request.cancel_after_ns = 40 * kMs;
  workload::LoadOptions load;
  load.num_prompts = 4;
  auto r = RunSessions(target, w, load, RunOptions{}, nullptr, nullptr);
  ASSERT_TRUE(r.ok());
  EXPECT_TRUE(r->requests[1].cancelled);
  EXPECT_EQ(r->requests[1].end_ns, 30 * kMs);
  EXPECT_EQ(r->requests[3].end_ns, 40 * kMs);
  EXPECT_EQ(r->sessions[1].end_reason, "cancelled");
  const auto s = metrics::Summarize(*r, metrics::SummaryOptions{});
  EXPECT_EQ(s.cancelled, 2);
  EXPECT_EQ(s.failed, 0);
  EXPECT_EQ(s.completed, 2);
  EXPECT_EQ(s.e2el_ms.count, 2u);  // cancelled requests are in no latency figure
}

TEST(RunLoadCancelTest, TimeBasedCancellationOnSingleTurnWorkloads) {
  ManualClock clock;
  ScriptTarget target(clock, [](int64_t) { return 100 * kMs; });
  std::vector<workload::RequestSpec> specs(10, Spec({1, 2, 3}, 4));
  workload::CancelOptions c;
  c.fraction = 0.3;
  c.after_ns = 20 * kMs;
  ASSERT_EQ(*workload::ApplyCancellation(c, specs), 3);
  workload::LoadOptions load;
  load.num_prompts = 10;
  auto r = RunLoad(target, specs, load, RunOptions{}, nullptr, nullptr);
  ASSERT_TRUE(r.ok());
  int cancelled = 0;
  for (const auto& rec : r->requests) {
    if (!rec.cancelled) continue;
    ++cancelled;
    EXPECT_EQ(rec.end_ns, 20 * kMs);
    EXPECT_EQ(rec.failure, failure::kCancelled);
  }
  EXPECT_EQ(cancelled, 3);
  const auto s = metrics::Summarize(*r, metrics::SummaryOptions{});
  EXPECT_EQ(s.cancelled, 3);
  EXPECT_EQ(s.completed, 7);
  EXPECT_EQ(s.failed, 0);
}

TEST(SessionRunnerTest, RejectsWarmupAndEmptyWorkloads) {
  ManualClock clock;
  ScriptTarget target(clock, [](int64_t) { return kMs; });
  workload::SessionWorkload w;
  workload::LoadOptions load;
  EXPECT_FALSE(RunSessions(target, w, load, RunOptions{}, nullptr, nullptr).ok());
  w.sessions.push_back(OneSession(0, 1, 0));
  load.warmup = 1;
  EXPECT_FALSE(RunSessions(target, w, load, RunOptions{}, nullptr, nullptr).ok());
}

}  // namespace
}  // namespace frontier::loadgen
