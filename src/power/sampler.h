// sampler.h: reads a PowerSource at a fixed interval on a thread of its own,
// so the load generator's timing core never waits on a power reading.
//
//   PowerSampler sampler(source.get(), 100 * kNanosPerMilli);
//   sampler.Start();                  // one reading now, then one per interval
//   ... the measured run ...
//   PowerSampler::Series s = sampler.Stop();   // one last reading, then the series
//   Result<EnergyMeasurement> e = Integrate(s.readings, source->Devices(), a, b);
//
// Each reading is stamped with the midpoint of the clock's readings just
// before and just after the source answered. A failed reading is counted and
// its reason kept; it never stops the run.
//
// Thread safety: Start and Stop from one thread; the sampling thread touches
// the source and the sampler's own state under its lock.
#pragma once

#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "core/clock.h"
#include "core/periodic_thread.h"
#include "power/source.h"

namespace frontier::power {

class PowerSampler {
 public:
  struct Series {
    std::vector<PowerReading> readings;  // in time order
    int64_t failures = 0;
    std::string last_error;
  };

  // `source` must outlive the sampler; `clock` is read on both threads
  // (SteadyClock by default).
  PowerSampler(PowerSource* source, Nanos interval_ns, const Clock& clock = SteadyClock::Get());
  ~PowerSampler();  // stops the thread if Stop() was not called
  PowerSampler(const PowerSampler&) = delete;
  PowerSampler& operator=(const PowerSampler&) = delete;

  // Takes the first reading before returning, then starts the thread.
  void Start();
  // Stops the thread, takes a last reading and returns every reading.
  Series Stop();

 private:
  void ReadOnce();

  PowerSource* source_;
  Nanos interval_ns_;
  const Clock& clock_;
  std::mutex mu_;
  Series series_;  // guarded by mu_
  PeriodicThread ticker_;
};

}  // namespace frontier::power
