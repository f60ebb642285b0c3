#include <gtest/gtest.h>

#include <sqlite3.h>

#include <cstdio>
#include <filesystem>
#include <string>

#include "store/copy.h"
#include "store/sqlite_store.h"
#include "store/schema.h"
#include "store/store.h"
#include "util/scratch.h"

namespace frontier::store {
namespace {

PointRecord MakePoint(int64_t run_id, double conc, int rep, double tput) {
  PointRecord p;
  p.run_id = run_id;
  p.workload = "1k1k";
  p.load_kind = LoadKind::kConcurrency;
  p.load_value = conc;
  p.repetition = rep;
  p.key = PointKey(p.workload, p.load_kind, conc, rep);
  p.source = Source::kSimulated;
  p.settings = {{"tp", "8"}};
  p.num_gpus = 8;
  p.metrics.completed = 10;
  p.metrics.total_token_throughput_per_gpu = tput;
  p.metrics.output_throughput_per_gpu = tput / 2;
  p.metrics.interactivity = 1000.0 / conc;
  p.metrics.ttft_ms.median = 12.5;
  p.metrics.max_concurrent_requests = conc;
  return p;
}

// Every column of a request row, each a different value, comes back in its
// own field (kRequestColumns binds and decodes them from one list).
TEST(SqliteStore, EveryRequestColumnRoundTripsToItsField) {
  testing_util::ScratchDir tmp("store");
  auto store = OpenStore(tmp.Path("requests.db"));
  ASSERT_TRUE(store.ok()) << store.status().ToString();
  RunInfo run;
  run.sweep = "s";
  run.system = "x";
  auto created = (*store)->CreateRun(run);
  ASSERT_TRUE(created.ok());
  std::vector<RequestRow> rows(2);
  rows[0] = RequestRow{7, true, false, 11, 13, 17, 19, 23, 29, 31, "timeout", 503};
  rows[1] = RequestRow{8, false, true, 2147483647, 0, -3, -5, -1, -1, 0, "", 0};
  auto pid = (*store)->AddPoint(MakePoint(created->id, 8, 0, 100), rows);
  ASSERT_TRUE(pid.ok()) << pid.status().ToString();
  auto got = (*store)->ListRequests(*pid);
  ASSERT_TRUE(got.ok()) << got.status().ToString();
  ASSERT_EQ(got->size(), 2u);
  for (size_t i = 0; i < 2; ++i) {
    const RequestRow& a = (*got)[i];
    const RequestRow& b = rows[i];
    EXPECT_EQ(a.idx, b.idx);
    EXPECT_EQ(a.ok, b.ok);
    EXPECT_EQ(a.warmup, b.warmup);
    EXPECT_EQ(a.prompt_tokens, b.prompt_tokens);
    EXPECT_EQ(a.output_tokens, b.output_tokens);
    EXPECT_EQ(a.scheduled_ns, b.scheduled_ns);
    EXPECT_EQ(a.sent_ns, b.sent_ns);
    EXPECT_EQ(a.first_token_ns, b.first_token_ns);
    EXPECT_EQ(a.end_ns, b.end_ns);
    EXPECT_EQ(a.events, b.events);
    EXPECT_EQ(a.failure, b.failure);
    EXPECT_EQ(a.http_status, b.http_status);
  }
}

TEST(SqliteStore, RoundTripsRunsPointsAndRequests) {
  testing_util::ScratchDir tmp("store");
  const std::string path = tmp.Path("roundtrip.db");
  auto store = OpenStore(path);
  ASSERT_TRUE(store.ok()) << store.status().ToString();
  EXPECT_EQ((*store)->SchemaVersion(), kSchemaVersion);

  RunInfo run;
  run.sweep = "quickstart";
  run.plan_hash = "abc";
  run.system = "h200-sim";
  run.source = Source::kSimulated;
  run.config = {{"hardware", "h200"}, {"gpus", "8"}};
  run.provenance = {{"host", "test"}};
  auto created = (*store)->CreateRun(run);
  ASSERT_TRUE(created.ok());
  EXPECT_GT(created->id, 0);
  EXPECT_EQ(created->Label(), "quickstart/h200-sim#" + std::to_string(created->id));

  std::vector<RequestRow> rows(3);
  for (int i = 0; i < 3; ++i) {
    rows[i].idx = i;
    rows[i].ok = i != 2;
    rows[i].output_tokens = 10 * i;
    rows[i].end_ns = 1000 + i;
    rows[i].failure = i == 2 ? "connect" : "";
  }
  PointRecord with_series = MakePoint(created->id, 16, 0, 1234.5);
  with_series.series.server_metrics_json = R"({"samples":{"t_s":[1,2],"vllm:gpu_cache_usage_perc":[0.25,0.5]}})";
  with_series.series.timeslices_json = R"({"slice_s":1,"steady":{"start_s":1,"end_s":5}})";
  auto pid = (*store)->AddPoint(with_series, rows);
  ASSERT_TRUE(pid.ok()) << pid.status().ToString();
  // A point without series stores no series row.
  auto bare = (*store)->AddPoint(MakePoint(created->id, 32, 0, 2000), rows);
  ASSERT_TRUE(bare.ok()) << bare.status().ToString();

  // The same key again is refused and leaves nothing behind.
  auto dup = (*store)->AddPoint(MakePoint(created->id, 16, 0, 99), rows);
  EXPECT_FALSE(dup.ok());
  EXPECT_EQ(dup.status().code(), StatusCode::kFailedPrecondition);

  store->reset();
  auto reopened = OpenStore(path);
  ASSERT_TRUE(reopened.ok());
  auto points = (*reopened)->ListPoints(created->id);
  ASSERT_TRUE(points.ok());
  ASSERT_EQ(points->size(), 2u);
  const PointRecord& p = points->front();
  EXPECT_EQ(p.key, "1k1k|concurrency=16|rep=0");
  auto series = (*reopened)->GetPointSeries(p.id);
  ASSERT_TRUE(series.ok()) << series.status().ToString();
  EXPECT_EQ(series->server_metrics_json, with_series.series.server_metrics_json);
  EXPECT_EQ(series->timeslices_json, with_series.series.timeslices_json);
  EXPECT_TRUE((*reopened)->GetPointSeries(*bare)->empty());
  EXPECT_DOUBLE_EQ(p.metrics.total_token_throughput_per_gpu, 1234.5);
  EXPECT_DOUBLE_EQ(p.metrics.interactivity, 1000.0 / 16);
  EXPECT_DOUBLE_EQ(p.metrics.max_concurrent_requests, 16);
  EXPECT_EQ(p.num_gpus, 8);
  EXPECT_EQ(p.settings.at("tp"), "8");
  auto req = (*reopened)->ListRequests(p.id);
  ASSERT_TRUE(req.ok());
  ASSERT_EQ(req->size(), 3u);
  EXPECT_EQ((*req)[1].output_tokens, 10);
  EXPECT_EQ((*req)[2].failure, "connect");
  EXPECT_FALSE((*req)[2].ok);

  auto keys = (*reopened)->PointKeys(created->id);
  ASSERT_TRUE(keys.ok());
  EXPECT_EQ(keys->size(), 2u);
  auto found = (*reopened)->FindRun("quickstart", "abc", "h200-sim");
  ASSERT_TRUE(found.ok());
  ASSERT_TRUE(found->has_value());
  EXPECT_EQ((*found)->id, created->id);
  EXPECT_EQ((*found)->config.at("hardware"), "h200");
  auto missing = (*reopened)->FindRun("quickstart", "other-hash", "h200-sim");
  ASSERT_TRUE(missing.ok());
  EXPECT_FALSE(missing->has_value());
  ASSERT_TRUE((*reopened)->SetRunStatus(created->id, SystemStatus::Broken("health")).ok());
  EXPECT_EQ((*reopened)->GetRun(created->id)->status, SystemStatus::Broken("health"));
  EXPECT_EQ(ParseSystemStatus("broken: health"), SystemStatus::Broken("health"));
  EXPECT_EQ(ParseSystemStatus("ok"), SystemStatus{});
  EXPECT_EQ(SystemStatus::Broken("health").ToString(), "broken: health");
  EXPECT_EQ((*reopened)->GetRun(999).status().code(), StatusCode::kNotFound);
}

TEST(SqliteStore, UsesWal) {
  testing_util::ScratchDir tmp("store");
  const std::string path = tmp.Path("wal.db");
  ASSERT_TRUE(OpenStore(path).ok());
  sqlite3* db = nullptr;
  ASSERT_EQ(sqlite3_open(path.c_str(), &db), SQLITE_OK);
  sqlite3_stmt* s = nullptr;
  sqlite3_prepare_v2(db, "PRAGMA journal_mode", -1, &s, nullptr);
  ASSERT_EQ(sqlite3_step(s), SQLITE_ROW);
  EXPECT_STREQ(reinterpret_cast<const char*>(sqlite3_column_text(s, 0)), "wal");
  sqlite3_finalize(s);
  sqlite3_close(db);
}

TEST(SqliteStore, MigratesAnOlderDatabaseAndKeepsItsRuns) {
  testing_util::ScratchDir tmp("store");
  const std::string path = tmp.Path("migrate.db");
  {
    auto v1 = OpenSqliteStore(path, OpenMode::kCreate, 1);
    ASSERT_TRUE(v1.ok());
    EXPECT_EQ((*v1)->SchemaVersion(), 1);
    RunInfo run;
    run.sweep = "old";
    run.system = "s";
    ASSERT_TRUE((*v1)->CreateRun(run).ok());
  }
  auto v2 = OpenStore(path);
  ASSERT_TRUE(v2.ok()) << v2.status().ToString();
  EXPECT_EQ((*v2)->SchemaVersion(), kSchemaVersion);
  auto runs = (*v2)->ListRuns();
  ASSERT_TRUE(runs.ok());
  ASSERT_EQ(runs->size(), 1u);
  // The column added by migration 2 works.
  ASSERT_TRUE((*v2)->AddPoint(MakePoint(runs->front().id, 4, 0, 10), {}).ok());
  EXPECT_DOUBLE_EQ((*v2)->ListPoints(0)->front().metrics.max_concurrent_requests, 4);
}

// A plan's text is stored once however many runs it has (schema 7): a
// 10,000-system sweep stored its plan 10,000 times. Runs stored before the
// migration keep their own text, and every run reads its plan back whole.
TEST(SqliteStore, KeepsEachPlanTextOnceAndRunsOfOlderSchemasTheirOwn) {
  testing_util::ScratchDir tmp("store");
  const std::string path = tmp.Path("plans.db");
  const std::string old_text = "name: old\nsystems: [a]\n";
  {
    auto v6 = OpenSqliteStore(path, OpenMode::kCreate, kPlansVersion - 1);
    ASSERT_TRUE(v6.ok());
    RunInfo run;
    run.sweep = "old";
    run.system = "a";
    run.plan_text = old_text;
    ASSERT_TRUE((*v6)->CreateRun(run).ok());
  }
  auto store = OpenStore(path);
  ASSERT_TRUE(store.ok()) << store.status().ToString();
  ASSERT_EQ((*store)->SchemaVersion(), kSchemaVersion);
  std::string plan = "name: big\nsystems:\n";
  for (int i = 0; i < 2000; ++i) plan += "  - {name: s" + std::to_string(i) + ", hardware: h200}\n";
  for (int i = 0; i < 50; ++i) {
    RunInfo run;
    run.sweep = "big";
    run.system = "s" + std::to_string(i);
    run.plan_text = plan;
    ASSERT_TRUE((*store)->CreateRun(run).ok());
  }
  RunInfo other;
  other.sweep = "small";
  other.system = "x";
  other.plan_text = "name: small\n";
  ASSERT_TRUE((*store)->CreateRun(other).ok());

  auto runs = (*store)->ListRuns();
  ASSERT_TRUE(runs.ok());
  ASSERT_EQ(runs->size(), 52u);
  EXPECT_EQ(runs->front().plan_text, old_text);
  for (size_t i = 1; i <= 50; ++i) EXPECT_EQ((*runs)[i].plan_text, plan) << i;
  EXPECT_EQ(runs->back().plan_text, "name: small\n");

  sqlite3* db = nullptr;
  ASSERT_EQ(sqlite3_open(path.c_str(), &db), SQLITE_OK);
  auto number = [&](const char* q) {
    sqlite3_stmt* s = nullptr;
    sqlite3_prepare_v2(db, q, -1, &s, nullptr);
    const int64_t n = sqlite3_step(s) == SQLITE_ROW ? sqlite3_column_int64(s, 0) : -1;
    sqlite3_finalize(s);
    return n;
  };
  EXPECT_EQ(number("SELECT COUNT(*) FROM plans"), 2);  // the big plan and the small one, once each
  EXPECT_EQ(number("SELECT SUM(LENGTH(plan_text)) FROM plans"), static_cast<int64_t>(plan.size()) + 12);
  EXPECT_EQ(number("SELECT SUM(LENGTH(plan_text)) FROM runs"), static_cast<int64_t>(old_text.size()));
  EXPECT_EQ(number("SELECT COUNT(*) FROM runs WHERE plan_key IS NULL"), 1);  // the run of schema 6
  sqlite3_close(db);
}

// `db copy` carries a point's series; a point stored before version 5 (no
// series) copies as one without.
TEST(SqliteStore, CopyCarriesThePointSeries) {
  testing_util::ScratchDir tmp("store");
  const std::string from_path = tmp.Path("copy_from.db"), to_path = tmp.Path("copy_to.db");
  auto from = OpenStore(from_path);
  ASSERT_TRUE(from.ok());
  RunInfo run;
  run.sweep = "s";
  run.system = "x";
  auto created = (*from)->CreateRun(run);
  ASSERT_TRUE(created.ok());
  PointRecord p = MakePoint(created->id, 8, 0, 100);
  p.series.server_metrics_json = R"({"samples":{"t_s":[0.25]}})";
  p.series.timeslices_json = R"({"slice_s":2})";
  ASSERT_TRUE((*from)->AddPoint(p, {}).ok());
  ASSERT_TRUE((*from)->AddPoint(MakePoint(created->id, 16, 0, 200), {}).ok());
  auto to = OpenStore(to_path);
  ASSERT_TRUE(to.ok());
  auto copied = CopyRuns(**from, **to, {});
  ASSERT_TRUE(copied.ok()) << copied.status().ToString();
  EXPECT_EQ(copied->points_copied, 2);
  auto points = (*to)->ListPoints(0);
  ASSERT_TRUE(points.ok());
  ASSERT_EQ(points->size(), 2u);
  auto series = (*to)->GetPointSeries(points->at(0).id);
  ASSERT_TRUE(series.ok());
  EXPECT_EQ(series->server_metrics_json, p.series.server_metrics_json);
  EXPECT_EQ(series->timeslices_json, p.series.timeslices_json);
  EXPECT_TRUE((*to)->GetPointSeries(points->at(1).id)->empty());
}

// Rows the source's reader skips as damaged are not copied, and the copy says
// so: how many, of which table and run, and each row named in a warning.
TEST(SqliteStore, CopyCountsTheDamagedRowsItCouldNotCarry) {
  testing_util::ScratchDir tmp("store");
  const std::string from_path = tmp.Path("damaged_from.db"), to_path = tmp.Path("damaged_to.db");
  int64_t run_id = 0;
  {
    auto from = OpenStore(from_path);
    ASSERT_TRUE(from.ok());
    RunInfo run;
    run.sweep = "s";
    run.system = "x";
    auto created = (*from)->CreateRun(run);
    ASSERT_TRUE(created.ok());
    run_id = created->id;
    std::vector<RequestRow> rows(3);
    for (int i = 0; i < 3; ++i) rows[i].idx = i;
    ASSERT_TRUE((*from)->AddPoint(MakePoint(run_id, 8, 0, 100), rows).ok());
    ASSERT_TRUE((*from)->AddPoint(MakePoint(run_id, 16, 0, 200), rows).ok());
    ASSERT_TRUE((*from)->AddPoint(MakePoint(run_id, 32, 0, 300), rows).ok());
  }
  sqlite3* db = nullptr;
  ASSERT_EQ(sqlite3_open(from_path.c_str(), &db), SQLITE_OK);
  // Two requests of the first point and the whole second point, out of range.
  ASSERT_EQ(sqlite3_exec(db,
                         "UPDATE requests SET output_tokens = -1 WHERE idx IN (0, 2) AND point_id = "
                         "(SELECT MIN(id) FROM points); UPDATE points SET num_gpus = 0 WHERE load_value = 16",
                         nullptr, nullptr, nullptr),
            SQLITE_OK);
  sqlite3_close(db);
  auto from = OpenStore(from_path, OpenMode::kSnapshot);
  ASSERT_TRUE(from.ok());
  std::vector<std::string> warnings;
  (*from)->SetWarningSink([&](const std::string& w) { warnings.push_back(w); });
  auto to = OpenStore(to_path);
  ASSERT_TRUE(to.ok());
  auto copied = CopyRuns(**from, **to, {});
  ASSERT_TRUE(copied.ok()) << copied.status().ToString();
  EXPECT_EQ(copied->points_copied, 2);
  EXPECT_EQ(copied->points_skipped, 1);
  EXPECT_EQ(copied->requests_skipped, 2);
  ASSERT_EQ(copied->skipped.size(), 1u);
  EXPECT_EQ(copied->skipped[0].run_id, run_id);
  EXPECT_EQ(copied->skipped[0].points, 1);
  EXPECT_EQ(copied->skipped[0].requests, 2);
  ASSERT_EQ(warnings.size(), 3u);
  EXPECT_NE(warnings[0].find("points row 2 (run 1): num_gpus"), std::string::npos) << warnings[0];
  EXPECT_NE(warnings[1].find("requests row 0 of point 1: output_tokens"), std::string::npos) << warnings[1];
  EXPECT_EQ((*from)->SkippedRows("points"), 1);
  EXPECT_EQ((*from)->SkippedRows("requests"), 2);
  // The copy holds what could be read: the first point with its one good request.
  auto points = (*to)->ListPoints(0);
  ASSERT_TRUE(points.ok());
  ASSERT_EQ(points->size(), 2u);
  EXPECT_EQ((*to)->ListRequests(points->at(0).id)->size(), 1u);
  EXPECT_EQ((*to)->ListRequests(points->at(1).id)->size(), 3u);
  // A second copy adds nothing: the points it has are not read again.
  auto again = CopyRuns(**from, **to, {});
  ASSERT_TRUE(again.ok());
  EXPECT_EQ(again->points_copied, 0);
}

TEST(SqliteStore, RefusesANewerSchema) {
  testing_util::ScratchDir tmp("store");
  const std::string path = tmp.Path("newer.db");
  ASSERT_TRUE(OpenStore(path).ok());
  sqlite3* db = nullptr;
  ASSERT_EQ(sqlite3_open(path.c_str(), &db), SQLITE_OK);
  ASSERT_EQ(sqlite3_exec(db, "UPDATE meta SET value = '99' WHERE key = 'schema_version'", nullptr,
                         nullptr, nullptr),
            SQLITE_OK);
  sqlite3_close(db);
  auto s = OpenStore(path);
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.status().message().find("newer"), std::string::npos);
}

TEST(OpenStore, APostgresUrlGoesToPostgresAndAnUnreachableServerIsNamed) {
  // No server listens on a socket in a folder that does not exist.
  auto s = OpenStore("postgres://bob:pw@/frontier?host=/nonexistent_frontier_socket_dir");
  ASSERT_FALSE(s.ok());
  EXPECT_EQ(s.status().code(), StatusCode::kUnavailable) << s.status().ToString();
  EXPECT_NE(s.status().message().find("cannot connect to results database postgres://bob:***@/frontier"),
            std::string::npos)
      << s.status().ToString();
  EXPECT_EQ(s.status().message().find("pw@"), std::string::npos);  // the password is not shown
}

TEST(Schema, SqliteMigrationsRenderAsFirstShippedAndPostgresOnesUse64BitTypes) {
  const std::string lite = MigrationSql(0, Dialect::kSqlite), pg = MigrationSql(0, Dialect::kPostgres);
  EXPECT_NE(lite.find("id INTEGER PRIMARY KEY, sweep TEXT NOT NULL"), std::string::npos);
  EXPECT_NE(lite.find("scheduled_ns INTEGER,"), std::string::npos);
  EXPECT_NE(lite.find("http_status INTEGER, PRIMARY KEY(point_id, idx)) WITHOUT ROWID;"), std::string::npos);
  EXPECT_NE(lite.find("load_value REAL NOT NULL"), std::string::npos);
  EXPECT_NE(pg.find("id BIGSERIAL PRIMARY KEY, sweep TEXT NOT NULL"), std::string::npos);
  EXPECT_NE(pg.find("scheduled_ns BIGINT,"), std::string::npos);
  EXPECT_NE(pg.find("http_status BIGINT, PRIMARY KEY(point_id, idx));"), std::string::npos);
  EXPECT_NE(pg.find("load_value DOUBLE PRECISION NOT NULL"), std::string::npos);
  for (int v = 0; v < kSchemaVersion; ++v)
    for (const Dialect d : {Dialect::kSqlite, Dialect::kPostgres})
      EXPECT_EQ(MigrationSql(v, d).find('{'), std::string::npos) << "an unrendered token in migration " << v;
  EXPECT_EQ(NumberPlaceholders("UPDATE runs SET status = ? WHERE id = ?"), "UPDATE runs SET status = $1 WHERE id = $2");
}

TEST(SqliteStore, ReadOnlyOpenReadsWhatAWriterStoresAndNeverWrites) {
  testing_util::ScratchDir tmp("store");
  const std::string path = tmp.Path("readonly.db");
  // No database yet: nothing is created.
  auto missing = OpenStore(path, OpenMode::kReadOnly);
  ASSERT_FALSE(missing.ok());
  EXPECT_EQ(missing.status().code(), StatusCode::kNotFound);
  EXPECT_FALSE(std::filesystem::exists(path));

  auto writer = OpenStore(path);
  ASSERT_TRUE(writer.ok());
  RunInfo run;
  run.sweep = "s";
  run.system = "a";
  run.source = Source::kSimulated;
  auto created = (*writer)->CreateRun(run);
  ASSERT_TRUE(created.ok());
  auto reader = OpenStore(path, OpenMode::kReadOnly);
  ASSERT_TRUE(reader.ok()) << reader.status().message();
  // A point the writer stores after the reader opened is visible to it (WAL).
  ASSERT_TRUE((*writer)->AddPoint(MakePoint(created->id, 4, 0, 100), {}).ok());
  auto points = (*reader)->ListPoints(0);
  ASSERT_TRUE(points.ok());
  ASSERT_EQ(points->size(), 1u);
  EXPECT_DOUBLE_EQ(points->front().metrics.total_token_throughput_per_gpu, 100);
  // Only what came after a point id.
  ASSERT_TRUE((*writer)->AddPoint(MakePoint(created->id, 16, 0, 50), {}).ok());
  auto after = (*reader)->ListPointsAfter(points->front().id);
  ASSERT_TRUE(after.ok());
  ASSERT_EQ(after->size(), 1u);
  EXPECT_DOUBLE_EQ(after->front().load_value, 16);
  EXPECT_EQ((*reader)->ListPointsAfter(after->front().id)->size(), 0u);
  EXPECT_EQ((*reader)->ListPointsAfter(0)->size(), 2u);
  // Writes through the reader fail and change nothing.
  EXPECT_FALSE((*reader)->CreateRun(run).ok());
  EXPECT_FALSE((*reader)->AddPoint(MakePoint(created->id, 8, 0, 1), {}).ok());
  EXPECT_EQ((*writer)->ListRuns()->size(), 1u);
  EXPECT_EQ((*writer)->ListPoints(0)->size(), 2u);
}

TEST(SqliteStore, ReadOnlyOpenReadsAnOlderSchemaAsItIsWithoutMigrating) {
  testing_util::ScratchDir tmp("store");
  const std::string path = tmp.Path("readonly_old.db");
  ASSERT_TRUE(OpenSqliteStore(path, OpenMode::kCreate, 1).ok());
  auto s = OpenStore(path, OpenMode::kReadOnly);
  ASSERT_TRUE(s.ok()) << s.status().message();
  EXPECT_EQ((*s)->SchemaVersion(), 1);
  EXPECT_EQ((*s)->ListPointsAfter(0)->size(), 0u);
  auto series = (*s)->GetPointSeries(1);  // no point_series table before version 5
  ASSERT_TRUE(series.ok()) << series.status().ToString();
  EXPECT_TRUE(series->empty());
  s->reset();
  auto again = OpenStore(path, OpenMode::kReadOnly);
  ASSERT_TRUE(again.ok());
  EXPECT_EQ((*again)->SchemaVersion(), 1);  // still not migrated
}

}  // namespace
}  // namespace frontier::store

namespace frontier::store {
namespace {

TEST(SqliteStore, KeepsMeasuredEnergyColumns) {
  testing_util::ScratchDir tmp("store");
  auto store = OpenStore(tmp.Path("energy.db"));
  ASSERT_TRUE(store.ok()) << store.status().ToString();
  RunInfo run;
  run.sweep = "bench";
  run.system = "http://gpu:8000";
  run.source = Source::kMeasured;
  auto created = (*store)->CreateRun(run);
  ASSERT_TRUE(created.ok());
  PointRecord p = MakePoint(created->id, 8, 0, 100);
  p.source = Source::kMeasured;
  p.metrics.energy.emplace().joules = 1234.5;
  p.metrics.energy->mean_w = 617.25;
  p.metrics.energy->peak_w = 701;
  p.metrics.tokens_per_joule = 3.5;
  ASSERT_TRUE((*store)->AddPoint(p, {}).ok());
  PointRecord q = MakePoint(created->id, 16, 0, 90);  // measured nothing: zeros
  ASSERT_TRUE((*store)->AddPoint(q, {}).ok());
  auto points = (*store)->ListPoints(created->id);
  ASSERT_TRUE(points.ok());
  ASSERT_EQ(points->size(), 2u);
  ASSERT_TRUE(points->at(0).metrics.energy.has_value());
  EXPECT_DOUBLE_EQ(points->at(0).metrics.energy->joules, 1234.5);
  EXPECT_DOUBLE_EQ(points->at(0).metrics.energy->mean_w, 617.25);
  EXPECT_DOUBLE_EQ(points->at(0).metrics.energy->peak_w, 701);
  EXPECT_DOUBLE_EQ(points->at(0).metrics.tokens_per_joule, 3.5);
  EXPECT_FALSE(points->at(1).metrics.energy.has_value());  // all zeros: none measured
  EXPECT_DOUBLE_EQ(points->at(1).metrics.tokens_per_joule, 0);
  // A figure beyond its physical bound is refused by name.
  p.metrics.energy->mean_w = 1e12;
  Status bad = CheckPoint(p, "point");
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.message().find("mean_power_w"), std::string::npos) << bad.message();
}

}  // namespace
}  // namespace frontier::store
