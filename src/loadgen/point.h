// point.h: one load point end to end, whatever the Target: the timing core
// (runner.h) runs it, then it is summarised once, judged against the
// scenario's rules once (when there are any), stamped with provenance once,
// and its result JSON and per-request JSONL are written once. `frontier
// bench` (over HTTP, benchmark.h), `frontier simulate` (a sim::SimTarget) and
// the search's live trials run their points through it, so a measured and a
// simulated point of the same configuration differ only in the Target.
//
//   sim::SimTarget target(config, sim::SimulateOptions{});   // or HttpTarget, WorkerPool
//   PointOptions o;
//   o.summary = summary_options;
//   o.rules = scenario_rules;                                 // optional: a verdict
//   o.result_json = "point.json";
//   Result<PointOutcome> r = RunPoint(target, specs, load, o, &observer, &stop);
//
// The ideal prefix-cache hit rate of the prompts sent, in send order
// (workload/prefix_blocks.h), is stored in the run when every prompt is
// token ids (RunSessions computes it for session workloads).
//
// Files: the JSONL gets each request as it ends (warm-up too, marked); the
// result JSON is written atomically after the run, also after an
// interruption (run.interrupted = true), with the load's descriptive fields
// (LoadResultFields), the caller's extra fields and the verdict.
//
// Energy (PointOptions::power): the power source is sampled on a thread of
// its own (power/sampler.h), never on the timing core's; a window it could
// not measure leaves RunResult::energy unset and says why in the effective
// setting "power_error".
//
// Thread safety: runs on the calling thread; `stop` may be set from anywhere.
#pragma once

#include <atomic>
#include <map>
#include <optional>
#include <span>
#include <string>

#include <nlohmann/json.hpp>

#include "core/run_result.h"
#include "core/status.h"
#include "loadgen/runner.h"
#include "loadgen/scenario.h"
#include "loadgen/target.h"
#include "loadgen/verdict.h"
#include "metrics/summary.h"
#include "power/source.h"
#include "workload/load.h"
#include "workload/request_spec.h"
#include "workload/session.h"

namespace frontier::loadgen {

struct PointOptions {
  RunOptions run;                       // the Target's clock decides what the times mean
  metrics::SummaryOptions summary;      // summary.num_gpus is also the run's num_gpus
  std::optional<ScenarioRules> rules;   // when set, the point is judged (verdict.h)
  std::string result_json;              // "" = not written
  std::string requests_jsonl;           // "" = not written
  // Provenance copied into the RunResult (the Target adds its own: Describe).
  std::string command_line;
  std::string model;                    // "" = the model the Target served
  std::map<std::string, std::string> requested_settings;
  std::map<std::string, std::string> effective_settings;
  // Extra top-level fields of the result JSON (vLLM's backend, model_id, ...).
  nlohmann::json extra_result_fields = nlohmann::json::object();
  // When set, the point runs this session workload (session_runner.h) and
  // RunPoint's `specs` are not used. Must outlive RunPoint.
  const workload::SessionWorkload* sessions = nullptr;
  // Block size of the ideal prefix-cache hit rate (workload/prefix_blocks.h);
  // 0: a single-turn point does not compute it (a session workload needs it).
  int ideal_block_tokens = 16;
  // When set, read on its own thread every power_interval_ns from just
  // before the run to just after it, and integrated over the measured
  // window (the non-warm-up requests' first scheduled time to their last
  // end, the summary's duration) into RunResult::energy. Only for a Target on
  // the steady clock (a live server). Must outlive RunPoint.
  power::PowerSource* power = nullptr;
  Nanos power_interval_ns = 100 * kNanosPerMilli;
};

struct PointOutcome {
  RunResult run;
  metrics::Summary summary;
  std::optional<Verdict> verdict;       // set when options.rules was
};

// Runs, summarises, judges, stamps and writes the point. Fails for bad load
// options (RunLoad's InvalidArgument, or the Target's CheckLoad, before
// anything runs), an output file that cannot be written (IoError naming it),
// or a run the Target ended on its own (its RunStatus, after the files are
// written with what ran); a request that fails is a result, not an error.
// With a Target that has bounds (sim::SimTarget) pass its own stop flag as
// `stop`.
Result<PointOutcome> RunPoint(Target& target, std::span<const workload::RequestSpec> specs,
                              const workload::LoadOptions& load, const PointOptions& options,
                              Observer* observer, const std::atomic<bool>* stop);

// Sets run->ideal_prefix_hit_rate for RunLoad's issue order of `specs`
// (warm-up first, then cyclic) over the run's requests; leaves it unset when
// a prompt is text.
void SetIdealHitRate(std::span<const workload::RequestSpec> specs, int64_t warmup, int block_tokens,
                     RunResult* run);

// The provenance every point carries beyond what its Target says of itself
// (Target::Describe, called first): frontier's version and the options'
// command line, model (`served_model` when options.model is ""), GPU count
// and settings. `start_time_utc` is kept when already set.
void StampProvenance(const PointOptions& options, const std::string& served_model, RunResult* run);

// vLLM's descriptive result fields for `load` (request_rate, burstiness,
// max_concurrency, num_prompts), written by metrics::ResultLoadToJson, the one
// writer of the result's keys, from the load's values (num_prompts unset when
// the load is bounded by duration only).
nlohmann::json LoadResultFields(const workload::LoadOptions& load);

// The result document of a point: metrics::ResultToJson with `extra`, the
// load's fields and, when given, the verdict under "verdict".
nlohmann::json PointResultJson(const RunResult& run, const metrics::Summary& summary,
                               const metrics::SummaryOptions& summary_options, const workload::LoadOptions& load,
                               const nlohmann::json& extra, const Verdict* verdict, const ScenarioRules* rules);

// Writes the point's result JSON, when options.result_json is set (RunPoint
// does; a caller that adds to the outcome after, such as the server's
// scraped metrics, writes it again).
Status WritePointResultJson(const PointOptions& options, const workload::LoadOptions& load, const PointOutcome& outcome);

}  // namespace frontier::loadgen
