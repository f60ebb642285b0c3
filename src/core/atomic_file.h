// atomic_file.h: whole files in and out.
//
// Writes replace a file's contents so readers see the old or the new
// version, never a torn one (write to a temporary beside it, fsync, rename).
// Reads are bounded: a file (or a device such as /dev/zero, or a pipe) larger
// than the bound is an error naming the path and the bound, reached after
// reading at most the bound, so no input can exhaust memory. The bounds are
// listed in docs/limits.md; FRONTIER_MAX_INPUT_MB, set to a whole number of
// MiB, replaces every one of them.
//
// Thread safety: concurrent writers of the same path race; the last rename wins.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "core/status.h"

namespace frontier {

// Writes `contents` to `path` atomically. On failure the old file is intact
// and the Status names the path and the system error. A symbolic link to a
// file keeps its link (the file it names is replaced); a device or a pipe
// (/dev/stdout, a FIFO) is written in place, not replaced; a directory is
// InvalidArgument.
Status WriteFileAtomically(const std::string& path, std::string_view contents);

// Default bounds on whole-file reads, by what the file is.
inline constexpr uint64_t kMiB = uint64_t{1} << 20;
inline constexpr uint64_t kMaxPlanBytes = 16 * kMiB;       // sweep plans (YAML)
inline constexpr uint64_t kMaxCatalogBytes = 16 * kMiB;    // model config.json, catalog files
inline constexpr uint64_t kMaxImportBytes = 512 * kMiB;    // imported vLLM / InferenceX results
inline constexpr uint64_t kMaxFileBytes = 1024 * kMiB;     // anything else (datasets, results)

// `default_bytes`, or FRONTIER_MAX_INPUT_MB MiB when that variable holds a
// whole number from 1 to 1048576 (other values are ignored).
uint64_t InputLimit(uint64_t default_bytes);

// Reads a whole file of at most InputLimit(max_bytes) bytes. NotFound if it
// does not exist; InvalidArgument naming the path, `what` it is and the bound
// when it is larger (or a directory); IoError for a failed read.
Result<std::string> ReadFile(const std::string& path, uint64_t max_bytes = kMaxFileBytes,
                             std::string_view what = "input files");

}  // namespace frontier
