// Runs `frontier dashboard`: bad flags and databases are refused with the fix, and a
// dashboard that served requests leaves the database's bytes as they were (read-only).
#include <gtest/gtest.h>

#include <sys/wait.h>

#include <cstdio>
#include <filesystem>
#include <string>

#include "store/store.h"
#include "tests/cli_test_util.h"
#include "util/scratch.h"
#include "util/test_paths.h"

namespace frontier {
namespace {

namespace fs = std::filesystem;

using testing::RunCommand;
using testing_util::ScratchDir;
using testing_util::Slurp;

TEST(DashboardCli, AMissingDatabaseIsNotCreated) {
  ScratchDir tmp("dashboard_cli_missing");  // removed at the end, also when an assertion fails
  const fs::path& dir = tmp.dir;
  const fs::path db = dir / "none.db";
  auto [rc, out] = RunCommand(testing_util::TestPath("FRONTIER_BIN") + " dashboard --port 0 --db " + db.string());
  EXPECT_EQ(rc, 2) << out;
  EXPECT_NE(out.find("does not exist (`frontier sweep` and `frontier db import` create one; is --db mistyped?)"), std::string::npos) << out;
  EXPECT_FALSE(fs::exists(db));
}

TEST(DashboardCli, BeyondLoopbackWithoutATokenIsRefused) {
  auto [rc, out] = RunCommand(testing_util::TestPath("FRONTIER_BIN") + " dashboard --port 0 --host 0.0.0.0 --db x.db");
  EXPECT_EQ(rc, 2) << out;
  EXPECT_NE(out.find("--token"), std::string::npos) << out;
  auto [rc2, out2] = RunCommand(testing_util::TestPath("FRONTIER_BIN") + " dashboard --port 0 --price h200");
  EXPECT_EQ(rc2, 2) << out2;
  EXPECT_NE(out2.find("HW=USD"), std::string::npos) << out2;
}

TEST(DashboardCli, ServesAndStopsOnSigintWithoutWritingTheDatabase) {
  ScratchDir tmp("dashboard_cli_readonly");  // removed at the end, also when an assertion fails
  const fs::path& dir = tmp.dir;
  const fs::path db = dir / "r.db";
  {
    auto s = store::OpenStore(db.string());
    ASSERT_TRUE(s.ok());
    store::RunInfo r;
    r.sweep = "s";
    r.system = "a";
    ASSERT_TRUE((*s)->CreateRun(r).ok());
  }  // closed: the writer checkpoints its WAL
  const std::string before = Slurp(db.string());
  ASSERT_FALSE(before.empty());
  // Serve, answer one request, then stop with SIGINT (as Ctrl-C does).
  const std::string cmd = "( " + testing_util::TestPath("FRONTIER_BIN") + " dashboard --port 0 --db " + db.string() +
                          " > " + (dir / "out").string() + " & pid=$!; "
                          "for i in $(seq 100); do grep -q 'open http' " + (dir / "out").string() +
                          " && break; sleep 0.1; done; "
                          "url=$(grep -o 'http://[0-9.:]*' " + (dir / "out").string() + "); "
                          "curl -s \"$url/api/runs\"; kill -INT $pid; wait $pid )";
  auto [rc, out] = RunCommand(cmd);
  EXPECT_EQ(rc, 0) << out;  // the dashboard's own exit status after SIGINT
  EXPECT_NE(out.find("\"total\":1"), std::string::npos) << out;
  EXPECT_EQ(Slurp(db.string()), before);
  EXPECT_FALSE(fs::exists(db.string() + "-journal"));
}

}  // namespace
}  // namespace frontier
