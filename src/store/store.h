// store.h: the results store interface. Callers (sweep, db, compare, report)
// use only this class and never see SQL. Two back ends: SQLite, one file and
// no server (sqlite_store.h, the default), and PostgreSQL, one database many
// sweeps write into at once (pg_store.h). Both keep the same schema (schema.h).
//
//   FRONTIER_ASSIGN_OR_RETURN(auto store, OpenStore("frontier.db"));
//   FRONTIER_ASSIGN_OR_RETURN(RunInfo run, store->CreateRun(info));
//   point.run_id = run.id;
//   FRONTIER_RETURN_IF_ERROR(store->AddPoint(point, rows));   // one transaction
//
// Opening: a verb that only reads opens with OpenMode::kReadOnly, which never
// writes to the database (a read-only file or folder works) and fails with
// NotFound when it does not exist, so a mistyped --db is an error instead of
// a new empty database. Only verbs that create results (sweep, db import) use
// kCreate. A kReadOnly store sees what a concurrent writer commits (WAL), so
// readers that follow a running sweep (frontier dashboard) use it too. A verb
// that reads once and exits uses kSnapshot, which creates no file either.
//
// Thread safety: one Store object per thread. Several processes may open the
// same database (SQLite in WAL mode with a busy timeout, or PostgreSQL); each
// write is one transaction, and UNIQUE(run_id, point_key) keeps a point from
// being stored twice.
#pragma once

#include <functional>
#include <iosfwd>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "core/status.h"
#include "store/records.h"

namespace frontier::store {

// A server a sweep launched, recorded while it runs so that a later sweep can
// stop it if the one that started it died (kill -9) before it could.
struct LaunchRecord {
  int64_t id = 0;              // assigned by the store
  std::string system;
  std::string host;            // gethostname() of the sweep
  std::string boot_id;         // /proc/sys/kernel/random/boot_id: a reboot ends every launch
  int64_t pgid = 0;            // the server's process group
  std::string marker;          // FRONTIER_LAUNCH_ID in the server's environment
  std::string command;
  std::string started_utc;
  std::string stopped_utc;     // empty while it may still run
};

enum class OpenMode {
  kReadOnly,   // must exist; never written, not even migrated (older schemas are read as they are)
  kReadWrite,  // must exist; migrated to this build's schema
  kCreate,     // created (with its folder left as it is) when missing, else as kReadWrite
  // As kReadOnly, for a verb that reads once and exits (db ls, export, report,
  // compare): it also leaves no file behind. A SQLite database that no writer
  // has open (no -wal or -shm file beside it) is read as immutable, so no
  // -wal/-shm files owned by the reader appear in a folder shared with the
  // database's owner. A writer that starts while such a read runs is not seen.
  kSnapshot,
};

class Store {
 public:
  virtual ~Store() = default;

  // Stores a new run; returns it with its id and created_utc filled in.
  virtual Result<RunInfo> CreateRun(RunInfo run) = 0;
  // Updates a run's status (stored as SystemStatus::ToString()).
  virtual Status SetRunStatus(int64_t run_id, const SystemStatus& status) = 0;
  // Updates a run's search outcome (RunInfo::search_json; "" clears it).
  // FailedPrecondition on a database older than schema version 4 (kReadWrite
  // and kCreate migrate, so only a test's older target version meets it).
  virtual Status SetRunSearch(int64_t run_id, const std::string& search_json) = 0;
  // Every run, oldest first. Without kWith each plan_text is left "": a
  // list that shows or matches runs never reads it, and a sweep's systems
  // all share one text that can be large.
  enum class PlanText { kWith, kWithout };
  virtual Result<std::vector<RunInfo>> ListRuns(PlanText text) = 0;
  Result<std::vector<RunInfo>> ListRuns() { return ListRuns(PlanText::kWith); }
  // NotFound naming the id when there is no such run.
  virtual Result<RunInfo> GetRun(int64_t run_id) = 0;
  // The latest run of `system` in sweep `sweep` whose plan hash is `plan_hash`, if any.
  virtual Result<std::optional<RunInfo>> FindRun(const std::string& sweep,
                                                 const std::string& plan_hash,
                                                 const std::string& system) = 0;

  // Stores a point, its requests and its series (when not empty) in one
  // transaction; returns the point id.
  // FailedPrecondition if the run already has a point with the same key (a
  // point is never stored twice); InvalidArgument for a verdict_json or
  // trial_json that does not parse, or a number of the point or of one of
  // its requests outside records.h's bounds (CheckPointForStore, the bounds
  // every reader applies): nothing out of range is ever stored. A database older
  // than schema version 4 keeps no verdict or trial.
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

  // The series stored with a point (empty when none was, or the database
  // predates schema version 5).
  virtual Result<PointSeries> GetPointSeries(int64_t point_id) = 0;

  // Records a launched server; returns its id.
  virtual Result<int64_t> AddLaunch(const LaunchRecord& launch) = 0;
  // Marks a launch stopped (its process group is gone).
  virtual Status SetLaunchStopped(int64_t launch_id) = 0;
  // Launches not marked stopped, oldest first.
  virtual Result<std::vector<LaunchRecord>> ListOpenLaunches() = 0;

  // The schema version of the open database.
  virtual int SchemaVersion() const = 0;
  // True when the database was created by this OpenStore call.
  virtual bool Created() const = 0;

  // Where the warnings about damaged rows go (default: standard error, one
  // line each, "frontier: warning: ..."). A reader that meets a row outside
  // the bounds (a points, requests or launches row written by an older
  // frontier or by hand) names it once, by table, id, run and field, and
  // skips it: ListPoints, ListRequests and ListOpenLaunches return the other
  // rows, so one bad row never hides the rest of a database.
  void SetWarningSink(std::function<void(const std::string&)> sink) { warn_ = std::move(sink); }

  // Rows of `table` ("points", "requests", "launches") this store's readers
  // have skipped as damaged so far, each counted once: what a copy lacks.
  int64_t SkippedRows(const std::string& table) const {
    const auto it = skipped_by_table_.find(table);
    return it == skipped_by_table_.end() ? 0 : it->second;
  }

 protected:
  // Names a damaged row once per store (`where`: the database; `what`: e.g.
  // "points row 5 (run 3)") so that the caller can skip it.
  void SkipDamaged(const std::string& where, const std::string& what, const Status& why);

 private:
  std::function<void(const std::string&)> warn_;
  std::set<std::string> skipped_;  // rows already named
  std::map<std::string, int64_t> skipped_by_table_;  // the first word of each
};

// Opens the store at `location`: a postgresql:// or postgres:// URL opens
// PostgreSQL (pg_store.h), anything else is a path to a SQLite file. NotFound naming the path when it does not exist and `mode` is not
// kCreate; InvalidArgument when it is not a frontier database or is damaged
// (a bad meta.schema_version; a row outside the bounds of records.h is
// skipped when read, with a warning: Store::SetWarningSink);
// FailedPrecondition when a writing mode meets a read-only file or a schema
// newer than this build.
Result<std::unique_ptr<Store>> OpenStore(const std::string& location, OpenMode mode = OpenMode::kCreate);

// Opens `location` for a command that stores what it runs (OpenMode::kCreate),
// before anything runs: a missing folder, a read-only file or a foreign file
// is an error then, not after the run. A missing SQLite file is created, and
// "frontier <command>: created results database <location>" (RedactUrl)
// written to `notes`. OpenStore's error otherwise.
Result<std::unique_ptr<Store>> OpenResultsDb(const std::string& command, const std::string& location,
                                             std::ostream& notes);

// The database a verb uses when --db is not given: $FRONTIER_DB when set and
// not empty, else "frontier.db".
std::string DefaultLocation();

// True when `location` names a PostgreSQL database: it starts with
// postgresql:// or postgres://, the scheme in any case ("PostgreSQL://").
// Messages and output name a location through RedactUrl (core/redact.h).
bool IsPostgresUrl(const std::string& location);

}  // namespace frontier::store
