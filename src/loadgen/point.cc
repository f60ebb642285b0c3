#include "loadgen/point.h"

#include <algorithm>
#include <limits>
#include <optional>

#include "core/clock.h"
#include "core/version.h"
#include "loadgen/session_runner.h"
#include "metrics/result_json.h"
#include "power/integrate.h"
#include "power/phases.h"
#include "power/sampler.h"
#include "workload/prefix_blocks.h"

namespace frontier::loadgen {
namespace {

// Writes each ended request to the JSONL file, then forwards to the caller's observer.
class RecordingObserver final : public Observer {
 public:
  RecordingObserver(metrics::RequestJsonlWriter* writer, Observer* next) : writer_(writer), next_(next) {}
  void OnProgress(const Progress& p) override {
    if (next_) next_->OnProgress(p);
  }
  void OnRequest(const RequestRecord& r) override {
    if (writer_->is_open() && status_.ok()) status_ = writer_->Write(r);
    if (next_) next_->OnRequest(r);
  }
  const Status& status() const { return status_; }

 private:
  metrics::RequestJsonlWriter* writer_;
  Observer* next_;
  Status status_;
};

}  // namespace

void StampProvenance(const PointOptions& o, const std::string& served_model, RunResult* run) {
  run->frontier_version = kVersion;
  run->command_line = o.command_line;
  if (run->start_time_utc.empty()) run->start_time_utc = UtcTimestampNow();
  run->model = o.model.empty() ? served_model : o.model;
  run->num_gpus = o.summary.num_gpus;
  for (const auto& [k, v] : o.requested_settings) run->requested_settings[k] = v;
  for (const auto& [k, v] : o.effective_settings) run->effective_settings[k] = v;
}

nlohmann::json LoadResultFields(const workload::LoadOptions& load) {
  metrics::ResultLoad r;
  r.request_rate = load.request_rate;
  r.burstiness = load.burstiness;
  r.max_concurrency = load.max_concurrency;
  // The largest count means "bounded by duration only" (workload/load.h).
  if (load.num_prompts != std::numeric_limits<int64_t>::max()) r.num_prompts = load.num_prompts;
  return metrics::ResultLoadToJson(r);
}

namespace {

nlohmann::json ResultFields(const workload::LoadOptions& load, const nlohmann::json& extra, const Verdict* verdict,
                            const ScenarioRules* rules) {
  nlohmann::json fields = LoadResultFields(load);
  if (extra.is_object())
    for (const auto& [k, v] : extra.items()) fields[k] = v;
  if (verdict != nullptr && rules != nullptr) fields["verdict"] = VerdictJson(*verdict, *rules);
  return fields;
}

}  // namespace

nlohmann::json PointResultJson(const RunResult& run, const metrics::Summary& summary,
                               const metrics::SummaryOptions& summary_options, const workload::LoadOptions& load,
                               const nlohmann::json& extra, const Verdict* verdict, const ScenarioRules* rules) {
  const nlohmann::json fields = ResultFields(load, extra, verdict, rules);
  return metrics::ResultToJson(run, summary, summary_options, &fields);
}

Status WritePointResultJson(const PointOptions& o, const workload::LoadOptions& load, const PointOutcome& out) {
  if (o.result_json.empty()) return Status::Ok();
  const nlohmann::json fields = ResultFields(load, o.extra_result_fields, out.verdict ? &*out.verdict : nullptr,
                                             o.rules ? &*o.rules : nullptr);
  return metrics::WriteResultJson(o.result_json, out.run, out.summary, o.summary, &fields);
}

void SetIdealHitRate(std::span<const workload::RequestSpec> specs, int64_t warmup, int block_tokens,
                     RunResult* run) {
  if (specs.empty() || block_tokens < 1 || static_cast<int64_t>(specs.size()) <= warmup) return;
  for (const auto& s : specs)
    if (s.prompt_token_ids.empty()) return;  // text: the server's tokens are unknown
  // RunLoad's issue order: the warm-up specs, then the rest cyclically.
  const auto warm = static_cast<size_t>(warmup);
  const size_t measured = specs.size() - warm;
  workload::PrefixHitCounter c(block_tokens);
  for (size_t i = 0; i < run->requests.size(); ++i)
    c.Query(specs[i < warm ? i : warm + (i - warm) % measured].prompt_token_ids);
  if (c.queries() == 0) return;
  run->ideal_prefix_hit_rate = c.HitRate();
  run->ideal_hit_block_tokens = block_tokens;
}

namespace {

// Cuts the sampled series to the measured window into run->energy, or says
// in the effective settings why not.
void MeasureEnergy(const power::PowerSampler::Series& series, const power::PowerSource& source, Nanos interval_ns,
                   RunResult* run) {
  run->effective_settings["power"] = source.Name();
  run->effective_settings["power_interval_s"] = std::to_string(NanosToSeconds(interval_ns));
  if (series.failures > 0)
    run->effective_settings["power_failed_readings"] =
        std::to_string(series.failures) + " (" + series.last_error + ")";
  Nanos first = std::numeric_limits<Nanos>::max(), last = std::numeric_limits<Nanos>::min();
  for (const auto& r : run->requests) {
    if (r.warmup || r.end_ns < 0) continue;
    first = std::min(first, r.scheduled_ns);
    last = std::max(last, r.end_ns);
  }
  if (last <= first) {
    run->effective_settings["power_error"] = "no measured request ended: no window to measure";
    return;
  }
  Result<EnergyMeasurement> e =
      power::Integrate(series.readings, source.Devices(), run->origin_ns + first, run->origin_ns + last);
  if (!e.ok()) {
    run->effective_settings["power_error"] = e.status().message();
    return;
  }
  e->source = source.Name();
  e->interval_s = NanosToSeconds(interval_ns);
  // The split by phase, over windows two readings long (power/phases.h), widened
  // when a long run would need more windows than the bound.
  Nanos slice = std::max<Nanos>(2 * interval_ns, 1);
  slice = std::max<Nanos>(slice, (last - first) / power::kMaxPhaseWindows + 1);
  Result<EnergyPhases> phases =
      power::SplitByPhase(series.readings, source.Devices(), run->requests, run->origin_ns, first, last, slice);
  if (phases.ok()) {
    e->phases = std::move(*phases);
  } else {
    run->effective_settings["power_phase_error"] = phases.status().message();
  }
  run->energy = std::move(*e);
}

}  // namespace

Result<PointOutcome> RunPoint(Target& target, std::span<const workload::RequestSpec> specs,
                              const workload::LoadOptions& load, const PointOptions& o, Observer* observer,
                              const std::atomic<bool>* stop) {
  FRONTIER_RETURN_IF_ERROR(target.CheckLoad(load));
  metrics::RequestJsonlWriter writer;
  if (!o.requests_jsonl.empty()) FRONTIER_RETURN_IF_ERROR(writer.Open(o.requests_jsonl));
  RecordingObserver recording(&writer, observer);
  const std::string start_time = UtcTimestampNow();
  std::optional<power::PowerSampler> sampler;
  if (o.power != nullptr) {
    sampler.emplace(o.power, o.power_interval_ns, target.clock());
    sampler->Start();
  }
  RunResult run;
  if (o.sessions != nullptr) {
    FRONTIER_ASSIGN_OR_RETURN(run, RunSessions(target, *o.sessions, load, o.run, &recording, stop,
                                               o.ideal_block_tokens));
  } else {
    FRONTIER_ASSIGN_OR_RETURN(run, RunLoad(target, specs, load, o.run, &recording, stop));
    SetIdealHitRate(specs, load.warmup, o.ideal_block_tokens, &run);
  }
  run.start_time_utc = start_time;
  target.Describe(&run);
  StampProvenance(o, target.ServedModel(), &run);
  if (sampler) MeasureEnergy(sampler->Stop(), *o.power, o.power_interval_ns, &run);
  PointOutcome out;
  out.summary = metrics::Summarize(run, o.summary);
  if (o.rules) out.verdict = Judge(run, *o.rules, out.summary, OriginFor(load));
  out.run = std::move(run);
  FRONTIER_RETURN_IF_ERROR(recording.status());
  FRONTIER_RETURN_IF_ERROR(writer.Close());
  FRONTIER_RETURN_IF_ERROR(WritePointResultJson(o, load, out));
  // A run the target ended on its own (a bound) is an error; its files keep what was run.
  FRONTIER_RETURN_IF_ERROR(target.RunStatus());
  return out;
}

}  // namespace frontier::loadgen
