// Opening databases as a careless user or a damaged disk hands them over: a
// mistyped path, a read-only file, a foreign or damaged file, an old schema.
#include <gtest/gtest.h>

#include <sqlite3.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include "store/sqlite_store.h"
#include "store/store.h"
#include "util/scratch.h"

namespace frontier::store {
namespace {

namespace fs = std::filesystem;

using TempDir = testing_util::ScratchDir;
using testing_util::ExecSql;
using testing_util::Slurp;

// A database with one run and one point, closed (its WAL checkpointed away).
void MakeDb(const std::string& path, int version = kSchemaVersion) {
  auto s = OpenSqliteStore(path, OpenMode::kCreate, version);
  ASSERT_TRUE(s.ok()) << s.status().ToString();
  RunInfo run;
  run.sweep = "night";
  run.system = "h200";
  auto r = (*s)->CreateRun(run);
  ASSERT_TRUE(r.ok());
  PointRecord p;
  p.run_id = r->id;
  p.workload = "w";
  p.load_value = 4;
  p.key = PointKey("w", LoadKind::kConcurrency, 4, 0);
  p.source = Source::kSimulated;
  p.num_gpus = 8;
  p.metrics.completed = 10;
  p.metrics.total_token_throughput_per_gpu = 100;
  ASSERT_TRUE((*s)->AddPoint(p, {}).ok());
}

TEST(OpenStore, AMissingDatabaseIsAnErrorUnlessTheVerbCreatesOne) {
  TempDir t("missing");
  const std::string path = t.Path("frontier.bd");  // a typo
  for (OpenMode mode : {OpenMode::kReadOnly, OpenMode::kReadWrite}) {
    auto s = OpenStore(path, mode);
    ASSERT_FALSE(s.ok());
    EXPECT_EQ(s.status().code(), StatusCode::kNotFound);
    EXPECT_EQ(s.status().message(), "results database " + path +
                                        " does not exist (`frontier sweep` and `frontier db import` create "
                                        "one; is --db mistyped?)");
    EXPECT_FALSE(fs::exists(path)) << "a mistyped path must not become an empty database";
  }
  auto created = OpenStore(path, OpenMode::kCreate);
  ASSERT_TRUE(created.ok());
  EXPECT_TRUE((*created)->Created());
  created->reset();
  auto again = OpenStore(path, OpenMode::kCreate);
  ASSERT_TRUE(again.ok());
  EXPECT_FALSE((*again)->Created());
  EXPECT_EQ(OpenStore(t.dir.string(), OpenMode::kReadOnly).status().message(),
            "results database " + t.dir.string() + " is a directory; --db names a file");
}

TEST(OpenStore, ReadingNeverWritesToTheDatabase) {
  TempDir t("nowrite");
  const std::string path = t.Path("f.db");
  MakeDb(path);
  const std::string before = Slurp(path);
  const auto mtime = fs::last_write_time(path);
  {
    auto s = OpenStore(path, OpenMode::kReadOnly);
    ASSERT_TRUE(s.ok()) << s.status().ToString();
    EXPECT_EQ((*s)->ListRuns()->size(), 1u);
    EXPECT_EQ((*s)->ListPoints(0)->size(), 1u);
    // A write through a read-only store fails instead of writing.
    RunInfo run;
    run.sweep = "x";
    EXPECT_FALSE((*s)->CreateRun(run).ok());
  }
  EXPECT_EQ(Slurp(path), before);
  EXPECT_EQ(fs::last_write_time(path), mtime);
}

// Runs `body` as an unprivileged user when this process is root (permission
// bits do not bind root); returns its exit status.
template <typename F>
int AsUnprivileged(F body) {
  const pid_t pid = ::fork();
  if (pid == 0) {
    if (::geteuid() == 0 && (::setgid(65534) != 0 || ::setuid(65534) != 0)) ::_exit(99);
    ::_exit(body());
  }
  int st = 0;
  ::waitpid(pid, &st, 0);
  return WIFEXITED(st) ? WEXITSTATUS(st) : 100;
}

TEST(OpenStore, ReadOnlyFileInAReadOnlyFolderWorksForReadingAndIsRefusedForWriting) {
  TempDir t("readonly");
  const std::string path = t.Path("f.db");
  MakeDb(path);
  ASSERT_FALSE(fs::exists(path + "-wal"));
  ASSERT_FALSE(fs::exists(path + "-shm"));
  fs::permissions(path, fs::perms::owner_read | fs::perms::group_read | fs::perms::others_read);
  fs::permissions(t.dir, fs::perms::owner_read | fs::perms::owner_exec | fs::perms::group_read |
                             fs::perms::group_exec | fs::perms::others_read | fs::perms::others_exec);
  const std::string before = Slurp(path);
  const int rc = AsUnprivileged([&] {
    auto s = OpenStore(path, OpenMode::kReadOnly);
    if (!s.ok()) {
      std::fprintf(stderr, "%s\n", s.status().ToString().c_str());
      return 1;
    }
    auto points = (*s)->ListPoints(0);
    if (!points.ok() || points->size() != 1 || points->front().num_gpus != 8) return 2;
    auto w = OpenStore(path, OpenMode::kCreate);
    if (w.ok()) return 3;
    if (w.status().code() != StatusCode::kFailedPrecondition) return 4;
    if (w.status().message().find("is read-only; this command writes to it") == std::string::npos) return 5;
    return 0;
  });
  EXPECT_EQ(rc, 0);
  EXPECT_EQ(Slurp(path), before);
  EXPECT_FALSE(fs::exists(path + "-shm"));
}

TEST(OpenStore, BadSchemaVersionsAreNamedNotCrashed) {
  TempDir t("schema");
  for (const std::string bad : {"-1", "-2", "0", "abc", "", "1.5", "99999999999999999999999"}) {
    const std::string path = t.Path("v" + std::to_string(std::hash<std::string>()(bad)) + ".db");
    MakeDb(path);
    ExecSql(path, "UPDATE meta SET value = '" + bad + "' WHERE key = 'schema_version'");
    for (OpenMode mode : {OpenMode::kReadOnly, OpenMode::kCreate}) {
      auto s = OpenStore(path, mode);
      ASSERT_FALSE(s.ok()) << bad;
      EXPECT_EQ(s.status().code(), StatusCode::kInvalidArgument) << bad;
      EXPECT_EQ(s.status().message(), path + ": meta.schema_version must be an integer in [1, " +
                                          std::to_string(kSchemaVersion) + "], got '" + bad +
                                          "'; the database is damaged or was not written by frontier");
    }
  }
  const std::string newer = t.Path("newer.db");
  MakeDb(newer);
  ExecSql(newer, "UPDATE meta SET value = '99999999999' WHERE key = 'schema_version'");
  auto s = OpenStore(newer, OpenMode::kReadOnly);
  ASSERT_FALSE(s.ok());
  EXPECT_EQ(s.status().code(), StatusCode::kFailedPrecondition);
  EXPECT_EQ(s.status().message(), newer + " has schema version 99999999999, newer than this frontier's " +
                                      std::to_string(kSchemaVersion) + "; use a newer frontier to read it");
}

TEST(OpenStore, AForeignFileIsNamedAndLeftAlone) {
  TempDir t("foreign");
  const std::string text = t.Path("notes.txt");
  std::ofstream(text) << "these are my notes, not a database\n";
  const std::string notes = Slurp(text);
  for (OpenMode mode : {OpenMode::kReadOnly, OpenMode::kCreate}) {
    auto s = OpenStore(text, mode);
    ASSERT_FALSE(s.ok());
    EXPECT_EQ(s.status().message(), text + " is not a SQLite database (--db names another file?)");
  }
  EXPECT_EQ(Slurp(text), notes);

  const std::string other = t.Path("other.db");
  ExecSql(other, "CREATE TABLE recipes(name TEXT)");
  const std::string before = Slurp(other);
  for (OpenMode mode : {OpenMode::kReadOnly, OpenMode::kCreate}) {
    auto s = OpenStore(other, mode);
    ASSERT_FALSE(s.ok());
    EXPECT_EQ(s.status().message(), other +
                                        " is a SQLite database but not a frontier results database (it has no "
                                        "`meta` table); --db names another file?");
  }
  EXPECT_EQ(Slurp(other), before);

  const std::string empty = t.Path("empty.db");
  std::ofstream(empty).flush();
  EXPECT_EQ(OpenStore(empty, OpenMode::kReadOnly).status().message(),
            empty + " is empty: not a frontier results database (`frontier sweep` or `frontier db import` "
                    "creates one)");
}

TEST(OpenStore, AnOlderSchemaIsReadAsItIsWithoutMigrating) {
  TempDir t("old");
  const std::string path = t.Path("v1.db");
  MakeDb(path, 1);
  const std::string before = Slurp(path);
  {
    auto s = OpenStore(path, OpenMode::kReadOnly);
    ASSERT_TRUE(s.ok()) << s.status().ToString();
    EXPECT_EQ((*s)->SchemaVersion(), 1);
    auto points = (*s)->ListPoints(0);
    ASSERT_TRUE(points.ok()) << points.status().ToString();
    ASSERT_EQ(points->size(), 1u);
    EXPECT_EQ(points->front().metrics.max_concurrent_requests, 0);  // added by schema 2
    EXPECT_TRUE((*s)->ListOpenLaunches()->empty());                  // added by schema 3
  }
  EXPECT_EQ(Slurp(path), before);
  auto w = OpenStore(path, OpenMode::kReadWrite);
  ASSERT_TRUE(w.ok());
  EXPECT_EQ((*w)->SchemaVersion(), kSchemaVersion);
}

TEST(OpenStore, ARowOutsideThePhysicalBoundsIsNamedAndSkippedNotTheDatabase) {
  TempDir t("rows");
  const std::string path = t.Path("f.db");
  MakeDb(path);
  {  // a second run, good, stored after the first
    auto w = OpenStore(path, OpenMode::kReadWrite);
    ASSERT_TRUE(w.ok());
    RunInfo run;
    run.sweep = "night";
    run.system = "b200";
    auto r = (*w)->CreateRun(run);
    ASSERT_TRUE(r.ok());
    PointRecord p;
    p.run_id = r->id;
    p.workload = "w";
    p.load_value = 8;
    p.key = PointKey("w", LoadKind::kConcurrency, 8, 0);
    p.source = Source::kSimulated;
    p.num_gpus = 8;
    p.metrics.completed = 10;
    ASSERT_TRUE((*w)->AddPoint(p, {}).ok());
  }
  ExecSql(path, "UPDATE points SET num_gpus = 0 WHERE id = 1");
  auto s = OpenStore(path, OpenMode::kReadOnly);
  ASSERT_TRUE(s.ok());
  std::vector<std::string> warnings;
  (*s)->SetWarningSink([&](const std::string& w) { warnings.push_back(w); });
  auto p = (*s)->ListPoints(0);
  ASSERT_TRUE(p.ok()) << p.status().ToString();
  ASSERT_EQ(p->size(), 1u);
  EXPECT_EQ(p->front().id, 2);
  ASSERT_EQ(warnings.size(), 1u);
  EXPECT_EQ(warnings[0], path + ": points row 1 (run 1): num_gpus must be an integer in [1, 1000000], got 0; "
                                "the row is skipped (the database is damaged or was written by something else)");
  // Named once per store, however often it is read (the dashboard polls).
  ASSERT_TRUE((*s)->ListPoints(0).ok());
  EXPECT_EQ(warnings.size(), 1u);
  auto bad = [&](const std::string& set) {
    ExecSql(path, "UPDATE points SET num_gpus = 8, completed = 3, total_tput_per_gpu = 1, " + set + " WHERE id = 1");
    auto fresh = OpenStore(path, OpenMode::kReadOnly);
    std::vector<std::string> w;
    (*fresh)->SetWarningSink([&](const std::string& m) { w.push_back(m); });
    auto pts = (*fresh)->ListPoints(0);
    EXPECT_TRUE(pts.ok());
    EXPECT_EQ(pts.ok() ? pts->size() : 0u, 1u) << set;
    return w.empty() ? std::string("no warning") : w[0];
  };
  EXPECT_NE(bad("completed = 'many'").find("completed must be an integer in [0, "), std::string::npos);
  EXPECT_NE(bad("total_tput_per_gpu = 1e308").find("total_tput_per_gpu must be a number in [0, 1000000000], got 1e+308"),
            std::string::npos);
  EXPECT_NE(bad("completed = -9223372036854775808").find("got -9223372036854775808"), std::string::npos);
  EXPECT_NE(bad("output_throughput = 8.5e11").find("points row 1 (run 1): output_throughput"), std::string::npos);
  EXPECT_NE(bad("load_kind = 'qps'").find("points row 1 (run 1): load_kind must be concurrency, request_rate or "
                                          "probe, got 'qps'"),
            std::string::npos);
  EXPECT_NE(bad("load_kind = 'concurrency', source = 'guessed'")
                .find("points row 1 (run 1): source must be measured, simulated or imported, got 'guessed'"),
            std::string::npos);
  // A run whose source the store does not write is skipped the same way, and named.
  ExecSql(path, "UPDATE runs SET source = 'guessed' WHERE id = 1");
  auto fresh = OpenStore(path, OpenMode::kReadOnly);
  ASSERT_TRUE(fresh.ok());
  std::vector<std::string> run_warnings;
  (*fresh)->SetWarningSink([&](const std::string& m) { run_warnings.push_back(m); });
  auto runs = (*fresh)->ListRuns();
  ASSERT_TRUE(runs.ok()) << runs.status().ToString();
  ASSERT_EQ(runs->size(), 1u);
  EXPECT_EQ(runs->front().system, "b200");
  ASSERT_EQ(run_warnings.size(), 1u);
  EXPECT_EQ(run_warnings[0], path + ": runs row 1: source must be measured, simulated or imported, got 'guessed'; "
                                    "the row is skipped (the database is damaged or was written by something else)");
}

TEST(OpenStore, NothingOutsideTheBoundsTheReadersApplyIsStored) {
  TempDir t("writer");
  const std::string path = t.Path("f.db");
  MakeDb(path);
  auto s = OpenStore(path, OpenMode::kReadWrite);
  ASSERT_TRUE(s.ok());
  PointRecord p;
  p.run_id = 1;
  p.workload = "w";
  p.load_value = 2;
  p.key = PointKey("w", LoadKind::kConcurrency, 2, 0);
  p.source = Source::kMeasured;
  p.num_gpus = 1;
  p.metrics.completed = 1;
  p.metrics.output_throughput = 8.5e11;  // a server's completion_tokens of INT64_MAX
  auto id = (*s)->AddPoint(p, {});
  ASSERT_FALSE(id.ok());
  EXPECT_EQ(id.status().message(), path + ": point '" + p.key +
                                       "': output_throughput must be a number in [0, 1000000000], got 850000000000");
  p.metrics.output_throughput = 10;
  RequestRow r;
  r.idx = 7;
  r.output_tokens = -5;
  id = (*s)->AddPoint(p, {r});
  ASSERT_FALSE(id.ok());
  EXPECT_NE(id.status().message().find("point '" + p.key + "', request 7: output_tokens must be an integer in [0, "),
            std::string::npos)
      << id.status().message();
  r.output_tokens = 5;
  EXPECT_TRUE((*s)->AddPoint(p, {r}).ok());
  EXPECT_EQ((*s)->ListPoints(0)->size(), 2u);
}

}  // namespace
}  // namespace frontier::store
