// concurrency_sweep.h: one simulated point per closed-loop concurrency, each
// run, summarised and written by loadgen::RunPoint as a measured point is,
// and the points that are Pareto-optimal in throughput per GPU against
// interactivity.
//
//   SweepOptions o;
//   o.point.summary = summary_options;                 // and provenance, files, sessions
//   auto points = SweepConcurrency(config, requests, load, {1, 2, 4, 8}, o,
//                                  [](const SweepPoint& p, const SweepPointRun& r) { ... });
//
// Points are independent: they are run on up to `threads` threads at once
// (core/ordered_pool.h: at most twice the threads past the next point
// delivered), with the same results as one after another.
//
// Thread safety: pure function apart from the files it writes and the
// callback, which runs on the calling thread once per point, in order.
#pragma once

#include <functional>
#include <vector>

#include "core/run_result.h"
#include "core/status.h"
#include "loadgen/point.h"
#include "metrics/summary.h"
#include "sim/engine/config.h"
#include "sim/simulate.h"
#include "workload/load.h"
#include "workload/request_spec.h"
#include "workload/session.h"

namespace frontier::sim {

struct SweepPoint {
  int64_t concurrency = 0;
  int64_t num_prompts = 0;   // requests the point sent: at least 4 x concurrency
  int64_t max_running = 0;   // the engine's cap on running sequences (max_num_seqs x dp)
  bool capped = false;       // max_running < concurrency: the rest queue in the engine
  metrics::Summary summary;
  SimulationStats stats;
  bool pareto = false;  // no other point has both more output throughput per GPU and more interactivity
};

// max_num_seqs: auto, the one rule: `config` raised so the deployment admits
// `concurrency` running sequences, ceil(concurrency / dp) per DP rank
// (WithMaxNumSeqs; never lowered). Applied wherever the offered concurrency
// is known: each point of a concurrency sweep, `simulate`'s one point at its
// --max-concurrency, and each point of a plan's simulated system.
Result<SimConfig> WithMaxNumSeqsFor(const SimConfig& config, int64_t concurrency);

struct SweepOptions {
  SweepOptions() = default;
  SweepOptions(const SimulateOptions& s) : sim(s) {}  // NOLINT: a sweep is runs with these options
  SimulateOptions sim;             // client round trip, ...
  bool max_num_seqs_auto = false;  // raise max_num_seqs to each concurrency (WithMaxNumSeqsFor)
  int threads = 0;                 // points simulated at once; 0: the hardware's threads
  int min_rounds = 4;              // each point sends at least min_rounds x its concurrency
  // What every point shares, as loadgen::RunPoint takes it: the summary's
  // options, provenance, extra result fields and files. A point's result
  // JSON and JSONL are point.result_json and point.requests_jsonl named for
  // its concurrency (SweepPointPath; "" = none); point.run is the virtual
  // run's (VirtualRunOptions) whatever it holds. With point.sessions set,
  // each point runs that session workload instead of `requests`: the
  // concurrency caps the sessions open at once and num_prompts counts
  // sessions (at least min_rounds x c, the workload's sessions reused
  // cyclically); it must outlive the sweep.
  loadgen::PointOptions point;
};

// One point as loadgen::RunPoint ran it: its load (the sweep's at the
// point's concurrency and request count) and its outcome (no verdict).
struct SweepPointRun {
  workload::LoadOptions load;
  loadgen::PointOutcome outcome;
};

// Runs `load` once per concurrency c (replacing load.max_concurrency) on the
// first max(load.num_prompts, min_rounds x c) of `requests`: a closed loop
// needs several rounds of c requests to reach its steady state, so a point
// never measures fewer (which made high-concurrency points repeat one
// another). Fails with InvalidArgument when `requests` holds fewer (a
// session workload, options.point.sessions, is reused cyclically instead).
// With max_num_seqs_auto each point's engine admits c sequences. Each point
// is one loadgen::RunPoint on a SimTarget of its own, which summarises it and
// writes its files, as `frontier simulate`'s one point is run. `on_point`
// (may be empty) sees each point's full run before it is dropped; an error
// from it stops the sweep.
Result<std::vector<SweepPoint>> SweepConcurrency(
    const SimConfig& config, const std::vector<workload::RequestSpec>& requests,
    const workload::LoadOptions& load, const std::vector<int64_t>& concurrencies, const SweepOptions& options = {},
    const std::function<Status(const SweepPoint&, const SweepPointRun&)>& on_point = {});

// "out.json" -> "out.c16.json": the file of one point of a sweep.
std::string SweepPointPath(const std::string& path, int64_t concurrency);

// The requests a sweep to `max_concurrency` needs: max(num_prompts, rounds x max_concurrency).
int64_t SweepPrompts(int64_t num_prompts, int64_t max_concurrency, int rounds = 4);

// Marks `pareto` on each point on the frontier of output throughput per GPU
// against interactivity (analysis::ParetoFrontier: of exact duplicates, the
// first).
void MarkPareto(std::vector<SweepPoint>& points);

}  // namespace frontier::sim
