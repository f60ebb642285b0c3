// `frontier db` and `frontier sweep` on PostgreSQL through the binary, against
// a server the test starts: the same import reads the same from PostgreSQL as
// from SQLite, `db copy` round-trips without duplicating, FRONTIER_DB is the
// default --db, and a sweep killed in one process is resumed by another.
#include <gtest/gtest.h>

#include <signal.h>
#include <fcntl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <set>
#include <thread>

#include "store/schema.h"
#include "tests/store/pg_server.h"
#include "tests/store/store_cli_util.h"
#include "util/scratch.h"
#include "util/test_paths.h"

namespace frontier {
namespace {

using testing_pg::PgServer;
using namespace testing_store;

// The sample files under src/store/testdata, with a trailing slash.
std::string Data() { return testing_util::TestPath("FRONTIER_SOURCE_DIR") + "/src/store/testdata/"; }

// Imports the two published test files into `db`.
void ImportTestFiles(const std::string& db) {
  auto [rc, out] = Frontier("db import " + Data() + "agg_llama70b_fp8.json --db " + Quote(db));
  ASSERT_EQ(rc, 0) << out;
  std::tie(rc, out) =
      Frontier("db import " + Data() + "vllm_bench_serve.json --gpus 2 --hardware h100 --db " + Quote(db));
  ASSERT_EQ(rc, 0) << out;
}

TEST(PgCli, LsAndExportOfAnImportEqualSqlites) {
  PgServer pg;
  if (!pg.ok()) GTEST_SKIP() << "PostgreSQL could not start: " << pg.why();
  testing_util::ScratchDir tmp("pgls");
  const std::string lite = tmp.Path("f.db");
  const std::string url = pg.CreateDatabase("imports");
  ASSERT_FALSE(url.empty()) << pg.why();
  ImportTestFiles(lite);
  ImportTestFiles(url);

  auto [lrc, lls] = Frontier("db ls --db " + Quote(lite));
  auto [prc, pls] = Frontier("db ls --db " + Quote(url));
  ASSERT_EQ(lrc, 0) << lls;
  ASSERT_EQ(prc, 0) << pls;
  EXPECT_NE(pls.find("3 runs, 6 points in " + url + " (schema " + std::to_string(store::kSchemaVersion) + ")"),
            std::string::npos)
      << pls;
  auto table = [](const std::string& ls) { return WithoutTimes(ls.substr(0, ls.rfind(" points in "))); };
  EXPECT_EQ(table(pls), table(lls));
  for (const char* format : {"json", "csv"}) {
    auto [a, lexp] = Frontier(std::string("db export --format ") + format + " --db " + Quote(lite));
    auto [b, pexp] = Frontier(std::string("db export --format ") + format + " --db " + Quote(url));
    ASSERT_EQ(a, 0);
    ASSERT_EQ(b, 0) << pexp;
    EXPECT_GT(pexp.size(), 1000u);
    EXPECT_EQ(WithoutTimes(pexp), WithoutTimes(lexp)) << format;
  }
  // Request rows too: the vLLM file's per-request lists.
  EXPECT_EQ(pg.Query(url, "SELECT count(*) FROM requests"),
            std::to_string([&] {
              auto s = store::OpenStore(lite, store::OpenMode::kReadOnly);
              int64_t n = 0;
              const auto all = *(*s)->ListPoints(0);
              for (const auto& p : all) n += static_cast<int64_t>((*s)->ListRequests(p.id)->size());
              return n;
            }()));

  // FRONTIER_DB is the default --db of every verb.
  auto [erc, els] = testing::RunCommand("FRONTIER_DB=" + Quote(url) + " " + Binary() + " db ls");
  EXPECT_EQ(erc, 0) << els;
  EXPECT_EQ(els, pls);
  auto [rrc, rout] = testing::RunCommand("FRONTIER_DB=" + Quote(url) + " " + Binary() + " report --run 1");
  EXPECT_EQ(rrc, 0) << rout;
  EXPECT_NE(rout.find("h200-vllm-fp8"), std::string::npos) << rout;
  auto [crc, cout] = testing::RunCommand("FRONTIER_DB=" + Quote(url) + " " + Binary() +
                                         " compare --baseline 1 --candidate 1");
  EXPECT_EQ(crc, 0) << cout;

  // A read-only verb on a database that does not exist: exit 2, nothing created.
  auto [mrc, mout] = Frontier("db ls --db " + Quote(pg.Url("nosuch")));
  EXPECT_EQ(mrc, 2) << mout;
  EXPECT_NE(mout.find("does not exist"), std::string::npos) << mout;
}

TEST(PgCli, CopyRoundTripsBetweenBackEndsWithoutDuplicating) {
  PgServer pg;
  if (!pg.ok()) GTEST_SKIP() << "PostgreSQL could not start: " << pg.why();
  testing_util::ScratchDir tmp("pgcopy");
  const std::string lite = tmp.Path("a.db"), back = tmp.Path("b.db");
  const std::string url = pg.CreateDatabase("copies");
  ImportTestFiles(lite);
  const std::string plan = tmp.Write("plan.yaml", SmallPlan("small"));
  auto [src, sout] = Frontier("sweep " + plan + " -q --db " + Quote(lite));
  ASSERT_EQ(src, 0) << sout;
  const int64_t points = 6 + kSmallPlanPoints;  // 5 runs in all
  ASSERT_EQ(StoredPoints(lite), points);

  auto [rc, out] = Frontier("db copy --from " + Quote(lite) + " --to " + Quote(url));
  ASSERT_EQ(rc, 0) << out;
  EXPECT_NE(out.find("5 runs created, 0 already there; 18 points copied, 0 already there"), std::string::npos)
      << out;
  // Again: nothing new.
  std::tie(rc, out) = Frontier("db copy --from " + Quote(lite) + " --to " + Quote(url));
  ASSERT_EQ(rc, 0) << out;
  EXPECT_NE(out.find("0 runs created, 5 already there; 0 points copied, 18 already there"), std::string::npos)
      << out;
  EXPECT_EQ(pg.Query(url, "SELECT count(*) FROM points"), "18");
  EXPECT_EQ(pg.Query(url, "SELECT count(*) FROM runs"), "5");
  // Back into a new SQLite file, and into the original: both read as the original.
  std::tie(rc, out) = Frontier("db copy --from " + Quote(url) + " --to " + Quote(back));
  ASSERT_EQ(rc, 0) << out;
  std::tie(rc, out) = Frontier("db copy --db " + Quote(url) + " --to " + Quote(lite));
  ASSERT_EQ(rc, 0) << out;
  EXPECT_NE(out.find("0 runs created, 5 already there; 0 points copied, 18 already there"), std::string::npos)
      << out;
  const std::string original = Frontier("db export --db " + Quote(lite)).second;
  EXPECT_EQ(Frontier("db export --db " + Quote(url)).second, original);
  EXPECT_EQ(Frontier("db export --db " + Quote(back)).second, original);
  EXPECT_EQ(Frontier("db export --format csv --db " + Quote(back)).second,
            Frontier("db export --format csv --db " + Quote(lite)).second);
  {
    // The request rows of every point, equal in all three databases.
    auto a = store::OpenStore(lite, store::OpenMode::kReadOnly);
    auto p = store::OpenStore(url, store::OpenMode::kReadOnly);
    auto b = store::OpenStore(back, store::OpenMode::kReadOnly);
    int64_t rows = 0;
    const auto all = *(*a)->ListPoints(0);
    for (const auto& point : all) {
      auto ra = *(*a)->ListRequests(point.id), rp = *(*p)->ListRequests(point.id), rb = *(*b)->ListRequests(point.id);
      ASSERT_EQ(ra.size(), rp.size());
      ASSERT_EQ(ra.size(), rb.size());
      for (size_t i = 0; i < ra.size(); ++i) {
        EXPECT_EQ(ra[i].end_ns, rp[i].end_ns);
        EXPECT_EQ(ra[i].first_token_ns, rb[i].first_token_ns);
        EXPECT_EQ(ra[i].output_tokens, rp[i].output_tokens);
      }
      rows += static_cast<int64_t>(ra.size());
    }
    EXPECT_GT(rows, kSmallPlanRequests - 1);
    EXPECT_EQ(pg.Query(url, "SELECT count(*) FROM requests"), std::to_string(rows));
  }

  // --runs: only those, with ids renumbered by the destination.
  const std::string some = tmp.Path("some.db");
  std::tie(rc, out) = Frontier("db copy --from " + Quote(url) + " --to " + Quote(some) + " --runs 4,2");
  ASSERT_EQ(rc, 0) << out;
  EXPECT_NE(out.find("run 2 -> 2\nrun 4 -> 1\n"), std::string::npos) << out;
  EXPECT_NE(Frontier("db ls --db " + some).second.find("2 runs, 7 points"), std::string::npos);
  std::tie(rc, out) = Frontier("db copy --from " + Quote(url) + " --to " + Quote(some) + " --runs 99");
  EXPECT_EQ(rc, 2) << out;
  EXPECT_NE(out.find("run 99 is not in"), std::string::npos) << out;
  std::tie(rc, out) = Frontier("db copy --from " + Quote(url) + " --to " + Quote(url));
  EXPECT_EQ(rc, 2) << out;
}

TEST(PgCli, ASweepKilledInOneProcessIsResumedByAnother) {
  PgServer pg;
  if (!pg.ok()) GTEST_SKIP() << "PostgreSQL could not start: " << pg.why();
  testing_util::ScratchDir tmp("pgkill");
  const std::string url = pg.CreateDatabase("resume");
  const std::string plan = tmp.Write("plan.yaml", R"(name: killme
systems:
  - {name: h200, hardware: h200, gpus: 8, sim: {model: llama-3.1-70b, tp: 8, precision: fp8}}
workloads:
  - {name: w, input_len: 512, output_len: 512}
load:
  concurrency: [64, 96, 128, 160, 192, 224, 256]
  prompts_per_concurrency: 4
repetitions: 2
)");
  constexpr int kTotal = 14;
  const std::string bin = Binary();  // before fork: an unset FRONTIER_BIN fails the test, not the child
  const pid_t pid = ::fork();
  if (pid == 0) {
    const int devnull = ::open("/dev/null", O_WRONLY);
    ::dup2(devnull, 1);
    ::dup2(devnull, 2);
    ::execl(bin.c_str(), bin.c_str(), "sweep", plan.c_str(), "--db", url.c_str(), nullptr);
    ::_exit(127);
  }
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(120);
  int st = 0;
  bool ended = false;
  while (std::chrono::steady_clock::now() < deadline && StoredPoints(url) < 3) {
    if (::waitpid(pid, &st, WNOHANG) == pid) {
      ended = true;
      break;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  if (!ended) {
    ::kill(pid, SIGKILL);
    ::waitpid(pid, &st, 0);
  }
  ASSERT_TRUE(WIFSIGNALED(st) && WTERMSIG(st) == SIGKILL) << "the sweep ended before it could be killed";
  const int64_t before = StoredPoints(url);
  ASSERT_GE(before, 3);
  ASSERT_LT(before, kTotal) << "the sweep finished before the kill; the test proves nothing";

  auto [rc, out] = Frontier("sweep " + plan + " --db " + Quote(url) + " --resume --quiet");
  ASSERT_EQ(rc, 0) << out;
  EXPECT_NE(out.find(std::to_string(kTotal - before) + " points run, " + std::to_string(before) +
                     " already stored, 0 failed, of " + std::to_string(kTotal)),
            std::string::npos)
      << out;
  EXPECT_EQ(pg.Query(url, "SELECT count(*) FROM points"), std::to_string(kTotal));
  EXPECT_EQ(pg.Query(url, "SELECT count(DISTINCT point_key) FROM points"), std::to_string(kTotal));
  EXPECT_EQ(pg.Query(url, "SELECT count(*) FROM runs"), "1");  // resumed the same run
  // Every point's requests are there: none half-written by the killed process.
  EXPECT_EQ(pg.Query(url, "SELECT count(*) FROM points p WHERE (SELECT count(*) FROM requests r WHERE "
                          "r.point_id = p.id) = 0"),
            "0");
}

}  // namespace
}  // namespace frontier
