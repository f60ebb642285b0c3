// as_plan.h: `--as-plan` of `frontier simulate`, `frontier bench` and
// `frontier search`: one resolved invocation written as the sweep plan
// (plan.h) that runs the same points with `frontier sweep`, so an ad-hoc
// command becomes a reproducible plan. One writer for the three: the
// workload entry, `load:`, `slo:` and `scenario:` are the same code.
//
// simulate: its system, workload and loads (one point, or --concurrency's levels):
//   name: simulate
//   systems:
//     - name: "simulated llama-3.1-8b on 8x h200"   # SimulatedSystem's name, as simulate stores it
//       hardware: h200
//       gpus: 8                                      # the resolved deployment's
//       sim: {model: llama-3.1-8b, tp: 1}            # the SimSpec flags given, under their plan keys
//   workloads:
//     - {name: 128/64, input_len: 128, output_len: 64, range_ratio: 0}   # named as simulate stores it; the flags given
//   load:
//     concurrency: [1, 4]                            # --concurrency, else the point's cap or rate
//     num_prompts: 16                                # the resolved count
//     duration_s: 60                                 # --duration (with a count: whichever is first)
//   percentiles: [50, 99]                            # --percentiles, when given
//   timeslice_s: 2                                   # --timeslice, when given
//   slo: {ttft_ms: 450}                              # --goodput
//   scenario: {name: server, min_duration_s: 60}     # the scenario flags
//
// bench: one point of a server system, named as bench stores it:
//   name: bench
//   systems:
//     - name: "http://127.0.0.1:8000"
//       model: fixed                                 # --model, when given
//       base_url: "http://127.0.0.1:8000"
//       backend: openai                              # --endpoint when given; --power, --power-url
//       gpus: 1                                      # --num-gpus
//   workloads: ...  load: {concurrency: [4], num_prompts: 16}  ...
// A secret is never written: --api-key (or $OPENAI_API_KEY) and --header are
// left out, and a comment line at the top says so; a sweep sends neither.
//
// search: the system (simulated as simulate's, or the server as bench's),
// the workload, `scenario:`, `load:` without a grid (num_prompts without a
// named scenario, warmup, burstiness, max_concurrency) and
//   search: {over: rate, start: 4}                   # the search flags given, under their plan keys
//
// Keys come from the tables the flags come from: SimSpec's flag table
// (sim/spec_fields.h: "--kv-precision" is `sim.kv_precision`, "--prefill-tp"
// `sim.prefill.tp`), the workload fields' and the search's names
// (workload/option_names.h). The flags a plan has no field for are refused
// before resolution (sim::SimulateFlagsWithoutPlanForm,
// BenchFlagsWithoutPlanForm, SearchFlagsWithoutPlanForm); the loads it cannot
// express are refused here.
//
// Seeds: simulate draws one dataset (seeded by --seed) for all its points; a
// sweep draws each point's own with the same seed. A workload of fixed lengths
// gives the same figures; one of random lengths (--range-ratio > 0, sharegpt,
// sessions) may differ by the draw.
//
// Thread safety: functions of their arguments; PrintPlan writes stdout.
#pragma once

#include <string>
#include <vector>

#include "core/flag_table.h"
#include "core/status.h"
#include "loadgen/target_request.h"
#include "loadgen/workload_request.h"
#include "sim/simulate_job.h"
#include "sweep/bench_job.h"
#include "sweep/search_job.h"

namespace frontier::sweep {

// The plan text of `s` (resolved: config, workload, levels), whose workload
// flags were `w` (its `given` filled) and whose other flags `given` tells.
// The text parses with ParsePlan (checked here). InvalidArgument naming the
// flag when the load has no plan form: one point with neither
// --max-concurrency nor a finite --request-rate, --duration without
// --num-prompts (a plan's point has a count), --request-rate with
// --concurrency, --burstiness inf, a scenario without --target-qps, or one
// concurrency point of fewer than 4x its concurrency in requests (a plan's
// point sends at least that).
Result<std::string> SimulatePlan(const sim::Simulation& s, const loadgen::WorkloadRequest& w, const FlagGiven& given);

// The plan text of one `frontier bench` point: the request's model and
// power source, the target `t` (base_url, backend, endpoint), the workload
// `rw` resolved from the flags `w` (its error is returned) and its load, as
// SimulatePlan's one point (InvalidArgument naming the flag when it has no
// plan form). The flags without a plan form were refused before
// (BenchRequestProblem).
Result<std::string> BenchPlan(const BenchRequest& r, const loadgen::TargetRequest& t,
                              const Result<loadgen::ResolvedWorkload>& rw, const loadgen::WorkloadRequest& w);

// The plan text of one `frontier search` with its options resolved
// (ResolveSearchOptions): the simulated system of job.spec (SimulateSearch),
// or without one the server of `t`; the search flags given (job.request).
Result<std::string> SearchPlan(const SearchJob& job, const loadgen::TargetRequest& t, const loadgen::WorkloadRequest& w,
                               const FlagGiven& given);

// Writes `plan` to stdout: its error, else OK once written (the last step of
// an --as-plan; cli::Fail turns the status into the exit status).
Status PrintPlan(const Result<std::string>& plan);

// The flags of `frontier bench` a plan has no field for, which --as-plan
// refuses: --db, --run-label, the measurement's and the shards' but --power
// and --power-url (a system's `power`, `power_url`), the target's but
// --base-url, --backend, --endpoint and --model (--api-key and --header are
// left out, never written), and the workload's
// (loadgen::WorkloadFlagsWithoutPlanForm).
std::vector<std::string> BenchFlagsWithoutPlanForm();

// The same for `frontier search`: --db, --run-label, --client-rtt-us,
// --duration (a plan's load.duration_s is its grid's, refused with
// `search:`), and the target's and the workload's as bench's.
std::vector<std::string> SearchFlagsWithoutPlanForm();

}  // namespace frontier::sweep
