#include "power/sampler.h"

#include <algorithm>
#include <chrono>

namespace frontier::power {

PowerSampler::PowerSampler(PowerSource* source, Nanos interval_ns, const Clock& clock)
    : source_(source), interval_ns_(std::max<Nanos>(interval_ns, kNanosPerMilli)), clock_(clock) {}

PowerSampler::~PowerSampler() {
  {
    std::lock_guard<std::mutex> lock(mu_);
    stop_ = true;
  }
  wake_.notify_all();
  if (thread_.joinable()) thread_.join();
}

void PowerSampler::ReadOnce() {
  PowerReading r;
  const Nanos before = clock_.Now();
  Status st = source_->Read(&r);
  const Nanos after = clock_.Now();
  r.t_ns = before + (after - before) / 2;
  std::lock_guard<std::mutex> lock(mu_);
  if (!st.ok()) {
    ++series_.failures;
    series_.last_error = st.message();
    return;
  }
  series_.readings.push_back(std::move(r));
}

void PowerSampler::Start() {
  const Nanos first = clock_.Now();
  ReadOnce();
  thread_ = std::thread([this, first] { Loop(first); });
}

void PowerSampler::Loop(Nanos first) {
  Nanos next = first;
  for (;;) {
    // Behind (a slow source): read at once, then keep the interval from there.
    next = std::max(next + interval_ns_, clock_.Now());
    {
      std::unique_lock<std::mutex> lock(mu_);
      // The clock may be a fake: wait on the steady clock for the distance to `next`.
      const Nanos wait = std::max<Nanos>(0, next - clock_.Now());
      if (wake_.wait_for(lock, std::chrono::nanoseconds(wait), [this] { return stop_; })) return;
    }
    ReadOnce();
  }
}

PowerSampler::Series PowerSampler::Stop() {
  {
    std::lock_guard<std::mutex> lock(mu_);
    stop_ = true;
  }
  wake_.notify_all();
  if (thread_.joinable()) thread_.join();
  ReadOnce();
  std::lock_guard<std::mutex> lock(mu_);
  return std::move(series_);
}

}  // namespace frontier::power
