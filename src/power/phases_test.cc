#include "power/phases.h"

#include <cmath>

#include <gtest/gtest.h>

#include "power/integrate.h"

namespace frontier::power {
namespace {

constexpr Nanos kMs = kNanosPerSecond / 1000;
const double kNaN = std::nan("");

// One GPU read every 50 ms from -0.1 s to 4.1 s: 1000 W up to 1.0 s, 600 W from
// 1.05 s to 3.0 s, 100 W from 3.05 s on (the power between two readings is
// linear: a ramp over the 50 ms after 1.0 s and after 3.0 s).
std::vector<PowerReading> Readings() {
  std::vector<PowerReading> r;
  for (int k = -2; k <= 82; ++k) {
    const Nanos t = k * 50 * kMs;
    const double w = t <= 1000 * kMs ? 1000 : t <= 3000 * kMs ? 600 : 100;
    r.push_back({t, {kNaN}, {w}});
  }
  return r;
}

// One request: sent at 0, its first token at 0.99 s (the prefill), then one
// token every 100 ms from 1.1 s to 2.9 s, ended at 2.95 s; 500 prompt tokens.
RequestRecord Request() {
  RequestRecord q;
  q.ok = true;
  q.prompt_tokens = 500;
  q.sent_ns = 0;
  q.first_token_ns = 990 * kMs;
  q.events.push_back({990 * kMs, 1});
  for (int i = 11; i <= 29; ++i) q.events.push_back({i * 100 * kMs, 1});
  q.end_ns = 2950 * kMs;
  return q;
}

TEST(PhasesTest, WindowsAreChargedToPrefillDecodeOrIdleByHand) {
  RequestRecord never;  // sent, never ended: no interval, no tokens
  never.sent_ns = 100 * kMs;
  auto p = SplitByPhase(Readings(), {"gpu0"}, {Request(), never}, 0, 0, 4000 * kMs, 500 * kMs);
  ASSERT_TRUE(p.ok()) << p.status().message();
  EXPECT_DOUBLE_EQ(p->slice_s, 0.5);
  // Prefill [0, 0.99 s] touches windows 0 and 1: 1 s at 1000 W.
  EXPECT_EQ(p->prefill.windows, 2);
  EXPECT_DOUBLE_EQ(p->prefill.seconds, 1.0);
  EXPECT_NEAR(p->prefill.joules, 1000, 1e-9);
  EXPECT_EQ(p->prefill.prompt_tokens, 500);
  EXPECT_EQ(p->prefill.output_tokens, 1);  // the first token, at 0.99 s
  // In flight to 2.95 s: windows 2..5 decode; the ramp 1000 -> 600 W over [1.0, 1.05] is 40 J.
  EXPECT_EQ(p->decode.windows, 4);
  EXPECT_NEAR(p->decode.joules, 40 + 600 * 1.95, 1e-9);
  EXPECT_EQ(p->decode.output_tokens, 19);
  // Nothing in flight in [3.0, 4.0]: the ramp 600 -> 100 W (17.5 J), then 100 W.
  EXPECT_EQ(p->idle.windows, 2);
  EXPECT_NEAR(p->idle.joules, 17.5 + 95, 1e-9);
  EXPECT_EQ(p->idle.output_tokens, 0);
  // The phases sum to the whole window's energy.
  auto whole = Integrate(Readings(), {"gpu0"}, 0, 4000 * kMs);
  ASSERT_TRUE(whole.ok());
  EXPECT_NEAR(p->prefill.joules + p->decode.joules + p->idle.joules, whole->joules, 1e-9);
  EXPECT_NEAR(p->decode_joules_per_output_token, 1210.0 / 19, 1e-12);
  EXPECT_NEAR(p->prefill_joules_per_prompt_token, (1000 - 1210.0 / 19) / 500, 1e-12);
}

TEST(PhasesTest, ALastWindowShorterThanTheSliceAndNoDecodeRate) {
  // Only the prefill, cut at 0.75 s: windows [0, 0.5] and [0.5, 0.75], both prefill;
  // no decode-only window, so neither rate is given.
  auto p = SplitByPhase(Readings(), {"gpu0"}, {Request()}, 0, 0, 750 * kMs, 500 * kMs);
  ASSERT_TRUE(p.ok()) << p.status().message();
  EXPECT_EQ(p->prefill.windows, 2);
  EXPECT_DOUBLE_EQ(p->prefill.seconds, 0.75);
  EXPECT_NEAR(p->prefill.joules, 750, 1e-9);
  EXPECT_EQ(p->decode.windows, 0);
  EXPECT_EQ(p->decode_joules_per_output_token, 0);
  EXPECT_EQ(p->prefill_joules_per_prompt_token, 0);
}

TEST(PhasesTest, RequestTimesAreShiftedByTheOrigin) {
  // The sampler's clock runs 10 s ahead of the requests' origin.
  std::vector<PowerReading> r = Readings();
  for (auto& x : r) x.t_ns += 10'000 * kMs;
  auto p = SplitByPhase(r, {"gpu0"}, {Request()}, 10'000 * kMs, 0, 4000 * kMs, 500 * kMs);
  ASSERT_TRUE(p.ok()) << p.status().message();
  EXPECT_NEAR(p->prefill.joules, 1000, 1e-9);
  EXPECT_EQ(p->decode.output_tokens, 19);
}

TEST(PhasesTest, RefusesAnEmptyWindowTooManyWindowsAndReadingsThatDoNotCoverIt) {
  EXPECT_FALSE(SplitByPhase(Readings(), {"gpu0"}, {Request()}, 0, 1000 * kMs, 1000 * kMs, 500 * kMs).ok());
  EXPECT_FALSE(SplitByPhase(Readings(), {"gpu0"}, {Request()}, 0, 0, 4000 * kMs, 0).ok());
  auto many = SplitByPhase(Readings(), {"gpu0"}, {Request()}, 0, 0, 4000 * kMs, 1);  // 4e9 windows
  ASSERT_FALSE(many.ok());
  EXPECT_NE(many.status().message().find("windows"), std::string::npos);
  EXPECT_FALSE(SplitByPhase(Readings(), {"gpu0"}, {Request()}, 0, 0, 9000 * kMs, 500 * kMs).ok());
}

}  // namespace
}  // namespace frontier::power
