// point_store.h: the points of one `frontier bench --db` or `simulate --db`
// invocation into the results database, stored as one run as each point
// ends (the same record a sweep stores, store::PointFromRun), so an
// interrupted command keeps what it finished. A search's trials have their
// own recorder (search_store.h).
//
//   FRONTIER_ASSIGN_OR_RETURN(PointRecorder rec, PointRecorder::Start(std::move(store), run));  // before the run
//   ...
//   FRONTIER_RETURN_IF_ERROR(rec.Record(workload, load, outcome, rules));  // loadgen::RunPoint's
//
// Thread safety: one recorder per thread; it owns its Store.
#pragma once

#include <cstdint>
#include <iosfwd>
#include <memory>
#include <optional>
#include <string>

#include "core/run_result.h"
#include "core/status.h"
#include "loadgen/point.h"
#include "loadgen/scenario.h"
#include "metrics/summary.h"
#include "store/store.h"
#include "workload/load.h"

namespace frontier::sweep {

class PointRecorder {
 public:
  // Creates `run` in `store` as it is (sweep label, provenance and source
  // filled in by the caller) with status ok.
  static Result<PointRecorder> Start(std::unique_ptr<store::Store> store, store::RunInfo run);

  // Stores the point `run` + `summary` (store::PointFromRun) at `load` (its
  // max_concurrency when set, else its request rate: store::SetPointLoad, the
  // key an imported vLLM result of the same load gets) with its per-request
  // rows, its series and `verdict_json` ("" when not judged); its settings
  // say the load's num_prompts and max_concurrency. Stores nothing for an
  // interrupted run (its remaining requests were cut short) or one where no
  // request completed: that marks the stored run broken with the reasons.
  // The store's error when a write fails.
  Status Record(const std::string& workload, const workload::LoadOptions& load, const RunResult& run,
                const metrics::Summary& summary, const std::string& verdict_json);

  // Record of loadgen::RunPoint's outcome: its verdict (when the point was
  // judged) as loadgen::VerdictJson against `rules`, which judged it.
  Status Record(const std::string& workload, const workload::LoadOptions& load, const loadgen::PointOutcome& out,
                const std::optional<loadgen::ScenarioRules>& rules);

  // Marks the stored run broken with `reason` (a point failed to run at all).
  Status MarkBroken(const std::string& reason);

  const store::RunInfo& run() const { return run_; }
  int64_t stored() const { return stored_; }

 private:
  PointRecorder(std::unique_ptr<store::Store> store, store::RunInfo run)
      : store_(std::move(store)), run_(std::move(run)) {}
  std::unique_ptr<store::Store> store_;
  store::RunInfo run_;
  int64_t stored_ = 0;
};

// Where a command stores its points (its --db and --run-label).
struct ResultsDb {
  std::string db;          // "" = nothing is stored
  std::string run_label;   // the stored run's sweep name (`db ls`, reports)
};

// Opens where.db (store::OpenResultsDb, its note to `notes`) and starts
// storing the points of one `bench --db` or `simulate --db` invocation as
// `run`, with sweep where.run_label and, when it has none, the provenance of
// its plan_text (store::RunProvenance). The store's error.
Result<PointRecorder> StartPointRecorder(const std::string& command, const ResultsDb& where, store::RunInfo run,
                                         std::ostream& notes);

}  // namespace frontier::sweep
