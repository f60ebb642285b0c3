// bench_job.h: one `frontier bench` point from its resolved flags to its
// stored record: the shard's share of the load, the scenario, the target, the
// measurement beside it (the server's metrics, the GPUs' power), the prompts,
// the shards' meeting, the run, the shard's description and the stored point
// (--db). cli/bench_cmd.cc parses the flags into a BenchRequest, calls these
// steps in order and prints; the work is here.
//
//   FRONTIER_ASSIGN_OR_RETURN(BenchJob job, BenchJob::Resolve(request, std::move(workload), target, note));
//   if (storing) job.Store(sink);                        // a PointSink started as job.StoredRun()
//   FRONTIER_RETURN_IF_ERROR(job.MeetShards());          // --shard only
//   FRONTIER_ASSIGN_OR_RETURN(loadgen::PointOutcome out, job.Run(&observer, &stop));
//   FRONTIER_RETURN_IF_ERROR(job.WriteShardMeta(out.run));   // --shard only
//   ... print the point ...
//   FRONTIER_RETURN_IF_ERROR(job.Finish(out));           // stores it with --db
//
// Thread safety: one job per thread; `stop` may be set from anywhere.
#pragma once

#include <atomic>
#include <cstdint>
#include <functional>
#include <optional>
#include <span>
#include <string>

#include <nlohmann/json.hpp>

#include "core/flag_table.h"
#include "core/run_result.h"
#include "core/status.h"
#include "loadgen/benchmark.h"
#include "loadgen/point.h"
#include "loadgen/resolved_workload.h"
#include "loadgen/runner.h"
#include "loadgen/scenario.h"
#include "loadgen/shard.h"
#include "store/store.h"
#include "sweep/measure.h"
#include "sweep/point_store.h"

namespace frontier::sweep {

// What `frontier bench`'s flags ask beyond the workload and the target, as
// values (each field's flag beside it): the measurement, and the rest below.
struct BenchRequest : MeasureRequest {
  std::string model;         // --model: the scenario's benchmark follows from it
  int64_t vocab_size = 0;    // --vocab-size (0: not given)
  std::string command_line;  // for provenance, secrets redacted
  std::string db;            // --db ("": not stored; a shard is not: its merge is), for the notes
  std::string shard;                // --shard ("" = from the environment, else none)
  std::string rendezvous = "127.0.0.1:29517", rendezvous_token;  // --rendezvous, --rendezvous-token
  double rendezvous_timeout_s = 60;                              // --rendezvous-timeout
  bool as_plan = false;  // --as-plan: print the sweep plan of this point (sweep/as_plan.h), send nothing
};

// The flags that fill a BenchRequest, in --help's order: the measurement's
// (--scrape-metrics ... --power-url; groups "Output" and "Energy") and
// --as-plan ("Output"), then the shards' (group "Shards", which --help lists
// after the workload's flags).
// The binder adds --scrape-metrics' optional value and --rendezvous-timeout's
// range [1, 86400].
std::span<const FlagRow<BenchRequest>> BenchFlagRows();

// "" when the request's measurement values fit, else the usage message: the
// scrape interval, the power source and its interval, --power scrape without
// a URL, --as-plan with a flag a plan has no field for (`given` tells which
// were given; BenchFlagsWithoutPlanForm, sweep/as_plan.h).
std::string BenchRequestProblem(const BenchRequest& request, const FlagGiven& given);

// A note for the user, one line without its "frontier bench: " prefix.
using BenchNote = std::function<void(const std::string& note)>;

// The target's options for the workload as resolved (after the shard's share
// and the scenario's load): the command's target flags resolved.
using BenchTarget = std::function<Result<loadgen::BenchOptions>(const loadgen::ResolvedWorkload& workload)>;

class BenchJob {
 public:
  // Everything resolved before the first request is sent: the shard
  // (loadgen::ResolveShard) and its share of the load, the scenario's rules
  // and load (the benchmark from request.model unless --mlperf-benchmark
  // names it), `target`, the measurement, the vocabulary and the requests.
  // InvalidArgument naming the flag; the steps' errors.
  static Result<BenchJob> Resolve(const BenchRequest& request, loadgen::ResolvedWorkload workload,
                                  const BenchTarget& target, BenchNote note);

  // The run a --db point is stored as (CommandRun of the server measured).
  store::RunInfo StoredRun() const;
  // Stores the point in `sink` when it ends (Record); a failed run marks it broken.
  void Store(PointSink sink) { sink_.emplace(std::move(sink)); }
  // With a shard: meets the other shards and agrees on the start; else nothing.
  Status MeetShards();
  // The benchmark (loadgen::RunBenchmark); its error marks the stored run broken.
  Result<loadgen::PointOutcome> Run(loadgen::Observer* observer, const std::atomic<bool>* stop);
  // With a shard: writes its description beside its JSONL (loadgen::WriteShardMeta); else nothing.
  Status WriteShardMeta(const RunResult& run) const;
  // Notes the result JSON written and, with a sink, stores the point (with
  // its verdict when judged) and notes the run it went to; the store's error.
  Status Finish(const loadgen::PointOutcome& out);

  const loadgen::ResolvedWorkload& workload() const { return w_; }
  const std::optional<loadgen::ScenarioRules>& rules() const { return rules_; }

 private:
  BenchJob() = default;
  loadgen::ResolvedWorkload w_;
  std::optional<loadgen::ShardSpec> shard_;
  loadgen::RendezvousOptions rendezvous_;
  std::optional<loadgen::ScenarioRules> rules_;
  loadgen::BenchOptions o_;
  loadgen::PreparedWorkload prepared_;
  std::optional<PointSink> sink_;
  loadgen::ShardClock shard_clock_;
  nlohmann::json schedule_;
  std::string model_, db_;
  BenchNote note_;
};

}  // namespace frontier::sweep
