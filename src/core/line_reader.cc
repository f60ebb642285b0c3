#include "core/line_reader.h"

#include <fcntl.h>
#include <sys/stat.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>

#include "core/atomic_file.h"

namespace frontier {

uint64_t LineLimit() {
  const char* env = std::getenv("FRONTIER_MAX_LINE_MB");
  if (env == nullptr || *env == '\0' || env[0] == '-') return kMaxLineBytes;
  char* end = nullptr;
  const unsigned long long mb = std::strtoull(env, &end, 10);
  if (*end != '\0' || mb < 1 || mb > (uint64_t{1} << 20)) return kMaxLineBytes;
  return mb * kMiB;
}

Result<LineReader> LineReader::Open(const std::string& path, uint64_t max_bytes, std::string_view what) {
  LineReader r;
  r.path_ = path;
  r.what_ = std::string(what);
  r.limit_ = InputLimit(max_bytes);
  r.line_limit_ = LineLimit();
  std::FILE* f = std::fopen(path.c_str(), "rbe");
  if (f == nullptr) {
    const int err = errno;
    if (err == ENOENT) return NotFound("cannot open " + path + ": " + std::strerror(err));
    return IoError("cannot open " + path + ": " + std::strerror(err));
  }
  r.file_.reset(f);
  struct stat st {};
  if (::fstat(::fileno(f), &st) == 0) {
    if (S_ISDIR(st.st_mode)) return InvalidArgument(path + " is a directory, not a file");
    // A regular file past the bound is refused before any of it is read.
    if (S_ISREG(st.st_mode) && static_cast<uint64_t>(st.st_size) > r.limit_) return r.TooLarge();
  }
  return r;
}

Status LineReader::TooLarge() const {
  return InvalidArgument(path_ + ": larger than " + std::to_string(limit_ / kMiB) + " MiB, the bound on " + what_ +
                         " (docs/limits.md); set FRONTIER_MAX_INPUT_MB to raise it");
}

Status LineReader::LineTooLong() const {
  return InvalidArgument(path_ + ":" + std::to_string(line_no_ + 1) + ": a line longer than " +
                         std::to_string(line_limit_ / kMiB) + " MiB, the bound on one line of " + what_ +
                         " (docs/limits.md); set FRONTIER_MAX_LINE_MB to raise it");
}

Result<size_t> LineReader::Read(char* buf, size_t n) {
  const size_t got = std::fread(buf, 1, n, file_.get());
  if (got < n && std::ferror(file_.get())) return IoError("cannot read " + path_ + ": " + std::strerror(errno));
  consumed_ += got;
  if (consumed_ > limit_) return TooLarge();
  return got;
}

Result<bool> LineReader::Next(std::string* line) {
  line->clear();
  bool any = false;
  while (true) {
    const int c = getc_unlocked(file_.get());
    if (c == EOF) {
      if (std::ferror(file_.get())) return IoError("cannot read " + path_ + ": " + std::strerror(errno));
      if (!any) return false;
      break;
    }
    any = true;
    if (++consumed_ > limit_) return TooLarge();
    if (c == '\n') break;
    // Only a line bound below the file's: else the file's bound (its message) comes first.
    if (line->size() >= line_limit_ && line_limit_ < limit_) return LineTooLong();
    line->push_back(static_cast<char>(c));
  }
  ++line_no_;
  return true;
}

}  // namespace frontier
