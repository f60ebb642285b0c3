#include "serve/sim_timing.h"

#include <gtest/gtest.h>

#include <algorithm>

#include "sim/engine/config.h"

namespace frontier::serve {
namespace {

sim::SimConfig Config(int spec_tokens = 0) {
  sim::SimSpec spec;
  spec.model = "llama-3.1-70b";
  spec.hardware = "h200";
  spec.gpus = 8;
  spec.tp = 8;
  spec.precision = "fp8";
  spec.spec_tokens = spec_tokens;
  auto c = sim::ResolveSimConfig(spec);
  EXPECT_TRUE(c.ok()) << c.status().message();
  return *c;
}

// One request on the same engine, stepped by hand: the end of each step that
// emits, from the start of the first.
std::vector<Nanos> Schedule(const sim::SimConfig& config, int32_t prompt_tokens, int32_t output_tokens) {
  sim::Engine reference(config);
  EXPECT_TRUE(reference.Add(1, prompt_tokens, output_tokens).ok());
  std::vector<Nanos> ends;
  Nanos v = 0;
  while (!reference.Idle()) {
    const auto step = NextStep(reference);
    v += step.duration_ns;
    if (!step.emissions.empty()) ends.push_back(v);
  }
  return ends;
}

TEST(SimTiming, IdleEngineStartsAtTheArrivalAndStepsChainOnPlannedTimes) {
  const sim::SimConfig config = Config();
  SimTiming t(config, 1.0, 131072);
  const std::vector<Nanos> want = Schedule(config, 500, 3);
  ASSERT_EQ(want.size(), 3u);

  const Nanos arrival = 1'000'000;
  EXPECT_EQ(t.NextWakeup(), kNever);
  ASSERT_TRUE(t.Add(1, 500, 3, arrival).ok());
  EXPECT_LE(t.NextWakeup(), arrival);  // due now: plan an iteration
  std::vector<Emission> out;
  t.Poll(arrival + 200'000, out);  // the loop came round 0.2 ms later
  EXPECT_TRUE(out.empty());
  EXPECT_EQ(t.NextWakeup(), arrival + want[0]);  // but the step started at the arrival
  t.Poll(arrival + want[2] + 5'000'000, out);  // 5 ms late: planned times are kept
  ASSERT_EQ(out.size(), 3u);
  for (size_t i = 0; i < 3; ++i) {
    EXPECT_EQ(out[i].due_ns, arrival + want[i]);
    EXPECT_EQ(out[i].tokens, 1);
    EXPECT_EQ(out[i].last, i == 2);
  }
  EXPECT_EQ(t.NextWakeup(), kNever);
  EXPECT_EQ(t.Stats().running, 0);
}

// The server's loop on a ManualClock: the clock moves to each wakeup (an
// idle engine's "due now" leaves it where it is) and Poll reads it. Every
// step's tokens come out exactly when the step ends, and the steps follow
// the engine's own schedule from the arrival on.
TEST(SimTiming, ALoopOnAManualClockMeetsEveryStepWhenItEnds) {
  const sim::SimConfig config = Config();
  SimTiming t(config, 1.0, 131072);
  const std::vector<Nanos> want = Schedule(config, 500, 4);
  ManualClock clock(3 * kNanosPerSecond);
  const Nanos arrival = clock.Now();
  ASSERT_TRUE(t.Add(1, 500, 4, clock.Now()).ok());
  std::vector<Nanos> got;
  std::vector<Emission> out;
  while (t.NextWakeup() != kNever) {
    clock.Set(std::max(clock.Now(), t.NextWakeup()));
    out.clear();
    t.Poll(clock.Now(), out);
    for (const auto& e : out) {
      EXPECT_EQ(e.due_ns, clock.Now());
      got.push_back(e.due_ns - arrival);
    }
  }
  EXPECT_EQ(got, want);
}

TEST(SimTiming, TimeScaleDividesModelledDurations) {
  const sim::SimConfig config = Config();
  SimTiming slow(config, 1.0, 131072), fast(config, 10.0, 131072);
  ASSERT_TRUE(slow.Add(1, 1000, 2, 0).ok());
  ASSERT_TRUE(fast.Add(1, 1000, 2, 0).ok());
  std::vector<Emission> a, b;
  slow.Poll(kNanosPerSecond * 100, a);
  fast.Poll(kNanosPerSecond * 100, b);
  ASSERT_EQ(a.size(), 2u);
  ASSERT_EQ(b.size(), 2u);
  EXPECT_NEAR(static_cast<double>(b[1].due_ns), static_cast<double>(a[1].due_ns) / 10.0, 2.0);
}

TEST(SimTiming, MtpEmitsSeveralTokensPerEvent) {
  SimTiming t(Config(/*spec_tokens=*/3), 1.0, 131072);
  ASSERT_TRUE(t.Add(1, 100, 60, 0).ok());
  std::vector<Emission> out;
  t.Poll(kNanosPerSecond * 100, out);
  int total = 0, multi = 0;
  for (const auto& e : out) {
    total += e.tokens;
    multi += e.tokens > 1;
  }
  EXPECT_EQ(total, 60);
  EXPECT_GT(multi, 5);
  EXPECT_LT(out.size(), 40u);
}

TEST(SimTiming, CancelFreesKvAtOnceAndTooLongIsRejected) {
  SimTiming t(Config(), 1.0, 131072);
  ASSERT_TRUE(t.Add(1, 20000, 1000, 0).ok());
  std::vector<Emission> out;
  t.Poll(0, out);  // first iteration planned: KV allocated
  EXPECT_GT(t.Stats().kv_usage, 0);
  t.Cancel(1);
  EXPECT_EQ(t.Stats().kv_usage, 0);
  EXPECT_EQ(t.Stats().running, 0);
  EXPECT_FALSE(t.Add(2, 200000, 10, 0).ok());  // beyond the model's context
}

}  // namespace
}  // namespace frontier::serve
