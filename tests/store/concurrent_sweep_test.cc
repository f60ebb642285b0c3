// Many `frontier sweep` processes writing one results database at once: four
// into one PostgreSQL database, two into one SQLite file, all started together
// on a database that does not exist yet (so they also race to create the
// schema). Every process must finish and every point be stored exactly once.
#include <gtest/gtest.h>

#include <sqlite3.h>

#include <fstream>

#include "store/schema.h"
#include "tests/store/pg_server.h"
#include "tests/store/store_cli_util.h"
#include "util/scratch.h"

namespace frontier {
namespace {

using testing_pg::PgServer;
using namespace testing_store;

// Starts `n` sweeps of plans s0..s{n-1} at once into `db` and waits for all;
// returns each one's exit status and output.
std::vector<std::pair<int, std::string>> SweepTogether(const testing_util::ScratchDir& tmp, int n,
                                                       const std::string& db) {
  std::string cmd;
  for (int i = 0; i < n; ++i) {
    const std::string name = "s" + std::to_string(i);
    const std::string plan = tmp.Write(name + ".yaml", SmallPlan(name));
    cmd += "(" + Binary() + " sweep " + plan + " -q --db " + Quote(db) + " > " + tmp.Path(name + ".log") +
           " 2>&1; echo $? > " + tmp.Path(name + ".rc") + ") & ";
  }
  testing::RunCommand(cmd + "wait");
  std::vector<std::pair<int, std::string>> out;
  for (int i = 0; i < n; ++i) {
    const std::string name = "s" + std::to_string(i);
    const std::string rc = testing_util::Slurp(tmp.Path(name + ".rc"));
    out.push_back({rc.empty() ? -1 : std::stoi(rc), testing_util::Slurp(tmp.Path(name + ".log"))});
  }
  return out;
}

// How often consecutive points (by id) belong to different sweeps: > 0 when
// the processes' writes interleaved (printed, not asserted: on a busy machine
// the processes may happen to run one after another).
int Switches(store::Store& s) {
  auto runs = *s.ListRuns();
  std::map<int64_t, std::string> sweep_of;
  for (const auto& r : runs) sweep_of[r.id] = r.sweep;
  int switches = 0;
  std::string last;
  const auto points = *s.ListPoints(0);
  for (const auto& p : points) {
    if (!last.empty() && sweep_of[p.run_id] != last) ++switches;
    last = sweep_of[p.run_id];
  }
  return switches;
}

// Every sweep's runs hold each of its 12 points once.
void ExpectEveryPointOnce(store::Store& s, int sweeps) {
  auto runs = s.ListRuns();
  ASSERT_TRUE(runs.ok()) << runs.status().ToString();
  EXPECT_EQ(runs->size(), static_cast<size_t>(2 * sweeps));
  auto points = s.ListPoints(0);
  ASSERT_TRUE(points.ok());
  EXPECT_EQ(points->size(), static_cast<size_t>(kSmallPlanPoints * sweeps));
  std::set<std::pair<int64_t, std::string>> keys;
  int64_t requests = 0;
  for (const auto& p : *points) {
    EXPECT_TRUE(keys.insert({p.run_id, p.key}).second) << "point " << p.key << " of run " << p.run_id << " twice";
    EXPECT_EQ(p.metrics.completed, p.load_value * 4) << p.key;
    requests += static_cast<int64_t>(s.ListRequests(p.id)->size());
  }
  std::map<std::string, int> runs_per_sweep;
  for (const auto& r : *runs) {
    ++runs_per_sweep[r.sweep];
    EXPECT_TRUE(r.status.ok()) << r.Label() << ": " << r.status.ToString();
    EXPECT_EQ(s.PointKeys(r.id)->size(), static_cast<size_t>(kSmallPlanPoints / 2)) << r.Label();
  }
  EXPECT_EQ(runs_per_sweep.size(), static_cast<size_t>(sweeps));
  EXPECT_EQ(requests, static_cast<int64_t>(kSmallPlanRequests) * sweeps);
}

TEST(ConcurrentSweeps, FourIntoOnePostgresStoreEveryPointOnce) {
  PgServer pg;
  if (!pg.ok()) GTEST_SKIP() << "PostgreSQL could not start: " << pg.why();
  testing_util::ScratchDir tmp("pg4");
  const std::string url = pg.CreateDatabase("shared");
  ASSERT_FALSE(url.empty()) << pg.why();
  const auto results = SweepTogether(tmp, 4, url);
  for (const auto& [rc, out] : results) EXPECT_EQ(rc, 0) << out;
  EXPECT_EQ(pg.Query(url, "SELECT count(*) FROM points"), std::to_string(4 * kSmallPlanPoints));
  EXPECT_EQ(pg.Query(url, "SELECT count(*) FROM (SELECT DISTINCT run_id, point_key FROM points) k"),
            std::to_string(4 * kSmallPlanPoints));
  EXPECT_EQ(pg.Query(url, "SELECT count(*) FROM requests"), std::to_string(4 * kSmallPlanRequests));
  EXPECT_EQ(pg.Query(url, "SELECT value FROM meta WHERE key = 'schema_version'"),
            std::to_string(store::kSchemaVersion));
  auto s = store::OpenStore(url, store::OpenMode::kReadOnly);
  ASSERT_TRUE(s.ok()) << s.status().ToString();
  ExpectEveryPointOnce(**s, 4);
  std::cout << "[ measured ] 4 sweeps into PostgreSQL: " << Switches(**s)
            << " switches between sweeps in point-id order\n";

  // Resumed by two more processes at once: both find every point stored.
  testing_util::ScratchDir tmp2("pg4r");
  std::string cmd;
  for (int i = 0; i < 2; ++i) {
    cmd += "(" + Binary() + " sweep " + tmp.Path("s0.yaml") + " --resume --db " + Quote(url) + " > " +
           tmp2.Path(std::to_string(i) + ".log") + " 2>&1) & ";
  }
  testing::RunCommand(cmd + "wait");
  for (int i = 0; i < 2; ++i) {
    const std::string log = testing_util::Slurp(tmp2.Path(std::to_string(i) + ".log"));
    EXPECT_NE(log.find("0 points run, 12 already stored, 0 failed, of 12"), std::string::npos) << log;
  }
  EXPECT_EQ(pg.Query(url, "SELECT count(*) FROM points"), std::to_string(4 * kSmallPlanPoints));
}

TEST(ConcurrentSweeps, TwoIntoOneSqliteFileStoreEveryPointOnce) {
  testing_util::ScratchDir tmp("lite2");
  const std::string db = tmp.Path("shared.db");
  const auto results = SweepTogether(tmp, 2, db);
  for (const auto& [rc, out] : results) EXPECT_EQ(rc, 0) << out;
  auto s = store::OpenStore(db, store::OpenMode::kReadOnly);
  ASSERT_TRUE(s.ok()) << s.status().ToString();
  ExpectEveryPointOnce(**s, 2);
  std::cout << "[ measured ] 2 sweeps into SQLite: " << Switches(**s)
            << " switches between sweeps in point-id order\n";
  // WAL journal mode is what lets them (and readers) share the file.
  sqlite3* raw = nullptr;
  ASSERT_EQ(sqlite3_open_v2(db.c_str(), &raw, SQLITE_OPEN_READONLY, nullptr), SQLITE_OK);
  sqlite3_stmt* st = nullptr;
  ASSERT_EQ(sqlite3_prepare_v2(raw, "PRAGMA journal_mode", -1, &st, nullptr), SQLITE_OK);
  ASSERT_EQ(sqlite3_step(st), SQLITE_ROW);
  EXPECT_STREQ(reinterpret_cast<const char*>(sqlite3_column_text(st, 0)), "wal");
  sqlite3_finalize(st);
  sqlite3_close(raw);
}

}  // namespace
}  // namespace frontier
