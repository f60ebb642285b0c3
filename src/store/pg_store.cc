#include "store/pg_store.h"

#include <libpq-fe.h>

#include <cctype>
#include <cerrno>
#include <cstdlib>
#include <functional>

#include "core/ascii.h"
#include "core/clock.h"
#include "core/parse.h"
#include "core/redact.h"
#include "store/row_codec.h"
#include "store/sql_store.h"

namespace frontier::store {
namespace {

// Advisory lock keys (pg_advisory_xact_lock): any constants that other
// applications sharing a database are unlikely to use.
constexpr int64_t kSchemaLock = 0x66726f6e74'01;  // "front" + 1: migrating
constexpr int64_t kPointLock = 0x66726f6e74'02;   // storing a point
// Rows of one INSERT into requests: 13 parameters each, under libpq's 65535.
constexpr int kRequestBatch = 1000;

using PgResult = std::unique_ptr<PGresult, decltype(&PQclear)>;

// The parameters of one statement, as text (PostgreSQL converts them to the
// column types; 17 significant digits keep every double exact).
class Params {
 public:
  void Bind(int i, const std::string& v) { At(i) = v; }
  void Bind(int i, int64_t v) { At(i) = std::to_string(v); }
  void Bind(int i, double v) { At(i) = FormatSignificant(v, 17); }
  std::vector<const char*> Pointers() const {
    std::vector<const char*> p;
    for (const auto& v : values_) p.push_back(v.c_str());
    return p;
  }
  int size() const { return static_cast<int>(values_.size()); }

 private:
  std::string& At(int i) {
    if (values_.size() < static_cast<size_t>(i)) values_.resize(static_cast<size_t>(i));
    return values_[static_cast<size_t>(i - 1)];
  }
  std::vector<std::string> values_;
};

// One row of a result, read as row_codec.h's Row.
class Row {
 public:
  Row(PGresult* r, int row) : r_(r), row_(row) {}
  std::string Text(int c) const {
    return PQgetisnull(r_, row_, c) ? "" : std::string(PQgetvalue(r_, row_, c), PQgetlength(r_, row_, c));
  }
  int64_t Int(int c) const { return std::strtoll(PQgetvalue(r_, row_, c), nullptr, 10); }
  double Real(int c) const { return std::strtod(PQgetvalue(r_, row_, c), nullptr); }
  Result<int64_t> Int(int c, const std::string& field, int64_t min, int64_t max) const {
    const char* text = PQgetvalue(r_, row_, c);
    char* end = nullptr;
    errno = 0;
    const long long v = std::strtoll(text, &end, 10);
    if (PQgetisnull(r_, row_, c) || end == text || *end != '\0' || errno != 0) {
      return InvalidArgument(field + " must be an integer in [" + std::to_string(min) + ", " +
                             std::to_string(max) + "], got '" + Text(c) + "'");
    }
    FRONTIER_RETURN_IF_ERROR(CheckRange(field, static_cast<int64_t>(v), min, max));
    return static_cast<int64_t>(v);
  }

 private:
  PGresult* r_;
  int row_;
};

class PgStore final : public SqlStore {
 public:
  PgStore(PGconn* conn, std::string location, int version, bool created)
      : SqlStore(std::move(location), version, created), conn_(conn) {}
  ~PgStore() override { PQfinish(conn_); }

  Result<RunInfo> CreateRun(RunInfo run) override {
    const codec::StoredPlan plan = PrepareRun(run);
    if (version() >= kPlansVersion) {
      Params insert;
      codec::BindPlan(insert, plan);
      FRONTIER_ASSIGN_OR_RETURN(PgResult done, Exec(sql::InsertPlan(), insert, "insert plan"));
      (void)done;
    }
    Params p;
    codec::BindRun(p, run, plan, version());
    FRONTIER_ASSIGN_OR_RETURN(PgResult r, Exec(sql::InsertRun(version()), p, "insert run"));
    run.id = Row(r.get(), 0).Int(0);
    return run;
  }

  Status SetRunStatus(int64_t run_id, const SystemStatus& status) override {
    Params p;
    p.Bind(1, status.ToString());
    p.Bind(2, run_id);
    return Exec(sql::SetRunStatus(), p, "update run status").status();
  }

  Status SetRunSearch(int64_t run_id, const std::string& search_json) override {
    FRONTIER_RETURN_IF_ERROR(CheckKeepsSearch());
    Params p;
    p.Bind(1, search_json);
    p.Bind(2, run_id);
    return Exec(sql::SetRunSearch(), p, "update run search").status();
  }

  using Store::ListRuns;
  Result<std::vector<RunInfo>> ListRuns(PlanText text) override {
    return QueryRuns("ORDER BY id", Params(), text == PlanText::kWith);
  }

  Result<RunInfo> GetRun(int64_t run_id) override {
    Params p;
    p.Bind(1, run_id);
    FRONTIER_ASSIGN_OR_RETURN(auto runs, QueryRuns("WHERE id = ?", p));
    if (runs.empty()) return RunNotFound(run_id);
    return runs.front();
  }

  Result<std::optional<RunInfo>> FindRun(const std::string& sweep, const std::string& plan_hash,
                                         const std::string& system) override {
    Params p;
    p.Bind(1, sweep);
    p.Bind(2, plan_hash);
    p.Bind(3, system);
    FRONTIER_ASSIGN_OR_RETURN(
        auto runs, QueryRuns("WHERE sweep = ? AND plan_hash = ? AND system = ? ORDER BY id DESC", p));
    if (runs.empty()) return std::optional<RunInfo>();
    return std::optional<RunInfo>(runs.front());
  }

  Result<int64_t> AddPoint(const PointRecord& point, const std::vector<RequestRow>& requests) override {
    FRONTIER_RETURN_IF_ERROR(CheckPointForStore(point, requests).WithContext(location()));
    FRONTIER_RETURN_IF_ERROR(Command("BEGIN"));
    Result<int64_t> id = InsertPoint(point, requests);
    if (id.ok()) {
      Status committed = Command("COMMIT");
      if (committed.ok()) return id;
      id = committed;
    }
    (void)Command("ROLLBACK");
    return id;
  }

  Result<std::vector<PointRecord>> ListPoints(int64_t run_id) override {
    Params p;
    if (run_id > 0) p.Bind(1, run_id);
    return SelectPoints(run_id > 0 ? "WHERE run_id = ? ORDER BY id" : "ORDER BY id", p);
  }

  Result<std::vector<PointRecord>> ListPointsAfter(int64_t after_id) override {
    Params p;
    p.Bind(1, after_id);
    return SelectPoints("WHERE id > ? ORDER BY id", p);
  }

  Result<std::set<std::string>> PointKeys(int64_t run_id) override {
    Params p;
    p.Bind(1, run_id);
    FRONTIER_ASSIGN_OR_RETURN(PgResult r, Exec(sql::SelectPointKeys(), p, "list point keys"));
    std::set<std::string> keys;
    for (int i = 0; i < PQntuples(r.get()); ++i) keys.insert(Row(r.get(), i).Text(0));
    return keys;
  }

  Result<std::vector<RequestRow>> ListRequests(int64_t point_id) override {
    Params p;
    p.Bind(1, point_id);
    FRONTIER_ASSIGN_OR_RETURN(PgResult r, Exec(sql::SelectRequests(), p, "list requests"));
    std::vector<RequestRow> out;
    for (int i = 0; i < PQntuples(r.get()); ++i) {
      Row row(r.get(), i);
      codec::DecodeOrSkip(row, codec::DecodeRequest<Row>, Skip(), out, point_id);
    }
    return out;
  }

  Result<PointSeries> GetPointSeries(int64_t point_id) override {
    PointSeries out;
    if (version() < kSeriesVersion) return out;  // read as it is: no series stored
    Params p;
    p.Bind(1, point_id);
    FRONTIER_ASSIGN_OR_RETURN(PgResult r, Exec(sql::SelectPointSeries(), p, "read point series"));
    if (PQntuples(r.get()) == 0) return out;
    Row row(r.get(), 0);
    return codec::DecodePointSeries(row);
  }

  Result<int64_t> AddLaunch(const LaunchRecord& launch) override {
    Params p;
    codec::BindLaunch(p, launch);
    FRONTIER_ASSIGN_OR_RETURN(PgResult r, Exec(sql::InsertLaunch(), p, "insert launch"));
    return Row(r.get(), 0).Int(0);
  }

  Status SetLaunchStopped(int64_t launch_id) override {
    Params p;
    p.Bind(1, UtcTimestampNow());
    p.Bind(2, launch_id);
    return Exec(sql::SetLaunchStopped(), p, "update launch").status();
  }

  Result<std::vector<LaunchRecord>> ListOpenLaunches() override {
    std::vector<LaunchRecord> out;
    if (version() < 3) return out;  // read as it is: no launches recorded
    FRONTIER_ASSIGN_OR_RETURN(PgResult r, Exec(sql::SelectOpenLaunches(), Params(), "list launches"));
    for (int i = 0; i < PQntuples(r.get()); ++i) {
      Row row(r.get(), i);
      codec::DecodeOrSkip(row, codec::DecodeLaunch<Row>, Skip(), out);
    }
    return out;
  }

 private:
  // Runs `sql` (with `?` placeholders) with `params`; the result when it
  // succeeded, else an IoError naming `what` and the server's message.
  Result<PgResult> Exec(const std::string& sql, const Params& params, const std::string& what) {
    const std::vector<const char*> values = params.Pointers();
    PgResult r(PQexecParams(conn_, NumberPlaceholders(sql).c_str(), params.size(), nullptr,
                            values.empty() ? nullptr : values.data(), nullptr, nullptr, 0),
               &PQclear);
    const ExecStatusType st = r ? PQresultStatus(r.get()) : PGRES_FATAL_ERROR;
    if (st == PGRES_COMMAND_OK || st == PGRES_TUPLES_OK) return r;
    return IoError(location() + ": " + what + ": " + Message(r.get()));
  }

  Status Command(const std::string& sql) { return Exec(sql, Params(), sql).status(); }

  std::string Message(PGresult* r) const {
    std::string m = r ? PQresultErrorMessage(r) : PQerrorMessage(conn_);
    if (m.empty()) m = PQerrorMessage(conn_);
    while (!m.empty() && (m.back() == '\n' || m.back() == ' ')) m.pop_back();
    return m;
  }

  Result<std::vector<RunInfo>> QueryRuns(const std::string& tail, const Params& p, bool with_plan_text = true) {
    FRONTIER_ASSIGN_OR_RETURN(PgResult r, Exec(sql::SelectRuns(version(), tail, with_plan_text), p, "list runs"));
    std::vector<RunInfo> out;
    for (int i = 0; i < PQntuples(r.get()); ++i) {
      Row row(r.get(), i);
      codec::DecodeOrSkip(row, codec::DecodeRun<Row>, Skip(), out);
    }
    return out;
  }

  Result<std::vector<PointRecord>> SelectPoints(const std::string& tail, const Params& p) {
    FRONTIER_ASSIGN_OR_RETURN(PgResult r, Exec(sql::SelectPoints(version(), tail), p, "list points"));
    std::vector<PointRecord> out;
    for (int i = 0; i < PQntuples(r.get()); ++i) {
      Row row(r.get(), i);
      codec::DecodeOrSkip(row, codec::DecodePoint<Row>, Skip(), out);
    }
    return out;
  }

  // Inside AddPoint's transaction.
  Result<int64_t> InsertPoint(const PointRecord& point, const std::vector<RequestRow>& requests) {
    FRONTIER_RETURN_IF_ERROR(Command("SELECT pg_advisory_xact_lock(" + std::to_string(kPointLock) + ")"));
    Params p;
    codec::BindPoint(p, point, version());
    const std::vector<const char*> values = p.Pointers();
    PgResult r(PQexecParams(conn_, NumberPlaceholders(sql::InsertPoint(version())).c_str(), p.size(), nullptr,
                            values.data(), nullptr, nullptr, 0),
               &PQclear);
    if (!r || PQresultStatus(r.get()) != PGRES_TUPLES_OK) {
      const char* state = r ? PQresultErrorField(r.get(), PG_DIAG_SQLSTATE) : nullptr;
      if (state != nullptr && std::string(state) == "23505") return PointTaken(point);  // unique_violation
      return IoError(location() + ": insert point: " + Message(r.get()));
    }
    const int64_t point_id = Row(r.get(), 0).Int(0);
    for (size_t from = 0; from < requests.size(); from += kRequestBatch) {
      const size_t n = std::min(requests.size() - from, static_cast<size_t>(kRequestBatch));
      Params q;
      for (size_t k = 0; k < n; ++k) codec::BindRequest(q, static_cast<int>(k * 13 + 1), point_id, requests[from + k]);
      FRONTIER_RETURN_IF_ERROR(
          Exec(sql::InsertRequests(static_cast<int>(n)), q, "insert requests of point " + point.key).status());
    }
    if (version() >= kSeriesVersion && !point.series.empty()) {
      Params s;
      codec::BindPointSeries(s, point_id, point.series);
      FRONTIER_RETURN_IF_ERROR(Exec(sql::InsertPointSeries(), s, "insert series of point " + point.key).status());
    }
    return point_id;
  }

  PGconn* conn_;
};

void IgnoreNotice(void*, const char*) {}

// The schema version of the connected database: 0 when its schema has no
// tables at all.
Result<int> ReadVersion(PGconn* conn, const std::string& loc) {
  PgResult t(PQexec(conn,
                    "SELECT count(*), count(*) FILTER (WHERE c.relname = 'meta') FROM pg_class c "
                    "JOIN pg_namespace n ON n.oid = c.relnamespace "
                    "WHERE n.nspname = current_schema() AND c.relkind IN ('r', 'p')"),
             &PQclear);
  if (PQresultStatus(t.get()) != PGRES_TUPLES_OK)
    return IoError(loc + ": cannot list tables: " + std::string(PQresultErrorMessage(t.get())));
  Row row(t.get(), 0);
  if (row.Int(0) == 0) return 0;
  if (row.Int(1) == 0) {
    return InvalidArgument(loc + " is a PostgreSQL database but not a frontier results database (it has "
                           "tables but no `meta` table); --db names another database?");
  }
  PgResult v(PQexec(conn, "SELECT value FROM meta WHERE key = 'schema_version'"), &PQclear);
  if (PQresultStatus(v.get()) != PGRES_TUPLES_OK)
    return IoError(loc + ": cannot read meta: " + std::string(PQresultErrorMessage(v.get())));
  if (PQntuples(v.get()) == 0) {
    return InvalidArgument(loc + ": meta.schema_version is missing; the database is damaged or was not "
                           "written by frontier");
  }
  return ParseSchemaVersion(loc, Row(v.get(), 0).Text(0));
}

Status Run(PGconn* conn, const std::string& sql, const std::string& loc, const std::string& what) {
  PgResult r(PQexec(conn, sql.c_str()), &PQclear);
  if (PQresultStatus(r.get()) == PGRES_COMMAND_OK || PQresultStatus(r.get()) == PGRES_TUPLES_OK)
    return Status::Ok();
  std::string m = PQresultErrorMessage(r.get());
  while (!m.empty() && m.back() == '\n') m.pop_back();
  return IoError(loc + ": " + what + ": " + m);
}

}  // namespace

bool IsPostgresUrl(const std::string& location) {
  const std::string scheme = AsciiLower(location.substr(0, location.find("://")));
  return location.find("://") != std::string::npos && (scheme == "postgresql" || scheme == "postgres");
}

Result<std::unique_ptr<Store>> OpenPgStore(const std::string& location, OpenMode mode, int target_version) {
  const std::string loc = RedactUrl(location);
  // libpq knows the URL by its lower-case scheme only; any other case would be
  // read as "keyword=value" settings and fail with a confusing message.
  const size_t sep = location.find("://");
  const std::string url = sep == std::string::npos ? location : AsciiLower(location.substr(0, sep)) + location.substr(sep);
  PGconn* conn = PQconnectdb(url.c_str());
  if (conn == nullptr) return IoError("cannot connect to " + loc + ": out of memory");
  std::unique_ptr<PGconn, decltype(&PQfinish)> guard(conn, &PQfinish);
  if (PQstatus(conn) != CONNECTION_OK) {
    std::string m = PQerrorMessage(conn);
    while (!m.empty() && (m.back() == '\n' || m.back() == ' ')) m.pop_back();
    if (m.find("does not exist") != std::string::npos && m.find("database") != std::string::npos) {
      return NotFound("results database " + loc + " does not exist (" + m +
                      "); create it with `createdb`, or is --db mistyped?");
    }
    return Unavailable("cannot connect to results database " + loc + ": " + m);
  }
  PQsetNoticeProcessor(conn, IgnoreNotice, nullptr);
  FRONTIER_RETURN_IF_ERROR(Run(conn, "SET client_min_messages = warning", loc, "set up session"));

  if (mode == OpenMode::kReadOnly || mode == OpenMode::kSnapshot) {
    // Every transaction of this session is READ ONLY: a write through it fails.
    FRONTIER_RETURN_IF_ERROR(Run(conn, "SET default_transaction_read_only = on", loc, "set read-only"));
    FRONTIER_ASSIGN_OR_RETURN(int version, ReadVersion(conn, loc));
    if (version == 0) {
      return InvalidArgument(loc + " is empty: not a frontier results database yet (`frontier sweep` or "
                             "`frontier db import` creates its tables)");
    }
    return std::unique_ptr<Store>(std::make_unique<PgStore>(guard.release(), loc, version, false));
  }

  // Serialise concurrent openers while migrating; the version is read under the lock.
  FRONTIER_RETURN_IF_ERROR(Run(conn, "BEGIN", loc, "begin migration"));
  auto migrate = [&]() -> Result<int> {
    FRONTIER_RETURN_IF_ERROR(Run(conn, "SELECT pg_advisory_xact_lock(" + std::to_string(kSchemaLock) + ")",
                                 loc, "lock for migration"));
    FRONTIER_ASSIGN_OR_RETURN(int v, ReadVersion(conn, loc));
    const int before = v;
    for (; v < target_version && v < kSchemaVersion; ++v) {
      FRONTIER_RETURN_IF_ERROR(Run(conn, MigrationSql(v, Dialect::kPostgres), loc,
                                   "migration to schema " + std::to_string(v + 1) + " failed"));
    }
    if (v != before) {
      const std::string version_text = std::to_string(v);
      const char* values[] = {version_text.c_str()};
      PgResult r(PQexecParams(conn, NumberPlaceholders(sql::SetSchemaVersion()).c_str(), 1, nullptr, values,
                              nullptr, nullptr, 0),
                 &PQclear);
      if (PQresultStatus(r.get()) != PGRES_COMMAND_OK)
        return IoError(loc + ": cannot record schema version: " + std::string(PQresultErrorMessage(r.get())));
    }
    FRONTIER_RETURN_IF_ERROR(Run(conn, "COMMIT", loc, "commit migration"));
    return before;
  };
  Result<int> before = migrate();
  if (!before.ok()) {
    (void)Run(conn, "ROLLBACK", loc, "roll back");
    if (before.status().message().find("read-only transaction") != std::string::npos) {
      return FailedPrecondition("results database " + loc + " is read-only (" + before.status().message() +
                                "); this command writes to it");
    }
    return before.status();
  }
  int version = *before;
  if (version < target_version) version = std::min(target_version, kSchemaVersion);
  return std::unique_ptr<Store>(std::make_unique<PgStore>(guard.release(), loc, version, *before == 0));
}

}  // namespace frontier::store
