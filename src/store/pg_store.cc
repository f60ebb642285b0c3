#include "store/pg_store.h"

#include <libpq-fe.h>

#include <cctype>
#include <cerrno>
#include <cstdlib>
#include <variant>

#include "core/ascii.h"
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

// One row of a result, read as a SqlRow.
class Row final : public SqlRow {
 public:
  Row(PGresult* r, int row) : r_(r), row_(row) {}
  std::string Text(int c) override {
    return PQgetisnull(r_, row_, c) ? "" : std::string(PQgetvalue(r_, row_, c), PQgetlength(r_, row_, c));
  }
  int64_t Int(int c) override { return std::strtoll(PQgetvalue(r_, row_, c), nullptr, 10); }
  double Real(int c) override { return std::strtod(PQgetvalue(r_, row_, c), nullptr); }
  Result<int64_t> Int(int c, const std::string& field, int64_t min, int64_t max) override {
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

// A parameter as libpq takes it: text, which PostgreSQL converts to the
// column's type (17 significant digits keep every double exact).
std::string ParamText(const SqlParams::Value& v) {
  if (const auto* s = std::get_if<std::string>(&v)) return *s;
  if (const auto* i = std::get_if<int64_t>(&v)) return std::to_string(*i);
  return FormatSignificant(std::get<double>(v), 17);
}

class PgStore final : public SqlStore {
 public:
  PgStore(PGconn* conn, std::string location, int version, bool created)
      : SqlStore(std::move(location), version, created), conn_(conn) {}
  ~PgStore() override { PQfinish(conn_); }

 protected:
  Status Exec(const std::string& sql, const SqlParams& params, const std::string& what,
              const EachRow& each) override {
    std::vector<std::string> texts;
    for (const auto& v : params.values()) texts.push_back(ParamText(v));
    std::vector<const char*> values;
    for (const auto& t : texts) values.push_back(t.c_str());
    PgResult r(PQexecParams(conn_, NumberPlaceholders(sql).c_str(), static_cast<int>(values.size()), nullptr,
                            values.empty() ? nullptr : values.data(), nullptr, nullptr, 0),
               &PQclear);
    const ExecStatusType st = r ? PQresultStatus(r.get()) : PGRES_FATAL_ERROR;
    if (st == PGRES_COMMAND_OK || st == PGRES_TUPLES_OK) {
      for (int i = 0; each && i < PQntuples(r.get()); ++i) {
        Row row(r.get(), i);
        each(row);
      }
      return Status::Ok();
    }
    const char* state = r ? PQresultErrorField(r.get(), PG_DIAG_SQLSTATE) : nullptr;
    if (state != nullptr && std::string(state) == "23505") return FailedPrecondition(Message(r.get()));
    return IoError(location() + ": " + what + ": " + Message(r.get()));
  }

  // The advisory lock makes points commit in the order of their ids, so that
  // ListPointsAfter never skips a point a slower writer commits later.
  Status BeginPoint() override {
    FRONTIER_RETURN_IF_ERROR(Exec("BEGIN", SqlParams(), "begin transaction", nullptr));
    return Exec("SELECT pg_advisory_xact_lock(" + std::to_string(kPointLock) + ")", SqlParams(),
                "lock for point", nullptr);
  }

  // Batches of kRequestBatch rows per INSERT: one round trip to the server each.
  Status InsertRequests(int64_t point_id, const std::string& key, const std::vector<RequestRow>& requests) override {
    for (size_t from = 0; from < requests.size(); from += kRequestBatch) {
      const size_t n = std::min(requests.size() - from, static_cast<size_t>(kRequestBatch));
      SqlParams q;
      for (size_t k = 0; k < n; ++k) codec::BindRequest(q, static_cast<int>(k * 13 + 1), point_id, requests[from + k]);
      FRONTIER_RETURN_IF_ERROR(
          Exec(sql::InsertRequests(static_cast<int>(n)), q, "insert requests of point " + key, nullptr));
    }
    return Status::Ok();
  }

 private:
  std::string Message(PGresult* r) const {
    std::string m = r ? PQresultErrorMessage(r) : PQerrorMessage(conn_);
    if (m.empty()) m = PQerrorMessage(conn_);
    while (!m.empty() && (m.back() == '\n' || m.back() == ' ')) m.pop_back();
    return m;
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
