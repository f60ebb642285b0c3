#include "core/host_name.h"

#include <unistd.h>

namespace frontier {
namespace internal {

std::string HostName(HostNameReader read) {
  // gethostname(2) does not promise a NUL when the name fills the buffer (glibc
  // copies a truncated name without one): the last byte is kept out of its reach.
  char buf[256] = {};
  if (read(buf, sizeof buf - 1) != 0) return "";
  return buf;
}

}  // namespace internal

std::string HostName() { return internal::HostName(&::gethostname); }

}  // namespace frontier
