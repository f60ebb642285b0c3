// The PostgreSQL back end through the Store interface, against a real server
// the test starts: migration from an empty database, what is stored reads back
// exactly, a point is stored once, read-only sessions cannot write, and the
// errors for a missing, empty or foreign database.
#include <gtest/gtest.h>

#include "store/copy.h"
#include "store/pg_store.h"
#include "store/schema.h"
#include "store/sqlite_store.h"
#include "store/store.h"
#include "store/verdict_test_util.h"
#include "tests/store/pg_server.h"
#include "util/scratch.h"

namespace frontier {
namespace {

using testing_pg::PgServer;

store::PointRecord Point(int64_t run_id, const std::string& key, double tput) {
  store::PointRecord p;
  p.run_id = run_id;
  p.key = key;
  p.workload = "w";
  p.load_value = 16;
  p.source = store::Source::kSimulated;
  p.settings = {{"tp", "8"}, {"note", "tab\there, quote ' and \" and ? mark"}};
  p.num_gpus = 8;
  p.metrics.completed = 3;
  p.metrics.total_input_tokens = 3072;
  p.metrics.total_output_tokens = 1536;
  p.metrics.output_throughput = tput;
  p.metrics.output_throughput_per_gpu = tput / 8;
  p.metrics.tpot_ms.median = 0.1 + 0.2;  // 0.30000000000000004: must come back bit for bit
  store::SetP99(p.metrics.tpot_ms, 0.5);
  p.metrics.max_concurrent_requests = 16;
  p.summary_json = R"({"completed": 3})";
  p.series.server_metrics_json = R"({"samples":{"t_s":[0.5,1.5],"vllm:num_requests_running":[3,4]}})";
  p.series.timeslices_json = R"({"slice_s":1,"steady":null})";
  return p;
}

std::vector<store::RequestRow> Rows(int n) {
  std::vector<store::RequestRow> rows;
  for (int i = 0; i < n; ++i) {
    store::RequestRow r;
    r.idx = i;
    r.ok = i != 1;
    r.prompt_tokens = 1024;
    r.output_tokens = r.ok ? 512 : 0;
    r.scheduled_ns = 1'700'000'000'000'000'000 + i;  // beyond 32 bits
    r.sent_ns = r.scheduled_ns + 5;
    r.first_token_ns = r.ok ? r.sent_ns + 1000 : -1;
    r.end_ns = r.ok ? r.sent_ns + 9000 : -1;
    r.events = r.output_tokens;
    r.failure = r.ok ? "" : "http_5xx\tline\nbreak";
    r.http_status = r.ok ? 200 : 503;
    rows.push_back(r);
  }
  return rows;
}

TEST(PgStore, MigratesAnEmptyDatabaseAndReadsBackExactlyWhatItStored) {
  PgServer pg;
  if (!pg.ok()) GTEST_SKIP() << "PostgreSQL could not start: " << pg.why();
  const std::string url = pg.CreateDatabase("migrate");
  ASSERT_FALSE(url.empty()) << pg.why();

  auto s = store::OpenStore(url);
  ASSERT_TRUE(s.ok()) << s.status().ToString();
  EXPECT_TRUE((*s)->Created());
  EXPECT_EQ((*s)->SchemaVersion(), store::kSchemaVersion);
  EXPECT_EQ(pg.Query(url, "SELECT value FROM meta WHERE key = 'schema_version'"),
            std::to_string(store::kSchemaVersion));
  // 64-bit columns where SQLite's INTEGER is 64-bit too, and float8 for REAL.
  EXPECT_EQ(pg.Query(url, "SELECT data_type FROM information_schema.columns WHERE table_name = 'requests' "
                          "AND column_name = 'scheduled_ns'"),
            "bigint");
  EXPECT_EQ(pg.Query(url, "SELECT data_type FROM information_schema.columns WHERE table_name = 'points' "
                          "AND column_name = 'median_tpot_ms'"),
            "double precision");

  store::RunInfo run;
  run.sweep = "nightly";
  run.plan_hash = "abc";
  run.plan_text = "name: nightly\n";
  run.system = "h200";
  run.source = store::Source::kSimulated;
  run.config = {{"hardware", "h200"}, {"gpus", "8"}};
  auto created = (*s)->CreateRun(run);
  ASSERT_TRUE(created.ok()) << created.status().ToString();
  EXPECT_EQ(created->id, 1);
  auto id = (*s)->AddPoint(Point(created->id, "w|concurrency=16|rep=0", 1234.5), Rows(2500));
  ASSERT_TRUE(id.ok()) << id.status().ToString();

  // A second copy of the point is refused, and nothing of it is left behind.
  auto again = (*s)->AddPoint(Point(created->id, "w|concurrency=16|rep=0", 1.0), Rows(3));
  ASSERT_FALSE(again.ok());
  EXPECT_EQ(again.status().code(), StatusCode::kFailedPrecondition) << again.status().ToString();
  EXPECT_NE(again.status().message().find("already has point 'w|concurrency=16|rep=0'"), std::string::npos);
  EXPECT_EQ(pg.Query(url, "SELECT count(*) FROM points"), "1");
  EXPECT_EQ(pg.Query(url, "SELECT count(*) FROM requests"), "2500");
  EXPECT_EQ(pg.Query(url, "SELECT count(*) FROM point_series"), "1");

  // Read back from a second, read-only connection.
  auto r = store::OpenStore(url, store::OpenMode::kReadOnly);
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_FALSE((*r)->Created());
  auto found = (*r)->FindRun("nightly", "abc", "h200");
  ASSERT_TRUE(found.ok() && found->has_value());
  EXPECT_EQ((**found).config.at("gpus"), "8");
  auto points = (*r)->ListPoints(created->id);
  ASSERT_TRUE(points.ok()) << points.status().ToString();
  ASSERT_EQ(points->size(), 1u);
  const store::PointRecord& p = points->front();
  EXPECT_EQ(p.id, *id);
  EXPECT_EQ(p.settings.at("note"), "tab\there, quote ' and \" and ? mark");
  EXPECT_EQ(p.metrics.output_throughput, 1234.5);
  EXPECT_EQ(p.metrics.tpot_ms.median, 0.1 + 0.2);
  EXPECT_EQ(p.metrics.max_concurrent_requests, 16);
  EXPECT_EQ(p.metrics.total_input_tokens, 3072);
  EXPECT_EQ(p.summary_json, R"({"completed": 3})");
  EXPECT_TRUE(p.series.empty());  // ListPoints leaves the series to GetPointSeries
  auto series = (*r)->GetPointSeries(p.id);
  ASSERT_TRUE(series.ok()) << series.status().ToString();
  EXPECT_EQ(series->server_metrics_json, Point(0, "", 0).series.server_metrics_json);
  EXPECT_EQ(series->timeslices_json, R"({"slice_s":1,"steady":null})");
  EXPECT_TRUE((*r)->GetPointSeries(p.id + 1)->empty());
  auto rows = (*r)->ListRequests(p.id);
  ASSERT_TRUE(rows.ok()) << rows.status().ToString();
  ASSERT_EQ(rows->size(), 2500u);
  const auto want = Rows(2500);
  for (size_t i = 0; i < 2500; i += 499) {
    EXPECT_EQ((*rows)[i].scheduled_ns, want[i].scheduled_ns);
    EXPECT_EQ((*rows)[i].first_token_ns, want[i].first_token_ns);
    EXPECT_EQ((*rows)[i].failure, want[i].failure);
    EXPECT_EQ((*rows)[i].http_status, want[i].http_status);
  }
  EXPECT_EQ((*rows)[1].failure, "http_5xx\tline\nbreak");
  EXPECT_EQ((*r)->ListPointsAfter(*id)->size(), 0u);
  EXPECT_EQ((*r)->ListPointsAfter(0)->size(), 1u);
  EXPECT_EQ(*(*r)->PointKeys(created->id), std::set<std::string>{"w|concurrency=16|rep=0"});

  // The read-only session cannot write.
  auto denied = (*r)->CreateRun(run);
  ASSERT_FALSE(denied.ok());
  EXPECT_NE(denied.status().message().find("read-only transaction"), std::string::npos)
      << denied.status().ToString();
  EXPECT_EQ(pg.Query(url, "SELECT count(*) FROM runs"), "1");

  // Launch records.
  store::LaunchRecord l;
  l.system = "h200";
  l.host = "h";
  l.boot_id = "b";
  l.pgid = 4242;
  l.marker = "m";
  l.command = "vllm serve";
  auto lid = (*s)->AddLaunch(l);
  ASSERT_TRUE(lid.ok()) << lid.status().ToString();
  ASSERT_EQ((*s)->ListOpenLaunches()->size(), 1u);
  ASSERT_TRUE((*s)->SetLaunchStopped(*lid).ok());
  EXPECT_EQ((*s)->ListOpenLaunches()->size(), 0u);

  // Opening again migrates nothing and creates nothing.
  auto s2 = store::OpenStore(url);
  ASSERT_TRUE(s2.ok());
  EXPECT_FALSE((*s2)->Created());
}

TEST(PgStore, AnOlderSchemaIsMigratedForWritersAndReadAsItIsByReaders) {
  PgServer pg;
  if (!pg.ok()) GTEST_SKIP() << "PostgreSQL could not start: " << pg.why();
  const std::string url = pg.CreateDatabase("old");
  ASSERT_FALSE(url.empty()) << pg.why();
  {
    auto v1 = store::OpenPgStore(url, store::OpenMode::kCreate, 1);
    ASSERT_TRUE(v1.ok()) << v1.status().ToString();
    EXPECT_EQ((*v1)->SchemaVersion(), 1);
    store::RunInfo run;
    run.sweep = "s";
    run.system = "x";
    auto created = (*v1)->CreateRun(run);
    ASSERT_TRUE(created.ok());
    ASSERT_TRUE((*v1)->AddPoint(Point(created->id, "k", 10), {}).ok());
  }
  EXPECT_EQ(pg.Query(url, "SELECT count(*) FROM information_schema.columns WHERE column_name = "
                          "'max_concurrent_requests'"),
            "0");
  auto reader = store::OpenStore(url, store::OpenMode::kReadOnly);
  ASSERT_TRUE(reader.ok());
  EXPECT_EQ((*reader)->SchemaVersion(), 1);
  auto old_points = (*reader)->ListPoints(0);
  ASSERT_TRUE(old_points.ok()) << old_points.status().ToString();
  EXPECT_EQ(old_points->front().metrics.max_concurrent_requests, 0);  // a column added later reads as 0
  EXPECT_EQ((*reader)->ListOpenLaunches()->size(), 0u);

  auto writer = store::OpenStore(url);
  ASSERT_TRUE(writer.ok()) << writer.status().ToString();
  EXPECT_EQ((*writer)->SchemaVersion(), store::kSchemaVersion);
  EXPECT_FALSE((*writer)->Created());
  EXPECT_EQ(pg.Query(url, "SELECT value FROM meta WHERE key = 'schema_version'"),
            std::to_string(store::kSchemaVersion));
  EXPECT_EQ(pg.Query(url, "SELECT count(*) FROM points"), "1");
  EXPECT_EQ(pg.Query(url, "SELECT count(*) FROM launches"), "0");
}

TEST(PgStore, RoundTripsVerdictsTrialsAndTheSearchAndMigratesSchema3) {
  PgServer pg;
  if (!pg.ok()) GTEST_SKIP() << "PostgreSQL could not start: " << pg.why();
  const std::string url = pg.CreateDatabase("verdicts");
  ASSERT_FALSE(url.empty()) << pg.why();
  {
    // A schema-3 database with a point, migrated by the writer below.
    auto v3 = store::OpenPgStore(url, store::OpenMode::kCreate, 3);
    ASSERT_TRUE(v3.ok()) << v3.status().ToString();
    store::RunInfo run;
    run.sweep = "old";
    run.system = "x";
    auto created = (*v3)->CreateRun(run);
    ASSERT_TRUE(created.ok()) << created.status().ToString();
    ASSERT_TRUE((*v3)->AddPoint(Point(created->id, "k", 10), {}).ok());
    auto reader = store::OpenStore(url, store::OpenMode::kReadOnly);
    ASSERT_TRUE(reader.ok());
    auto points = (*reader)->ListPoints(0);
    ASSERT_TRUE(points.ok()) << points.status().ToString();
    EXPECT_EQ(points->front().verdict_json, "");
    EXPECT_EQ((*reader)->ListRuns()->front().search_json, "");
  }
  auto s = store::OpenStore(url);
  ASSERT_TRUE(s.ok()) << s.status().ToString();
  EXPECT_EQ((*s)->SchemaVersion(), store::kSchemaVersion);
  EXPECT_EQ(pg.Query(url, "SELECT output_throughput FROM points WHERE point_key = 'k'"), "10");
  const int64_t run = store::testing_verdict::RoundTripVerdicts(**s);
  ASSERT_GT(run, 0);
  EXPECT_EQ(pg.Query(url, "SELECT string_agg(coalesce(verdict, 'NULL'), ',' ORDER BY id) FROM points"),
            "NULL,INVALID,VALID,NULL");

  // Copied from PostgreSQL into SQLite, verdicts and the search come along.
  testing_util::ScratchDir tmp("pg_verdicts");  // outlives `lite`; removed also on failure
  auto lite = store::OpenStore(tmp.Path("verdicts.db"));
  ASSERT_TRUE(lite.ok()) << lite.status().ToString();
  auto copied = store::CopyRuns(**s, **lite, {run});
  ASSERT_TRUE(copied.ok()) << copied.status().ToString();
  EXPECT_EQ(copied->points_copied, 3);
  auto points = (*lite)->ListPoints(0);
  ASSERT_TRUE(points.ok());
  ASSERT_EQ(points->size(), 3u);
  EXPECT_EQ((*points)[0].verdict_json, store::testing_verdict::kInvalidVerdict);
  EXPECT_EQ((*points)[1].trial_json, store::testing_verdict::kTrial);
  EXPECT_EQ((*lite)->ListRuns()->front().search_json, store::testing_verdict::kSearch);
}

TEST(PgStore, MissingEmptyForeignAndNewerDatabasesAreNamedErrors) {
  PgServer pg;
  if (!pg.ok()) GTEST_SKIP() << "PostgreSQL could not start: " << pg.why();
  auto missing = store::OpenStore(pg.Url("nosuchdb"), store::OpenMode::kReadOnly);
  ASSERT_FALSE(missing.ok());
  EXPECT_EQ(missing.status().code(), StatusCode::kNotFound) << missing.status().ToString();
  EXPECT_NE(missing.status().message().find("does not exist"), std::string::npos);

  const std::string empty = pg.CreateDatabase("empty");
  auto e = store::OpenStore(empty, store::OpenMode::kReadOnly);
  ASSERT_FALSE(e.ok());
  EXPECT_EQ(e.status().code(), StatusCode::kInvalidArgument);
  EXPECT_NE(e.status().message().find("is empty"), std::string::npos) << e.status().ToString();
  EXPECT_EQ(pg.Query(empty, "SELECT count(*) FROM pg_tables WHERE schemaname = 'public'"), "0");  // nothing written

  const std::string foreign = pg.CreateDatabase("foreign_app");
  ASSERT_TRUE(pg.Exec(foreign, "CREATE TABLE users(id int)"));
  auto f = store::OpenStore(foreign);
  ASSERT_FALSE(f.ok());
  EXPECT_EQ(f.status().code(), StatusCode::kInvalidArgument);
  EXPECT_NE(f.status().message().find("not a frontier results database"), std::string::npos);
  EXPECT_EQ(pg.Query(foreign, "SELECT count(*) FROM pg_tables WHERE schemaname = 'public'"), "1");

  const std::string newer = pg.CreateDatabase("newer");
  ASSERT_TRUE(store::OpenStore(newer).ok());
  ASSERT_TRUE(pg.Exec(newer, "UPDATE meta SET value = '99' WHERE key = 'schema_version'"));
  auto n = store::OpenStore(newer);
  ASSERT_FALSE(n.ok());
  EXPECT_EQ(n.status().code(), StatusCode::kFailedPrecondition);
  EXPECT_NE(n.status().message().find("use a newer frontier"), std::string::npos);

  auto refused = store::OpenStore("postgresql:///x?host=/nonexistent_socket_dir&user=frontier");
  ASSERT_FALSE(refused.ok());
  EXPECT_EQ(refused.status().code(), StatusCode::kUnavailable) << refused.status().ToString();
}

TEST(PgStore, AnySchemeCaseIsPostgresAndItsPasswordStaysOutOfMessages) {
  for (const char* url : {"PostgreSQL://bob:s3cret@/x?host=/nonexistent_socket_dir&user=frontier",
                          "POSTGRES:///x?host=/nonexistent_socket_dir&user=bob&password=s3cret"}) {
    EXPECT_TRUE(store::IsPostgresUrl(url)) << url;
    auto refused = store::OpenStore(url);
    ASSERT_FALSE(refused.ok()) << url;
    // libpq's refusal, not a SQLite file named after the URL.
    EXPECT_EQ(refused.status().code(), StatusCode::kUnavailable) << refused.status().ToString();
    EXPECT_EQ(refused.status().message().find("s3cret"), std::string::npos) << refused.status().ToString();
    EXPECT_NE(refused.status().message().find("***"), std::string::npos) << refused.status().ToString();
  }
  EXPECT_FALSE(store::IsPostgresUrl("runs.db"));
  EXPECT_FALSE(store::IsPostgresUrl("postgresql.db"));
}

}  // namespace
}  // namespace frontier
