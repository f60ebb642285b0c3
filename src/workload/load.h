// load.h: how a workload is offered to a target, the same for `frontier bench`
// (a real or simulated server over HTTP) and `frontier simulate` (virtual time).
//
// Closed loop: at most `max_concurrency` requests in flight; a request is sent
// as soon as a slot is free and its planned time has come.
// Open loop: requests are sent at the planned times of PlanArrivals()
// (request_rate, burstiness). Both together: planned times, capped in flight.
//
// Thread safety: plain value.
#pragma once

#include <cstdint>
#include <limits>
#include <optional>

namespace frontier::workload {

struct LoadOptions {
  std::optional<int64_t> max_concurrency;                       // unset: no cap
  double request_rate = std::numeric_limits<double>::infinity();  // req/s; inf = all at once
  double burstiness = 1.0;                                        // Gamma shape; 1 = Poisson
  int64_t num_prompts = 1000;                                     // requests measured (after warm-up)
  std::optional<double> duration_s;                               // stop issuing after this long
  int64_t warmup = 0;                                             // extra requests sent first, left out of metrics
  uint64_t seed = 0;                                              // seeds the dataset and the arrivals
  // One shard of several processes sharing the schedule (`frontier bench
  // --shard i/k`): only the measured requests at positions p with
  // p % shard_count == shard_index are issued, each at its planned time and
  // with its position as id, so the shards together issue the single-process
  // schedule. The cap (max_concurrency) is this shard's own.
  int64_t shard_index = 0, shard_count = 1;
  // Time zero of the run on the target's clock (shards agree on it); the run
  // waits for it. Unset: when the run starts.
  std::optional<int64_t> start_at_ns;
};

}  // namespace frontier::workload
