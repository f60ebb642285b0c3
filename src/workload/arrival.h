// arrival.h: when each request is sent.
//
// The whole schedule is planned before a run starts (as MLPerf LoadGen does),
// from its own seeded random stream, so a run is reproducible and latency can
// be measured from the planned time.
//
// Open loop: inter-arrival gaps are Gamma(shape = burstiness,
// scale = 1 / (rate * burstiness)), as vLLM's benchmark draws them: mean gap
// 1/rate whatever the burstiness; burstiness 1 is a Poisson process, smaller
// is burstier, larger is more regular. A rate of infinity sends everything at
// time zero. Closed loop (max concurrency) is enforced by the load generator
// or the simulator on top of this schedule.
//
// Thread safety: pure function.
#pragma once

#include <cstdint>
#include <limits>
#include <vector>

#include "core/clock.h"
#include "core/status.h"

namespace frontier::workload {

struct ArrivalOptions {
  // Requests per second; infinity means all at once (closed loop only).
  double request_rate = std::numeric_limits<double>::infinity();
  double burstiness = 1.0;   // Gamma shape; must be > 0
  uint64_t seed = 0;
};

// Planned send times (ns from the run's start), non-decreasing. The first
// request is planned at 0 and each later one a drawn gap after the previous.
// Fails with InvalidArgument naming the flag for a non-positive rate or
// burstiness, a count past kMaxRunRequests, or a schedule whose last time
// would be past kMaxRunSeconds (core/limits.h), judged before it is stored.
Result<std::vector<Nanos>> PlanArrivals(int64_t count, const ArrivalOptions& options);

}  // namespace frontier::workload
