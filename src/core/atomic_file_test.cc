#include "core/atomic_file.h"

#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>

namespace frontier {
namespace {

TEST(AtomicFileTest, ReplacesContents) {
  auto dir = std::filesystem::temp_directory_path() / ("frontier_atomic_" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  const std::string path = (dir / "f.json").string();
  ASSERT_TRUE(WriteFileAtomically(path, "old").ok());
  ASSERT_TRUE(WriteFileAtomically(path, "new contents").ok());
  Result<std::string> r = ReadFile(path);
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(*r, "new contents");
  // No temporary left behind.
  int files = 0;
  for (auto& e : std::filesystem::directory_iterator(dir)) { (void)e; ++files; }
  EXPECT_EQ(files, 1);
  std::filesystem::remove_all(dir);
}

TEST(AtomicFileTest, FailureNamesThePath) {
  Status s = WriteFileAtomically("/nonexistent-dir/x.json", "x");
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.message().find("/nonexistent-dir/x.json"), std::string::npos);
  EXPECT_EQ(ReadFile("/nonexistent-dir/x.json").status().code(), StatusCode::kNotFound);
}

}  // namespace
}  // namespace frontier
