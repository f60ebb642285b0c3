#include "core/periodic_thread.h"

#include <algorithm>
#include <chrono>
#include <utility>

namespace frontier {

PeriodicThread::~PeriodicThread() { Stop(); }

void PeriodicThread::Start(Nanos first, Nanos interval_ns, const Clock& clock, std::function<void()> tick) {
  tick_ = std::move(tick);
  thread_ = std::thread([this, first, interval_ns, &clock] { Loop(first, interval_ns, clock); });
}

void PeriodicThread::Stop() {
  {
    std::lock_guard<std::mutex> lock(mu_);
    stop_ = true;
  }
  wake_.notify_all();
  if (thread_.joinable()) thread_.join();
}

void PeriodicThread::Loop(Nanos first, Nanos interval_ns, const Clock& clock) {
  Nanos next = first;
  for (;;) {
    next = std::max(next + interval_ns, clock.Now());
    {
      std::unique_lock<std::mutex> lock(mu_);
      const Nanos wait = std::max<Nanos>(0, next - clock.Now());
      if (wake_.wait_for(lock, std::chrono::nanoseconds(wait), [this] { return stop_; })) return;
    }
    tick_();
  }
}

}  // namespace frontier
