#include "store/sqlite_store.h"

#include <sqlite3.h>

#include <filesystem>

#include <nlohmann/json.hpp>

#include <cstdlib>

#include "core/clock.h"
#include "core/parse.h"

namespace frontier::store {
namespace {

// Migrations, in order: migration i takes the schema from version i to i + 1.
// Never edit one that has shipped; add a new one.
const char* const kMigrations[] = {
    // 0 -> 1: runs, points, requests.
    R"sql(
CREATE TABLE IF NOT EXISTS meta(key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE runs(
  id INTEGER PRIMARY KEY, sweep TEXT NOT NULL, plan_hash TEXT NOT NULL, plan_text TEXT NOT NULL,
  system TEXT NOT NULL, source TEXT NOT NULL, status TEXT NOT NULL, created_utc TEXT NOT NULL,
  config_json TEXT NOT NULL, provenance_json TEXT NOT NULL);
CREATE TABLE points(
  id INTEGER PRIMARY KEY, run_id INTEGER NOT NULL REFERENCES runs(id), point_key TEXT NOT NULL,
  workload TEXT NOT NULL, load_kind TEXT NOT NULL, load_value REAL NOT NULL,
  repetition INTEGER NOT NULL, source TEXT NOT NULL, attempts INTEGER NOT NULL,
  created_utc TEXT NOT NULL, settings_json TEXT NOT NULL, summary_json TEXT NOT NULL,
  num_gpus INTEGER NOT NULL, completed INTEGER NOT NULL, failed INTEGER NOT NULL,
  total_input_tokens INTEGER NOT NULL, total_output_tokens INTEGER NOT NULL,
  duration_s REAL, request_throughput REAL, output_throughput REAL, total_token_throughput REAL,
  output_tput_per_gpu REAL, total_tput_per_gpu REAL, interactivity REAL,
  mean_ttft_ms REAL, median_ttft_ms REAL, p99_ttft_ms REAL,
  mean_tpot_ms REAL, median_tpot_ms REAL, p99_tpot_ms REAL,
  mean_itl_ms REAL, median_itl_ms REAL, p99_itl_ms REAL,
  mean_e2el_ms REAL, median_e2el_ms REAL, p99_e2el_ms REAL,
  UNIQUE(run_id, point_key));
CREATE TABLE requests(
  point_id INTEGER NOT NULL REFERENCES points(id), idx INTEGER NOT NULL, ok INTEGER NOT NULL,
  warmup INTEGER NOT NULL, prompt_tokens INTEGER, output_tokens INTEGER, scheduled_ns INTEGER,
  sent_ns INTEGER, first_token_ns INTEGER, end_ns INTEGER, events INTEGER, failure TEXT,
  http_status INTEGER, PRIMARY KEY(point_id, idx)) WITHOUT ROWID;
)sql",
    // 1 -> 2: peak concurrency seen, and an index for resuming by plan.
    R"sql(
ALTER TABLE points ADD COLUMN max_concurrent_requests REAL NOT NULL DEFAULT 0;
CREATE INDEX runs_by_plan ON runs(sweep, plan_hash, system);
)sql",
    // 2 -> 3: servers launched by sweeps, so a later sweep can stop one whose sweep died.
    R"sql(
CREATE TABLE launches(
  id INTEGER PRIMARY KEY, system TEXT NOT NULL,
  host TEXT NOT NULL, boot_id TEXT NOT NULL, pgid INTEGER NOT NULL, marker TEXT NOT NULL,
  command TEXT NOT NULL, started_utc TEXT NOT NULL, stopped_utc TEXT);
)sql",
};
constexpr int kNumMigrations = sizeof(kMigrations) / sizeof(kMigrations[0]);
static_assert(kNumMigrations == kSchemaVersion, "one migration per schema version");

// The REAL metric columns, where they live in PointMetrics, and the schema
// version that added them (an older database read as it is reads them as 0).
struct DoubleColumn {
  const char* name;
  double PointMetrics::*member;
  int since = 1;
};
const DoubleColumn kDoubleColumns[] = {
    {"duration_s", &PointMetrics::duration_s},
    {"request_throughput", &PointMetrics::request_throughput},
    {"output_throughput", &PointMetrics::output_throughput},
    {"total_token_throughput", &PointMetrics::total_token_throughput},
    {"output_tput_per_gpu", &PointMetrics::output_tput_per_gpu},
    {"total_tput_per_gpu", &PointMetrics::total_tput_per_gpu},
    {"interactivity", &PointMetrics::interactivity},
    {"mean_ttft_ms", &PointMetrics::mean_ttft_ms},
    {"median_ttft_ms", &PointMetrics::median_ttft_ms},
    {"p99_ttft_ms", &PointMetrics::p99_ttft_ms},
    {"mean_tpot_ms", &PointMetrics::mean_tpot_ms},
    {"median_tpot_ms", &PointMetrics::median_tpot_ms},
    {"p99_tpot_ms", &PointMetrics::p99_tpot_ms},
    {"mean_itl_ms", &PointMetrics::mean_itl_ms},
    {"median_itl_ms", &PointMetrics::median_itl_ms},
    {"p99_itl_ms", &PointMetrics::p99_itl_ms},
    {"mean_e2el_ms", &PointMetrics::mean_e2el_ms},
    {"median_e2el_ms", &PointMetrics::median_e2el_ms},
    {"p99_e2el_ms", &PointMetrics::p99_e2el_ms},
    {"max_concurrent_requests", &PointMetrics::max_concurrent_requests, 2},
};

std::string MapToJson(const std::map<std::string, std::string>& m) { return nlohmann::json(m).dump(); }

std::map<std::string, std::string> JsonToMap(const std::string& text) {
  std::map<std::string, std::string> out;
  auto j = nlohmann::json::parse(text, nullptr, /*allow_exceptions=*/false);
  if (!j.is_object()) return out;
  for (auto& [k, v] : j.items()) out[k] = v.is_string() ? v.get<std::string>() : v.dump();
  return out;
}

// A prepared statement, finalised on scope exit.
class Stmt {
 public:
  Stmt(sqlite3* db, const std::string& sql) {
    rc_ = sqlite3_prepare_v2(db, sql.c_str(), -1, &s_, nullptr);
  }
  ~Stmt() { sqlite3_finalize(s_); }
  Stmt(const Stmt&) = delete;
  Stmt& operator=(const Stmt&) = delete;
  bool ok() const { return rc_ == SQLITE_OK; }
  sqlite3_stmt* get() { return s_; }
  void Bind(int i, const std::string& v) { sqlite3_bind_text(s_, i, v.c_str(), -1, SQLITE_TRANSIENT); }
  void Bind(int i, int64_t v) { sqlite3_bind_int64(s_, i, v); }
  void Bind(int i, double v) { sqlite3_bind_double(s_, i, v); }
  int Step() { return sqlite3_step(s_); }
  void Reset() {
    sqlite3_reset(s_);
    sqlite3_clear_bindings(s_);
  }
  std::string Text(int i) {
    auto* t = sqlite3_column_text(s_, i);
    return t ? std::string(reinterpret_cast<const char*>(t), static_cast<size_t>(sqlite3_column_bytes(s_, i)))
             : "";
  }
  int64_t Int(int i) { return sqlite3_column_int64(s_, i); }
  double Real(int i) { return sqlite3_column_double(s_, i); }
  // An integer column within [min, max]; a value outside (or not an
  // integer) is a damaged row, named by `field`.
  Result<int64_t> Int(int i, const std::string& field, int64_t min, int64_t max) {
    if (sqlite3_column_type(s_, i) != SQLITE_INTEGER) {
      return InvalidArgument(field + " must be an integer in [" + std::to_string(min) + ", " +
                             std::to_string(max) + "], got '" + Text(i) + "'");
    }
    const int64_t v = sqlite3_column_int64(s_, i);
    FRONTIER_RETURN_IF_ERROR(CheckRange(field, v, min, max));
    return v;
  }

 private:
  sqlite3_stmt* s_ = nullptr;
  int rc_ = SQLITE_OK;
};

class SqliteStore final : public Store {
 public:
  SqliteStore(sqlite3* db, std::string path, int version, bool created)
      : db_(db), path_(std::move(path)), version_(version), created_(created) {}
  ~SqliteStore() override { sqlite3_close(db_); }

  int SchemaVersion() const override { return version_; }
  bool Created() const override { return created_; }

  Result<RunInfo> CreateRun(RunInfo run) override {
    if (run.created_utc.empty()) run.created_utc = UtcTimestampNow();
    Stmt s(db_,
           "INSERT INTO runs(sweep, plan_hash, plan_text, system, source, status, created_utc, "
           "config_json, provenance_json) VALUES(?,?,?,?,?,?,?,?,?)");
    if (!s.ok()) return Error("prepare insert run");
    s.Bind(1, run.sweep);
    s.Bind(2, run.plan_hash);
    s.Bind(3, run.plan_text);
    s.Bind(4, run.system);
    s.Bind(5, run.source);
    s.Bind(6, run.status.ToString());
    s.Bind(7, run.created_utc);
    s.Bind(8, MapToJson(run.config));
    s.Bind(9, MapToJson(run.provenance));
    if (s.Step() != SQLITE_DONE) return Error("insert run");
    run.id = sqlite3_last_insert_rowid(db_);
    return run;
  }

  Status SetRunStatus(int64_t run_id, const SystemStatus& status) override {
    Stmt s(db_, "UPDATE runs SET status = ? WHERE id = ?");
    s.Bind(1, status.ToString());
    s.Bind(2, run_id);
    if (!s.ok() || s.Step() != SQLITE_DONE) return Error("update run status");
    return Status::Ok();
  }

  Result<std::vector<RunInfo>> ListRuns() override { return QueryRuns("ORDER BY id", {}); }

  Result<RunInfo> GetRun(int64_t run_id) override {
    FRONTIER_ASSIGN_OR_RETURN(auto runs, QueryRuns("WHERE id = ?", {std::to_string(run_id)}));
    if (runs.empty()) {
      return NotFound("run " + std::to_string(run_id) + " is not in " + path_ +
                      "; `frontier db ls --db " + path_ + "` lists the runs");
    }
    return runs.front();
  }

  Result<std::optional<RunInfo>> FindRun(const std::string& sweep, const std::string& plan_hash,
                                         const std::string& system) override {
    FRONTIER_ASSIGN_OR_RETURN(
        auto runs, QueryRuns("WHERE sweep = ? AND plan_hash = ? AND system = ? ORDER BY id DESC",
                             {sweep, plan_hash, system}));
    if (runs.empty()) return std::optional<RunInfo>();
    return std::optional<RunInfo>(runs.front());
  }

  Result<int64_t> AddPoint(const PointRecord& p, const std::vector<RequestRow>& requests) override {
    if (sqlite3_exec(db_, "BEGIN IMMEDIATE", nullptr, nullptr, nullptr) != SQLITE_OK)
      return Error("begin transaction");
    Result<int64_t> id = InsertPoint(p, requests);
    if (!id.ok()) {
      sqlite3_exec(db_, "ROLLBACK", nullptr, nullptr, nullptr);
      return id.status();
    }
    if (sqlite3_exec(db_, "COMMIT", nullptr, nullptr, nullptr) != SQLITE_OK) {
      Status st = Error("commit point");
      sqlite3_exec(db_, "ROLLBACK", nullptr, nullptr, nullptr);
      return st;
    }
    return id;
  }

  Result<std::vector<PointRecord>> ListPoints(int64_t run_id) override {
    return SelectPoints(run_id > 0 ? "run_id" : "", run_id);
  }

  Result<std::vector<PointRecord>> ListPointsAfter(int64_t after_id) override {
    return SelectPoints("id >", after_id);
  }

  // Points WHERE `<condition> ?` (bound to `arg`), or all when condition is "".
  Result<std::vector<PointRecord>> SelectPoints(const std::string& condition, int64_t arg) {
    std::string sql =
        "SELECT id, run_id, point_key, workload, load_kind, load_value, repetition, source, "
        "attempts, created_utc, settings_json, summary_json, num_gpus, completed, failed, "
        "total_input_tokens, total_output_tokens";
    for (const auto& c : kDoubleColumns)
      sql += version_ >= c.since ? std::string(", ") + c.name : std::string(", 0 AS ") + c.name;
    sql += " FROM points";
    if (condition == "run_id") sql += " WHERE run_id = ?";
    if (condition == "id >") sql += " WHERE id > ?";
    sql += " ORDER BY id";
    Stmt s(db_, sql);
    if (!s.ok()) return Error("prepare list points");
    if (!condition.empty()) s.Bind(1, arg);
    std::vector<PointRecord> out;
    int rc;
    while ((rc = s.Step()) == SQLITE_ROW) {
      PointRecord p;
      p.id = s.Int(0);
      Status row = [&]() -> Status {
        using namespace bounds;
        p.run_id = s.Int(1);
        p.key = s.Text(2);
        p.workload = s.Text(3);
        p.load_kind = s.Text(4);
        p.load_value = s.Real(5);
        FRONTIER_ASSIGN_OR_RETURN(p.repetition, s.Int(6, "repetition", 0, kMaxRepetition));
        p.source = s.Text(7);
        FRONTIER_ASSIGN_OR_RETURN(p.attempts, s.Int(8, "attempts", 1, kMaxAttempts));
        p.created_utc = s.Text(9);
        p.settings = JsonToMap(s.Text(10));
        p.summary_json = s.Text(11);
        FRONTIER_ASSIGN_OR_RETURN(p.metrics.num_gpus, s.Int(12, "num_gpus", 1, kMaxGpus));
        FRONTIER_ASSIGN_OR_RETURN(p.metrics.completed, s.Int(13, "completed", 0, kMaxRequests));
        FRONTIER_ASSIGN_OR_RETURN(p.metrics.failed, s.Int(14, "failed", 0, kMaxRequests));
        FRONTIER_ASSIGN_OR_RETURN(p.metrics.total_input_tokens, s.Int(15, "total_input_tokens", 0, kMaxTokens));
        FRONTIER_ASSIGN_OR_RETURN(p.metrics.total_output_tokens, s.Int(16, "total_output_tokens", 0, kMaxTokens));
        int col = 17;
        for (const auto& c : kDoubleColumns) p.metrics.*c.member = s.Real(col++);
        return CheckPoint(p, "");
      }();
      if (!row.ok()) return Damaged("points", p.id, row);
      out.push_back(std::move(p));
    }
    if (rc != SQLITE_DONE) return Error("list points");
    return out;
  }

  Result<std::set<std::string>> PointKeys(int64_t run_id) override {
    Stmt s(db_, "SELECT point_key FROM points WHERE run_id = ?");
    s.Bind(1, run_id);
    std::set<std::string> keys;
    int rc;
    while ((rc = s.Step()) == SQLITE_ROW) keys.insert(s.Text(0));
    if (rc != SQLITE_DONE) return Error("list point keys");
    return keys;
  }

  Result<std::vector<RequestRow>> ListRequests(int64_t point_id) override {
    Stmt s(db_,
           "SELECT idx, ok, warmup, prompt_tokens, output_tokens, scheduled_ns, sent_ns, "
           "first_token_ns, end_ns, events, failure, http_status FROM requests WHERE point_id = ? "
           "ORDER BY idx");
    s.Bind(1, point_id);
    std::vector<RequestRow> out;
    int rc;
    while ((rc = s.Step()) == SQLITE_ROW) {
      RequestRow r;
      r.idx = s.Int(0);
      Status row = [&]() -> Status {
        constexpr int64_t kTokens = bounds::kMaxRequestTokens;
        r.ok = s.Int(1) != 0;
        r.warmup = s.Int(2) != 0;
        FRONTIER_ASSIGN_OR_RETURN(r.prompt_tokens, s.Int(3, "prompt_tokens", 0, kTokens));
        FRONTIER_ASSIGN_OR_RETURN(r.output_tokens, s.Int(4, "output_tokens", 0, kTokens));
        r.scheduled_ns = s.Int(5);
        r.sent_ns = s.Int(6);
        r.first_token_ns = s.Int(7);
        r.end_ns = s.Int(8);
        FRONTIER_ASSIGN_OR_RETURN(r.events, s.Int(9, "events", 0, kTokens));
        r.failure = s.Text(10);
        FRONTIER_ASSIGN_OR_RETURN(r.http_status, s.Int(11, "http_status", 0, 999));
        return Status::Ok();
      }();
      if (!row.ok()) {
        return Damaged("requests", r.idx, row.WithContext("point " + std::to_string(point_id)));
      }
      out.push_back(std::move(r));
    }
    if (rc != SQLITE_DONE) return Error("list requests");
    return out;
  }

  Result<int64_t> AddLaunch(const LaunchRecord& l) override {
    Stmt s(db_,
           "INSERT INTO launches(system, host, boot_id, pgid, marker, command, started_utc) "
           "VALUES(?,?,?,?,?,?,?)");
    if (!s.ok()) return Error("prepare insert launch");
    s.Bind(1, l.system);
    s.Bind(2, l.host);
    s.Bind(3, l.boot_id);
    s.Bind(4, l.pgid);
    s.Bind(5, l.marker);
    s.Bind(6, l.command);
    s.Bind(7, l.started_utc.empty() ? UtcTimestampNow() : l.started_utc);
    if (s.Step() != SQLITE_DONE) return Error("insert launch");
    return static_cast<int64_t>(sqlite3_last_insert_rowid(db_));
  }

  Status SetLaunchStopped(int64_t launch_id) override {
    Stmt s(db_, "UPDATE launches SET stopped_utc = ? WHERE id = ?");
    s.Bind(1, UtcTimestampNow());
    s.Bind(2, launch_id);
    if (!s.ok() || s.Step() != SQLITE_DONE) return Error("update launch");
    return Status::Ok();
  }

  Result<std::vector<LaunchRecord>> ListOpenLaunches() override {
    std::vector<LaunchRecord> out;
    if (version_ < 3) return out;  // read as it is: no launches recorded
    Stmt s(db_,
           "SELECT id, system, host, boot_id, pgid, marker, command, started_utc FROM launches "
           "WHERE stopped_utc IS NULL ORDER BY id");
    if (!s.ok()) return Error("prepare list launches");
    int rc;
    while ((rc = s.Step()) == SQLITE_ROW) {
      LaunchRecord l;
      l.id = s.Int(0);
      l.system = s.Text(1);
      l.host = s.Text(2);
      l.boot_id = s.Text(3);
      Result<int64_t> pgid = s.Int(4, "pgid", 2, std::numeric_limits<int32_t>::max());
      if (!pgid.ok()) return Damaged("launches", l.id, pgid.status());
      l.pgid = *pgid;
      l.marker = s.Text(5);
      l.command = s.Text(6);
      l.started_utc = s.Text(7);
      out.push_back(std::move(l));
    }
    if (rc != SQLITE_DONE) return Error("list launches");
    return out;
  }

 private:
  Status Error(const std::string& what) const {
    return IoError(path_ + ": " + what + ": " + sqlite3_errmsg(db_));
  }

  // A stored row whose numbers are outside records.h's bounds.
  Status Damaged(const char* table, int64_t id, const Status& why) const {
    return InvalidArgument(path_ + ": " + table + " row " + std::to_string(id) + ": " + why.message() +
                           "; the database is damaged or was written by something else");
  }

  Result<std::vector<RunInfo>> QueryRuns(const std::string& where,
                                         const std::vector<std::string>& args) {
    Stmt s(db_,
           "SELECT id, sweep, plan_hash, plan_text, system, source, status, created_utc, "
           "config_json, provenance_json FROM runs " + where);
    if (!s.ok()) return Error("prepare list runs");
    for (size_t i = 0; i < args.size(); ++i) s.Bind(static_cast<int>(i + 1), args[i]);
    std::vector<RunInfo> out;
    int rc;
    while ((rc = s.Step()) == SQLITE_ROW) {
      RunInfo r;
      r.id = s.Int(0);
      r.sweep = s.Text(1);
      r.plan_hash = s.Text(2);
      r.plan_text = s.Text(3);
      r.system = s.Text(4);
      r.source = s.Text(5);
      r.status = ParseSystemStatus(s.Text(6));
      r.created_utc = s.Text(7);
      r.config = JsonToMap(s.Text(8));
      r.provenance = JsonToMap(s.Text(9));
      out.push_back(std::move(r));
    }
    if (rc != SQLITE_DONE) return Error("list runs");
    return out;
  }

  Result<int64_t> InsertPoint(const PointRecord& p, const std::vector<RequestRow>& requests) {
    std::string sql =
        "INSERT INTO points(run_id, point_key, workload, load_kind, load_value, repetition, "
        "source, attempts, created_utc, settings_json, summary_json, num_gpus, completed, failed, "
        "total_input_tokens, total_output_tokens";
    std::string values = "?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?";
    for (const auto& c : kDoubleColumns) {
      if (version_ < c.since) continue;
      sql += std::string(", ") + c.name;
      values += ",?";
    }
    sql += ") VALUES(" + values + ")";
    Stmt s(db_, sql);
    if (!s.ok()) return Error("prepare insert point");
    s.Bind(1, p.run_id);
    s.Bind(2, p.key);
    s.Bind(3, p.workload);
    s.Bind(4, p.load_kind);
    s.Bind(5, p.load_value);
    s.Bind(6, static_cast<int64_t>(p.repetition));
    s.Bind(7, p.source);
    s.Bind(8, static_cast<int64_t>(p.attempts));
    s.Bind(9, p.created_utc.empty() ? UtcTimestampNow() : p.created_utc);
    s.Bind(10, MapToJson(p.settings));
    s.Bind(11, p.summary_json.empty() ? std::string("{}") : p.summary_json);
    s.Bind(12, static_cast<int64_t>(p.metrics.num_gpus));
    s.Bind(13, p.metrics.completed);
    s.Bind(14, p.metrics.failed);
    s.Bind(15, p.metrics.total_input_tokens);
    s.Bind(16, p.metrics.total_output_tokens);
    int col = 17;
    for (const auto& c : kDoubleColumns)
      if (version_ >= c.since) s.Bind(col++, p.metrics.*c.member);
    int rc = s.Step();
    if (rc == SQLITE_CONSTRAINT) {
      return FailedPrecondition(path_ + ": run " + std::to_string(p.run_id) +
                                " already has point '" + p.key + "'; a point is stored once");
    }
    if (rc != SQLITE_DONE) return Error("insert point");
    const int64_t point_id = sqlite3_last_insert_rowid(db_);

    Stmt r(db_,
           "INSERT INTO requests(point_id, idx, ok, warmup, prompt_tokens, output_tokens, "
           "scheduled_ns, sent_ns, first_token_ns, end_ns, events, failure, http_status) "
           "VALUES(?,?,?,?,?,?,?,?,?,?,?,?,?)");
    if (!r.ok()) return Error("prepare insert request");
    for (const auto& q : requests) {
      r.Reset();
      r.Bind(1, point_id);
      r.Bind(2, q.idx);
      r.Bind(3, static_cast<int64_t>(q.ok));
      r.Bind(4, static_cast<int64_t>(q.warmup));
      r.Bind(5, static_cast<int64_t>(q.prompt_tokens));
      r.Bind(6, static_cast<int64_t>(q.output_tokens));
      r.Bind(7, q.scheduled_ns);
      r.Bind(8, q.sent_ns);
      r.Bind(9, q.first_token_ns);
      r.Bind(10, q.end_ns);
      r.Bind(11, static_cast<int64_t>(q.events));
      r.Bind(12, q.failure);
      r.Bind(13, static_cast<int64_t>(q.http_status));
      if (r.Step() != SQLITE_DONE) return Error("insert request " + std::to_string(q.idx));
    }
    return point_id;
  }

  sqlite3* db_;
  std::string path_;
  int version_;
  bool created_;
};

// The schema version of an open database: 0 for one with no tables at all (a
// new or empty file). InvalidArgument for a SQLite database that frontier did
// not write (no `meta` table) or a schema_version that is not an integer in
// [1, kSchemaVersion]; FailedPrecondition for a newer schema.
Result<int> ReadVersion(sqlite3* db, const std::string& path) {
  Stmt tables(db, "SELECT count(*), sum(name = 'meta') FROM sqlite_master WHERE type = 'table'");
  if (!tables.ok() || tables.Step() != SQLITE_ROW) {
    const int code = sqlite3_errcode(db) & 0xff;
    if (code == SQLITE_NOTADB) return InvalidArgument(path + " is not a SQLite database (--db names another file?)");
    // A WAL database's -shm file could not be created or written (a read-only folder).
    const bool shm = code == SQLITE_CANTOPEN || code == SQLITE_READONLY;
    return Status(shm ? StatusCode::kUnavailable : StatusCode::kIoError,
                  path + ": cannot read: " + sqlite3_errmsg(db));
  }
  if (tables.Int(0) == 0) return 0;
  if (tables.Int(1) == 0) {
    return InvalidArgument(path + " is a SQLite database but not a frontier results database (it has no "
                           "`meta` table); --db names another file?");
  }
  Stmt s(db, "SELECT value FROM meta WHERE key = 'schema_version'");
  if (!s.ok()) return IoError(path + ": cannot read meta: " + sqlite3_errmsg(db));
  if (s.Step() != SQLITE_ROW) {
    return InvalidArgument(path + ": meta.schema_version is missing; the database is damaged or was not "
                           "written by frontier");
  }
  const std::string text = s.Text(0);
  Result<int64_t> v = ParseInt("meta.schema_version", text, std::numeric_limits<int64_t>::min(),
                               std::numeric_limits<int64_t>::max());
  if (v.ok() && *v > kSchemaVersion) {
    return FailedPrecondition(path + " has schema version " + text + ", newer than this frontier's " +
                              std::to_string(kSchemaVersion) + "; use a newer frontier to read it");
  }
  if (!v.ok() || *v < 1) {
    return InvalidArgument(path + ": meta.schema_version must be an integer in [1, " +
                           std::to_string(kSchemaVersion) + "], got '" + text.substr(0, 40) +
                           "'; the database is damaged or was not written by frontier");
  }
  return static_cast<int>(*v);
}

// "file:<path>?immutable=1" with the path percent-encoded as a URI needs.
std::string ImmutableUri(const std::string& path) {
  std::string uri = "file:";
  std::error_code ec;
  for (const unsigned char c : std::filesystem::absolute(path, ec).string()) {
    if (c == '%' || c == '?' || c == '#' || c < 0x20 || c >= 0x7f) {
      char hex[4];
      std::snprintf(hex, sizeof hex, "%%%02X", c);
      uri += hex;
    } else {
      uri += static_cast<char>(c);
    }
  }
  return uri + "?immutable=1";
}

Result<std::unique_ptr<Store>> OpenReadOnly(const std::string& path) {
  // Tries a normal read-only connection first (it sees a concurrent sweep's
  // writes). Reading a WAL database needs its -shm file; in a read-only folder
  // without one, the file is read as immutable instead, which is exact as
  // long as no write-ahead log is left (nothing can write there anyway).
  for (const bool immutable : {false, true}) {
    sqlite3* db = nullptr;
    const std::string name = immutable ? ImmutableUri(path) : path;
    const int flags = SQLITE_OPEN_READONLY | (immutable ? SQLITE_OPEN_URI : 0);
    if (sqlite3_open_v2(name.c_str(), &db, flags, nullptr) != SQLITE_OK) {
      std::string msg = db ? sqlite3_errmsg(db) : "out of memory";
      sqlite3_close(db);
      return IoError("cannot open results database " + path + ": " + msg);
    }
    sqlite3_busy_timeout(db, 10000);
    Result<int> version = ReadVersion(db, path);
    if (!version.ok()) {
      sqlite3_close(db);
      std::error_code ec;
      const bool wal_left = std::filesystem::file_size(path + "-wal", ec) > 0 && !ec;
      if (!immutable && version.status().code() == StatusCode::kUnavailable && !wal_left) continue;
      if (wal_left && version.status().code() == StatusCode::kUnavailable) {
        return FailedPrecondition(path + " has an unfinished write-ahead log (" + path +
                                  "-wal) in a folder this user cannot write; copy both files to a "
                                  "writable folder to read them");
      }
      return version.status();
    }
    if (*version == 0) {
      sqlite3_close(db);
      return InvalidArgument(path + " is empty: not a frontier results database (`frontier sweep` or "
                             "`frontier db import` creates one)");
    }
    return std::unique_ptr<Store>(std::make_unique<SqliteStore>(db, path, *version, /*created=*/false));
  }
  return Internal("unreachable");
}

}  // namespace

Result<std::unique_ptr<Store>> OpenSqliteStore(const std::string& path, OpenMode mode, int target_version) {
  std::error_code ec;
  const auto st = std::filesystem::status(path, ec);
  const bool exists = std::filesystem::exists(st);
  if (std::filesystem::is_directory(st)) {
    return InvalidArgument("results database " + path + " is a directory; --db names a file");
  }
  if (!exists && mode != OpenMode::kCreate) {
    return NotFound("results database " + path +
                    " does not exist (`frontier sweep` and `frontier db import` create one; is --db "
                    "mistyped?)");
  }
  if (mode == OpenMode::kReadOnly) return OpenReadOnly(path);
  if (!exists) {
    const std::filesystem::path folder = std::filesystem::path(path).parent_path();
    if (!folder.empty() && !std::filesystem::is_directory(folder, ec)) {
      return NotFound("cannot create results database " + path + ": its folder " + folder.string() +
                      " does not exist");
    }
  }

  sqlite3* db = nullptr;
  const int flags = SQLITE_OPEN_READWRITE | (mode == OpenMode::kCreate ? SQLITE_OPEN_CREATE : 0);
  if (sqlite3_open_v2(path.c_str(), &db, flags, nullptr) != SQLITE_OK) {
    std::string msg = db ? sqlite3_errmsg(db) : "out of memory";
    sqlite3_close(db);
    return IoError("cannot open results database " + path + ": " + msg);
  }
  auto fail = [&](const std::string& what) -> Status {
    std::string msg = what + ": " + sqlite3_errmsg(db);
    sqlite3_close(db);
    return IoError(path + ": " + msg);
  };
  if (sqlite3_db_readonly(db, "main") == 1) {
    sqlite3_close(db);
    return FailedPrecondition("results database " + path +
                              " is read-only; this command writes to it (db ls, db export, report and "
                              "compare read read-only files)");
  }
  sqlite3_busy_timeout(db, 10000);
  // Checked before anything is written: a file that is not frontier's is left alone.
  Result<int> before = ReadVersion(db, path);
  if (!before.ok()) {
    sqlite3_close(db);
    return before.status();
  }
  if (sqlite3_exec(db, "PRAGMA journal_mode=WAL; PRAGMA synchronous=NORMAL; PRAGMA foreign_keys=ON",
                   nullptr, nullptr, nullptr) != SQLITE_OK) {
    return fail("cannot enable WAL");
  }
  // Serialise concurrent openers while migrating, and read the version again under the lock.
  if (sqlite3_exec(db, "BEGIN IMMEDIATE", nullptr, nullptr, nullptr) != SQLITE_OK)
    return fail("cannot lock for migration");
  Result<int> version = ReadVersion(db, path);
  if (!version.ok()) {
    sqlite3_exec(db, "ROLLBACK", nullptr, nullptr, nullptr);
    sqlite3_close(db);
    return version.status();
  }
  const bool created = *version == 0;
  int v = *version;
  for (; v < target_version && v < kNumMigrations; ++v) {
    if (sqlite3_exec(db, kMigrations[v], nullptr, nullptr, nullptr) != SQLITE_OK) {
      std::string msg = sqlite3_errmsg(db);
      sqlite3_exec(db, "ROLLBACK", nullptr, nullptr, nullptr);
      sqlite3_close(db);
      return IoError(path + ": migration to schema " + std::to_string(v + 1) + " failed: " + msg);
    }
  }
  std::string set = "INSERT OR REPLACE INTO meta(key, value) VALUES('schema_version', '" +
                    std::to_string(v) + "')";
  if (sqlite3_exec(db, set.c_str(), nullptr, nullptr, nullptr) != SQLITE_OK ||
      sqlite3_exec(db, "COMMIT", nullptr, nullptr, nullptr) != SQLITE_OK) {
    sqlite3_exec(db, "ROLLBACK", nullptr, nullptr, nullptr);
    return fail("cannot record schema version");
  }
  return std::unique_ptr<Store>(std::make_unique<SqliteStore>(db, path, v, created));
}

Result<std::unique_ptr<Store>> OpenStore(const std::string& location, OpenMode mode) {
  if (location.rfind("postgresql://", 0) == 0 || location.rfind("postgres://", 0) == 0) {
    return InvalidArgument("--db " + location +
                           ": only the SQLite back end is built; give a file path");
  }
  if (location.empty()) return InvalidArgument("--db must name a file");
  return OpenSqliteStore(location, mode);
}

}  // namespace frontier::store
