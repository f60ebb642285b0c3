// simulate.h: a whole benchmark run in virtual time, in one call.
//
// Simulate() is the load core (loadgen::RunLoad) driving the simulated
// engine (sim_target.h) on its virtual clock: the same arrival plan,
// concurrency cap, warm-up phase and duration as `frontier bench` against a
// server (workload/load.h, loadgen/runner.h), and the same per-request
// records (source "simulated"), so metrics::Summarize() gives the same
// metrics. It is the one-call form for the simulator's own uses
// (calibration, validation, tests); commands run points through
// loadgen::RunPoint with a SimTarget (point.h). Its options, and what it
// reports about the engine, are in simulate_options.h.
//
// Thread safety: pure function of its arguments.
#pragma once

#include <span>

#include "core/run_result.h"
#include "core/status.h"
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

}  // namespace frontier::sim
