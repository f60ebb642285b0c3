#include "core/atomic_file.h"

#include <gtest/gtest.h>
#include <sys/stat.h>

#include <fstream>
#include <iterator>
#include <thread>

#include <cstdlib>
#include <filesystem>

#include "util/scratch.h"

namespace frontier {
namespace {

TEST(AtomicFileTest, ReplacesContents) {
  testing_util::ScratchDir tmp("atomic");  // removed at the end, also when an assertion fails
  const std::filesystem::path& dir = tmp.dir;
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
}

TEST(AtomicFileTest, FailureNamesThePath) {
  Status s = WriteFileAtomically("/nonexistent-dir/x.json", "x");
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.message().find("/nonexistent-dir/x.json"), std::string::npos);
  EXPECT_EQ(ReadFile("/nonexistent-dir/x.json").status().code(), StatusCode::kNotFound);
}

TEST(AtomicFileTest, APipeOrALinkIsWrittenThroughNotReplaced) {
  testing_util::ScratchDir tmp("atomic_kinds");  // removed at the end, also when an assertion fails
  const std::filesystem::path& dir = tmp.dir;
  // A FIFO (as /dev/stdout or /dev/full would be) used to be replaced by a regular file.
  const std::string fifo = (dir / "pipe").string();
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
  std::string received;
  std::thread reader([&] {
    std::ifstream in(fifo);
    received.assign(std::istreambuf_iterator<char>(in), {});
  });
  EXPECT_TRUE(WriteFileAtomically(fifo, "through the pipe").ok());
  reader.join();
  EXPECT_EQ(received, "through the pipe");
  EXPECT_TRUE(std::filesystem::is_fifo(fifo));
  // A link keeps pointing at its file, whose contents are replaced.
  const std::string file = (dir / "real.json").string(), link = (dir / "link.json").string();
  ASSERT_TRUE(WriteFileAtomically(file, "old").ok());
  std::filesystem::create_symlink(file, link);
  ASSERT_TRUE(WriteFileAtomically(link, "new").ok());
  EXPECT_TRUE(std::filesystem::is_symlink(link));
  EXPECT_EQ(*ReadFile(file), "new");
  // A directory is named as such.
  Status d = WriteFileAtomically(dir.string(), "x");
  EXPECT_EQ(d.code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(d.message(), "cannot write " + dir.string() + ": it is a directory");
}

TEST(ReadFileTest, AnEndlessDeviceStopsAtTheBoundWithAClearError) {
  auto r = ReadFile("/dev/zero", 4 * kMiB, "plan files");
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(r.status().message(),
            "/dev/zero: larger than 4 MiB, the bound on plan files (docs/limits.md); set "
            "FRONTIER_MAX_INPUT_MB to raise it");
}

TEST(ReadFileTest, ARegularFileOverTheBoundIsRefusedAndTheVariableRaisesIt) {
  testing_util::ScratchDir tmp("read");  // removed at the end, also when an assertion fails
  const std::filesystem::path& dir = tmp.dir;
  const std::string path = (dir / "big").string();
  ASSERT_TRUE(WriteFileAtomically(path, std::string(kMiB + 1, 'x')).ok());
  EXPECT_FALSE(ReadFile(path, kMiB).ok());
  EXPECT_TRUE(ReadFile(path, 2 * kMiB).ok());
  ::setenv("FRONTIER_MAX_INPUT_MB", "2", 1);
  EXPECT_EQ(InputLimit(kMiB), 2 * kMiB);
  auto r = ReadFile(path, kMiB);
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r->size(), kMiB + 1);
  ::setenv("FRONTIER_MAX_INPUT_MB", "-1", 1);  // not a size: ignored
  EXPECT_EQ(InputLimit(kMiB), kMiB);
  ::unsetenv("FRONTIER_MAX_INPUT_MB");
  auto d = ReadFile(dir.string());
  ASSERT_FALSE(d.ok());
  EXPECT_EQ(d.status().message(), dir.string() + " is a directory, not a file");
}

}  // namespace
}  // namespace frontier
