// sql_store.h: the two SQL back ends (sqlite_store.cc, pg_store.cc) above
// their drivers. Every Store method is one sequence of schema.h's statements,
// written here once; a back end supplies only what its C API does
// differently: running one statement (Exec), opening AddPoint's transaction
// (BeginPoint) and storing a point's requests (InsertRequests: SQLite re-steps
// one prepared statement, PostgreSQL sends them in batches to save round
// trips).
//
//   class SqliteStore final : public SqlStore { ... Status Exec(...) override; ... };
//
// Internal to store/. Thread safety: as Store (one object per thread).
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <utility>
#include <variant>
#include <vector>

#include "core/status.h"
#include "store/row_codec.h"
#include "store/store.h"

namespace frontier::store {

// The parameters of one statement, by position from 1: row_codec.h's Binder.
class SqlParams {
 public:
  using Value = std::variant<std::string, int64_t, double>;
  void Bind(int i, const std::string& v) { At(i) = v; }
  void Bind(int i, int64_t v) { At(i) = v; }
  void Bind(int i, double v) { At(i) = v; }
  const std::vector<Value>& values() const { return values_; }

 private:
  Value& At(int i) {
    if (values_.size() < static_cast<size_t>(i)) values_.resize(static_cast<size_t>(i));
    return values_[static_cast<size_t>(i - 1)];
  }
  std::vector<Value> values_;
};

// The current row of a statement's result: row_codec.h's Row.
class SqlRow {
 public:
  virtual std::string Text(int col) = 0;
  virtual int64_t Int(int col) = 0;
  virtual double Real(int col) = 0;
  // InvalidArgument naming `field` unless the column is an integer in [min, max].
  virtual Result<int64_t> Int(int col, const std::string& field, int64_t min, int64_t max) = 0;

 protected:
  ~SqlRow() = default;
};

class SqlStore : public Store {
 public:
  int SchemaVersion() const final { return version_; }
  bool Created() const final { return created_; }

  Result<RunInfo> CreateRun(RunInfo run) final;
  Status SetRunStatus(int64_t run_id, const SystemStatus& status) final;
  Status SetRunSearch(int64_t run_id, const std::string& search_json) final;
  using Store::ListRuns;
  Result<std::vector<RunInfo>> ListRuns(PlanText text) final;
  Result<RunInfo> GetRun(int64_t run_id) final;
  Result<std::optional<RunInfo>> FindRun(const std::string& sweep, const std::string& plan_hash,
                                         const std::string& system) final;
  Result<int64_t> AddPoint(const PointRecord& point, const std::vector<RequestRow>& requests) final;
  Result<std::vector<PointRecord>> ListPoints(int64_t run_id) final;
  Result<std::vector<PointRecord>> ListPointsAfter(int64_t after_id) final;
  Result<std::set<std::string>> PointKeys(int64_t run_id) final;
  Result<std::vector<RequestRow>> ListRequests(int64_t point_id) final;
  Result<PointSeries> GetPointSeries(int64_t point_id) final;
  Result<int64_t> AddLaunch(const LaunchRecord& launch) final;
  Status SetLaunchStopped(int64_t launch_id) final;
  Result<std::vector<LaunchRecord>> ListOpenLaunches() final;

 protected:
  // `location`: the database as messages name it (a path, or a URL with its
  // password redacted); `version`: its schema version; `created`: whether
  // this open created it.
  SqlStore(std::string location, int version, bool created)
      : location_(std::move(location)), version_(version), created_(created) {}

  const std::string& location() const { return location_; }
  int version() const { return version_; }

  using EachRow = std::function<void(SqlRow&)>;
  // Runs `sql` (schema.h's, with `?` placeholders) with `params`, calling
  // `each` (when set) on every row it returns. IoError "<location>: <what>:
  // <driver's message>"; FailedPrecondition (the driver's message) when a
  // UNIQUE constraint refused a row.
  virtual Status Exec(const std::string& sql, const SqlParams& params, const std::string& what,
                      const EachRow& each = nullptr) = 0;
  // Opens the transaction AddPoint stores a point in (the caller rolls it
  // back when anything after fails, this included).
  virtual Status BeginPoint() = 0;
  // Inside AddPoint's transaction: `requests` of the point `point_id` (`key`).
  virtual Status InsertRequests(int64_t point_id, const std::string& key,
                                const std::vector<RequestRow>& requests) = 0;

  // The id that an INSERT ... RETURNING id returned.
  Result<int64_t> InsertReturningId(const std::string& sql, const SqlParams& params, const std::string& what);

 private:
  Result<std::vector<RunInfo>> QueryRuns(const std::string& tail, const SqlParams& params,
                                         bool with_plan_text = true);
  Result<std::vector<PointRecord>> SelectPoints(const std::string& tail, const SqlParams& params);
  // Inside AddPoint's transaction.
  Result<int64_t> InsertPoint(const PointRecord& point, const std::vector<RequestRow>& requests);
  // The `skip` of codec::DecodeOrSkip: SkipDamaged in this database.
  std::function<void(const std::string&, const Status&)> Skip();

  std::string location_;
  int version_;
  bool created_;
};

}  // namespace frontier::store
