// simulate.h: a whole benchmark run in virtual time.
//
// Offers a workload to an Engine exactly as `frontier bench` offers it to a
// server (workload/load.h): planned arrival times from workload/arrival.h
// (all at once, Poisson or gamma at --request-rate), capped at
// --max-concurrency in flight when given. A request is "sent" at its planned
// time, or when a slot frees if the cap held it back; the engine picks up
// requests at its next step boundary, as a real server does. Each emission
// becomes a token event at the end of its step, so the RunResult has the same
// per-request records a measured run has (source "simulated") and
// metrics::Summarize() gives the same metrics.
//
// The first `load.warmup` requests are marked warm-up. With `duration_s`,
// nothing is sent after that much virtual time; unsent requests are left out.
//
// Thread safety: pure function of its arguments.
#pragma once

#include <vector>

#include "core/run_result.h"
#include "core/status.h"
#include "sim/config.h"
#include "sim/step_model.h"
#include "workload/load.h"
#include "workload/request_spec.h"

namespace frontier::sim {

// Figures about the simulated engine itself (not part of RunResult).
struct SimulationStats {
  int64_t steps = 0;
  int64_t preemptions = 0;
  double mean_batch_tokens = 0;     // tokens per step
  double mean_running = 0;          // sequences per step
  double peak_kv_usage = 0;         // fraction of KV pages in use, at most 1
  BatchShape busiest_decode;        // the decode-only step with the most sequences (for --explain)
  BatchShape typical_mixed;         // the last step that mixed prefill and decode (for --explain)
};

// Fails with InvalidArgument for bad load options (rate, burstiness,
// concurrency < 1, warmup beyond the request count).
Result<RunResult> Simulate(const SimConfig& config, const std::vector<workload::RequestSpec>& requests,
                           const workload::LoadOptions& load, SimulationStats* stats = nullptr);

}  // namespace frontier::sim
