#include "power/sampler.h"

#include <algorithm>

namespace frontier::power {

PowerSampler::PowerSampler(PowerSource* source, Nanos interval_ns, const Clock& clock)
    : source_(source), interval_ns_(std::max<Nanos>(interval_ns, kNanosPerMilli)), clock_(clock) {}

PowerSampler::~PowerSampler() { ticker_.Stop(); }

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
  ticker_.Start(first, interval_ns_, clock_, [this] { ReadOnce(); });
}

PowerSampler::Series PowerSampler::Stop() {
  ticker_.Stop();
  ReadOnce();
  std::lock_guard<std::mutex> lock(mu_);
  return std::move(series_);
}

}  // namespace frontier::power
