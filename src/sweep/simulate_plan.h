// simulate_plan.h: `frontier simulate --as-plan`: one resolved simulate
// invocation written as the sweep plan (plan.h) that runs the same points
// with `frontier sweep`, so an ad-hoc command becomes a reproducible plan.
//
//   name: simulate
//   systems:
//     - name: "simulated llama-3.1-8b on 8x h200"   # SimulatedSystem's name, as simulate stores it
//       hardware: h200
//       gpus: 8                                      # the resolved deployment's
//       sim: {model: llama-3.1-8b, tp: 1}            # the SimSpec flags given, under their plan keys
//   workloads:
//     - {name: random, input_len: 128, output_len: 64, range_ratio: 0}   # the workload flags given
//   load:
//     concurrency: [1, 4]                            # --concurrency, else the point's cap or rate
//     num_prompts: 16                                # the resolved count
//   slo: {ttft_ms: 450}                              # --goodput
//   scenario: {name: server, min_duration_s: 60}     # the scenario flags
//
// Keys come from the tables the flags come from: SimSpec's flag table
// (sim/spec_fields.h: "--kv-precision" is `sim.kv_precision`, "--prefill-tp"
// `sim.prefill.tp`) and the workload fields' names (workload/option_names.h).
// The flags a plan has no field for are refused before resolution
// (sim::SimulateFlagsWithoutPlanForm); the loads it cannot express are
// refused here.
//
// Seeds: simulate draws one dataset (seeded by --seed) for all its points; a
// sweep draws each point's own with the same seed. A workload of fixed lengths
// gives the same figures; one of random lengths (--range-ratio > 0, sharegpt,
// sessions) may differ by the draw.
//
// Thread safety: a function of its arguments.
#pragma once

#include <string>

#include "core/flag_table.h"
#include "core/status.h"
#include "loadgen/workload_request.h"
#include "sim/simulate_job.h"

namespace frontier::sweep {

// The plan text of `s` (resolved: config, workload, levels), whose workload
// flags were `w` (its `given` filled) and whose other flags `given` tells.
// The text parses with ParsePlan (checked here). InvalidArgument naming the
// flag when the load has no plan form: one point with neither
// --max-concurrency nor a finite --request-rate, --request-rate with
// --concurrency, --burstiness inf, a scenario without --target-qps, or one
// concurrency point of fewer than 4x its concurrency in requests (a plan's
// point sends at least that).
Result<std::string> SimulatePlan(const sim::Simulation& s, const loadgen::WorkloadRequest& w, const FlagGiven& given);

}  // namespace frontier::sweep
