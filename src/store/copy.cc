#include "store/copy.h"

#include <set>
#include <tuple>

#include "store/schema.h"

namespace frontier::store {
namespace {

// What makes two runs in two databases the same run (everything but the id
// and the status, which a resumed sweep changes).
auto Identity(const RunInfo& r) {
  return std::make_tuple(r.sweep, r.plan_hash, r.system, r.source, r.created_utc, MapToJson(r.config),
                         MapToJson(r.provenance));
}

}  // namespace

Result<CopyOutcome> CopyRuns(Store& from, Store& to, const std::vector<int64_t>& run_ids) {
  std::vector<RunInfo> runs;
  if (run_ids.empty()) {
    FRONTIER_ASSIGN_OR_RETURN(runs, from.ListRuns());
  } else {
    for (int64_t id : run_ids) {
      FRONTIER_ASSIGN_OR_RETURN(RunInfo r, from.GetRun(id));
      runs.push_back(std::move(r));
    }
  }
  FRONTIER_ASSIGN_OR_RETURN(std::vector<RunInfo> existing, to.ListRuns());
  std::map<decltype(Identity(RunInfo())), RunInfo> by_identity;
  for (auto& r : existing) by_identity.emplace(Identity(r), r);  // the oldest of equal runs

  CopyOutcome out;
  for (const RunInfo& run : runs) {
    RunInfo dest;
    std::set<std::string> have;
    if (auto it = by_identity.find(Identity(run)); it != by_identity.end()) {
      dest = it->second;
      ++out.runs_matched;
      FRONTIER_ASSIGN_OR_RETURN(have, to.PointKeys(dest.id));
    } else {
      RunInfo copy = run;
      copy.id = 0;
      FRONTIER_ASSIGN_OR_RETURN(dest, to.CreateRun(copy));
      by_identity.emplace(Identity(dest), dest);
      ++out.runs_created;
    }
    out.run_ids[run.id] = dest.id;
    const int64_t points_before = from.SkippedRows("points"), requests_before = from.SkippedRows("requests");
    FRONTIER_ASSIGN_OR_RETURN(std::vector<PointRecord> points, from.ListPoints(run.id));
    for (PointRecord p : points) {
      if (have.count(p.key)) {
        ++out.points_present;
        continue;
      }
      FRONTIER_ASSIGN_OR_RETURN(std::vector<RequestRow> rows, from.ListRequests(p.id));
      FRONTIER_ASSIGN_OR_RETURN(p.series, from.GetPointSeries(p.id));
      p.run_id = dest.id;
      p.id = 0;
      FRONTIER_ASSIGN_OR_RETURN(int64_t id, to.AddPoint(p, rows));
      (void)id;
      ++out.points_copied;
    }
    CopyOutcome::Skipped skipped;
    skipped.run_id = run.id;
    skipped.points = from.SkippedRows("points") - points_before;
    skipped.requests = from.SkippedRows("requests") - requests_before;
    if (skipped.points > 0 || skipped.requests > 0) {
      out.points_skipped += skipped.points;
      out.requests_skipped += skipped.requests;
      out.skipped.push_back(skipped);
    }
    if (dest.status != run.status) FRONTIER_RETURN_IF_ERROR(to.SetRunStatus(dest.id, run.status));
    if (dest.search_json != run.search_json && !run.search_json.empty())
      FRONTIER_RETURN_IF_ERROR(to.SetRunSearch(dest.id, run.search_json));
  }
  return out;
}

}  // namespace frontier::store
