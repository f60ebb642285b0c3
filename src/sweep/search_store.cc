#include "sweep/search_store.h"

#include <utility>

#include "store/records.h"

namespace frontier::sweep {

store::LoadKind LoadKindOf(loadgen::SearchAxis axis) {
  return axis == loadgen::SearchAxis::kRate ? store::LoadKind::kRequestRate : store::LoadKind::kConcurrency;
}

store::PointRecord TrialPoint(const loadgen::Trial& t, const loadgen::SearchOptions& o, int64_t run_id,
                              const std::string& workload) {
  store::PointRecord p;
  p.run_id = run_id;
  p.workload = workload;
  p.load_kind = LoadKindOf(o.axis);
  p.load_value = t.value;
  p.repetition = 0;
  p.key = store::PointKey(workload, p.load_kind, t.value, 0) + "|trial=" + std::to_string(t.index);
  const nlohmann::json* provenance = t.result.is_object() && t.result.contains("frontier") ? &t.result["frontier"]
                                                                                           : nullptr;
  p.source = store::Source::kMeasured;
  if (provenance != nullptr && provenance->value("source", "") == store::SourceName(store::Source::kSimulated))
    p.source = store::Source::kSimulated;
  p.settings = o.point.effective_settings;
  if (provenance != nullptr && provenance->contains("effective_settings") &&
      (*provenance)["effective_settings"].is_object()) {
    for (const auto& [k, v] : (*provenance)["effective_settings"].items())
      p.settings[k] = v.is_string() ? v.get<std::string>() : v.dump();
  }
  p.metrics = t.summary;
  p.num_gpus = o.point.summary.num_gpus;
  p.summary_json = store::SummaryToJson(t.summary);
  p.band = t.band;
  const nlohmann::json trial = loadgen::TrialJson(t, o);
  p.verdict_json = trial["verdict"].dump();
  p.trial_json = nlohmann::json{{"index", t.index},
                                {"value", t.value},
                                {"valid", t.verdict.valid},
                                {"step", t.step},
                                {"decision", t.decision},
                                {"stopped_early", t.stopped_early}}
                     .dump();
  return p;
}

Result<SearchRecorder> SearchRecorder::Start(store::Store& store, store::RunInfo run, std::string workload) {
  FRONTIER_ASSIGN_OR_RETURN(store::RunInfo created, store.CreateRun(std::move(run)));
  return SearchRecorder(store, std::move(created), std::move(workload));
}

Status SearchRecorder::Record(const loadgen::Trial& trial, const loadgen::SearchResult& so_far,
                              const loadgen::SearchOptions& options, const std::string& runner) {
  FRONTIER_ASSIGN_OR_RETURN(int64_t id, store_->AddPoint(TrialPoint(trial, options, run_.id, workload_), {}));
  (void)id;
  run_.search_json = loadgen::SearchOutcomeJson(so_far, options, runner).dump();
  return store_->SetRunSearch(run_.id, run_.search_json);
}

}  // namespace frontier::sweep
