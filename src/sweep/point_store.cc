#include "sweep/point_store.h"

#include <utility>

#include "loadgen/verdict.h"
#include "store/records.h"

namespace frontier::sweep {

Result<PointRecorder> PointRecorder::Start(std::unique_ptr<store::Store> store, store::RunInfo run) {
  FRONTIER_ASSIGN_OR_RETURN(store::RunInfo created, store->CreateRun(std::move(run)));
  return PointRecorder(std::move(store), std::move(created));
}

Result<PointRecorder> StartPointRecorder(const std::string& command, const ResultsDb& where, store::RunInfo run,
                                         std::ostream& notes) {
  FRONTIER_ASSIGN_OR_RETURN(std::unique_ptr<store::Store> db, store::OpenResultsDb(command, where.db, notes));
  run.sweep = where.run_label;
  if (run.provenance.empty()) run.provenance = store::RunProvenance(run.plan_text);
  return PointRecorder::Start(std::move(db), std::move(run));
}

Status PointRecorder::MarkBroken(const std::string& reason) {
  return store_->SetRunStatus(run_.id, store::SystemStatus::Broken(reason));
}

Status PointRecorder::Record(const std::string& workload, const workload::LoadOptions& load,
                             const loadgen::PointOutcome& out, const std::optional<loadgen::ScenarioRules>& rules) {
  const std::string verdict = out.verdict && rules ? loadgen::VerdictJson(*out.verdict, *rules).dump() : "";
  return Record(workload, load, out.run, out.summary, verdict);
}

Status PointRecorder::Record(const std::string& workload, const workload::LoadOptions& load, const RunResult& run,
                             const metrics::Summary& summary, const std::string& verdict_json) {
  if (run.interrupted) return Status::Ok();
  if (summary.completed == 0) return MarkBroken(metrics::NoRequestCompleted(summary.failures_by_reason));
  store::PointRecord p = store::PointFromRun(run, summary, run.num_gpus);
  p.run_id = run_.id;
  p.workload = workload;
  store::SetPointLoad(load.max_concurrency, load.request_rate, &p);
  if (load.num_prompts > 0) p.settings["num_prompts"] = std::to_string(load.num_prompts);
  if (load.max_concurrency) p.settings["max_concurrency"] = std::to_string(*load.max_concurrency);
  p.repetition = 0;
  p.key = store::PointKey(p.workload, p.load_kind, p.load_value, p.repetition);
  p.verdict_json = verdict_json;
  FRONTIER_ASSIGN_OR_RETURN(const int64_t id, store_->AddPoint(p, store::RowsFromRun(run)));
  (void)id;
  ++stored_;
  return Status::Ok();
}

}  // namespace frontier::sweep
