#include "core/periodic_thread.h"

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <thread>

namespace frontier {
namespace {

TEST(PeriodicThreadTest, TicksUntilStoppedAndNeverAfter) {
  std::atomic<int> ticks{0};
  PeriodicThread t;
  const Clock& clock = SteadyClock::Get();
  t.Start(clock.Now(), kNanosPerMilli, clock, [&] { ++ticks; });
  while (ticks.load() < 3) std::this_thread::sleep_for(std::chrono::milliseconds(1));
  t.Stop();
  const int at_stop = ticks.load();
  std::this_thread::sleep_for(std::chrono::milliseconds(10));
  EXPECT_EQ(ticks.load(), at_stop);
  t.Stop();  // a second Stop is harmless
}

TEST(PeriodicThreadTest, StopWakesALongWaitAtOnce) {
  PeriodicThread t;
  const Clock& clock = SteadyClock::Get();
  bool ticked = false;
  t.Start(clock.Now(), 3600 * kNanosPerSecond, clock, [&] { ticked = true; });
  const Nanos before = clock.Now();
  t.Stop();
  EXPECT_LT(clock.Now() - before, 5 * kNanosPerSecond);
  EXPECT_FALSE(ticked);
}

TEST(PeriodicThreadTest, AnUnstartedThreadStops) {
  PeriodicThread t;
  t.Stop();
}

}  // namespace
}  // namespace frontier
