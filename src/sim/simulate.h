// simulate.h: a whole benchmark run in virtual time, in one call.
//
// Simulate() is the load core (loadgen::RunLoad) driving the simulated
// engine (sim_target.h) on its virtual clock: the same arrival plan,
// concurrency cap, warm-up phase and duration as `frontier bench` against a
// server (workload/load.h, loadgen/runner.h), and the same per-request
// records (source "simulated"), so metrics::Summarize() gives the same
// metrics. It is the one-call form for the simulator's own uses
// (calibration, validation, tests), without a summary or files.
// SimulatePoint() is the form every command's simulated point takes
// (simulate, its --concurrency levels, a plan's points, a search's trials):
// loadgen::RunPoint (point.h) on a SimTarget of its own. Their options, and
// what they report about the engine, are in simulate_options.h.
//
// Thread safety: pure function of its arguments.
#pragma once

#include <span>

#include "core/run_result.h"
#include "core/status.h"
#include "loadgen/point.h"
#include "sim/engine/config.h"
#include "sim/simulate_options.h"
#include "workload/load.h"
#include "workload/request_spec.h"

namespace frontier::sim {

// Runs `load` over `requests` (cycled when load.num_prompts exceeds them, as
// RunLoad does). Fails with InvalidArgument for bad load options (RunLoad's)
// or a negative rtt, and with ResourceExhausted when the run reaches a bound
// of SimulateOptions.
Result<RunResult> Simulate(const SimConfig& config, std::span<const workload::RequestSpec> requests,
                           const workload::LoadOptions& load, const SimulateOptions& options,
                           SimulationStats* stats = nullptr);

// The same with SimulateOptions{} (the default client round trip).
Result<RunResult> Simulate(const SimConfig& config, std::span<const workload::RequestSpec> requests,
                           const workload::LoadOptions& load, SimulationStats* stats = nullptr);

// One point on a SimTarget of its own (config, options), run through
// loadgen::RunPoint: summary, verdict and files as `point` asks, in virtual
// time (point.run is replaced by VirtualRunOptions), watched by
// options.observer and stopped by options.stop. `stats`, when given,
// receives the engine's counters, also when the run fails.
Result<loadgen::PointOutcome> SimulatePoint(const SimConfig& config, const SimulateOptions& options,
                                            std::span<const workload::RequestSpec> requests,
                                            const workload::LoadOptions& load, loadgen::PointOptions point,
                                            SimulationStats* stats = nullptr);

}  // namespace frontier::sim
