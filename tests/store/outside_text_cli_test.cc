// What the read verbs leave on the terminal and on the disk: names that hold
// terminal escape sequences (a model_id with ESC and BEL) are printed escaped
// by `db import`, `db ls`, `report` and `compare`, and the verbs that only
// read a SQLite database (`db ls`, `db export`, `report`, `compare`, `db copy`'s
// source) create no file beside it, so no -wal/-shm file owned by a reader is
// left in a folder shared with the database's owner.
#include <sys/stat.h>

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <set>
#include <string>

#include <nlohmann/json.hpp>

#include "tests/store/store_cli_util.h"
#include "util/scratch.h"
#include "util/test_paths.h"

namespace frontier {
namespace {

namespace fs = std::filesystem;
using testing_store::Frontier;
using testing_store::Quote;

// A vLLM result file: its text comes from outside.
std::string VllmFile() {
  return testing_util::TestPath("FRONTIER_SOURCE_DIR") + "/src/store/testdata/vllm_bench_serve.json";
}

// A vLLM result whose model_id retitles the window, rings the bell, clears the
// screen and carries a C1 CSI.
std::string HostileResult(const testing_util::ScratchDir& tmp) {
  std::ifstream in(VllmFile());
  nlohmann::json j = nlohmann::json::parse(in);
  j["model_id"] = "evil\x1b]0;pwned\x07\x1b[2J\xc2\x9b" "31m";
  const std::string path = tmp.Path("hostile.json");
  std::ofstream(path) << j.dump();
  return path;
}

bool HasControl(const std::string& out) {
  for (size_t i = 0; i < out.size(); ++i) {
    const unsigned char c = static_cast<unsigned char>(out[i]);
    if ((c < 0x20 && c != '\n' && c != '\t') || c == 0x7f) return true;
    if (c == 0xc2 && i + 1 < out.size() && static_cast<unsigned char>(out[i + 1]) >= 0x80 &&
        static_cast<unsigned char>(out[i + 1]) <= 0x9f)
      return true;
  }
  return false;
}

TEST(OutsideText, ControlCharactersInNamesArePrintedEscaped) {
  testing_util::ScratchDir tmp("outside_text_escape");
  const std::string db = tmp.Path("r.db");
  const std::string file = HostileResult(tmp);
  auto [irc, imported] = Frontier("db import " + Quote(file) + " --db " + Quote(db));
  ASSERT_EQ(irc, 0) << imported;
  auto [irc2, imported2] = Frontier("db import " + Quote(file) + " --db " + Quote(db));
  ASSERT_EQ(irc2, 0) << imported2;
  auto [lrc, ls] = Frontier("db ls --db " + Quote(db));
  ASSERT_EQ(lrc, 0) << ls;
  auto [rrc, report] = Frontier("report --db " + Quote(db));
  ASSERT_EQ(rrc, 0) << report;
  auto [crc, compare] = Frontier("compare --db " + Quote(db) + " --baseline 1 --candidate 2");
  for (const auto& [name, out] : {std::pair<std::string, std::string>{"db import", imported}, {"db ls", ls},
                                  {"report", report}, {"compare", compare}}) {
    EXPECT_FALSE(HasControl(out)) << name << " printed a control character:\n" << out;
  }
  // Escaped, not dropped: the name is still readable.
  EXPECT_NE(imported.find("evil\\x1b]0;pwned\\x07\\x1b[2J\\u009b31m"), std::string::npos) << imported;
  EXPECT_NE(ls.find("evil\\x1b]0;pwned\\x07"), std::string::npos) << ls;
  EXPECT_NE(report.find("evil\\x1b]0;pwned\\x07"), std::string::npos) << report;
}

std::set<std::string> Listing(const fs::path& dir) {
  std::set<std::string> names;
  for (const auto& e : fs::directory_iterator(dir)) names.insert(e.path().filename().string());
  return names;
}

// Each read verb on the database in `dir`; the folder's listing after each
// must equal the one before. As root the folder's mode is not enforced, so
// the check is on the files, not on a refusal.
void ExpectReadersLeaveNothing(const fs::path& dir, const std::string& db, const fs::path& elsewhere) {
  const std::set<std::string> before = Listing(dir);
  const std::string on = " --db " + Quote(db);
  for (const std::string& verb :
       {"db ls" + on, "db export --format json" + on, "db export --format csv" + on, "report" + on,
        "compare --baseline 1 --candidate 2" + on,
        "db copy --from " + Quote(db) + " --to " + Quote((elsewhere / "copy.db").string())}) {
    auto [rc, out] = Frontier(verb);
    EXPECT_EQ(rc, 0) << verb << ": " << out;
    EXPECT_EQ(Listing(dir), before) << verb << " left a file beside the database";
  }
}

TEST(OutsideText, ReadVerbsCreateNoFileBesideTheDatabase) {
  testing_util::ScratchDir tmp("outside_text_files");
  const fs::path shared = tmp.dir / "shared";
  const fs::path elsewhere = tmp.dir / "elsewhere";
  fs::create_directories(shared);
  fs::create_directories(elsewhere);
  const std::string db = (shared / "r.db").string();
  for (int i = 0; i < 2; ++i) {
    auto [rc, out] = Frontier("db import " + Quote(VllmFile()) + " --db " + Quote(db));
    ASSERT_EQ(rc, 0) << out;
  }
  ASSERT_EQ(Listing(shared), std::set<std::string>{"r.db"});

  // A folder the reader may write (a shared folder, or any folder as root).
  ExpectReadersLeaveNothing(shared, db, elsewhere);
  // A folder the reader may not write (enforced unless root), the file read-only too.
  fs::permissions(db, fs::perms::owner_read | fs::perms::group_read | fs::perms::others_read);
  fs::permissions(shared, fs::perms::owner_read | fs::perms::owner_exec | fs::perms::group_read |
                              fs::perms::group_exec | fs::perms::others_read | fs::perms::others_exec);
  ExpectReadersLeaveNothing(shared, db, elsewhere);
  fs::permissions(shared, fs::perms::owner_all, fs::perm_options::add);
  fs::permissions(db, fs::perms::owner_write, fs::perm_options::add);
  // The owner still writes it afterwards.
  auto [rc, out] = Frontier("db import " + Quote(VllmFile()) + " --db " + Quote(db));
  EXPECT_EQ(rc, 0) << out;
}

}  // namespace
}  // namespace frontier
