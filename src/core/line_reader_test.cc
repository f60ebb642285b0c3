#include "core/line_reader.h"

#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <string>
#include <vector>

#include "core/atomic_file.h"
#include "util/scratch.h"

namespace frontier {
namespace {

std::vector<std::string> ReadAll(LineReader& in) {
  std::vector<std::string> out;
  std::string line;
  while (true) {
    Result<bool> more = in.Next(&line);
    EXPECT_TRUE(more.ok()) << more.status().message();
    if (!more.ok() || !*more) break;
    out.push_back(line);
  }
  return out;
}

TEST(LineReaderTest, ReturnsEachLineWithItsNumber) {
  testing_util::ScratchDir tmp("lines");
  const std::string path = (tmp.dir / "a.jsonl").string();
  ASSERT_TRUE(WriteFileAtomically(path, "one\n\nthree\nlast without newline").ok());
  Result<LineReader> in = LineReader::Open(path, kMiB, "datasets");
  ASSERT_TRUE(in.ok());
  EXPECT_EQ(ReadAll(*in), (std::vector<std::string>{"one", "", "three", "last without newline"}));
  EXPECT_EQ(in->line_no(), 4);
}

TEST(LineReaderTest, StopsAtTheBoundHoweverLongTheLine) {
  testing_util::ScratchDir tmp("lines_bound");
  const std::string path = (tmp.dir / "big").string();
  ASSERT_TRUE(WriteFileAtomically(path, std::string(kMiB + 1, 'x')).ok());
  // A regular file past the bound: refused at open, nothing read.
  Result<LineReader> in = LineReader::Open(path, kMiB, "datasets");
  ASSERT_FALSE(in.ok());
  EXPECT_EQ(in.status().message(), path + ": larger than 1 MiB, the bound on datasets (docs/limits.md); set "
                                          "FRONTIER_MAX_INPUT_MB to raise it");
  // A device without a size: refused once the bound's bytes are read.
  Result<LineReader> zero = LineReader::Open("/dev/zero", kMiB, "traces");
  ASSERT_TRUE(zero.ok());
  std::string line;
  Result<bool> r = zero->Next(&line);
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find("/dev/zero: larger than 1 MiB, the bound on traces"), std::string::npos);
  EXPECT_LE(line.size(), kMiB);
}

// One line is bounded below the file: a long line is named by its number,
// and no more of it than the bound is held.
TEST(LineReaderTest, StopsAtTheLineBoundNamingTheLine) {
  testing_util::ScratchDir tmp("lines_line_bound");
  const std::string path = (tmp.dir / "long.jsonl").string();
  ASSERT_TRUE(WriteFileAtomically(path, "short\n" + std::string(kMiB, 'x') + "\nafter\n").ok());
  ::setenv("FRONTIER_MAX_LINE_MB", "1", 1);
  Result<LineReader> in = LineReader::Open(path, 4 * kMiB, "traces");
  ::unsetenv("FRONTIER_MAX_LINE_MB");
  ASSERT_TRUE(in.ok());
  EXPECT_EQ(in->line_limit(), kMiB);
  std::string line;
  Result<bool> first = in->Next(&line);
  ASSERT_TRUE(first.ok() && *first);
  EXPECT_EQ(line, "short");
  // Exactly the bound: allowed.
  Result<bool> at = in->Next(&line);
  ASSERT_TRUE(at.ok()) << at.status().message();
  EXPECT_EQ(line.size(), kMiB);
  EXPECT_EQ(in->line_no(), 2);

  const std::string past = (tmp.dir / "past.jsonl").string();
  ASSERT_TRUE(WriteFileAtomically(past, "short\n" + std::string(kMiB + 1, 'x') + "\n").ok());
  ::setenv("FRONTIER_MAX_LINE_MB", "1", 1);
  Result<LineReader> p = LineReader::Open(past, 4 * kMiB, "traces");
  ::unsetenv("FRONTIER_MAX_LINE_MB");
  ASSERT_TRUE(p.ok());
  ASSERT_TRUE(p->Next(&line).ok());
  Result<bool> r = p->Next(&line);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().message(), past + ":2: a line longer than 1 MiB, the bound on one line of traces "
                                         "(docs/limits.md); set FRONTIER_MAX_LINE_MB to raise it");
  EXPECT_LE(line.size(), kMiB);
  EXPECT_LE(p->bytes_read(), 2 * kMiB);  // no more of the line was read

  // The default is 16 MiB; a bad value of the variable keeps it.
  ::setenv("FRONTIER_MAX_LINE_MB", "0x10", 1);
  EXPECT_EQ(LineLimit(), kMaxLineBytes);
  ::unsetenv("FRONTIER_MAX_LINE_MB");
  EXPECT_EQ(LineLimit(), 16 * kMiB);
}

TEST(LineReaderTest, MissingFilesAndFoldersAreNamed) {
  testing_util::ScratchDir tmp("lines_missing");
  Result<LineReader> none = LineReader::Open((tmp.dir / "none").string(), kMiB, "traces");
  ASSERT_FALSE(none.ok());
  EXPECT_EQ(none.status().code(), StatusCode::kNotFound);
  Result<LineReader> dir = LineReader::Open(tmp.dir.string(), kMiB, "traces");
  ASSERT_FALSE(dir.ok());
  EXPECT_EQ(dir.status().message(), tmp.dir.string() + " is a directory, not a file");
}

}  // namespace
}  // namespace frontier
