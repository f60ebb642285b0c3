// sql_store.h: what the two SQL back ends (sqlite_store.cc, pg_store.cc) keep
// above their drivers: the database's name and schema version, whether this
// open created it, a run's fields as CreateRun stores them, and the messages
// that name the database. Each back end adds its driver's statements.
//
//   class SqliteStore final : public SqlStore { ... };
//
// Internal to store/. Thread safety: as Store (one object per thread).
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <utility>

#include "core/status.h"
#include "store/row_codec.h"
#include "store/store.h"

namespace frontier::store {

class SqlStore : public Store {
 public:
  int SchemaVersion() const final { return version_; }
  bool Created() const final { return created_; }

 protected:
  // `location`: the database as messages name it (a path, or a URL with its
  // password redacted); `version`: its schema version; `created`: whether
  // this open created it.
  SqlStore(std::string location, int version, bool created)
      : location_(std::move(location)), version_(version), created_(created) {}

  const std::string& location() const { return location_; }
  int version() const { return version_; }

  // CreateRun's start: `run`'s created_utc set to now where it is empty, and
  // its plan text as stored (bound by codec::BindPlan and codec::BindRun).
  static codec::StoredPlan PrepareRun(RunInfo& run);
  // SetRunSearch's check: FailedPrecondition where the schema (before
  // kVerdictVersion) keeps no search outcome, else Ok.
  Status CheckKeepsSearch() const;
  // GetRun's NotFound for `run_id`, naming `db ls` to list the runs.
  Status RunNotFound(int64_t run_id) const;
  // AddPoint's FailedPrecondition when `p`'s run already has its key.
  Status PointTaken(const PointRecord& p) const;
  // The `skip` of codec::DecodeOrSkip: SkipDamaged in this database.
  std::function<void(const std::string&, const Status&)> Skip();

 private:
  std::string location_;
  int version_;
  bool created_;
};

}  // namespace frontier::store
