// concurrency_sweep.h: one simulated run per closed-loop concurrency, each
// summarised with the same metrics as a measured run, and the points that are
// Pareto-optimal in throughput per GPU against interactivity.
//
//   auto points = SweepConcurrency(config, requests, load, {1, 2, 4, 8}, summary_options,
//                                  [](const SweepPoint& p, const RunResult& run) { ... });
//
// Points are independent: they are simulated and summarised on up to
// `threads` threads at once, with the same results as one after another.
//
// Thread safety: pure function apart from the callback, which runs on the
// calling thread once per point, in order.
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
  // When set, each point runs this session workload (loadgen::RunSessions
  // through loadgen::RunPoint) instead of `requests`: the concurrency caps the
  // sessions open at once and num_prompts counts sessions (at least
  // min_rounds x c, the workload's sessions reused cyclically). Must outlive
  // the sweep.
  const workload::SessionWorkload* sessions = nullptr;
  int ideal_block_tokens = 16;     // block size of the sessions' ideal prefix-cache hit rate
};

// Runs `load` once per concurrency c (replacing load.max_concurrency) on the
// first max(load.num_prompts, min_rounds x c) of `requests`: a closed loop
// needs several rounds of c requests to reach its steady state, so a point
// never measures fewer (which made high-concurrency points repeat one
// another). Fails with InvalidArgument when `requests` holds fewer (a
// session workload, options.sessions, is reused cyclically instead). With
// max_num_seqs_auto each point's engine admits c sequences. `on_point` (may
// be empty) sees each point's full RunResult before it is dropped; an error
// from it stops the sweep.
Result<std::vector<SweepPoint>> SweepConcurrency(
    const SimConfig& config, const std::vector<workload::RequestSpec>& requests,
    const workload::LoadOptions& load, const std::vector<int64_t>& concurrencies,
    const metrics::SummaryOptions& summary_options, const SweepOptions& options = {},
    const std::function<Status(const SweepPoint&, const RunResult&)>& on_point = {});

// "out.json" -> "out.c16.json": the file of one point of a sweep.
std::string SweepPointPath(const std::string& path, int64_t concurrency);

// Writes point `p`'s result files as loadgen::RunPoint writes a point's: the
// result JSON and request records of `base` (each at SweepPointPath; none when
// empty), with `run` stamped with `base`'s provenance afresh (`served_model`;
// the target's part is in already) and `load` at the point's concurrency and
// request count. Returns both, for the caller's record of the point.
struct SweepPointRecord {
  workload::LoadOptions load;   // the point's: its concurrency and request count
  loadgen::PointOutcome outcome;  // the stamped run and its summary (no verdict)
};
Result<SweepPointRecord> WriteSweepPointFiles(const loadgen::PointOptions& base, const std::string& served_model,
                                                   const workload::LoadOptions& load, const SweepPoint& p,
                                                   const RunResult& run);

// The requests a sweep to `max_concurrency` needs: max(num_prompts, rounds x max_concurrency).
int64_t SweepPrompts(int64_t num_prompts, int64_t max_concurrency, int rounds = 4);

// Marks `pareto` on each point on the frontier of output throughput per GPU
// against interactivity (analysis::ParetoFrontier: of exact duplicates, the
// first).
void MarkPareto(std::vector<SweepPoint>& points);

}  // namespace frontier::sim
