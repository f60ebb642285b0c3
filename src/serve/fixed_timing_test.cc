#include "serve/fixed_timing.h"

#include <gtest/gtest.h>

namespace frontier::serve {
namespace {

FixedProfile Profile(double ttft, double itl, int k, double scale = 1, int64_t slots = 0) {
  FixedProfile p;
  p.ttft_ms = ttft;
  p.itl_ms = itl;
  p.tokens_per_event = k;
  p.time_scale = scale;
  p.slots = slots;
  return p;
}

TEST(FixedTiming, EventsFollowTtftThenItl) {
  FixedTiming t(Profile(50, 10, 1));
  ASSERT_TRUE(t.Add(1, 100, 3, 1000).ok());
  EXPECT_EQ(t.NextWakeup(), 1000 + 50 * kNanosPerMilli);
  std::vector<Emission> out;
  t.Poll(1000 + 50 * kNanosPerMilli - 1, out);
  EXPECT_TRUE(out.empty());
  t.Poll(1000 + 200 * kNanosPerMilli, out);  // late poll: planned times are kept
  ASSERT_EQ(out.size(), 3u);
  EXPECT_EQ(out[0].due_ns, 1000 + 50 * kNanosPerMilli);
  EXPECT_EQ(out[1].due_ns, 1000 + 60 * kNanosPerMilli);
  EXPECT_EQ(out[2].due_ns, 1000 + 70 * kNanosPerMilli);
  EXPECT_FALSE(out[1].last);
  EXPECT_TRUE(out[2].last);
  EXPECT_EQ(t.NextWakeup(), kNever);
  EXPECT_EQ(t.Stats().running, 0);
}

TEST(FixedTiming, TokensPerEventAndTimeScale) {
  FixedTiming t(Profile(100, 20, 4, /*scale=*/10));
  ASSERT_TRUE(t.Add(7, 1, 10, 0).ok());
  std::vector<Emission> out;
  t.Poll(kNanosPerSecond, out);
  ASSERT_EQ(out.size(), 3u);  // 4 + 4 + 2
  EXPECT_EQ(out[0].tokens, 4);
  EXPECT_EQ(out[2].tokens, 2);
  EXPECT_EQ(out[0].due_ns, 10 * kNanosPerMilli);
  EXPECT_EQ(out[1].due_ns, 12 * kNanosPerMilli);
}

TEST(FixedTiming, CancelStopsEmissionsAtOnce) {
  FixedTiming t(Profile(10, 10, 1));
  ASSERT_TRUE(t.Add(1, 1, 100, 0).ok());
  ASSERT_TRUE(t.Add(2, 1, 2, 0).ok());
  EXPECT_EQ(t.Stats().running, 2);
  t.Cancel(1);
  EXPECT_EQ(t.Stats().running, 1);
  std::vector<Emission> out;
  t.Poll(kNanosPerSecond, out);
  for (const auto& e : out) EXPECT_EQ(e.id, 2u);
  EXPECT_EQ(out.size(), 2u);
}

TEST(FixedTiming, RejectsBadProfiles) {
  EXPECT_FALSE(ValidateFixedProfile(Profile(-1, 10, 1)).ok());
  EXPECT_FALSE(ValidateFixedProfile(Profile(1, 10, 0)).ok());
  EXPECT_FALSE(ValidateFixedProfile(Profile(1, 10, 1, 0)).ok());
  EXPECT_NE(ValidateFixedProfile(Profile(1, 10, 0)).message().find("--tokens-per-event"), std::string::npos);
  EXPECT_TRUE(ValidateFixedProfile(Profile(0, 0, 1)).ok());
  EXPECT_NE(ValidateFixedProfile(Profile(1, 1, 1, 1, -1)).message().find("--slots"), std::string::npos);
}

// Two slots, three requests of 3 tokens (ttft 50, itl 10: each holds a slot
// 70 ms): the third waits for the first slot to free at 70 ms, so its events
// are due at 70 + 50, 70 + 60, 70 + 70 ms.
TEST(FixedTiming, SlotsQueueFirstComeFirstServed) {
  FixedTiming t(Profile(50, 10, 1, 1, /*slots=*/2));
  const Nanos ms = kNanosPerMilli;
  ASSERT_TRUE(t.Add(1, 1, 3, 0).ok());
  ASSERT_TRUE(t.Add(2, 1, 3, 5 * ms).ok());
  ASSERT_TRUE(t.Add(3, 1, 3, 6 * ms).ok());
  EXPECT_EQ(t.Stats().running, 2);
  EXPECT_EQ(t.Stats().waiting, 1);
  std::vector<Emission> out;
  t.Poll(kNanosPerSecond, out);
  ASSERT_EQ(out.size(), 9u);
  std::vector<Nanos> third;
  for (const auto& e : out)
    if (e.id == 3) third.push_back(e.due_ns);
  EXPECT_EQ(third, (std::vector<Nanos>{120 * ms, 130 * ms, 140 * ms}));
  EXPECT_EQ(t.Stats().running, 0);
  EXPECT_EQ(t.Stats().waiting, 0);
}

// Cancelling a running request frees its slot at the latest time seen;
// cancelling a waiting one removes it from the queue.
TEST(FixedTiming, CancelFreesASlot) {
  FixedTiming t(Profile(50, 10, 1, 1, /*slots=*/1));
  const Nanos ms = kNanosPerMilli;
  ASSERT_TRUE(t.Add(1, 1, 100, 0).ok());
  ASSERT_TRUE(t.Add(2, 1, 1, 1 * ms).ok());
  ASSERT_TRUE(t.Add(3, 1, 1, 2 * ms).ok());
  t.Cancel(2);  // waiting
  std::vector<Emission> out;
  t.Poll(20 * ms, out);
  EXPECT_TRUE(out.empty());
  t.Cancel(1);  // running: request 3 starts at 20 ms
  t.Poll(kNanosPerSecond, out);
  ASSERT_EQ(out.size(), 1u);
  EXPECT_EQ(out[0].id, 3u);
  EXPECT_EQ(out[0].due_ns, 70 * ms);
}

// The server's loop on a ManualClock: the clock moves to each NextWakeup and
// Poll reads it, so every event comes out exactly when it is due, and the
// loop wakes once per due time. Request 2 waits for the one slot, which
// frees when request 1's last event is due (70 ms).
TEST(FixedTiming, ALoopOnAManualClockMeetsEveryEventWhenDue) {
  FixedTiming t(Profile(50, 10, 1, 1, /*slots=*/1));
  const Nanos ms = kNanosPerMilli;
  ManualClock clock(1'000 * ms);
  const Nanos t0 = clock.Now();
  ASSERT_TRUE(t.Add(1, 1, 3, clock.Now()).ok());
  clock.Advance(5 * ms);
  ASSERT_TRUE(t.Add(2, 1, 2, clock.Now()).ok());
  std::vector<Nanos> wakes;
  std::vector<std::pair<uint64_t, Nanos>> events;  // id, due - t0
  std::vector<Emission> out;
  while (t.NextWakeup() != kNever) {
    ASSERT_GE(t.NextWakeup(), clock.Now()) << "a wakeup in the past";
    clock.Set(t.NextWakeup());
    wakes.push_back(clock.Now() - t0);
    out.clear();
    t.Poll(clock.Now(), out);
    ASSERT_FALSE(out.empty()) << "woken for nothing at " << clock.Now() - t0;
    for (const auto& e : out) {
      EXPECT_EQ(e.due_ns, clock.Now());
      events.emplace_back(e.id, e.due_ns - t0);
    }
  }
  EXPECT_EQ(wakes, (std::vector<Nanos>{50 * ms, 60 * ms, 70 * ms, 120 * ms, 130 * ms}));
  const std::vector<std::pair<uint64_t, Nanos>> want = {
      {1, 50 * ms}, {1, 60 * ms}, {1, 70 * ms}, {2, 120 * ms}, {2, 130 * ms}};
  EXPECT_EQ(events, want);
}

}  // namespace
}  // namespace frontier::serve
