#include "core/atomic_file.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>

namespace frontier {

namespace {

// Writes all of `contents` to fd; 0 or the errno of the failed write.
int WriteAll(int fd, std::string_view contents) {
  size_t done = 0;
  while (done < contents.size()) {
    ssize_t n = ::write(fd, contents.data() + done, contents.size() - done);
    if (n < 0) {
      if (errno == EINTR) continue;
      return errno;
    }
    done += static_cast<size_t>(n);
  }
  return 0;
}

// A device or a pipe (/dev/stdout, /dev/null, a FIFO) is written in place:
// renaming a file over it would replace the device node or the pipe.
Status WriteInPlace(const std::string& path, std::string_view contents) {
  int fd = ::open(path.c_str(), O_WRONLY | O_CLOEXEC);
  if (fd < 0) return IoError("cannot write " + path + ": " + std::strerror(errno));
  int err = WriteAll(fd, contents);
  if (::close(fd) != 0 && err == 0) err = errno;
  if (err != 0) return IoError("cannot write " + path + ": " + std::strerror(err));
  return Status::Ok();
}

}  // namespace

Status WriteFileAtomically(const std::string& path, std::string_view contents) {
  // What `path` names now decides how it is replaced (stat follows links).
  struct stat target {};
  std::string file = path;
  if (::stat(path.c_str(), &target) == 0) {
    if (S_ISDIR(target.st_mode)) return InvalidArgument("cannot write " + path + ": it is a directory");
    if (!S_ISREG(target.st_mode)) return WriteInPlace(path, contents);
    // A symbolic link keeps pointing at the file, whose contents are replaced.
    struct stat link {};
    if (::lstat(path.c_str(), &link) == 0 && S_ISLNK(link.st_mode)) {
      if (char* resolved = ::realpath(path.c_str(), nullptr)) {
        file = resolved;
        std::free(resolved);
      }
    }
  }
  const std::string tmp = file + ".tmp." + std::to_string(::getpid());
  int fd = ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (fd < 0) {
    // Name the file asked for (the temporary beside it is an implementation detail).
    const int err = errno;
    if (err == ENOENT) return NotFound("cannot write " + path + ": its folder does not exist");
    return IoError("cannot write " + path + " (through " + tmp + "): " + std::strerror(err));
  }
  if (int err = WriteAll(fd, contents); err != 0) {
    ::close(fd);
    ::unlink(tmp.c_str());
    return IoError("cannot write " + tmp + ": " + std::strerror(err));
  }
  if (::fsync(fd) != 0 || ::close(fd) != 0) {
    std::string err = std::strerror(errno);
    ::unlink(tmp.c_str());
    return IoError("cannot flush " + tmp + ": " + err);
  }
  if (::rename(tmp.c_str(), file.c_str()) != 0) {
    std::string err = std::strerror(errno);
    ::unlink(tmp.c_str());
    return IoError("cannot rename " + tmp + " to " + file + ": " + err);
  }
  return Status::Ok();
}

uint64_t InputLimit(uint64_t default_bytes) {
  const char* env = std::getenv("FRONTIER_MAX_INPUT_MB");
  if (env == nullptr || *env == '\0') return default_bytes;
  char* end = nullptr;
  const unsigned long long mb = std::strtoull(env, &end, 10);
  if (*end != '\0' || mb < 1 || mb > (uint64_t{1} << 20) || env[0] == '-') return default_bytes;
  return mb * kMiB;
}

Result<std::string> ReadFile(const std::string& path, uint64_t max_bytes, std::string_view what) {
  const uint64_t limit = InputLimit(max_bytes);
  auto too_large = [&] {
    return InvalidArgument(path + ": larger than " + std::to_string(limit / kMiB) + " MiB, the bound on " +
                           std::string(what) +
                           " (docs/limits.md); set FRONTIER_MAX_INPUT_MB to raise it");
  };
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) {
    const int err = errno;
    if (err == ENOENT) return NotFound("cannot open " + path + ": " + std::strerror(err));
    return IoError("cannot open " + path + ": " + std::strerror(err));
  }
  struct stat st {};
  if (::fstat(fd, &st) == 0) {
    if (S_ISDIR(st.st_mode)) {
      ::close(fd);
      return InvalidArgument(path + " is a directory, not a file");
    }
    if (S_ISREG(st.st_mode) && static_cast<uint64_t>(st.st_size) > limit) {
      ::close(fd);
      return too_large();
    }
  }
  std::string out;
  if (S_ISREG(st.st_mode)) out.reserve(static_cast<size_t>(st.st_size));
  char buf[64 * 1024];
  while (true) {
    const ssize_t n = ::read(fd, buf, sizeof buf);
    if (n < 0) {
      if (errno == EINTR) continue;
      const std::string err = std::strerror(errno);
      ::close(fd);
      return IoError("cannot read " + path + ": " + err);
    }
    if (n == 0) break;
    if (out.size() + static_cast<uint64_t>(n) > limit) {
      ::close(fd);
      return too_large();
    }
    out.append(buf, static_cast<size_t>(n));
  }
  ::close(fd);
  return out;
}

}  // namespace frontier
