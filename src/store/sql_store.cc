// sql_store.cc: the Store methods of both SQL back ends, as sequences of
// schema.h's statements over the back end's Exec.
#include "store/sql_store.h"

#include "core/clock.h"
#include "store/schema.h"

namespace frontier::store {

Result<int64_t> SqlStore::InsertReturningId(const std::string& sql, const SqlParams& params,
                                            const std::string& what) {
  std::optional<int64_t> id;
  FRONTIER_RETURN_IF_ERROR(Exec(sql, params, what, [&](SqlRow& row) { id = row.Int(0); }));
  if (!id) return IoError(location_ + ": " + what + ": no id returned");
  return *id;
}

Result<RunInfo> SqlStore::CreateRun(RunInfo run) {
  if (run.created_utc.empty()) run.created_utc = UtcTimestampNow();
  const codec::StoredPlan plan = codec::StoredPlanOf(run);
  if (version_ >= kPlansVersion) {
    SqlParams insert;
    codec::BindPlan(insert, plan);
    FRONTIER_RETURN_IF_ERROR(Exec(sql::InsertPlan(), insert, "insert plan"));
  }
  SqlParams p;
  codec::BindRun(p, run, plan, version_);
  FRONTIER_ASSIGN_OR_RETURN(run.id, InsertReturningId(sql::InsertRun(version_), p, "insert run"));
  return run;
}

Status SqlStore::SetRunStatus(int64_t run_id, const SystemStatus& status) {
  SqlParams p;
  p.Bind(1, status.ToString());
  p.Bind(2, run_id);
  return Exec(sql::SetRunStatus(), p, "update run status");
}

Status SqlStore::SetRunSearch(int64_t run_id, const std::string& search_json) {
  if (version_ < kVerdictVersion) {
    return FailedPrecondition(location_ + " is schema " + std::to_string(version_) +
                              ": it keeps no search outcome");
  }
  SqlParams p;
  p.Bind(1, search_json);
  p.Bind(2, run_id);
  return Exec(sql::SetRunSearch(), p, "update run search");
}

Result<std::vector<RunInfo>> SqlStore::ListRuns(PlanText text) {
  return QueryRuns("ORDER BY id", SqlParams(), text == PlanText::kWith);
}

Result<RunInfo> SqlStore::GetRun(int64_t run_id) {
  SqlParams p;
  p.Bind(1, run_id);
  FRONTIER_ASSIGN_OR_RETURN(auto runs, QueryRuns("WHERE id = ?", p));
  if (runs.empty()) {
    return NotFound("run " + std::to_string(run_id) + " is not in " + location_ + "; `frontier db ls --db " +
                    location_ + "` lists the runs");
  }
  return runs.front();
}

Result<std::optional<RunInfo>> SqlStore::FindRun(const std::string& sweep, const std::string& plan_hash,
                                                 const std::string& system) {
  SqlParams p;
  p.Bind(1, sweep);
  p.Bind(2, plan_hash);
  p.Bind(3, system);
  FRONTIER_ASSIGN_OR_RETURN(auto runs,
                            QueryRuns("WHERE sweep = ? AND plan_hash = ? AND system = ? ORDER BY id DESC", p));
  if (runs.empty()) return std::optional<RunInfo>();
  return std::optional<RunInfo>(runs.front());
}

Result<int64_t> SqlStore::AddPoint(const PointRecord& point, const std::vector<RequestRow>& requests) {
  FRONTIER_RETURN_IF_ERROR(CheckPointForStore(point, requests).WithContext(location_));
  Status begun = BeginPoint();
  Result<int64_t> id = begun.ok() ? InsertPoint(point, requests) : Result<int64_t>(begun);
  if (id.ok()) {
    Status committed = Exec("COMMIT", SqlParams(), "commit point");
    if (committed.ok()) return id;
    id = committed;
  }
  (void)Exec("ROLLBACK", SqlParams(), "roll back point");
  return id;
}

Result<int64_t> SqlStore::InsertPoint(const PointRecord& point, const std::vector<RequestRow>& requests) {
  SqlParams p;
  codec::BindPoint(p, point, version_);
  Result<int64_t> point_id = InsertReturningId(sql::InsertPoint(version_), p, "insert point");
  if (point_id.status().code() == StatusCode::kFailedPrecondition) {
    return FailedPrecondition(location_ + ": run " + std::to_string(point.run_id) + " already has point '" +
                              point.key + "'; a point is stored once");
  }
  if (!point_id.ok()) return point_id;
  FRONTIER_RETURN_IF_ERROR(InsertRequests(*point_id, point.key, requests));
  if (version_ >= kSeriesVersion && !point.series.empty()) {
    SqlParams s;
    codec::BindPointSeries(s, *point_id, point.series);
    FRONTIER_RETURN_IF_ERROR(Exec(sql::InsertPointSeries(), s, "insert series of point " + point.key));
  }
  return point_id;
}

Result<std::vector<PointRecord>> SqlStore::ListPoints(int64_t run_id) {
  SqlParams p;
  if (run_id > 0) p.Bind(1, run_id);
  return SelectPoints(run_id > 0 ? "WHERE run_id = ? ORDER BY id" : "ORDER BY id", p);
}

Result<std::vector<PointRecord>> SqlStore::ListPointsAfter(int64_t after_id) {
  SqlParams p;
  p.Bind(1, after_id);
  return SelectPoints("WHERE id > ? ORDER BY id", p);
}

Result<std::set<std::string>> SqlStore::PointKeys(int64_t run_id) {
  SqlParams p;
  p.Bind(1, run_id);
  std::set<std::string> keys;
  FRONTIER_RETURN_IF_ERROR(
      Exec(sql::SelectPointKeys(), p, "list point keys", [&](SqlRow& row) { keys.insert(row.Text(0)); }));
  return keys;
}

Result<std::vector<RequestRow>> SqlStore::ListRequests(int64_t point_id) {
  SqlParams p;
  p.Bind(1, point_id);
  std::vector<RequestRow> out;
  FRONTIER_RETURN_IF_ERROR(Exec(sql::SelectRequests(), p, "list requests", [&](SqlRow& row) {
    codec::DecodeOrSkip(row, codec::DecodeRequest<SqlRow>, Skip(), out, point_id);
  }));
  return out;
}

Result<PointSeries> SqlStore::GetPointSeries(int64_t point_id) {
  std::optional<PointSeries> out;
  if (version_ < kSeriesVersion) return PointSeries();  // read as it is: no series stored
  SqlParams p;
  p.Bind(1, point_id);
  FRONTIER_RETURN_IF_ERROR(Exec(sql::SelectPointSeries(), p, "read point series", [&](SqlRow& row) {
    if (!out) out = codec::DecodePointSeries(row);
  }));
  return out ? *out : PointSeries();
}

Result<int64_t> SqlStore::AddLaunch(const LaunchRecord& launch) {
  SqlParams p;
  codec::BindLaunch(p, launch);
  return InsertReturningId(sql::InsertLaunch(), p, "insert launch");
}

Status SqlStore::SetLaunchStopped(int64_t launch_id) {
  SqlParams p;
  p.Bind(1, UtcTimestampNow());
  p.Bind(2, launch_id);
  return Exec(sql::SetLaunchStopped(), p, "update launch");
}

Result<std::vector<LaunchRecord>> SqlStore::ListOpenLaunches() {
  std::vector<LaunchRecord> out;
  if (version_ < kLaunchesVersion) return out;  // read as it is: no launches recorded
  FRONTIER_RETURN_IF_ERROR(Exec(sql::SelectOpenLaunches(), SqlParams(), "list launches", [&](SqlRow& row) {
    codec::DecodeOrSkip(row, codec::DecodeLaunch<SqlRow>, Skip(), out);
  }));
  return out;
}

Result<std::vector<RunInfo>> SqlStore::QueryRuns(const std::string& tail, const SqlParams& params,
                                                 bool with_plan_text) {
  std::vector<RunInfo> out;
  FRONTIER_RETURN_IF_ERROR(Exec(sql::SelectRuns(version_, tail, with_plan_text), params, "list runs",
                                [&](SqlRow& row) { codec::DecodeOrSkip(row, codec::DecodeRun<SqlRow>, Skip(), out); }));
  return out;
}

Result<std::vector<PointRecord>> SqlStore::SelectPoints(const std::string& tail, const SqlParams& params) {
  std::vector<PointRecord> out;
  FRONTIER_RETURN_IF_ERROR(Exec(sql::SelectPoints(version_, tail), params, "list points", [&](SqlRow& row) {
    codec::DecodeOrSkip(row, codec::DecodePoint<SqlRow>, Skip(), out);
  }));
  return out;
}

std::function<void(const std::string&, const Status&)> SqlStore::Skip() {
  return [this](const std::string& what, const Status& why) { SkipDamaged(location_, what, why); };
}

}  // namespace frontier::store
