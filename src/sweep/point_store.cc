#include "sweep/point_store.h"

#include <utility>

#include <nlohmann/json.hpp>

#include "loadgen/verdict.h"
#include "metrics/summary.h"
#include "store/records.h"
#include "sweep/plan.h"

namespace frontier::sweep {
namespace {

// Sets what `at` says of p, over what was measured: the one place a stored
// point's key, load kind and source are chosen. `simulated`: the run was.
void Place(const PointPlace& at, bool simulated, store::PointRecord* p) {
  p->run_id = at.run_id;
  p->workload = at.workload;
  p->load_kind = at.load_kind;
  p->load_value = at.load_value;
  p->repetition = at.repetition;
  p->key = store::PointKey(at.workload, at.load_kind, at.load_value, at.repetition) + at.key_suffix;
  p->source = simulated || at.simulated_system ? store::Source::kSimulated : store::Source::kMeasured;
  p->attempts = at.attempts;
  p->num_gpus = at.num_gpus;
  for (const auto& [k, v] : at.settings) p->settings[k] = v;
}

// The provenance trial `t`'s result carries ("frontier": its source and
// effective settings), or null when it carries none.
const nlohmann::json* Provenance(const loadgen::Trial& t) {
  return t.result.is_object() && t.result.contains("frontier") ? &t.result["frontier"] : nullptr;
}

}  // namespace

PointPlace CommandPlace(const std::string& workload, const workload::LoadOptions& load, int num_gpus) {
  store::PointRecord at;  // the load as an imported result of the same load is keyed
  store::SetPointLoad(load.max_concurrency, load.request_rate, &at);
  PointPlace p;
  p.workload = workload;
  p.load_kind = at.load_kind;
  p.load_value = at.load_value;
  p.num_gpus = num_gpus;
  if (load.num_prompts > 0) p.settings["num_prompts"] = std::to_string(load.num_prompts);
  if (load.max_concurrency) p.settings["max_concurrency"] = std::to_string(*load.max_concurrency);
  return p;
}

PointPlace TrialPlace(const std::string& workload, const loadgen::Trial& t, const loadgen::SearchOptions& o) {
  PointPlace p;
  p.workload = workload;
  p.load_kind = LoadKindOf(o.axis);
  p.load_value = t.value;
  p.key_suffix = "|trial=" + std::to_string(t.index);
  p.num_gpus = o.point.summary.num_gpus;
  p.settings = o.point.effective_settings;
  const nlohmann::json* provenance = Provenance(t);
  if (provenance != nullptr && provenance->contains("effective_settings") &&
      (*provenance)["effective_settings"].is_object()) {
    for (const auto& [k, v] : (*provenance)["effective_settings"].items())
      p.settings[k] = v.is_string() ? v.get<std::string>() : v.dump();
  }
  return p;
}

store::PointRecord StoredPoint(const PointPlace& at, const loadgen::PointOutcome& out,
                               const std::optional<loadgen::ScenarioRules>& rules) {
  store::PointRecord p = store::PointFromRun(out.run, out.summary, at.num_gpus);
  Place(at, out.run.source == RunSource::kSimulated, &p);
  if (out.verdict && rules) p.verdict_json = loadgen::VerdictJson(*out.verdict, *rules).dump();
  return p;
}

store::PointRecord StoredTrial(const PointPlace& at, const loadgen::Trial& t, const loadgen::SearchOptions& o) {
  store::PointRecord p;
  p.metrics = t.summary;
  p.summary_json = store::SummaryToJson(t.summary);
  p.band = t.band;
  const nlohmann::json* provenance = Provenance(t);
  const bool simulated =
      provenance != nullptr && provenance->value("source", "") == store::SourceName(store::Source::kSimulated);
  Place(at, simulated, &p);
  p.verdict_json = loadgen::VerdictJson(t.verdict, loadgen::TrialRules(o, t.value)).dump();
  p.trial_json = nlohmann::json{{"index", t.index},
                                {"value", t.value},
                                {"valid", t.verdict.valid},
                                {"step", t.step},
                                {"decision", t.decision},
                                {"stopped_early", t.stopped_early}}
                     .dump();
  return p;
}

Result<PointSink> PointSink::Start(std::unique_ptr<store::Store> store, store::RunInfo run) {
  FRONTIER_ASSIGN_OR_RETURN(store::RunInfo created, store->CreateRun(std::move(run)));
  store::Store* s = store.get();
  return PointSink(std::move(store), s, std::move(created));
}

Result<PointSink> PointSink::Start(store::Store& store, store::RunInfo run) {
  FRONTIER_ASSIGN_OR_RETURN(store::RunInfo created, store.CreateRun(std::move(run)));
  return PointSink(nullptr, &store, std::move(created));
}

Result<PointSink> StartPointSink(const std::string& command, const ResultsDb& where, store::RunInfo run,
                                 std::ostream& notes) {
  FRONTIER_ASSIGN_OR_RETURN(std::unique_ptr<store::Store> db, store::OpenResultsDb(command, where.db, notes));
  run.sweep = where.run_label;
  if (run.provenance.empty()) run.provenance = store::RunProvenance(run.plan_text);
  return PointSink::Start(std::move(db), std::move(run));
}

Status PointSink::MarkBroken(const std::string& reason) {
  return store_->SetRunStatus(run_.id, store::SystemStatus::Broken(reason));
}

Status PointSink::Failed(const Status& failed) {
  const Status marked = MarkBroken(failed.message());
  if (marked.ok()) return failed;
  return Status(failed.code(), failed.message() + " (and run " + run_.Label() +
                                   " could not be marked broken: " + marked.message() + ")");
}

Status PointSink::Add(PointPlace at, const loadgen::PointOutcome& out,
                      const std::optional<loadgen::ScenarioRules>& rules) {
  at.run_id = run_.id;
  FRONTIER_ASSIGN_OR_RETURN(const int64_t id,
                            store_->AddPoint(StoredPoint(at, out, rules), store::RowsFromRun(out.run)));
  (void)id;
  ++stored_;
  return Status::Ok();
}

Status PointSink::Record(const std::string& workload, const workload::LoadOptions& load,
                         const loadgen::PointOutcome& out, const std::optional<loadgen::ScenarioRules>& rules) {
  if (out.run.interrupted) return Status::Ok();
  if (out.summary.completed == 0) return MarkBroken(metrics::NoRequestCompleted(out.summary.failures_by_reason));
  return Add(CommandPlace(workload, load, out.run.num_gpus), out, rules);
}

Status PointSink::AddTrial(const std::string& workload, const loadgen::Trial& t, const loadgen::SearchResult& so_far,
                           const loadgen::SearchOptions& o, const std::string& runner) {
  PointPlace at = TrialPlace(workload, t, o);
  at.run_id = run_.id;
  FRONTIER_ASSIGN_OR_RETURN(const int64_t id, store_->AddPoint(StoredTrial(at, t, o), {}));
  (void)id;
  ++stored_;
  run_.search_json = loadgen::SearchOutcomeJson(so_far, o, runner).dump();
  return store_->SetRunSearch(run_.id, run_.search_json);
}

}  // namespace frontier::sweep
