// Installs frontier as a user would (cmake --install into a scratch prefix;
// the .deb CPack makes, unpacked) and runs it from there, outside the source
// tree and without FRONTIER_DATA_DIR: the quickstart plan's sweep stores every
// point, the report is written, the installed catalogs are the ones read, and
// bash completion completes commands and flags from the installed binary.
#include <sqlite3.h>

#include <filesystem>
#include <string>

#include <gtest/gtest.h>

#include "tests/cli_test_util.h"
#include "util/scratch.h"
#include "util/test_paths.h"

namespace frontier {
namespace {

namespace fs = std::filesystem;
using testing::RunCommand;
using testing_util::ScratchDir;
using testing_util::TestPath;

// Runs `command` in `dir` with FRONTIER_DATA_DIR unset (ctest sets it to the
// source tree's data/ for every test), so the binary finds its data itself.
std::pair<int, std::string> RunIn(const fs::path& dir, const std::string& command) {
  return RunCommand("cd '" + dir.string() + "' && env -u FRONTIER_DATA_DIR " + command);
}

int64_t CountRows(const std::string& db_path, const std::string& sql) {
  sqlite3* db = nullptr;
  int64_t n = -1;
  if (sqlite3_open_v2(db_path.c_str(), &db, SQLITE_OPEN_READONLY, nullptr) == SQLITE_OK) {
    sqlite3_stmt* st = nullptr;
    if (sqlite3_prepare_v2(db, sql.c_str(), -1, &st, nullptr) == SQLITE_OK && sqlite3_step(st) == SQLITE_ROW)
      n = sqlite3_column_int64(st, 0);
    sqlite3_finalize(st);
  }
  sqlite3_close(db);
  return n;
}

// What bash completion offers for the words typed so far (the last one is
// the word being completed).
std::string Complete(const fs::path& script, const std::string& words) {
  auto [rc, out] = RunCommand("bash -c 'source \"" + script.string() + "\"; COMP_WORDS=(" + words +
                              "); COMP_CWORD=$((${#COMP_WORDS[@]} - 1)); _frontier; echo \"${COMPREPLY[*]}\"'");
  EXPECT_EQ(rc, 0) << out;
  return out;
}

TEST(Install, TheInstalledTreeRunsTheQuickstartPlanWithItsOwnData) {
  ScratchDir scratch("install");
  const fs::path prefix = scratch.dir / "prefix";
  auto [rc, out] = RunCommand(TestPath("FRONTIER_CMAKE") + " --install '" + TestPath("FRONTIER_BUILD_DIR") +
                              "' --strip --prefix '" + prefix.string() + "'");
  ASSERT_EQ(rc, 0) << out;
  const fs::path bin = prefix / "bin/frontier";
  const fs::path data = prefix / "share/frontier/data";
  const fs::path completion = prefix / "share/bash-completion/completions/frontier";
  ASSERT_TRUE(fs::exists(bin));
  ASSERT_TRUE(fs::exists(data / "plans/quickstart.yaml"));
  ASSERT_TRUE(fs::exists(data / "hardware/h200.json"));
  ASSERT_TRUE(fs::exists(completion));

  // The quickstart plan: 2 systems x 9 concurrencies x 3 repetitions.
  const fs::path work = scratch.dir / "work";
  fs::create_directories(work);
  std::tie(rc, out) = RunIn(work, bin.string() + " sweep '" + (data / "plans/quickstart.yaml").string() +
                                      "' --db q.db --resume");
  ASSERT_EQ(rc, 0) << out;
  EXPECT_EQ(CountRows((work / "q.db").string(), "SELECT COUNT(*) FROM points"), 2 * 9 * 3);
  EXPECT_EQ(CountRows((work / "q.db").string(), "SELECT COUNT(DISTINCT system) FROM runs"), 2);
  // Resuming stores nothing twice.
  std::tie(rc, out) = RunIn(work, bin.string() + " sweep '" + (data / "plans/quickstart.yaml").string() +
                                      "' --db q.db --resume");
  ASSERT_EQ(rc, 0) << out;
  EXPECT_EQ(CountRows((work / "q.db").string(), "SELECT COUNT(*) FROM points"), 2 * 9 * 3);
  std::tie(rc, out) = RunIn(work, bin.string() + " report --db q.db -o report.html");
  ASSERT_EQ(rc, 0) << out;
  EXPECT_GT(fs::file_size(work / "report.html"), 1000u);

  // The installed completion script, driving the installed binary.
  EXPECT_EQ(Complete(completion, "'" + bin.string() + "' sw"), "sweep\n");
  EXPECT_EQ(Complete(completion, "'" + bin.string() + "' db e"), "export\n");
  EXPECT_EQ(Complete(completion, "'" + bin.string() + "' bench --max-c"), "--max-concurrency\n");
}

TEST(Install, TheDebHoldsTheBinaryDataAndCompletionAndRunsUnpacked) {
  ScratchDir scratch("install_deb");
  auto [rc, out] = RunCommand(TestPath("FRONTIER_CPACK") + " --config '" + TestPath("FRONTIER_BUILD_DIR") +
                              "/CPackConfig.cmake' -B '" + (scratch.dir / "pkg").string() + "'");
  ASSERT_EQ(rc, 0) << out;
  fs::path deb;
  for (const auto& e : fs::directory_iterator(scratch.dir / "pkg"))
    if (e.path().extension() == ".deb") deb = e.path();
  ASSERT_FALSE(deb.empty()) << out;
  std::tie(rc, out) = RunCommand("dpkg-deb -c '" + deb.string() + "'");
  ASSERT_EQ(rc, 0) << out;
  for (const char* f : {"./usr/bin/frontier", "./usr/share/frontier/data/plans/quickstart.yaml",
                        "./usr/share/frontier/data/hardware/mi325x.json",
                        "./usr/share/bash-completion/completions/frontier"})
    EXPECT_NE(out.find(f), std::string::npos) << f << " is not in the package:\n" << out;
  std::tie(rc, out) = RunCommand("dpkg-deb -f '" + deb.string() + "' Package Depends");
  ASSERT_EQ(rc, 0) << out;
  EXPECT_NE(out.find("Package: frontier"), std::string::npos) << out;
  EXPECT_NE(out.find("libcurl"), std::string::npos) << out;  // from dpkg-shlibdeps
  EXPECT_NE(out.find("libsqlite3"), std::string::npos) << out;

  // Unpacked anywhere, the binary reads the package's catalogs: with one
  // hardware file removed there (the source tree still has it), that GPU is
  // unknown, and the others still simulate.
  const fs::path root = scratch.dir / "root";
  std::tie(rc, out) = RunCommand("dpkg-deb -x '" + deb.string() + "' '" + root.string() + "'");
  ASSERT_EQ(rc, 0) << out;
  const std::string bin = (root / "usr/bin/frontier").string();
  const std::string flags = " --model llama-3.1-8b --gpus 1 --input-len 128 --output-len 16 --concurrency 1";
  std::tie(rc, out) = RunIn(scratch.dir, bin + " simulate --hardware mi325x" + flags);
  ASSERT_EQ(rc, 0) << out;
  ASSERT_TRUE(fs::remove(root / "usr/share/frontier/data/hardware/mi325x.json"));
  std::tie(rc, out) = RunIn(scratch.dir, bin + " simulate --hardware mi325x" + flags);
  EXPECT_NE(rc, 0) << out;
  EXPECT_NE(out.find("unknown hardware 'mi325x'"), std::string::npos) << out;
  std::tie(rc, out) = RunIn(scratch.dir, bin + " simulate --hardware h200" + flags);
  EXPECT_EQ(rc, 0) << out;
}

}  // namespace
}  // namespace frontier
