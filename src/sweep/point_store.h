// point_store.h: every point frontier runs into the results database, one
// builder and one sink for all of them: `frontier sweep`'s grid points
// (runner.cc), a search's trials (`frontier search --db` and a plan's
// `search:`) and the points of `frontier bench --db` and `simulate --db`.
//
// A point's outcome (loadgen::RunPoint's, or a search's Trial) says what was
// measured; a PointPlace says where the point stands in its run (workload,
// load, repetition, attempts, the settings its caller adds). StoredPoint and
// StoredTrial build the store::PointRecord from the two, the only place
// where a stored point's key, load_kind and source are chosen. A PointSink
// owns the run (and, for a command, the store handle) and writes each point
// as it ends, one transaction per point, so an interrupted command keeps
// what it finished:
//
//   FRONTIER_ASSIGN_OR_RETURN(PointSink sink, PointSink::Start(std::move(store), run));  // before the run
//   ...
//   FRONTIER_RETURN_IF_ERROR(sink.Record(workload, load, outcome, rules));  // a command's point
//   FRONTIER_RETURN_IF_ERROR(sink.Add(place, outcome, rules));              // a sweep's point
//   FRONTIER_RETURN_IF_ERROR(sink.AddTrial(workload, trial, so_far, options, runner));  // a search's trial
//
// Thread safety: one sink per thread.
#pragma once

#include <cstdint>
#include <iosfwd>
#include <map>
#include <memory>
#include <optional>
#include <string>

#include "core/status.h"
#include "loadgen/point.h"
#include "loadgen/scenario.h"
#include "loadgen/search.h"
#include "store/store.h"
#include "workload/load.h"

namespace frontier::sweep {

// Where a point stands in its run: what the store identifies it by beyond
// what was measured.
struct PointPlace {
  int64_t run_id = 0;
  std::string workload;
  store::LoadKind load_kind = store::LoadKind::kConcurrency;  // what load_value counts
  double load_value = 0;
  int repetition = 0;                     // 0-based
  std::string key_suffix;                 // after store::PointKey's key: a trial's "|trial=<index>"
  int attempts = 1;                       // 2 when the first attempt failed and the retry succeeded
  // The system is simulated in virtual time: its points are simulated
  // whatever the run says (a `live` simulated system's are measured).
  bool simulated_system = false;
  int num_gpus = 1;                       // what the summary's per-GPU throughputs were divided by
  // Set over the run's effective settings (a trial's: its provenance's).
  std::map<std::string, std::string> settings;
};

// The place of a command's point (`bench --db`, `simulate --db`) at `load`:
// its finite request rate, else its max_concurrency, else all at once
// (store::SetPointLoad, the key an imported vLLM result of the same load and
// the plan of the command get), repetition 0,
// settings the load's num_prompts (when > 0) and max_concurrency (when set).
PointPlace CommandPlace(const std::string& workload, const workload::LoadOptions& load, int num_gpus);

// The place of trial `t` of a search over `workload`: the search's axis and
// the trial's value, key suffix "|trial=<index>", the search's GPU count,
// settings the search's effective settings under the trial's provenance's.
PointPlace TrialPlace(const std::string& workload, const loadgen::Trial& t, const loadgen::SearchOptions& o);

// The point `out` is stored as at `at`: key store::PointKey(workload,
// load_kind, load_value, repetition) + key_suffix; source simulated when the
// run or the system is, else measured; settings the run's effective settings
// under at.settings; metrics, summary JSON, series and band from the outcome
// (store::PointFromRun); verdict_json loadgen::VerdictJson of its verdict
// against `rules`, which judged it ("" when not judged).
store::PointRecord StoredPoint(const PointPlace& at, const loadgen::PointOutcome& out,
                               const std::optional<loadgen::ScenarioRules>& rules);

// The point search trial `t` is stored as at `at` (TrialPlace): as
// StoredPoint, from the trial's summary and band (a trial keeps no series),
// source simulated when its result's provenance says so, its verdict against
// its own rules (loadgen::TrialRules), and its place in the search as
// trial_json {"index", "value", "valid", "step", "decision", "stopped_early"}.
store::PointRecord StoredTrial(const PointPlace& at, const loadgen::Trial& t, const loadgen::SearchOptions& o);

// One run's points into the store as each ends.
class PointSink {
 public:
  // Creates `run` in `store` as it is (sweep label, provenance and source
  // filled in by the caller) with status ok; the sink owns the store.
  static Result<PointSink> Start(std::unique_ptr<store::Store> store, store::RunInfo run);
  // As above over a store the caller owns (it outlives the sink).
  static Result<PointSink> Start(store::Store& store, store::RunInfo run);
  // Adds points to `run`, already in `store` (a sweep's run, found with --resume or created).
  static PointSink Over(store::Store& store, store::RunInfo run) { return PointSink(nullptr, &store, std::move(run)); }

  // Stores `out` at `at` (StoredPoint) in the run with its per-request rows.
  Status Add(PointPlace at, const loadgen::PointOutcome& out, const std::optional<loadgen::ScenarioRules>& rules);

  // A command's point at `load` (CommandPlace, the run's GPU count), judged
  // against `rules` when it has a verdict. Stores nothing for an interrupted
  // run (its remaining requests were cut short) or one where no request
  // completed: that marks the run broken with the reasons. The store's error
  // when a write fails.
  Status Record(const std::string& workload, const workload::LoadOptions& load, const loadgen::PointOutcome& out,
                const std::optional<loadgen::ScenarioRules>& rules);

  // Stores trial `t` of the search over `workload` (TrialPlace, StoredTrial;
  // a trial's rows are not kept) and replaces the run's search outcome with
  // `so_far`'s (loadgen::SearchOutcomeJson), so an interrupted search leaves
  // what it found.
  Status AddTrial(const std::string& workload, const loadgen::Trial& t, const loadgen::SearchResult& so_far,
                  const loadgen::SearchOptions& o, const std::string& runner);

  // Marks the run broken with `reason` (a point failed to run at all).
  Status MarkBroken(const std::string& reason);
  // A command's run failed with `failed`: marks the run broken with its
  // message and returns it, its message extended when the mark could not be
  // written (the run would otherwise look whole but empty).
  Status Failed(const Status& failed);

  const store::RunInfo& run() const { return run_; }
  int64_t stored() const { return stored_; }

 private:
  PointSink(std::unique_ptr<store::Store> owned, store::Store* store, store::RunInfo run)
      : owned_(std::move(owned)), store_(store), run_(std::move(run)) {}
  std::unique_ptr<store::Store> owned_;  // a command's store; null over a caller's
  store::Store* store_;
  store::RunInfo run_;
  int64_t stored_ = 0;
};

// The --db help of every verb that opens the results database.
inline constexpr const char* kDbHelp =
    "Results database: a SQLite file, or postgresql://USER@HOST[:PORT]/DB (default: $FRONTIER_DB, else "
    "frontier.db)";

// Where a command stores its points (its --db and --run-label).
struct ResultsDb {
  std::string db;          // "" = nothing is stored
  std::string run_label;   // the stored run's sweep name (`db ls`, reports)
};

// Opens where.db (store::OpenResultsDb, its note to `notes`) and starts
// storing the points of one `bench --db` or `simulate --db` invocation as
// `run`, with sweep where.run_label and, when it has none, the provenance of
// its plan_text (store::RunProvenance). The store's error.
Result<PointSink> StartPointSink(const std::string& command, const ResultsDb& where, store::RunInfo run,
                                 std::ostream& notes);

}  // namespace frontier::sweep
