// atomic_file.h: replace a file's contents so readers see the old or the new
// version, never a torn one (write to a temporary beside it, fsync, rename).
//
// Thread safety: concurrent writers of the same path race; the last rename wins.
#pragma once

#include <string>
#include <string_view>

#include "core/status.h"

namespace frontier {

// Writes `contents` to `path` atomically. On failure the old file is intact
// and the Status names the path and the system error.
Status WriteFileAtomically(const std::string& path, std::string_view contents);

// Reads a whole file. NotFound if it does not exist.
Result<std::string> ReadFile(const std::string& path);

}  // namespace frontier
