// store.h: the results store interface. Callers (sweep, db, compare, report)
// use only this class, so a back end other than SQLite can be added without
// touching them. Today only SQLite exists (sqlite_store.h).
//
//   FRONTIER_ASSIGN_OR_RETURN(auto store, OpenStore("frontier.db"));
//   FRONTIER_ASSIGN_OR_RETURN(RunInfo run, store->CreateRun(info));
//   point.run_id = run.id;
//   FRONTIER_RETURN_IF_ERROR(store->AddPoint(point, rows));   // one transaction
//
// Thread safety: one Store object per thread. Several processes may open the
// same SQLite file (WAL); each write is one transaction.
#pragma once

#include <memory>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "core/status.h"
#include "store/records.h"

namespace frontier::store {

class Store {
 public:
  virtual ~Store() = default;

  // Stores a new run; returns it with its id and created_utc filled in.
  virtual Result<RunInfo> CreateRun(RunInfo run) = 0;
  // Updates a run's status ("ok", "broken: ...").
  virtual Status SetRunStatus(int64_t run_id, const std::string& status) = 0;
  // Every run, oldest first.
  virtual Result<std::vector<RunInfo>> ListRuns() = 0;
  // NotFound naming the id when there is no such run.
  virtual Result<RunInfo> GetRun(int64_t run_id) = 0;
  // The latest run of `system` in sweep `sweep` whose plan hash is `plan_hash`, if any.
  virtual Result<std::optional<RunInfo>> FindRun(const std::string& sweep,
                                                 const std::string& plan_hash,
                                                 const std::string& system) = 0;

  // Stores a point and its requests in one transaction; returns the point id.
  // FailedPrecondition if the run already has a point with the same key (a
  // point is never stored twice).
  virtual Result<int64_t> AddPoint(const PointRecord& point,
                                   const std::vector<RequestRow>& requests) = 0;
  // The points of one run (run_id > 0) or of every run (run_id == 0), by id.
  virtual Result<std::vector<PointRecord>> ListPoints(int64_t run_id) = 0;
  // The points of every run stored after point `after_id` (id > after_id), by
  // id: what a reader that has seen up to after_id has not seen yet (ids only grow).
  virtual Result<std::vector<PointRecord>> ListPointsAfter(int64_t after_id) = 0;
  // The keys of the points a run already has (for resuming).
  virtual Result<std::set<std::string>> PointKeys(int64_t run_id) = 0;
  // The stored requests of one point, by index.
  virtual Result<std::vector<RequestRow>> ListRequests(int64_t point_id) = 0;

  // The schema version of the open database.
  virtual int SchemaVersion() const = 0;
};

// Opens (creating if needed) the store at `location`. Today a path to a
// SQLite file; a "postgresql://" URL is rejected with a message saying only
// SQLite is built.
Result<std::unique_ptr<Store>> OpenStore(const std::string& location);

// Opens an existing store for reading only: nothing is created, migrated or
// written (every write method fails). For readers that must never change the
// database, such as `frontier dashboard` without --allow-import. NotFound
// naming the path when there is no such database; FailedPrecondition when its
// schema is not this build's (older: open it once with a writing command to
// migrate it).
Result<std::unique_ptr<Store>> OpenStoreReadOnly(const std::string& location);

}  // namespace frontier::store
