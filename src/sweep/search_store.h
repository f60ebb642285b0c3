// search_store.h: a search's trials into the results database as it runs.
// Every trial is stored as a point of one run, with its verdict (the same
// VerdictJson the search's result file holds) and its place in the search
// (store::PointRecord::trial_json: step, decision); after each trial the
// run's search_json is replaced by the outcome so far (answer, max_valid_qps,
// stop reason, bracket), so an interrupted search leaves what it found.
//
//   FRONTIER_ASSIGN_OR_RETURN(SearchRecorder rec, SearchRecorder::Start(*store, run, "512/128", 8));
//   auto on_trial = [&](const loadgen::Trial& t, const loadgen::SearchResult& so_far) {
//     return rec.Record(t, so_far, options, runner.Name());
//   };
//
// A trial's per-request rows are not stored: a search keeps only each
// trial's summary and verdict.
//
// Thread safety: one recorder per thread, over a Store the caller owns.
#pragma once

#include <cstdint>
#include <string>

#include "core/status.h"
#include "loadgen/search.h"
#include "store/store.h"

namespace frontier::sweep {

// The load kind of a search's points: kRequestRate for a search over the
// request rate, kConcurrency for one over concurrency.
store::LoadKind LoadKindOf(loadgen::SearchAxis axis);

// The point a trial is stored as in run `run_id`: key
// "<workload>|<axis>=<value>|rep=0|trial=<index>", the trial's summary and
// verdict, source and settings from its result's provenance.
store::PointRecord TrialPoint(const loadgen::Trial& trial, const loadgen::SearchOptions& options, int64_t run_id,
                              const std::string& workload);

class SearchRecorder {
 public:
  // Creates `run` in `store` (its id and creation time are filled in).
  static Result<SearchRecorder> Start(store::Store& store, store::RunInfo run, std::string workload);

  // Stores `trial` and replaces the run's search outcome with `so_far`'s.
  Status Record(const loadgen::Trial& trial, const loadgen::SearchResult& so_far,
                const loadgen::SearchOptions& options, const std::string& runner);

  const store::RunInfo& run() const { return run_; }

 private:
  SearchRecorder(store::Store& store, store::RunInfo run, std::string workload)
      : store_(&store), run_(std::move(run)), workload_(std::move(workload)) {}
  store::Store* store_;
  store::RunInfo run_;
  std::string workload_;
};

}  // namespace frontier::sweep
