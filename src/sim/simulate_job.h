// simulate_job.h: one `frontier simulate` invocation below its command line:
// the deployment its flags name, the workload fitted to it, the levels of a
// concurrency sweep, the options every point shares, and running one point,
// the sweep, or the search for the best deployment. cli/simulate_cmd.cc fills
// a SimulateRequest from the flags and prints what these return.
//
//   Simulation s;                                          // request, options from the flags
//   FRONTIER_ASSIGN_OR_RETURN(s.config, ResolveDeployment(s.request.spec, s.request.best_deployment));
//   FRONTIER_RETURN_IF_ERROR(ResolveSimulatedWorkload(std::move(w), &s));   // cli's ResolveWorkload's
//   SharePointOptions(requested, command_line, &s);
//   ... SimulateOnePoint(s, callbacks) | SimulateSweep(s, callbacks, observe) | SearchBestDeployment(s)
//
// Thread safety: none; one command's thread. A Simulation points into itself
// once its point options are shared (point.sessions): keep it in place.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "core/run_result.h"
#include "core/flag_table.h"
#include "core/limits.h"
#include "core/status.h"
#include "loadgen/point.h"
#include "loadgen/resolved_workload.h"
#include "loadgen/scenario.h"
#include "sim/concurrency_sweep.h"
#include "sim/deployment_search.h"
#include "sim/engine/config.h"
#include "sim/simulate_options.h"
#include "workload/load.h"

namespace frontier::sim {

// What the command's flags ask beyond the workload and the deployment.
struct SimulateRequest {
  SimSpec spec;
  std::string concurrency;  // --concurrency as typed ("1,2,4"); "" = one point
  int64_t max_requests = kMaxRunRequests, max_memory_mb = kDefaultSimMemoryBytes >> 20;  // a run's bounds
  bool best_deployment = false, search_disagg = false;
  bool as_plan = false;  // --as-plan: print the sweep plan of these points (sweep/as_plan.h), run none
  // Workload flags given on the command line that a sweep refuses or the
  // simulated system checks.
  bool num_gpus_given = false, max_concurrency_given = false, duration_given = false;
};

// The flags that fill a SimulateRequest after --concurrency and the client's
// round trip, in --help's order (group "Load"): --max-requests,
// --max-memory-mb, --best-deployment, --search-disagg; then --as-plan (group
// "Output"). The binder adds the bounds' ranges.
std::span<const FlagRow<SimulateRequest>> SimulateFlagRows();

// The flags a simulate run records as given beside the workload's, with their
// "--", in --help's order: SimSpec's (SimSpecFields), --concurrency,
// --client-rtt-us, then SimulateFlagRows' bounds (--max-requests,
// --max-memory-mb); not its switches, which select --best-deployment's
// search, a run that records no point.
std::vector<std::string> SimulateOwnFlags();

// The usage errors the flags show alone, "" when they fit together (after
// the database flags' own check): --db (`storing`) with --list or
// --best-deployment, --model or --hardware missing, a bad --client-rtt-us,
// --best-deployment without --gpus or with a layout of its own, and
// --as-plan with a flag a sweep plan has no field for (SimulateFlagsWithoutPlanForm).
std::string SimulateUsageProblem(const FlagGiven& given, const SimulateRequest& r, bool list, bool storing,
                                 double client_rtt_us);

// The flags of `frontier simulate` that a sweep plan cannot express: --as-plan
// refuses them (the output, run-bound, client and search flags, then the
// workload's, loadgen::WorkloadFlagsWithoutPlanForm; a plan's points use the
// defaults).
std::vector<std::string> SimulateFlagsWithoutPlanForm();

// Everything one invocation resolved before it simulates.
struct Simulation {
  SimulateRequest request;
  SimulateOptions options;  // client round trip, bounds; the band, set by the caller
  SimConfig config;
  loadgen::ResolvedWorkload w;
  std::optional<loadgen::ScenarioRules> rules;
  std::vector<int64_t> levels;  // --concurrency's; none for one point
  loadgen::PreparedWorkload prepared;
  loadgen::PointOptions point;
};

// What is called with each point as it ends: `record` stores it (bound by
// the caller to a results database's sweep::PointSink, sweep/point_store.h,
// which sim/ sits below), `broken` marks the stored run broken. An empty
// `record` stores nothing.
struct PointCallbacks {
  std::function<Status(const std::string& workload, const workload::LoadOptions& load,
                       const loadgen::PointOutcome& out, const std::optional<loadgen::ScenarioRules>& rules)>
      record;
  // A point failed to run at all: marks the stored run broken and returns the
  // error to show (`failed`, or more when the mark could not be written).
  std::function<Status(const Status& failed)> broken;
};

// Records which workload flags were given and sets the run options the flags
// give: the client's round trip, the run's bounds.
// REQUIRES: SimulateUsageProblem found no problem.
void ApplySimulateFlags(const FlagGiven& given, double client_rtt_us, Simulation* s);

// The deployment `spec` names; with `best_deployment`, a stand-in when it
// does not fit (the model and the GPU count, for the workload; not simulated).
Result<SimConfig> ResolveDeployment(const SimSpec& spec, bool best_deployment);

// Fits the resolved workload to the simulated system: the summary's GPU count
// is the system's (InvalidArgument when --num-gpus was given and disagrees),
// random token ids are drawn below the model's vocabulary, and a random
// workload whose every request exceeds the context is refused.
Status UseSimulatedSystem(const SimConfig& config, bool num_gpus_given, loadgen::ResolvedWorkload* w);

// Takes the workload the flags resolved into s->w and fits it to s->config:
// the scenario's rules and load, the simulated system, the sweep's levels
// (the dataset drawn large enough for the largest), --max-num-seqs auto for
// one point, and the requests. InvalidArgument naming the flags at fault.
Status ResolveSimulatedWorkload(loadgen::ResolvedWorkload w, Simulation* s);

// The point options every point shares: provenance (`requested` settings,
// `command_line`), the workload's outputs and sessions.
void SharePointOptions(std::map<std::string, std::string> requested, const std::string& command_line,
                       Simulation* s);

// One point (no --concurrency), stored through `callbacks`; a point that
// fails to run marks the stored run broken.
struct OnePoint {
  loadgen::PointOutcome out;
  SimulationStats stats;
};
Result<OnePoint> SimulateOnePoint(Simulation& s, const PointCallbacks& callbacks);

// --concurrency: one point per level (SweepConcurrency, each point written by
// loadgen::RunPoint as the one point is), each stored as it ends, after `observe` has seen it; a failed sweep marks the
// stored run broken (the points before it stay stored).
Result<std::vector<SweepPoint>> SimulateSweep(Simulation& s, const PointCallbacks& callbacks,
                                              const std::function<void(const SweepPoint&, const RunResult&)>& observe);

// --best-deployment: every layout of the GPUs swept at the levels.
Result<SearchResult> SearchBestDeployment(const Simulation& s);

}  // namespace frontier::sim
