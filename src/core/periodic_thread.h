// periodic_thread.h: calls one function at a fixed interval on a thread of
// its own until stopped, for the samplers that run beside a measured run
// (power/sampler.h, loadgen/metrics_scraper.h) and must never block it.
//
//   PeriodicThread ticker;
//   ticker.Start(clock.Now(), 100 * kNanosPerMilli, clock, [&] { ReadOnce(); });
//   ... the measured run ...
//   ticker.Stop();   // wakes the thread and joins it; no tick after it returns
//
// Ticks are due at first + interval, first + 2 * interval, ... on `clock`.
// Behind (a tick slower than the interval): the next tick runs at once and
// the interval is kept from there, so missed ticks are not made up in a burst.
// The wait itself is on the steady clock for the distance to the next tick,
// so a fake clock that does not move only delays ticks, never hangs Stop().
//
// Links: std only, as all of core/; a target that starts one links
// Threads::Threads itself (power/ and loadgen/ do), so core's own link line
// stays std-only for the layers that must link core alone.
//
// Thread safety: Start and Stop from one thread (the owner's); `tick` runs on
// the periodic thread and guards whatever it shares with the owner itself.
#pragma once

#include <condition_variable>
#include <functional>
#include <mutex>
#include <thread>

#include "core/clock.h"

namespace frontier {

class PeriodicThread {
 public:
  PeriodicThread() = default;
  ~PeriodicThread();  // Stop()
  PeriodicThread(const PeriodicThread&) = delete;
  PeriodicThread& operator=(const PeriodicThread&) = delete;

  // REQUIRES: not started. `clock` must outlive the thread; `interval_ns` > 0.
  void Start(Nanos first, Nanos interval_ns, const Clock& clock, std::function<void()> tick);
  // Wakes the thread and joins it. Safe to call more than once, or unstarted.
  void Stop();

 private:
  void Loop(Nanos first, Nanos interval_ns, const Clock& clock);

  std::function<void()> tick_;
  std::mutex mu_;
  std::condition_variable wake_;
  bool stop_ = false;  // guarded by mu_
  std::thread thread_;
};

}  // namespace frontier
