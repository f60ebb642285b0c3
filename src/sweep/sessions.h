// sessions.h: the real Sessions a sweep runs points on.
//
//   * SimSession: the built-in simulator in virtual time, a sim::SimTarget
//     run as a point (loadgen::RunPoint), exactly as `frontier simulate`
//     runs one. Points are deterministic functions of (system, workload,
//     load, seed); a sweep over 1..256 concurrency takes seconds, not hours.
//   * Servers (`base_url`, optionally `launch`) and `live: true` simulated
//     systems are measured over HTTP with the load generator (loadgen's
//     RunBenchmark, so RunPoint), exactly as `frontier bench` measures them.
//
// Workloads are built from the plan's workload entry (workload/spec.h) with
// the point's seed: a single-turn dataset by workload::LoadDataset, num_prompts
// = the point's count plus the plan's warm-up (a sharegpt or jsonl file is
// read once per sweep, the same requests drawn from it: dataset_cache.h); a
// session workload (trace, multi-turn) by workload::LoadSessionWorkload, the
// point's count being sessions (a concurrency point caps the sessions open at
// once, a rate point starts that many sessions per second;
// loadgen/session_runner.h).
// With the plan's scenario (PointOptions::rules with a scenario), the load
// is the scenario's (loadgen::ScenarioLoad) at the point's target QPS.
//
// Thread safety: one thread per session.
#pragma once

#include <atomic>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "core/clock.h"
#include "core/status.h"
#include "loadgen/scenario.h"
#include "sim/engine/config.h"
#include "sim/fit/band.h"
#include "store/store.h"
#include "sweep/dataset_cache.h"
#include "sweep/plan.h"
#include "sweep/runner.h"
#include "workload/load.h"
#include "workload/request_spec.h"
#include "workload/session.h"

namespace frontier::sweep {

// The requests of one point: the specs of a single-turn dataset, or the
// session workload of a session dataset (then `specs` is empty).
struct PointWorkload {
  std::vector<workload::RequestSpec> specs;
  std::optional<workload::SessionWorkload> sessions;
  // What making them found, for the point's effective settings: a
  // tokenizer's name and how many prompts re-encode to their length.
  std::map<std::string, std::string> settings;
};
// `load` is the point's (PointLoad); with `rules` naming a scenario, the
// scenario's run length sizes a pool of distinct prompts reused cyclically.
// `live` (sent over HTTP) picks the prompt format's default
// (workload::PromptFormatFor: text for a multi-turn workload, whose turns
// carry the server's streamed answer). `adjust`, when set, sees the dataset
// options before the requests are made (a server's session sets the
// vocabulary its token ids are drawn below). With `datasets`, a file dataset
// is drawn from the sweep's one read of it (the same requests; read for the
// plan's largest point, LargestPointRequests); without, read for this point.
// Errors name the workload.
Result<PointWorkload> PointRequests(const Plan& plan, const PointSpec& point, const workload::LoadOptions& load,
                                    const loadgen::ScenarioRules* rules = nullptr, bool live = false,
                                    const std::function<void(workload::DatasetOptions*)>& adjust = {},
                                    DatasetCache* datasets = nullptr);

// The load options of one point; with `rules` naming a scenario, the
// scenario's load (loadgen::ScenarioLoad) at the point's target QPS.
Result<workload::LoadOptions> PointLoad(const Plan& plan, const PointSpec& point,
                                        const loadgen::ScenarioRules* rules = nullptr);

// A session on the simulator; NotFound / InvalidArgument / FailedPrecondition
// from the simulator's catalog when the system cannot be built (unknown
// model, does not fit, ...). With `bands` (loaded once for the sweep), every
// point carries its prediction band (sim/fit/band.h) into its result and stored
// record; without, none. With `datasets` (the sweep's, outliving the
// session), its points' file datasets are read once (PointRequests).
Result<std::unique_ptr<Session>> MakeSimSession(const Plan& plan, const SystemSpec& system,
                                                const sim::BandTable* bands = nullptr,
                                                DatasetCache* datasets = nullptr);

// A session on the simulator for an already resolved deployment (tests:
// a hand-built configuration whose capacity is known).
Result<std::unique_ptr<Session>> MakeSimSession(const Plan& plan, sim::SimConfig config,
                                                DatasetCache* datasets = nullptr);

struct SessionOptions {
  std::string log_dir = "frontier.logs";   // launched servers' logs: <log_dir>/<system>.log
  const std::atomic<bool>* stop = nullptr; // interrupts a measured point (it is then not stored)
  // Called about every `point_progress_interval` during a point measured over
  // HTTP (these take as long as the hardware does): requests ended and planned.
  std::function<void(int64_t ended, int64_t total)> on_point_progress;
  Nanos point_progress_interval = 5 * kNanosPerSecond;
  // Where launched servers are recorded while they run (store::LaunchRecord),
  // so that a later sweep stops one left behind; nullptr: not recorded.
  store::Store* store = nullptr;
  // The sweep's file datasets, each read once (dataset_cache.h); null: each
  // point reads its own. DefaultSessionFactory makes one when it is null.
  std::shared_ptr<DatasetCache> datasets;
};

// A session measuring `base_url` over HTTP with the load generator; with
// `launch`, the server is started first (own process group, log file, health
// wait) and stopped (SIGTERM, then SIGKILL) when the session ends. A launched
// server must be the one answering: base_url's port must be free before the
// launch, and (unless launch.check_owner is false) the process listening on
// it must belong to the launched group after the health wait and before
// every point; otherwise the system is broken with a message naming the
// process that holds the port.
Result<std::unique_ptr<Session>> MakeServerSession(const Plan& plan, const SystemSpec& system,
                                                   const SessionOptions& options);

// A `live: true` simulated system: frontier's own OpenAI-compatible server
// (serve/) runs the simulator in wall-clock time in this process, on a free
// loopback port, and the points are measured over HTTP like a real server's.
Result<std::unique_ptr<Session>> MakeLiveSimSession(const Plan& plan, const SystemSpec& system,
                                                    const SessionOptions& options);

// Picks the session for each system: simulated, server, or launched server.
// Its sessions share options.datasets (one made here when null), so a
// sweep's file dataset is read once for all its systems; it is freed with the
// factory.
SessionFactory DefaultSessionFactory(const SessionOptions& options);

// Stops the servers that sweeps recorded in `store` as launched on this
// machine (since its last boot) and never marked stopped: their sweep died
// before it could stop them. Marks them stopped; returns one line per server
// found still running, for the terminal. With `only_system`, only that
// system's servers (a sweep of one system, such as a Slurm job's, shares its
// machine with the running servers of the plan's other systems).
Result<std::vector<std::string>> StopOrphanedServers(store::Store& store, const std::string& only_system = "");

}  // namespace frontier::sweep
