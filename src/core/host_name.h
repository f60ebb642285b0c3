// host_name.h: the machine's host name, as provenance and launch records
// keep it.
//
// One reader of gethostname(2), so every record that names the machine (a
// run's provenance, a measured run's host, a shard's metadata, a sweep's
// launch records and the orphan check that compares against them) holds the
// same text.
//
//   run.host = HostName();   // "gpu-node-07"
//
// Thread safety: safe from any thread.
#pragma once

#include <cstddef>
#include <string>

namespace frontier {

// The host name gethostname(2) gives, or "" when it cannot be read. Linux
// names are at most 64 bytes; a longer one is cut to 255 bytes, never left
// without its terminating NUL.
std::string HostName();

namespace internal {
// HostName() with gethostname(2) replaced by `read`, which has its contract
// (fill at most `len` bytes, 0 on success); for tests of the buffer handling.
using HostNameReader = int (*)(char* name, size_t len);
std::string HostName(HostNameReader read);
}  // namespace internal

}  // namespace frontier
