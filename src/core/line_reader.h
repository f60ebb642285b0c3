// line_reader.h: a file read one line at a time within a bound on its bytes.
//
// Readers of line-oriented inputs (JSONL datasets, traces, shard records)
// hold the records they keep, never the file's text: memory follows what is
// counted, and the bound (InputLimit of core/atomic_file.h, so
// FRONTIER_MAX_INPUT_MB replaces it) is reached after reading at most that
// many bytes, however long a line is, whatever the file is (/dev/zero, a pipe).
//
//   FRONTIER_ASSIGN_OR_RETURN(LineReader in, LineReader::Open(path, kMaxFileBytes, "datasets"));
//   std::string line;
//   while (true) {
//     FRONTIER_ASSIGN_OR_RETURN(bool more, in.Next(&line));
//     if (!more) break;
//     ... in.line_no() ...
//   }
//
// One line is bounded too (LineLimit, 16 MiB by default): a reader parses a
// line whole, and the parse of one huge line (a JSON array of a hundred
// million numbers) holds many times its bytes (about 20 for small numbers:
// a line at the default bound may hold some 330 MiB while parsed, within the
// file's bound + 256 MiB that docs/limits.md promises; 64 MiB did not keep it). A line past it is an error
// naming the file, the line's number and the bound; FRONTIER_MAX_LINE_MB
// replaces the bound. A line bound at or above the file's bound is the file's
// bound (its message).
//
// Thread safety: one thread per reader.
#pragma once

#include <cstdint>
#include <cstdio>
#include <memory>
#include <string>
#include <string_view>

#include "core/status.h"

namespace frontier {

// Bytes of one line (its '\n' not counted) a line reader returns by default.
inline constexpr uint64_t kMaxLineBytes = uint64_t{16} << 20;

// kMaxLineBytes, or FRONTIER_MAX_LINE_MB MiB when that variable holds a whole
// number from 1 to 1048576 (other values are ignored).
uint64_t LineLimit();

class LineReader {
 public:
  // Opens `path` for reading. NotFound if it does not exist; InvalidArgument
  // for a directory or a regular file larger than InputLimit(max_bytes)
  // (ReadFile's message); IoError otherwise.
  static Result<LineReader> Open(const std::string& path, uint64_t max_bytes, std::string_view what);

  // The next line, without its '\n', into *line: true, or false at the end
  // of the file. InvalidArgument naming the path, `what` and the bound once
  // more than the bound's bytes have been read, or naming the path, the
  // line's number and LineLimit() once a line is longer than that (no more
  // of it is read); IoError for a failed read.
  Result<bool> Next(std::string* line);

  // Up to `n` bytes of the file as they come, into `buf`: how many (0 at its
  // end), for a reader that parses one document as a stream (a ShareGPT
  // array). Counted against the bound as lines are: TooLarge() past it;
  // IoError for a failed read. Not to be mixed with Next.
  Result<size_t> Read(char* buf, size_t n);

  int64_t line_no() const { return line_no_; }      // of the line Next returned last, from 1
  uint64_t bytes_read() const { return consumed_; }  // bytes of the lines returned so far
  uint64_t limit() const { return limit_; }
  uint64_t line_limit() const { return line_limit_; }  // enforced when below limit()
  const std::string& path() const { return path_; }

  // The error for input past the bound (ReadFile's words).
  Status TooLarge() const;
  // The error for line line_no() + 1 past LineLimit().
  Status LineTooLong() const;

 private:
  struct Closer {
    void operator()(std::FILE* f) const {
      if (f != nullptr) std::fclose(f);
    }
  };
  std::unique_ptr<std::FILE, Closer> file_;
  std::string path_, what_;
  uint64_t limit_ = 0, line_limit_ = 0, consumed_ = 0;
  int64_t line_no_ = 0;
};

}  // namespace frontier
