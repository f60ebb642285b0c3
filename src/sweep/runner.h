// runner.h: runs a plan's matrix into the store.
//
// For each system: find (with resume) or create its run, skip the points the
// store already has, start a session (simulator, or a server frontier
// launches or reaches), run each missing point, and write it to the store as
// soon as it is measured (one transaction per point). A session whose points
// share nothing (a simulated system's: Session::Parallelism) runs several at
// once, on the machine's threads; they are stored and reported in the plan's
// order all the same (core/ordered_pool.h), so the store and the progress
// lines are those of one point after another. A point whose run
// fails (an error, or no request completed) is tried once more; when the
// retry fails too, or the session cannot start, the system is recorded as
// broken (its run's status) and the sweep carries on with the next system.
// Progress covers the whole sweep: points done / total and an ETA from the
// time per request of the points run so far.
//
// Scenario: with the plan's `scenario:`, each point runs under its rules
// (loadgen::ResolveScenario per system, the system's model picking the MLPerf
// benchmark unless the plan names one; a named scenario's target QPS is the
// point's load value), passed to the Session in PointOptions::rules; the
// point's verdict comes back in PointOutcome::verdict and is reported with the
// point's "done" event. Rules that cannot be resolved for a system fail the
// sweep before anything runs.
//
// Search: with the plan's `search:`, each system runs one search
// (loadgen::Search) per workload instead of the grid, its trials run by the
// session (Session::RunTrial) and stored as they end by a sweep::PointSink
// into a run of their own (config "workload" names the workload; the run's
// search_json holds the outcome so far). Progress reports "start" per
// search, "trial" per trial (detail: the verdict and the search's next step)
// and "done" per search (detail: the answer); total counts searches.
// With `--resume`, a search whose run holds a final outcome (a stop reason
// other than "interrupted") is not run again; an interrupted or failed one
// is run again from its first trial into a new run, and the old run, which
// keeps its trials, is marked broken ("search interrupted; run again as
// run N"), so reports take the finished one. The Slurm executor runs grids
// only: a plan with `search:` runs with the local one.
//
// Resume: a point is identified by (plan name, plan hash, system, point key),
// so `--resume` after a crash or SIGKILL runs exactly the points that are not
// stored; a point is stored whole or not at all, never twice.
//
// The seam: a Session runs points of one system. The real sessions
// (simulator, HTTP server, launched server) live in sessions.h; tests pass a
// fake factory.
//
// Thread safety: RunSweep runs on the calling thread (a parallel session's
// points on threads of their own; the store, the sink and on_progress are
// used from the calling thread only); `stop` may be set from a signal handler.
#pragma once

#include <atomic>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "core/clock.h"
#include "core/run_result.h"
#include "core/status.h"
#include "loadgen/point.h"
#include "store/store.h"
#include "sweep/plan.h"

namespace frontier::sweep {

// Runs points of one system. Destroying it stops whatever it started.
class Session {
 public:
  virtual ~Session() = default;
  // Runs one point through loadgen::RunPoint on the session's Target, with
  // `options` (summary, rules, provenance) from the runner; an error or a
  // result without a completed request is a failed attempt.
  virtual Result<loadgen::PointOutcome> RunPoint(const PointSpec& point, const loadgen::PointOptions& options) = 0;
  // Runs one trial of a search (loadgen::TrialRunner::Run): `load` as given
  // (the search's, not the plan's grid), the requests of `point`'s workload
  // and seed, each request reported to `observer` as it ends, and the trial
  // ended early when *stop becomes true (what was measured is kept,
  // run.interrupted). Sessions that cannot run trials answer Unimplemented.
  virtual Result<loadgen::PointOutcome> RunTrial(const PointSpec& point, const workload::LoadOptions& load,
                                                 const loadgen::PointOptions& options, loadgen::Observer* observer,
                                                 const std::atomic<bool>* stop) {
    (void)point, (void)load, (void)options, (void)observer, (void)stop;
    return FailedPrecondition("this session cannot run a search's trials");
  }
  // Points this session may run at once, each RunPoint on a thread of its
  // own: 1 unless its points share nothing (a simulated system's; a server's
  // points are measured one at a time, so that they do not load each other).
  virtual unsigned Parallelism() const { return 1; }
};

// Starts a session for `system` (launching and health-waiting a server if needed).
using SessionFactory =
    std::function<Result<std::unique_ptr<Session>>(const Plan& plan, const SystemSpec& system)>;

struct SweepProgress {
  int64_t done = 0;           // stored (now or before) or given up
  int64_t total = 0;          // points in the matrix
  int64_t ran = 0;            // points run in this invocation
  int64_t skipped = 0;        // already in the store
  int64_t failed = 0;         // given up (broken systems' points included)
  double elapsed_s = 0;
  double eta_s = -1;          // -1 until a point has been run
  std::string system;         // current
  std::string point;          // current point key
  std::string event;          // "start", "done", "retry", "failed", "broken", "skip", "orphan", "trial"
  std::string detail;         // error message for retry/failed/broken
};

struct SweepOptions {
  bool resume = false;
  int max_attempts = 2;                          // first try + one retry
  const Clock* clock = &SteadyClock::Get();
  std::function<void(const SweepProgress&)> on_progress;
  const std::atomic<bool>* stop = nullptr;       // checked between points
  std::map<std::string, std::string> provenance; // command line, host, version ...
  // Run first: stops servers an earlier sweep launched and left behind
  // (sessions.h's StopOrphanedServers); each line is reported as "orphan".
  std::function<Result<std::vector<std::string>>(store::Store&)> stop_orphans;
  // The MLPerf benchmarks' constraints (loadgen::LoadMlperfBenchmarks), read
  // when the plan's scenario names a scenario or a benchmark.
  std::vector<loadgen::MlperfBenchmark> mlperf_benchmarks;
};

// A sweep's progress as both executors report it: the counts of `progress()`,
// the time since it was made (options.clock) and, once a point has run, an
// ETA from the time per request of the points run so far times the requests
// still to run (a point at concurrency 256 sends 256 times the requests of
// one at concurrency 1 and takes about as much longer). Each Report() hands a
// copy to options.on_progress, when set.
class ProgressReporter {
 public:
  // REQUIRES: `options` outlives the reporter.
  ProgressReporter(int64_t total, const SweepOptions& options);

  SweepProgress& progress() { return prog_; }
  const SweepProgress& progress() const { return prog_; }

  // Requests of points still to run (added up front), of a point that ran for
  // `took` (an attempt), and of points run or given up (no longer to run).
  void AddPending(int64_t requests) { pending_requests_ += requests; }
  void Ran(Nanos took, int64_t requests);
  void Settled(int64_t requests) { pending_requests_ -= requests; }

  // Sets event and detail, the elapsed time and the ETA, and reports.
  void Report(const std::string& event, const std::string& detail = "");

 private:
  const SweepOptions& options_;
  SweepProgress prog_;
  Nanos t0_;
  Nanos run_time_ = 0;            // time spent in points run now
  int64_t run_requests_ = 0;      // requests of those points
  int64_t pending_requests_ = 0;  // requests of the points not done yet
};

struct SweepOutcome {
  int64_t total = 0, ran = 0, skipped = 0, failed = 0;  // points, or searches with `search:`
  std::vector<std::string> broken;               // "system: reason"
  std::vector<int64_t> run_ids;                  // one per system, in plan order
  bool interrupted = false;
};

Result<SweepOutcome> RunSweep(const Plan& plan, store::Store& store, const SessionFactory& factory,
                              const SweepOptions& options);

// The searches of a plan with `search:` (RunSweep calls it for such a plan;
// see "Search" above). REQUIRES: plan.search and plan.scenario are set.
Result<SweepOutcome> RunSearches(const Plan& plan, store::Store& store, const SessionFactory& factory,
                                 const SweepOptions& options);

}  // namespace frontier::sweep
