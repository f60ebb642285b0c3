// bench_job.cc: `frontier bench`'s steps below the command line.
#include "sweep/bench_job.h"

#include <utility>

#include <fmt/format.h>

#include "core/redact.h"
#include "power/open.h"
#include "sim/engine/data_dir.h"
#include "sweep/as_plan.h"
#include "sweep/system_run.h"
#include "workload/dataset_label.h"

namespace frontier::sweep {
namespace {

// A shard's part of the load: its position, and its share of the cap.
Status ApplyShard(const loadgen::ShardSpec& shard, bool store, loadgen::ResolvedWorkload* w) {
  if (w->requests_jsonl.empty())
    return InvalidArgument("--shard needs --requests-jsonl FILE (one per shard): `bench merge` joins them");
  if (store)
    return InvalidArgument("--db with --shard: a shard holds part of the run; store the merged result "
                           "(`bench merge --result-json FILE`, then `frontier db import FILE`)");
  return loadgen::ShareLoad(shard, &w->load);
}

}  // namespace

namespace {

// The measurement's flags, then the shards', in --help's order.
const FlagRow<BenchRequest> kFlags[] = {
    {"--scrape-metrics", &BenchRequest::scrape_url,
     "Sample the server's Prometheus metrics during the run (KV-cache use, running/waiting, preemptions, prefix-cache "
     "hits) into the result's server_metrics; URL [--base-url + /metrics]",
     "Output"},
    {"--scrape-interval", &BenchRequest::scrape_interval_s, "Seconds between --scrape-metrics samples [1]", "Output"},
    {"--power", &BenchRequest::power_kind,
     "Measure the GPUs' energy during the run: auto (NVML, else ROCm SMI, else the DCGM exporter at --power-url), "
     "nvml, amdsmi, rapl (the host's CPU packages and DRAM), scrape (--power-url), off; without a source tokens per "
     "joule are the TDP bound [auto]",
     "Energy"},
    {"--power-interval", &BenchRequest::power_interval_s, "Seconds between power readings [0.1]", "Energy"},
    {"--power-url", &BenchRequest::power_url,
     "A DCGM exporter's /metrics (DCGM_FI_DEV_POWER_USAGE, DCGM_FI_DEV_TOTAL_ENERGY_CONSUMPTION) for --power scrape or "
     "auto [the --scrape-metrics URL]",
     "Energy"},
    {"--as-plan", &BenchRequest::as_plan,
     "Print the sweep plan (YAML) that runs this point with `frontier sweep`, then exit without sending a request; "
     "the API key and --header are left out, and the flags a plan has no field for (--db, --scrape-metrics, "
     "--shard, --timeout, ...) are refused",
     "Output"},
    {"--shard", &BenchRequest::shard,
     "Run shard INDEX/COUNT of the schedule (0-based), e.g. 1/4; default from OMPI_COMM_WORLD_RANK/SIZE or, in an srun "
     "step, SLURM_PROCID/SLURM_NTASKS. Needs --requests-jsonl; join with `bench merge`",
     "Shards"},
    {"--rendezvous", &BenchRequest::rendezvous,
     "HOST:PORT where shard 0 listens and the others meet it to agree on the start [127.0.0.1:29517]", "Shards"},
    {"--rendezvous-timeout", &BenchRequest::rendezvous_timeout_s, "Seconds to wait for every shard [60]", "Shards"},
    {"--rendezvous-token", &BenchRequest::rendezvous_token,
     "A secret every shard of the run shares; the shards prove it to each other (HMAC) and ignore peers that cannot "
     "[$FRONTIER_RENDEZVOUS_TOKEN, else one derived from the schedule, which keeps other runs' shards out but not a "
     "peer that knows the schedule]",
     "Shards"},
};

}  // namespace

std::span<const FlagRow<BenchRequest>> BenchFlagRows() { return kFlags; }

std::string BenchRequestProblem(const BenchRequest& r, const FlagGiven& given) {
  if (r.as_plan)
    if (std::string bad = loadgen::PlanFormProblem("bench", BenchFlagsWithoutPlanForm(), given); !bad.empty())
      return bad;
  return MeasureProblem(r);
}

Result<BenchJob> BenchJob::Resolve(const BenchRequest& r, loadgen::ResolvedWorkload workload,
                                   const BenchTarget& target, BenchNote note) {
  BenchJob b;
  b.w_ = std::move(workload);
  b.note_ = std::move(note);
  b.model_ = r.model;
  b.db_ = r.db;
  b.rendezvous_.address = r.rendezvous;
  b.rendezvous_.timeout_s = r.rendezvous_timeout_s;
  b.rendezvous_.token = r.rendezvous_token;
  Result<std::optional<loadgen::ShardSpec>> shard = loadgen::ResolveShard(r.shard);
  if (!shard.ok()) return InvalidArgument(shard.status().message());
  b.shard_ = *shard;
  const workload::LoadOptions whole_load = b.w_.load;  // the schedule every shard shares
  if (b.shard_) FRONTIER_RETURN_IF_ERROR(ApplyShard(*b.shard_, !r.db.empty(), &b.w_));
  // The scenario's benchmark follows from the served model's name unless --mlperf-benchmark names it.
  FRONTIER_ASSIGN_OR_RETURN(b.rules_, loadgen::ResolveScenarioRules(b.w_, sim::DefaultDataDir(), r.model));
  if (b.rules_) FRONTIER_RETURN_IF_ERROR(loadgen::ApplyScenarioLoad(*b.rules_, &b.w_));
  FRONTIER_ASSIGN_OR_RETURN(b.o_, target(b.w_));
  b.o_.command_line = r.command_line;
  if (b.rules_) b.o_.rules = *b.rules_;
  FRONTIER_RETURN_IF_ERROR(ConfigureMeasurement(r, b.shard_.has_value(), &b.o_));
  const std::string vocab_note =
      loadgen::ResolveVocabulary(b.o_.client, r.vocab_size, &b.w_.dataset, &b.o_.effective_settings);
  if (!vocab_note.empty()) b.note_(vocab_note);
  FRONTIER_ASSIGN_OR_RETURN(b.prepared_, loadgen::PrepareWorkload(&b.w_));
  if (!b.w_.tokenizer.empty()) {  // made by PrepareWorkload, after the settings were copied
    for (const char* key : {"tokenizer", "tokenizer_exact_prompts"}) b.o_.effective_settings[key] = b.w_.effective[key];
    b.note_("prompts by " + b.w_.effective["tokenizer"] + ": " + b.w_.effective["tokenizer_exact_prompts"]);
  }
  b.o_.ideal_block_tokens = b.w_.ideal_block_tokens;
  b.schedule_ = loadgen::ShardSchedule(whole_load, b.w_.effective.count("dataset") ? b.w_.effective.at("dataset") : "",
                                       b.w_.dataset.random.input_len, b.w_.dataset.random.output_len);
  return b;
}

store::RunInfo BenchJob::StoredRun() const {
  return CommandRun(ServerSystem(model_, o_.client.base_url, o_.client.endpoint, w_.summary.num_gpus), w_.effective,
                    o_.command_line);
}

Status BenchJob::MeetShards() {
  if (!shard_) return Status::Ok();
  note_(fmt::format("shard {}/{} ({}), meeting at {}", shard_->index, shard_->count, shard_->from,
                    rendezvous_.address));
  FRONTIER_ASSIGN_OR_RETURN(shard_clock_,
                            loadgen::MeetShards(*shard_, rendezvous_, schedule_, &o_.effective_settings));
  w_.load.start_at_ns = shard_clock_.start_steady_ns;
  return Status::Ok();
}

Result<loadgen::PointOutcome> BenchJob::Run(loadgen::Observer* observer, const std::atomic<bool>* stop) {
  // Set here, not in Resolve: the job may have moved since (the sessions are its own).
  o_.sessions = prepared_.sessions ? &*prepared_.sessions : nullptr;
  Result<loadgen::PointOutcome> out = loadgen::RunBenchmark(o_, prepared_.specs, w_.load, observer, stop);
  if (!out.ok() && sink_) return sink_->Failed(out.status());  // the run's failure is the error
  return out;
}

Status BenchJob::WriteShardMeta(const RunResult& r) const {
  if (!shard_) return Status::Ok();
  const nlohmann::json run = {{"base_url", r.base_url},         {"endpoint", r.endpoint},
                              {"model", r.model},               {"served_model", r.served_model},
                              {"num_gpus", r.num_gpus},         {"start_time_utc", r.start_time_utc}};
  FRONTIER_RETURN_IF_ERROR(loadgen::WriteShardMeta(w_.requests_jsonl, *shard_, shard_clock_, schedule_, run));
  note_(fmt::format("shard {}/{}: clock offset from shard 0 {:+.3f} ms +/- {:.3f} ms; wrote {}", shard_->index,
                    shard_->count, shard_clock_.offset_ns / 1e6, shard_clock_.bound_ns / 1e6,
                    loadgen::ShardMetaPath(w_.requests_jsonl)));
  return Status::Ok();
}

Status BenchJob::Finish(const loadgen::PointOutcome& out) {
  if (!w_.result_json.empty()) note_("wrote " + w_.result_json);
  if (!sink_) return Status::Ok();
  // A point judged against a scenario keeps its verdict beside its metrics, as a sweep's does.
  FRONTIER_RETURN_IF_ERROR(sink_->Record(workload::DatasetLabel(w_.dataset), w_.load, out, rules_));
  note_((sink_->stored() > 0 ? "stored the point as run " : "stored no point in run ") + sink_->run().Label() +
        " in " + RedactUrl(db_) + (out.run.interrupted ? " (interrupted: a cut-short point is not stored)" : ""));
  return Status::Ok();
}

}  // namespace frontier::sweep
