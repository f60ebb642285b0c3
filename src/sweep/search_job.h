// search_job.h: one `frontier search` from its resolved flags to its trials:
// the rules every trial is judged by and the search's settings, the trial
// runner (a live server's or the simulated system's) over the workload's
// requests, the run its trials are stored as (--db), and the trials, each
// recorded and written to the result file as it ends. cli/search_cmd.cc
// parses the flags into a SearchJob and prints; the search itself is
// loadgen/search.h.
//
//   SearchJob job;  // model, workload
//   FRONTIER_RETURN_IF_ERROR(SimulateSearch(spec, &job));          // a simulated system; then sim_options
//   FRONTIER_RETURN_IF_ERROR(ResolveSearchOptions(settings, &job));
//   FRONTIER_RETURN_IF_ERROR(MakeSearchRunner(bench, &job));      // bench: a live server's, else none
//   FRONTIER_RETURN_IF_ERROR(StartSearchSink(std::move(db), label, provenance, &job));  // with --db
//   Result<loadgen::SearchResult> r = RunSearchJob(job, print_line);
//
// Thread safety: one job per thread; the steps run in the order above.
#pragma once

#include <atomic>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "core/flag_table.h"
#include "core/status.h"
#include "loadgen/benchmark.h"
#include "loadgen/resolved_workload.h"
#include "loadgen/search.h"
#include "sim/engine/config.h"
#include "sim/simulate_options.h"
#include "store/store.h"
#include "sweep/plan.h"
#include "sweep/point_store.h"
#include "workload/dataset.h"

namespace frontier::sweep {

// Everything one search resolved before its first trial.
struct SearchJob {
  std::string model;                       // the served or catalogued model
  loadgen::ResolvedWorkload w;
  std::optional<sim::SimConfig> config;    // the simulated system; none for a live server
  sim::SimSpec spec;                       // ... as its flags asked it (SimulateSearch), for --as-plan
  loadgen::SearchRequest request;          // the search as its flags asked it (ResolveSearchOptions)
  SystemSpec system;                       // what the stored run names (MakeSearchRunner sets a server's)
  sim::SimulateOptions sim_options;        // a simulated system's trials: client round trip, band
  loadgen::SearchOptions options;          // ResolveSearchOptions
  std::vector<workload::RequestSpec> specs;  // MakeSearchRunner: the dataset's requests
  std::unique_ptr<loadgen::TrialRunner> runner;
  std::optional<PointSink> sink;  // --db: where the trials are stored (it owns the store)
};

// The search's own settings, as its flags give them.
struct SearchSettings {
  loadgen::SearchRequest request;                  // --over ... --no-saturation-stop
  std::map<std::string, std::string> given_flags;  // the search's own flags given (name without "--" -> value)
  std::string command_line;                        // for provenance
  const std::atomic<bool>* interrupt = nullptr;    // SIGINT: the search ends after the trial it runs
};

// The usage errors a search's flags show alone, "" when they fit together:
// --model missing; with a live server (`live`: --base-url given) a flag of a
// simulated system (sim/spec_fields.h; the first in the table's order) or
// --client-rtt-us; without one, --hardware missing or a live server's flag
// (loadgen/target_request.h); with --as-plan, a flag a plan has no field for
// (SearchFlagsWithoutPlanForm, sweep/as_plan.h).
std::string SearchUsageProblem(const FlagGiven& given, bool live);

// The flags a search reads itself, not the workload's: SimSpec's, the search
// request's (loadgen::SearchFlagRows), --no-saturation-stop, --client-rtt-us,
// --db and --run-label. The stored run lists those given (SearchSettings::given_flags).
std::vector<std::string> SearchOwnFlags();

// The simulated system of `spec`: job->config resolved (sim::ResolveSimConfig,
// InvalidArgument naming the flag), job->system named from it and job->model
// the catalogued model.
Status SimulateSearch(const sim::SimSpec& spec, SearchJob* job);

// The rules every trial is judged by (job->w's scenario request; the first
// trial's target is request.start) and job->options from `settings`, checked
// as a plan's `search:` block is (loadgen::ApplySearchRequest). A Server
// search's prompts become a pool reused cyclically. InvalidArgument when the
// workload names no scenario or SLO, or naming the flag at fault.
Status ResolveSearchOptions(const SearchSettings& settings, SearchJob* job);

// Loads the workload's requests and makes the trial runner: the live server
// of `bench` (its command line and the stored system are set here), else the
// simulated job->config with job->sim_options. InvalidArgument for a session
// workload or --tokenizer, which a search does not take; the dataset's error.
// REQUIRES: ResolveSearchOptions succeeded; job->config is set without `bench`.
Status MakeSearchRunner(std::optional<loadgen::BenchOptions> bench, SearchJob* job);

// --db: creates the search's run in `db` (named by job->system, with the
// workload's effective settings, the search's goal and axis, sweep
// `run_label` and `provenance`) before any trial, and keeps `db` in the
// job's sink.
Status StartSearchSink(std::unique_ptr<store::Store> db, const std::string& run_label,
                       std::map<std::string, std::string> provenance, SearchJob* job);

// Runs the search, telling `show` what the terminal shows as lines without
// their newline (loadgen/search_text.h): the search's headline first, then
// each trial's row as it ends. After each trial's row the trial is stored
// (with a sink) and the result file rewritten (job->w.result_json, when
// named); an error there stops the search and is returned.
Result<loadgen::SearchResult> RunSearchJob(SearchJob& job, const std::function<void(const std::string&)>& show);

}  // namespace frontier::sweep
