// concurrency_sweep.h: one simulated run per closed-loop concurrency, each
// summarised with the same metrics as a measured run, and the points that are
// Pareto-optimal in throughput per GPU against interactivity.
//
//   auto points = SweepConcurrency(config, requests, load, {1, 2, 4, 8}, summary_options,
//                                  [](const SweepPoint& p, const RunResult& run) { ... });
//
// Thread safety: pure function apart from the callback, which runs on the
// calling thread once per point, in order.
#pragma once

#include <functional>
#include <vector>

#include "core/run_result.h"
#include "core/status.h"
#include "metrics/summary.h"
#include "sim/config.h"
#include "sim/simulate.h"
#include "workload/load.h"
#include "workload/request_spec.h"

namespace frontier::sim {

struct SweepPoint {
  int64_t concurrency = 0;
  metrics::Summary summary;
  SimulationStats stats;
  bool pareto = false;  // no other point has both more output throughput per GPU and more interactivity
};

// Runs `load` once per concurrency (replacing load.max_concurrency) with
// `sim_options` (client round trip, ...). `on_point` (may be empty) sees each
// point's full RunResult before it is dropped; an error from it stops the sweep.
Result<std::vector<SweepPoint>> SweepConcurrency(
    const SimConfig& config, const std::vector<workload::RequestSpec>& requests,
    const workload::LoadOptions& load, const std::vector<int64_t>& concurrencies,
    const metrics::SummaryOptions& summary_options, const SimulateOptions& sim_options = {},
    const std::function<Status(const SweepPoint&, const RunResult&)>& on_point = {});

// Marks `pareto` on each point (output throughput per GPU vs interactivity).
void MarkPareto(std::vector<SweepPoint>& points);

}  // namespace frontier::sim
