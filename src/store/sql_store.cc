// sql_store.cc: the two SQL back ends' shared bookkeeping and messages.
#include "store/sql_store.h"

#include "core/clock.h"

namespace frontier::store {

codec::StoredPlan SqlStore::PrepareRun(RunInfo& run) {
  if (run.created_utc.empty()) run.created_utc = UtcTimestampNow();
  return codec::StoredPlanOf(run);
}

Status SqlStore::CheckKeepsSearch() const {
  if (version_ >= kVerdictVersion) return Status::Ok();
  return FailedPrecondition(location_ + " is schema " + std::to_string(version_) + ": it keeps no search outcome");
}

Status SqlStore::RunNotFound(int64_t run_id) const {
  return NotFound("run " + std::to_string(run_id) + " is not in " + location_ + "; `frontier db ls --db " +
                  location_ + "` lists the runs");
}

Status SqlStore::PointTaken(const PointRecord& p) const {
  return FailedPrecondition(location_ + ": run " + std::to_string(p.run_id) + " already has point '" + p.key +
                            "'; a point is stored once");
}

std::function<void(const std::string&, const Status&)> SqlStore::Skip() {
  return [this](const std::string& what, const Status& why) { SkipDamaged(location_, what, why); };
}

}  // namespace frontier::store
