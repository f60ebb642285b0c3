#include "metrics/timeslice.h"

#include <gtest/gtest.h>

#include <limits>

#include "metrics/result_json.h"
#include "metrics/summary.h"

namespace frontier::metrics {
namespace {

constexpr Nanos kS = kNanosPerSecond;
constexpr Nanos kTenth = kS / 10;

// A request sent at `sent` s that ends 1 s later, with 10 one-token events
// at sent + 0.1, 0.2, ..., 1.0 s (TTFT 100 ms, TPOT 100 ms).
RequestRecord OneSecond(int64_t id, int sent) {
  RequestRecord r;
  r.id = id;
  r.ok = true;
  r.scheduled_ns = r.sent_ns = sent * kS;
  for (int i = 1; i <= 10; ++i) r.events.push_back({r.sent_ns + i * kTenth, 1});
  r.output_tokens = 10;
  r.first_token_ns = r.events.front().t_ns;
  r.end_ns = r.events.back().t_ns;
  return r;
}

// A ramp, a plateau and a drain, in 1 s windows:
//   window  0: request A [0,1) alone                 -> 1 in flight
//   windows 1-4: four streams, one request a second  -> 4 in flight
//   window  5: two requests [5,6)                    -> 2 in flight
// Completions by end time: w0 0, w1 1 (A ends at 1.0), w2-w4 4 each, w5 4 +
// 2 (those ending at 6.0, the run's end, belong to the last window).
// Tokens by event time: each request puts 9 tokens in its own window and its
// last in the next: w0 9, w1 1 + 36, w2-w4 4 + 36, w5 4 + 20.
// The plateau is the median of {1, 4, 4, 4, 4, 2} = 4; windows 1-4 are within
// 10% of it, so the steady span is [1 s, 5 s): 157 tokens and 13 completions
// over 4 s.
RunResult Ramp() {
  RunResult run;
  int64_t id = 0;
  run.requests.push_back(OneSecond(id++, 0));
  for (int t = 1; t <= 4; ++t)
    for (int stream = 0; stream < 4; ++stream) run.requests.push_back(OneSecond(id++, t));
  run.requests.push_back(OneSecond(id++, 5));
  run.requests.push_back(OneSecond(id++, 5));
  return run;
}

// Times at the ends of int64 (a forged or damaged shard record) give wide
// windows, never a wrapped window count (the vector::_M_default_append).
TEST(TimesliceTest, TimesAtTheEndsOfTheRangeNeitherWrapNorAllocate) {
  for (const Nanos end : {std::numeric_limits<Nanos>::max(), std::numeric_limits<Nanos>::max() - 1}) {
    RunResult run = Ramp();
    run.requests[1].end_ns = end;
    run.requests[2].scheduled_ns = std::numeric_limits<Nanos>::min();
    run.requests[2].sent_ns = std::numeric_limits<Nanos>::min();
    for (const double slice : {0.0, 0.001, 86400.0}) {
      TimesliceOptions o;
      o.slice_s = slice;
      const Timeslices t = ComputeTimeslices(run, o);
      EXPECT_GE(t.slices.size(), 1u);
      EXPECT_LE(t.slices.size(), static_cast<size_t>(kMaxWindows));
      int64_t completed = 0;
      for (const auto& w : t.slices) completed += w.completed;
      EXPECT_EQ(completed, static_cast<int64_t>(run.requests.size()));
    }
  }
}

TEST(TimesliceTest, HandMadeRampGivesKnownWindowsAndSteadySpan) {
  TimesliceOptions o;
  o.slice_s = 1;
  const Timeslices t = ComputeTimeslices(Ramp(), o);
  ASSERT_EQ(t.slices.size(), 6u);
  const int64_t completed[] = {0, 1, 4, 4, 4, 6};
  const int64_t tokens[] = {9, 37, 40, 40, 40, 24};
  const double in_flight[] = {1, 4, 4, 4, 4, 2};
  const Phase phase[] = {Phase::kRampUp, Phase::kSteady, Phase::kSteady,
                         Phase::kSteady, Phase::kSteady, Phase::kRampDown};
  for (size_t k = 0; k < 6; ++k) {
    SCOPED_TRACE(k);
    EXPECT_DOUBLE_EQ(t.slices[k].start_s, static_cast<double>(k));
    EXPECT_DOUBLE_EQ(t.slices[k].end_s, static_cast<double>(k + 1));
    EXPECT_EQ(t.slices[k].completed, completed[k]);
    EXPECT_EQ(t.slices[k].output_tokens, tokens[k]);
    EXPECT_DOUBLE_EQ(t.slices[k].output_throughput, static_cast<double>(tokens[k]));
    EXPECT_DOUBLE_EQ(t.slices[k].request_throughput, static_cast<double>(completed[k]));
    EXPECT_DOUBLE_EQ(t.slices[k].mean_in_flight, in_flight[k]);
    EXPECT_EQ(t.slices[k].phase, phase[k]);
    if (completed[k] > 0) {
      EXPECT_DOUBLE_EQ(t.slices[k].ttft_p50_ms, 100);
      EXPECT_DOUBLE_EQ(t.slices[k].tpot_p99_ms, 100);
    }
  }
  EXPECT_DOUBLE_EQ(t.plateau_in_flight, 4);
  ASSERT_TRUE(t.steady);
  EXPECT_DOUBLE_EQ(t.steady_start_s, 1);
  EXPECT_DOUBLE_EQ(t.steady_end_s, 5);
  EXPECT_EQ(t.steady_output_tokens, 157);
  EXPECT_EQ(t.steady_completed, 13);
  EXPECT_DOUBLE_EQ(t.steady_output_throughput, 157.0 / 4);
  EXPECT_DOUBLE_EQ(t.steady_request_throughput, 13.0 / 4);

  // The same through Summarize and the result JSON, beside the whole run's
  // 190 tokens over 6 s.
  SummaryOptions so;
  so.timeslice = o;
  const Summary s = Summarize(Ramp(), so);
  EXPECT_DOUBLE_EQ(s.output_throughput, 190.0 / 6);
  EXPECT_DOUBLE_EQ(s.timeslices.steady_output_throughput, 157.0 / 4);
  const nlohmann::json j = ResultToJson(Ramp(), s, so);
  EXPECT_DOUBLE_EQ(j["steady_output_throughput"].get<double>(), 157.0 / 4);
  EXPECT_DOUBLE_EQ(j["timeslices"]["steady"]["start_s"].get<double>(), 1);
  EXPECT_EQ(j["timeslices"]["windows"]["phase"][0], "ramp_up");
  EXPECT_EQ(j["timeslices"]["windows"]["completed"][5], 6);
  Result<Summary> back = SummaryFromResultJson(j, "test");
  ASSERT_TRUE(back.ok());
  EXPECT_DOUBLE_EQ(back->timeslices.steady_output_throughput, 157.0 / 4);
}

// Per-window percentiles over the requests ending there, the usage count's
// extra tokens at the end, and warm-up, failed and cancelled requests.
TEST(TimesliceTest, WindowPercentilesUsageRemainderAndExclusions) {
  RunResult run;
  // Four requests [0, 1 s) with TTFT 100, 200, 300, 400 ms; 2 events each but
  // 5 output tokens (the server's usage): 3 tokens count at the end.
  for (int i = 0; i < 4; ++i) {
    RequestRecord r;
    r.id = i;
    r.ok = true;
    r.scheduled_ns = r.sent_ns = 0;
    r.first_token_ns = (i + 1) * kTenth;
    r.events = {{r.first_token_ns, 1}, {kS / 2, 1}};
    r.end_ns = kS - 1;
    r.output_tokens = 5;
    run.requests.push_back(r);
  }
  RequestRecord warm = run.requests[0];
  warm.warmup = true;
  warm.scheduled_ns = warm.sent_ns = -5 * kS;  // would move t0 if counted
  run.requests.push_back(warm);
  RequestRecord failed = run.requests[0];
  failed.ok = false;
  failed.end_ns = kS / 2;  // in flight [0, 0.5 s), no tokens or latencies
  run.requests.push_back(failed);
  RequestRecord cancelled = run.requests[0];
  cancelled.ok = false;
  cancelled.cancelled = true;
  cancelled.end_ns = 3 * kS;  // would stretch the run if counted
  run.requests.push_back(cancelled);

  TimesliceOptions o;
  o.slice_s = 0.5;
  const Timeslices t = ComputeTimeslices(run, o);
  ASSERT_EQ(t.slices.size(), 2u);  // [0, 0.5), [0.5, 1 s - 1 ns]
  EXPECT_EQ(t.slices[0].completed, 0);
  EXPECT_EQ(t.slices[1].completed, 4);
  // Events: 4 first tokens before 0.5 s; 4 at 0.5 s; 4 x 3 at the ends.
  EXPECT_EQ(t.slices[0].output_tokens, 4);
  EXPECT_EQ(t.slices[1].output_tokens, 16);
  // TTFT {100, 200, 300, 400}: p50 250, p99 at rank 2.97 = 397 (linear).
  EXPECT_DOUBLE_EQ(t.slices[1].ttft_p50_ms, 250);
  EXPECT_NEAR(t.slices[1].ttft_p99_ms, 397, 1e-9);
  // The failed request is in flight in the first window: 5 over 0.5 s.
  EXPECT_DOUBLE_EQ(t.slices[0].mean_in_flight, 5);
  EXPECT_DOUBLE_EQ(t.slices[1].mean_in_flight, 4);
  // Two windows are too few to tell a steady span.
  EXPECT_FALSE(t.steady);
  for (const auto& w : t.slices) EXPECT_EQ(w.phase, Phase::kNone);
}

// Tokens go to the window of their event, in whatever order the events come,
// capped at the request's count (the rest of the count at its end); events
// before t0 count in the first window, after the last end in the last.
TEST(TimesliceTest, TokensByEventOutOfOrderCappedAndOutsideTheRun) {
  RunResult run;
  RequestRecord a;  // 7 tokens: events of 2, 3, 1 (out of order), 4 (capped to 1), 2 (nothing left)
  a.id = 0;
  a.ok = true;
  a.scheduled_ns = a.sent_ns = 0;
  a.events = {{kS / 2, 2}, {5 * kS / 2, 3}, {3 * kS / 2, 1}, {7 * kS / 2, 4}, {37 * kTenth, 2}};
  a.first_token_ns = kS / 2;
  a.end_ns = 4 * kS;  // the run's end: four 1 s windows
  a.output_tokens = 7;
  RequestRecord b;  // 10 tokens: events of 1 (before t0), -2 (none), 2 (at 1 s), 3 (after t1); 4 at its end
  b.id = 1;
  b.ok = true;
  b.scheduled_ns = b.sent_ns = 0;
  b.events = {{-kS, 1}, {9 * kTenth, -2}, {kS, 2}, {10 * kS, 3}};
  b.first_token_ns = kTenth;
  b.end_ns = 32 * kTenth;
  b.output_tokens = 10;
  run.requests = {a, b};
  TimesliceOptions o;
  o.slice_s = 1;
  const Timeslices t = ComputeTimeslices(run, o);
  ASSERT_EQ(t.slices.size(), 4u);
  // a: 2, 1, 3, 1; b: 1, 2, 0, 3 + 4.
  EXPECT_EQ(t.slices[0].output_tokens, 3);
  EXPECT_EQ(t.slices[1].output_tokens, 3);
  EXPECT_EQ(t.slices[2].output_tokens, 3);
  EXPECT_EQ(t.slices[3].output_tokens, 8);
}

// An open loop's noise: windows that stray from the plateau between the
// first and the last level window stay in the steady span.
TEST(TimesliceTest, WindowsThatStrayBetweenLevelOnesStaySteady) {
  // In flight per 1 s window: 2, 8, 6, 9, 8, 8, 1 (requests [k, k+1 s)).
  const int counts[] = {2, 8, 6, 9, 8, 8, 1};
  RunResult run;
  for (int k = 0; k < 7; ++k)
    for (int i = 0; i < counts[k]; ++i) {
      RequestRecord r = OneSecond(static_cast<int64_t>(run.requests.size()), k);
      run.requests.push_back(r);
    }
  TimesliceOptions o;
  o.slice_s = 1;
  const Timeslices t = ComputeTimeslices(run, o);
  ASSERT_EQ(t.slices.size(), 7u);
  // Median of {1, 2, 6, 8, 8, 8, 9} = 8; level within [7.2, 8.8]: windows 1, 4, 5.
  EXPECT_DOUBLE_EQ(t.plateau_in_flight, 8);
  ASSERT_TRUE(t.steady);
  EXPECT_DOUBLE_EQ(t.steady_start_s, 1);
  EXPECT_DOUBLE_EQ(t.steady_end_s, 6);
  const Phase phase[] = {Phase::kRampUp, Phase::kSteady, Phase::kSteady, Phase::kSteady,
                         Phase::kSteady, Phase::kSteady, Phase::kRampDown};
  for (size_t k = 0; k < 7; ++k) EXPECT_EQ(t.slices[k].phase, phase[k]) << k;
  // Tokens in [1, 6 s): 9 a request in its own window, 1 in the next: windows 1-5
  // hold 9 x (8 + 6 + 9 + 8 + 8) + (2 + 8 + 6 + 9 + 8) = 351 + 33 = 384.
  EXPECT_EQ(t.steady_output_tokens, 384);
  EXPECT_DOUBLE_EQ(t.steady_output_throughput, 384.0 / 5);
}

TEST(TimesliceTest, AutomaticWindowAndBadOptions) {
  EXPECT_DOUBLE_EQ(AutoSliceSeconds(600), 20);   // 600 / 30 = 20
  EXPECT_DOUBLE_EQ(AutoSliceSeconds(61), 5);     // 2.03 -> 5
  EXPECT_DOUBLE_EQ(AutoSliceSeconds(0.3), 0.01);
  EXPECT_DOUBLE_EQ(AutoSliceSeconds(0), 0.001);
  TimesliceOptions o;
  o.slice_s = 0;
  const Timeslices t = ComputeTimeslices(Ramp(), o);  // 6 s: 0.2 s windows
  EXPECT_DOUBLE_EQ(t.slice_s, 0.2);
  EXPECT_EQ(t.slices.size(), 30u);
  EXPECT_TRUE(CheckTimesliceOptions(o).ok());
  o.slice_s = -1;
  Status bad = CheckTimesliceOptions(o);
  EXPECT_FALSE(bad.ok());
  EXPECT_NE(bad.message().find("--timeslice"), std::string::npos);
  o.slice_s = 1;
  o.steady_tolerance = 1.5;
  EXPECT_FALSE(CheckTimesliceOptions(o).ok());
  EXPECT_TRUE(ComputeTimeslices(RunResult{}, TimesliceOptions{}).slices.empty());
  // A window far shorter than the run is widened to duration / kMaxWindows.
  o.slice_s = 0.001;
  o.steady_tolerance = 0.1;
  RunResult longer = Ramp();
  longer.requests.back().end_ns = 1'000'000 * kS;
  const Timeslices wide = ComputeTimeslices(longer, o);
  EXPECT_EQ(static_cast<int64_t>(wide.slices.size()), kMaxWindows);
  EXPECT_DOUBLE_EQ(wide.slice_s, 10);
}

}  // namespace
}  // namespace frontier::metrics
