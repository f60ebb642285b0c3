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
// Thread safety: one thread per reader.
#pragma once

#include <cstdint>
#include <cstdio>
#include <memory>
#include <string>
#include <string_view>

#include "core/status.h"

namespace frontier {

class LineReader {
 public:
  // Opens `path` for reading. NotFound if it does not exist; InvalidArgument
  // for a directory or a regular file larger than InputLimit(max_bytes)
  // (ReadFile's message); IoError otherwise.
  static Result<LineReader> Open(const std::string& path, uint64_t max_bytes, std::string_view what);

  // The next line, without its '\n', into *line: true, or false at the end
  // of the file. InvalidArgument naming the path, `what` and the bound once
  // more than the bound's bytes have been read; IoError for a failed read.
  Result<bool> Next(std::string* line);

  int64_t line_no() const { return line_no_; }      // of the line Next returned last, from 1
  uint64_t bytes_read() const { return consumed_; }  // bytes of the lines returned so far
  uint64_t limit() const { return limit_; }
  const std::string& path() const { return path_; }

  // The error for input past the bound (ReadFile's words).
  Status TooLarge() const;

 private:
  struct Closer {
    void operator()(std::FILE* f) const {
      if (f != nullptr) std::fclose(f);
    }
  };
  std::unique_ptr<std::FILE, Closer> file_;
  std::string path_, what_;
  uint64_t limit_ = 0, consumed_ = 0;
  int64_t line_no_ = 0;
};

}  // namespace frontier
