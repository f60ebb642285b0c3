#include "store/sqlite_store.h"

#include <sqlite3.h>

#include <chrono>
#include <filesystem>
#include <thread>
#include <variant>

#include <cstdlib>

#include "core/parse.h"
#include "store/row_codec.h"
#include "store/schema.h"
#include "store/sql_store.h"

namespace frontier::store {
namespace {

// A prepared statement, finalised on scope exit; its current row is a SqlRow.
class Stmt final : public SqlRow {
 public:
  Stmt(sqlite3* db, const std::string& sql) {
    rc_ = sqlite3_prepare_v2(db, sql.c_str(), -1, &s_, nullptr);
  }
  ~Stmt() { sqlite3_finalize(s_); }
  Stmt(const Stmt&) = delete;
  Stmt& operator=(const Stmt&) = delete;
  bool ok() const { return rc_ == SQLITE_OK; }
  void Bind(int i, const std::string& v) { sqlite3_bind_text(s_, i, v.c_str(), -1, SQLITE_TRANSIENT); }
  void Bind(int i, int64_t v) { sqlite3_bind_int64(s_, i, v); }
  void Bind(int i, double v) { sqlite3_bind_double(s_, i, v); }
  int Step() { return sqlite3_step(s_); }
  void Reset() {
    sqlite3_reset(s_);
    sqlite3_clear_bindings(s_);
  }
  std::string Text(int i) override {
    auto* t = sqlite3_column_text(s_, i);
    return t ? std::string(reinterpret_cast<const char*>(t), static_cast<size_t>(sqlite3_column_bytes(s_, i)))
             : "";
  }
  int64_t Int(int i) override { return sqlite3_column_int64(s_, i); }
  double Real(int i) override { return sqlite3_column_double(s_, i); }
  // An integer column within [min, max]; a value outside (or not an
  // integer) is a damaged row, named by `field`.
  Result<int64_t> Int(int i, const std::string& field, int64_t min, int64_t max) override {
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

class SqliteStore final : public SqlStore {
 public:
  SqliteStore(sqlite3* db, std::string path, int version, bool created)
      : SqlStore(std::move(path), version, created), db_(db) {}
  ~SqliteStore() override { sqlite3_close(db_); }

 protected:
  Status Exec(const std::string& sql, const SqlParams& params, const std::string& what,
              const EachRow& each) override {
    Stmt s(db_, sql);
    if (!s.ok()) return Error("prepare " + what);
    for (size_t i = 0; i < params.values().size(); ++i)
      std::visit([&](const auto& v) { s.Bind(static_cast<int>(i + 1), v); }, params.values()[i]);
    int rc;
    while ((rc = s.Step()) == SQLITE_ROW) {
      if (each) each(s);
    }
    if (rc == SQLITE_DONE) return Status::Ok();
    const int code = sqlite3_extended_errcode(db_);
    if (code == SQLITE_CONSTRAINT_UNIQUE || code == SQLITE_CONSTRAINT_PRIMARYKEY)
      return FailedPrecondition(sqlite3_errmsg(db_));
    return Error(what);
  }

  Status BeginPoint() override { return Exec("BEGIN IMMEDIATE", SqlParams(), "begin transaction", nullptr); }

  // One prepared statement, reset and stepped for each request.
  Status InsertRequests(int64_t point_id, const std::string&, const std::vector<RequestRow>& requests) override {
    Stmt r(db_, sql::InsertRequests(1));
    if (!r.ok()) return Error("prepare insert request");
    for (const auto& q : requests) {
      r.Reset();
      codec::BindRequest(r, 1, point_id, q);
      if (r.Step() != SQLITE_DONE) return Error("insert request " + std::to_string(q.idx));
    }
    return Status::Ok();
  }

 private:
  Status Error(const std::string& what) const {
    return IoError(location() + ": " + what + ": " + sqlite3_errmsg(db_));
  }

  sqlite3* db_;
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
  return ParseSchemaVersion(path, s.Text(0));
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

Result<std::unique_ptr<Store>> OpenReadOnly(const std::string& path, bool snapshot) {
  // Tries a normal read-only connection first (it sees a concurrent sweep's
  // writes). Reading a WAL database needs its -shm file; in a read-only folder
  // without one, the file is read as immutable instead, which is exact as
  // long as no write-ahead log is left (nothing can write there anyway).
  //
  // A normal read-only connection creates the -wal and -shm files when they
  // are missing and the folder lets it, and leaves them behind owned by the
  // reader, where the owner's next write may not open them. A snapshot read
  // of a database no writer has open (neither file is there) is therefore
  // immutable from the start: it creates nothing.
  std::error_code exists_ec;
  const bool no_sidecars = !std::filesystem::exists(path + "-wal", exists_ec) &&
                           !std::filesystem::exists(path + "-shm", exists_ec);
  for (const bool immutable : {false, true}) {
    if (!immutable && snapshot && no_sidecars) continue;
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
  if (mode == OpenMode::kReadOnly || mode == OpenMode::kSnapshot)
    return OpenReadOnly(path, mode == OpenMode::kSnapshot);
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
  // Switching a new file to WAL needs an exclusive lock that SQLite does not
  // wait for through the busy timeout: a second process opening the same new
  // file at that moment gets SQLITE_BUSY at once, so it retries for as long
  // as the busy timeout (10 s) would wait.
  int wal = SQLITE_BUSY;
  for (int tries = 0; tries < 1000; ++tries) {
    wal = sqlite3_exec(db, "PRAGMA journal_mode=WAL", nullptr, nullptr, nullptr);
    if ((wal & 0xff) != SQLITE_BUSY && (wal & 0xff) != SQLITE_LOCKED) break;
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  if (wal != SQLITE_OK ||
      sqlite3_exec(db, "PRAGMA synchronous=NORMAL; PRAGMA foreign_keys=ON", nullptr, nullptr, nullptr) != SQLITE_OK) {
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
  for (; v < target_version && v < kSchemaVersion; ++v) {
    if (sqlite3_exec(db, MigrationSql(v, Dialect::kSqlite).c_str(), nullptr, nullptr, nullptr) != SQLITE_OK) {
      std::string msg = sqlite3_errmsg(db);
      sqlite3_exec(db, "ROLLBACK", nullptr, nullptr, nullptr);
      sqlite3_close(db);
      return IoError(path + ": migration to schema " + std::to_string(v + 1) + " failed: " + msg);
    }
  }
  bool recorded = false;
  {
    Stmt set(db, sql::SetSchemaVersion());
    set.Bind(1, std::to_string(v));
    recorded = set.ok() && set.Step() == SQLITE_DONE;
  }
  if (!recorded || sqlite3_exec(db, "COMMIT", nullptr, nullptr, nullptr) != SQLITE_OK) {
    std::string msg = std::string("cannot record schema version: ") + sqlite3_errmsg(db);
    sqlite3_exec(db, "ROLLBACK", nullptr, nullptr, nullptr);
    sqlite3_close(db);
    return IoError(path + ": " + msg);
  }
  return std::unique_ptr<Store>(std::make_unique<SqliteStore>(db, path, v, created));
}

}  // namespace frontier::store
