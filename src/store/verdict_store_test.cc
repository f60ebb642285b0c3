// Verdicts, search trials and a search's outcome in the SQLite store: they
// read back exactly, a schema-3 database keeps its rows when migrated, and
// `db copy` carries them.
#include <gtest/gtest.h>

#include <sqlite3.h>

#include <string>
#include <vector>

#include "store/copy.h"
#include "store/schema.h"
#include "store/sqlite_store.h"
#include "store/store.h"
#include "store/verdict_test_util.h"
#include "util/scratch.h"

namespace frontier::store {
namespace {

using testing_util::ScratchDir;
using namespace testing_verdict;

// The text of one column of each row of `sql`, "NULL" for NULL.
std::vector<std::string> Column(const std::string& path, const std::string& sql) {
  sqlite3* db = nullptr;
  std::vector<std::string> out;
  EXPECT_EQ(sqlite3_open(path.c_str(), &db), SQLITE_OK);
  sqlite3_stmt* s = nullptr;
  EXPECT_EQ(sqlite3_prepare_v2(db, sql.c_str(), -1, &s, nullptr), SQLITE_OK) << sqlite3_errmsg(db);
  while (sqlite3_step(s) == SQLITE_ROW) {
    auto* t = sqlite3_column_text(s, 0);
    out.push_back(t ? reinterpret_cast<const char*>(t) : "NULL");
  }
  sqlite3_finalize(s);
  sqlite3_close(db);
  return out;
}

TEST(VerdictStore, SqliteRoundTripsVerdictsTrialsAndTheSearch) {
  ScratchDir t("verdict");
  const std::string path = t.Path("v.db");
  {
    auto s = OpenStore(path);
    ASSERT_TRUE(s.ok()) << s.status().ToString();
    ASSERT_EQ((*s)->SchemaVersion(), kSchemaVersion);
    ASSERT_GT(RoundTripVerdicts(**s), 0);
  }
  // The verdict column answers a query by itself; no verdict and no trial are NULL.
  EXPECT_EQ(Column(path, "SELECT verdict FROM points ORDER BY id"),
            (std::vector<std::string>{"INVALID", "VALID", "NULL"}));
  EXPECT_EQ(Column(path, "SELECT trial_json IS NULL FROM points ORDER BY id"),
            (std::vector<std::string>{"1", "0", "1"}));
  // Read-only readers see the same.
  auto r = OpenStore(path, OpenMode::kReadOnly);
  ASSERT_TRUE(r.ok());
  EXPECT_EQ((*r)->ListPoints(0)->front().verdict_json, kInvalidVerdict);
  EXPECT_EQ((*r)->ListRuns()->front().search_json, kSearch);
}

TEST(VerdictStore, ASchema3DatabaseKeepsItsRowsAndGainsVerdicts) {
  ScratchDir t("v3");
  const std::string path = t.Path("v3.db");
  PointRecord old_point = JudgedPoint(0, 3, "", "");
  old_point.metrics.output_throughput_per_gpu = 321.5;
  {
    auto v3 = OpenSqliteStore(path, OpenMode::kCreate, 3);
    ASSERT_TRUE(v3.ok()) << v3.status().ToString();
    ASSERT_EQ((*v3)->SchemaVersion(), 3);
    RunInfo run;
    run.sweep = "old";
    run.system = "h200";
    auto created = (*v3)->CreateRun(run);
    ASSERT_TRUE(created.ok()) << created.status().ToString();
    old_point.run_id = created->id;
    ASSERT_TRUE((*v3)->AddPoint(old_point, {}).ok());
    EXPECT_EQ((*v3)->SetRunSearch(created->id, kSearch).code(), StatusCode::kFailedPrecondition);
  }
  EXPECT_EQ(Column(path, "SELECT count(*) FROM pragma_table_info('points') WHERE name = 'verdict_json'"),
            std::vector<std::string>{"0"});
  {
    // Read as it is: no verdict, no search.
    auto r = OpenStore(path, OpenMode::kReadOnly);
    ASSERT_TRUE(r.ok());
    EXPECT_EQ((*r)->SchemaVersion(), 3);
    auto points = (*r)->ListPoints(0);
    ASSERT_TRUE(points.ok()) << points.status().ToString();
    ASSERT_EQ(points->size(), 1u);
    EXPECT_EQ(points->front().verdict_json, "");
    EXPECT_EQ((*r)->ListRuns()->front().search_json, "");
  }
  auto w = OpenStore(path, OpenMode::kReadWrite);
  ASSERT_TRUE(w.ok()) << w.status().ToString();
  EXPECT_EQ((*w)->SchemaVersion(), kSchemaVersion);
  auto points = (*w)->ListPoints(0);
  ASSERT_TRUE(points.ok()) << points.status().ToString();
  ASSERT_EQ(points->size(), 1u);
  EXPECT_EQ(points->front().key, old_point.key);
  EXPECT_EQ(points->front().metrics.output_throughput_per_gpu, 321.5);
  EXPECT_EQ(points->front().metrics.completed, 2000);
  EXPECT_EQ(points->front().verdict_json, "");
  // The migrated database takes verdicts beside the old rows.
  ASSERT_GT(RoundTripVerdicts(**w), 0);
  EXPECT_EQ((*w)->ListPoints(0)->size(), 4u);
}

TEST(VerdictStore, CopyCarriesVerdictsTrialsAndTheSearch) {
  ScratchDir t("copy");
  auto from = OpenStore(t.Path("a.db"));
  auto to = OpenStore(t.Path("b.db"));
  ASSERT_TRUE(from.ok() && to.ok());
  const int64_t run = RoundTripVerdicts(**from);
  ASSERT_GT(run, 0);
  auto first = CopyRuns(**from, **to, {});
  ASSERT_TRUE(first.ok()) << first.status().ToString();
  EXPECT_EQ(first->points_copied, 3);
  auto points = (*to)->ListPoints(0);
  ASSERT_EQ(points->size(), 3u);
  EXPECT_EQ((*points)[0].verdict_json, kInvalidVerdict);
  EXPECT_EQ((*points)[1].trial_json, kTrial);
  EXPECT_EQ((*to)->ListRuns()->front().search_json, kSearch);
  // A run copied before its search ended gets the outcome on the next copy.
  const std::string later = R"({"max_valid_qps":5.0,"trial_count":4})";
  ASSERT_TRUE((*from)->SetRunSearch(run, later).ok());
  auto second = CopyRuns(**from, **to, {});
  ASSERT_TRUE(second.ok());
  EXPECT_EQ(second->runs_matched, 1);
  EXPECT_EQ(second->points_copied, 0);
  EXPECT_EQ((*to)->ListRuns()->front().search_json, later);
}

}  // namespace
}  // namespace frontier::store
