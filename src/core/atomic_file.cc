#include "core/atomic_file.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>

namespace frontier {

Status WriteFileAtomically(const std::string& path, std::string_view contents) {
  const std::string tmp = path + ".tmp." + std::to_string(::getpid());
  int fd = ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (fd < 0) {
    // Name the file asked for (the temporary beside it is an implementation detail).
    const int err = errno;
    if (err == ENOENT) return NotFound("cannot write " + path + ": its folder does not exist");
    return IoError("cannot write " + path + " (through " + tmp + "): " + std::strerror(err));
  }
  size_t done = 0;
  while (done < contents.size()) {
    ssize_t n = ::write(fd, contents.data() + done, contents.size() - done);
    if (n < 0) {
      if (errno == EINTR) continue;
      std::string err = std::strerror(errno);
      ::close(fd);
      ::unlink(tmp.c_str());
      return IoError("cannot write " + tmp + ": " + err);
    }
    done += static_cast<size_t>(n);
  }
  if (::fsync(fd) != 0 || ::close(fd) != 0) {
    std::string err = std::strerror(errno);
    ::unlink(tmp.c_str());
    return IoError("cannot flush " + tmp + ": " + err);
  }
  if (::rename(tmp.c_str(), path.c_str()) != 0) {
    std::string err = std::strerror(errno);
    ::unlink(tmp.c_str());
    return IoError("cannot rename " + tmp + " to " + path + ": " + err);
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
