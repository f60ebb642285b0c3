// pg_server.h: a real PostgreSQL server for a test, in a temporary folder.
//
//   PgServer pg;                       // initdb + start; skips the test when it cannot
//   if (!pg.ok()) GTEST_SKIP() << pg.why();
//   std::string url = pg.CreateDatabase("t1");   // postgresql:///t1?host=<folder>&user=frontier
//
// The server runs Debian's binaries (/usr/lib/postgresql/<version>/bin, the
// newest found), listens only on a Unix socket in its folder (no TCP port),
// trusts local connections and runs with fsync off (a test's data need not
// survive a crash). PostgreSQL refuses to run as root, so when the test runs
// as root the folder belongs to nobody:nogroup and initdb and postgres run as
// that user through setpriv. Stopped (immediate shutdown) and removed on
// destruction.
#pragma once

#include <libpq-fe.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <string>

#include "tests/cli_test_util.h"

namespace frontier::testing_pg {

namespace fs = std::filesystem;

class PgServer {
 public:
  PgServer() { Start(); }
  ~PgServer() { Stop(); }
  PgServer(const PgServer&) = delete;
  PgServer& operator=(const PgServer&) = delete;

  // True when the server is up; else why() says what failed.
  bool ok() const { return up_; }
  const std::string& why() const { return why_; }
  const std::string& folder() const { return folder_; }

  // The URL of database `name` on this server, not created.
  std::string Url(const std::string& name) const {
    return "postgresql:///" + name + "?host=" + folder_ + "&user=frontier";
  }

  // Creates database `name`; returns its URL ("" with why() set on failure).
  std::string CreateDatabase(const std::string& name) {
    return Exec(Url("postgres"), "CREATE DATABASE " + name) ? Url(name) : "";
  }

  // Runs one statement on `url`; returns the first column of the first row
  // ("" when none); sets why() and returns "<error>" on failure.
  std::string Query(const std::string& url, const std::string& sql) {
    PGconn* c = PQconnectdb(url.c_str());
    std::string out;
    if (PQstatus(c) != CONNECTION_OK) {
      why_ = PQerrorMessage(c);
      out = "<error>";
    } else {
      PGresult* r = PQexec(c, sql.c_str());
      const ExecStatusType st = PQresultStatus(r);
      if (st == PGRES_TUPLES_OK && PQntuples(r) > 0) {
        out = PQgetvalue(r, 0, 0);
      } else if (st != PGRES_TUPLES_OK && st != PGRES_COMMAND_OK) {
        why_ = PQresultErrorMessage(r);
        out = "<error>";
      }
      PQclear(r);
    }
    PQfinish(c);
    return out;
  }
  bool Exec(const std::string& url, const std::string& sql) { return Query(url, sql) != "<error>"; }

 private:
  // The newest /usr/lib/postgresql/<version>/bin holding initdb, or "".
  static std::string BinDir() {
    std::string best;
    int best_version = -1;
    std::error_code ec;
    for (const auto& e : fs::directory_iterator("/usr/lib/postgresql", ec)) {
      const int v = std::atoi(e.path().filename().c_str());
      if (v > best_version && fs::exists(e.path() / "bin" / "initdb")) {
        best_version = v;
        best = (e.path() / "bin").string();
      }
    }
    return best;
  }

  // A command line run as the server's user, in its folder.
  std::string As(const std::string& cmd) const {
    const std::string user = ::geteuid() == 0 ? "setpriv --reuid=65534 --regid=65534 --clear-groups " : "";
    return "cd " + folder_ + " && " + user + cmd;
  }

  void Start() {
    const std::string bin = BinDir();
    if (bin.empty()) {
      why_ = "no PostgreSQL server binaries under /usr/lib/postgresql/*/bin (scripts/bootstrap installs postgresql)";
      return;
    }
    char tmpl[] = "/tmp/frontier_pg_XXXXXX";
    if (::mkdtemp(tmpl) == nullptr) {
      why_ = "mkdtemp failed";
      return;
    }
    folder_ = tmpl;
    if (::geteuid() == 0 && ::chown(folder_.c_str(), 65534, 65534) != 0) {
      why_ = "cannot give " + folder_ + " to nobody:nogroup";
      return;
    }
    auto [rc, out] = testing::RunCommand(As(bin + "/initdb -D " + folder_ + "/data -U frontier --auth=trust -E UTF8 "
                                                  "--no-sync --no-instructions"));
    if (rc != 0) {
      why_ = "initdb failed (exit " + std::to_string(rc) + "): " + out;
      return;
    }
    auto [src, sout] = testing::RunCommand(
        As(bin + "/pg_ctl -D " + folder_ + "/data -l " + folder_ + "/log -w -t 120 -o \"-k " + folder_ +
           " -c listen_addresses='' -c fsync=off -c max_connections=40\" start"));
    if (src != 0) {
      why_ = "postgres did not start (exit " + std::to_string(src) + "): " + sout + "\nserver log:\n" +
             testing::RunCommand("cat " + folder_ + "/log").second;
      return;
    }
    bin_ = bin;
    up_ = true;
  }

  void Stop() {
    if (!bin_.empty()) testing::RunCommand(As(bin_ + "/pg_ctl -D " + folder_ + "/data -m immediate -w stop"));
    if (!folder_.empty()) {
      std::error_code ec;
      fs::remove_all(folder_, ec);
    }
  }

  bool up_ = false;
  std::string why_, folder_, bin_;
};

}  // namespace frontier::testing_pg
