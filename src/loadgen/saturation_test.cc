// The over-saturation detector on constructed arrivals and completions whose
// checkpoints can be worked out by hand.
#include "loadgen/saturation.h"

#include <gtest/gtest.h>

namespace frontier::loadgen {
namespace {

constexpr Nanos kMs = kNanosPerMilli;

// 400 arrivals 100 ms apart (10 req/s).
std::vector<Nanos> Arrivals() {
  std::vector<Nanos> a;
  for (int i = 0; i < 400; ++i) a.push_back(i * 100 * kMs);
  return a;
}

// A stable system: every request gets its first token 500 ms after it arrives
// and ends 2 s later. The backlog settles at 25 and stays there: never tripped.
TEST(SaturationTest, StableSystemNeverTrips) {
  SaturationDetector d(Arrivals());
  for (int i = 0; i < 400; ++i) {
    const Nanos a = i * 100 * kMs;
    d.OnEnded(a, a + 500 * kMs, a + 2500 * kMs, true);
  }
  EXPECT_FALSE(d.Advance(40 * kNanosPerSecond).has_value());
}

// An overloaded one: request i ends at 2.5 s + 0.2 s x i (5 req/s), its first
// token 2 s before that. Then S = 2 s (decode) + 0.5 s (request 0's TTFT) and,
// at whole seconds t >= 3: A(t) = 10 t + 1, E(t) = 5 t - 12, B(t) = 5 t + 13.
// Checkpoint k (span from j = floor(k/2)) holds when j >= 2 x 2.5 = 5 s,
// A(k) - A(j) = 10 (k - j) >= 100 and B(k) - B(j) = 5 (k - j) >= 0.2 x 10 (k - j):
// first at k = 19 (j = 9, 100 arrivals), then 20 and 21: confirmed at 21 s.
TEST(SaturationTest, OverloadedSystemTripsAtTheHandComputedCheckpoint) {
  SaturationDetector d(Arrivals());
  for (int i = 0; i < 400; ++i) {
    const Nanos a = i * 100 * kMs;
    const Nanos end = 2500 * kMs + i * 200 * kMs;
    d.OnEnded(a, end - 2000 * kMs, end, true);
  }
  EXPECT_FALSE(d.Advance(20 * kNanosPerSecond).has_value());  // 19 and 20 hold: two of three
  const auto& f = d.Advance(40 * kNanosPerSecond);
  ASSERT_TRUE(f.has_value());
  EXPECT_EQ(f->at, 21 * kNanosPerSecond);
  EXPECT_EQ(f->span_start, 10 * kNanosPerSecond);
  EXPECT_EQ(f->span_arrivals, 110);      // A(21) - A(10) = 211 - 101
  EXPECT_EQ(f->span_ended, 55);          // E(21) - E(10) = 93 - 38
  EXPECT_EQ(f->backlog, 5 * 21 + 13);    // 118
  EXPECT_NE(f->Describe().find("at 21.0 s: 110 arrived and 55 ended in the last 11.0 s (10.00 vs 5.00 req/s)"),
            std::string::npos)
      << f->Describe();
}

// Requests reported after a checkpoint was evaluated do not change it; the
// detector needs every request that ended before `now`.
TEST(SaturationTest, OnlyEndsAtOrBeforeACheckpointCount) {
  SaturationDetector d(Arrivals());
  d.OnEnded(0, 100 * kMs, 30 * kNanosPerSecond, true);  // ends far in the future
  EXPECT_FALSE(d.Advance(29 * kNanosPerSecond).has_value());  // no request ended ok yet: not settled
}

// A closed loop (everything planned at 0) has no growing arrivals.
TEST(SaturationTest, ClosedLoopHasNothingToDetect) {
  SaturationDetector d(std::vector<Nanos>(400, 0));
  for (int i = 0; i < 400; ++i) d.OnEnded(0, i * 50 * kMs, i * 50 * kMs + kMs, true);
  EXPECT_FALSE(d.Advance(60 * kNanosPerSecond).has_value());
}

}  // namespace
}  // namespace frontier::loadgen
