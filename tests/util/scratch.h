// scratch.h: a scratch folder for tests that write files (databases, plans,
// results), removed at the end even when a test made it read-only, and the
// small file and SQLite helpers those tests share.
#pragma once

#include <sqlite3.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <system_error>

#include <gtest/gtest.h>

namespace frontier::testing_util {

namespace fs = std::filesystem;

// $TMPDIR/frontier_<name>_<pid>, created empty; removed (made writable first)
// when it goes out of scope.
struct ScratchDir {
  fs::path dir;
  explicit ScratchDir(const std::string& name)
      : dir(fs::temp_directory_path() / ("frontier_" + name + "_" + std::to_string(::getpid()))) {
    Clean();
    fs::create_directories(dir);
  }
  ~ScratchDir() { Clean(); }
  ScratchDir(const ScratchDir&) = delete;
  ScratchDir& operator=(const ScratchDir&) = delete;
  void Clean() {
    std::error_code ec;
    if (fs::exists(dir, ec)) fs::permissions(dir, fs::perms::owner_all, fs::perm_options::add, ec);
    fs::remove_all(dir, ec);
  }
  // Writes `text` to the file `file` in the folder; returns its path.
  std::string Write(const std::string& file, const std::string& text) const {
    std::ofstream(dir / file) << text;
    return (dir / file).string();
  }
  std::string Path(const std::string& file) const { return (dir / file).string(); }
};

// A whole file's bytes ("" when it cannot be read).
inline std::string Slurp(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

// Runs SQL on a SQLite file directly (to damage or age a database on purpose).
inline void ExecSql(const std::string& path, const std::string& sql) {
  sqlite3* db = nullptr;
  ASSERT_EQ(sqlite3_open(path.c_str(), &db), SQLITE_OK);
  char* err = nullptr;
  ASSERT_EQ(sqlite3_exec(db, sql.c_str(), nullptr, nullptr, &err), SQLITE_OK) << sql << ": " << (err ? err : "");
  sqlite3_free(err);
  sqlite3_close(db);
}

}  // namespace frontier::testing_util
