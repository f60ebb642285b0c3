// search.h: the highest load a system sustains within its rules, found by
// running trials: the highest Server QPS that is VALID under an MLPerf
// scenario, or the highest throughput per GPU that meets an SLO, over request
// rate or concurrency.
//
//   SimTrialRunner runner(config, specs);              // or LiveTrialRunner (HTTP)
//   SearchOptions o;
//   o.goal = SearchGoal::kMaxValidQps;
//   o.axis = SearchAxis::kRate;
//   o.rules = *ResolveScenario(request, table, model);
//   Result<SearchResult> r = Search(runner, o, on_trial);
//   r->best -> the answer: always a trial that was run and judged valid.
//
// Algorithm. Validity is assumed to fall as the load grows (with the same
// seed every trial replays the same arrival pattern, scaled, which keeps the
// assumption close to true). Bracketing: from `start`, the load is multiplied
// by `growth` after each valid trial until one is invalid (or `max_value` was
// valid), divided by `growth` after each invalid one until one is valid (or
// `min_value` was invalid). Bisection: between the highest valid load and the
// lowest invalid load above it, the midpoint is run, until the two are within
// `rel_tolerance` of each other (rate) or adjacent integers (concurrency), or
// `max_trials` trials have run. The answer: kMaxValidQps, the valid trial
// with the highest rate; kMaxThroughput, the valid trial with the highest
// output throughput per GPU.
//
// Over-saturation (saturation.h), open-loop trials only: the trial, measured
// or simulated, is stopped at the detector's finding, INVALID, and says so.
//
// Thread safety: Search runs on the calling thread and calls the runner there.
#pragma once

#include <cstdint>
#include <atomic>
#include <functional>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/flag_table.h"
#include "core/run_result.h"
#include "core/status.h"
#include "loadgen/point.h"
#include "loadgen/runner.h"
#include "loadgen/saturation.h"
#include "loadgen/scenario.h"
#include "loadgen/verdict.h"
#include "metrics/summary.h"
#include "workload/load.h"

namespace frontier::loadgen {

// The one thing a search needs of a system: run a load point through
// RunPoint (point.h) on its Target.
class TrialRunner {
 public:
  virtual ~TrialRunner() = default;
  // For messages and the result file: "simulated llama-2-70b on 8x h200", "http://127.0.0.1:8000".
  virtual std::string Name() const = 0;
  // Runs `load` once as a point with `point` (summary, rules, provenance;
  // the runner adds what its Target needs: run options, client settings),
  // reporting each request to `observer` as it ends (and progress) on the
  // run's clock. When *stop becomes true, it ends the trial early: what was
  // measured is kept and run.interrupted is true. Errors are for a run that
  // could not be made (bad options, unwritable output, a bound the target
  // reached); a failed request is a result.
  virtual Result<PointOutcome> Run(const workload::LoadOptions& load, const PointOptions& point,
                                   Observer* observer, const std::atomic<bool>* stop) = 0;
};

enum class SearchAxis { kRate, kConcurrency };
enum class SearchGoal { kMaxValidQps, kMaxThroughput };

const char* SearchAxisName(SearchAxis a);  // "request_rate", "concurrency"
const char* SearchGoalName(SearchGoal g);  // "max_valid_qps", "max_throughput_per_gpu"

struct SearchOptions {
  SearchGoal goal = SearchGoal::kMaxValidQps;
  SearchAxis axis = SearchAxis::kRate;        // kMaxValidQps needs kRate
  ScenarioRules rules;                        // a trial is valid when it meets these
  // Seed, warm-up; for trials without a scenario also num_prompts, duration_s
  // and (rate axis) burstiness. The axis' own setting is replaced per trial.
  workload::LoadOptions base;
  double start = 1;                           // first load: req/s, or concurrency
  double growth = 2;                          // > 1
  double rel_tolerance = 0.02;                // rate: stop when hi / lo - 1 <= this
  int max_trials = 20;
  double min_value = 0.01;                    // rate floor (concurrency: 1)
  double max_value = 1e6;                     // cap on the load
  std::optional<SaturationOptions> saturation = SaturationOptions{};  // unset: never stop early
  // Each trial's point options: summary (p99 is always added), provenance
  // (command line, settings) and extra result fields. The search sets the
  // trial's rules itself; result files are not written per trial.
  PointOptions point;
  // When it becomes true (SIGINT), a live trial stops and the search ends
  // after it, with what it found so far (stop_reason "interrupted").
  const std::atomic<bool>* interrupt = nullptr;
};

struct Trial {
  int index = 0;                 // from 0, in the order run
  double value = 0;              // req/s or concurrency
  Verdict verdict;
  metrics::Summary summary;
  bool stopped_early = false;    // a live trial stopped as over-saturated
  std::string decision;          // what the search did next, and why
  std::string step;              // that step: "bracket", "bisect" or "stop"
  nlohmann::json result;         // metrics::ResultToJson of the trial (vLLM names + provenance)
  std::optional<PredictionBand> band;  // a simulated trial's band (RunResult::band); none when measured
};

struct SearchResult {
  std::vector<Trial> trials;
  std::optional<size_t> best;    // index into trials; unset when no trial was valid
  std::optional<double> valid_below, invalid_above;  // the final bracket (highest valid, lowest invalid above it)
  std::string stop_reason;
};

// Called after each trial (to print it, write the result file as the search
// goes); an error stops the search and is returned.
using TrialCallback = std::function<Status(const Trial& trial, const SearchResult& so_far)>;

// What a user asks of a search, as `frontier search`'s flags and a sweep
// plan's `search:` block give it; ApplySearchRequest turns it into options.
struct SearchRequest {
  std::string over;                  // "rate" | "concurrency"; "" = rate under a Server or
                                     // Interactive scenario, else concurrency
  double start = 1;                  // first load: req/s or concurrency
  double growth = 2;                 // bracketing factor, > 1
  double tolerance = 0.02;           // rate: bisect until hi / lo - 1 <= this
  int64_t max_trials = 20;           // [1, kMaxSearchTrials]
  std::optional<double> min_value;   // lowest load to try [rate 0.01, concurrency 1]
  std::optional<double> max_value;   // highest load to try [rate 1e6, concurrency 65536]
  bool saturation_stop = true;       // stop (and mark) trials whose queue grows without bound
  bool as_plan = false;              // the command's --as-plan (sweep/as_plan.h); no plan key
};

// `frontier search`'s flags that fill a SearchRequest (--over ... --max-value,
// group "Search"; then --as-plan, group "Output"), in --help's order. --no-saturation-stop, a flag that
// clears saturation_stop, is the command's own.
std::span<const FlagRow<SearchRequest>> SearchFlagRows();

inline constexpr int64_t kMaxSearchTrials = 10'000;

// Sets o's goal (a Server or Interactive scenario in o->rules: the highest
// valid QPS; otherwise the best throughput per GPU under the rules' SLO),
// axis, start, growth, tolerance, trial count, bounds and saturation stop
// from `request`, and checks them as Search will, against o->base too (the
// axis' own setting must not be fixed there). InvalidArgument naming the
// flag ("--over must be rate or concurrency, got 'x'"; a plan says its own
// field names through workload/option_names.h).
// REQUIRES: o->rules and o->base are set.
Status ApplySearchRequest(const SearchRequest& request, SearchOptions* o);

// The checks Search runs first (see Search below): Ok, or InvalidArgument
// naming the flag.
Status CheckSearchOptions(const SearchOptions& options);

// InvalidArgument for inconsistent options (kMaxValidQps without a Server or
// Interactive scenario or on the concurrency axis, growth <= 1, start outside
// [min_value, max_value], max_trials < 1); a runner's error otherwise.
Result<SearchResult> Search(TrialRunner& runner, const SearchOptions& options, const TrialCallback& on_trial);

// The rules a trial at `value` is judged against: the search's, with a
// Server or Interactive scenario's target QPS the value on the rate axis.
ScenarioRules TrialRules(const SearchOptions& options, double value);

// The load of one trial at `value`.
Result<workload::LoadOptions> TrialLoad(const SearchOptions& options, double value);

// {"goal", "axis", "runner", "rules", "answer": {...} | null, "max_valid_qps" (kMaxValidQps),
//  "stop_reason", "bracket", "trials": [{"index", "value", "verdict", "decision", "step", "stopped_early", "result"}]}
nlohmann::json SearchResultJson(const SearchResult& result, const SearchOptions& options, const std::string& runner);
// SearchResultJson without "trials": the search's outcome so far.
nlohmann::json SearchOutcomeJson(const SearchResult& result, const SearchOptions& options, const std::string& runner);
// One entry of SearchResultJson's "trials"; its "verdict" is judged against
// the trial's own rules (its target QPS).
nlohmann::json TrialJson(const Trial& trial, const SearchOptions& options);

}  // namespace frontier::loadgen
