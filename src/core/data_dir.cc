// The lookup order, completing the one core/data_dir.h gives:
//   1. the environment variable FRONTIER_DATA_DIR;
//   2. an installed copy beside the running binary: FRONTIER_INSTALLED_DATA_DIR
//      (relative to the binary's folder, "../share/frontier/data" for
//      bin/frontier), when it holds a hardware/ folder, so an installed or
//      packaged frontier reads its own catalogs under any prefix or DESTDIR
//      (`cmake --install`, the .deb);
//   3. FRONTIER_DEFAULT_DATA_DIR, the source tree's data/ (a build-tree binary);
//   4. "data" relative to the working directory.
#include "core/data_dir.h"

#include <cstdlib>
#include <filesystem>
#include <system_error>

namespace frontier {

namespace {

// The installed catalogs beside the running binary, or "" when there are none
// (a build-tree binary, or a platform without /proc/self/exe).
std::string InstalledDataDir() {
#ifdef FRONTIER_INSTALLED_DATA_DIR
  std::error_code ec;
  const std::filesystem::path exe = std::filesystem::read_symlink("/proc/self/exe", ec);
  if (ec || exe.empty()) return "";
  const std::filesystem::path dir = (exe.parent_path() / FRONTIER_INSTALLED_DATA_DIR).lexically_normal();
  if (std::filesystem::is_directory(dir / "hardware", ec)) return dir.string();
#endif
  return "";
}

}  // namespace

std::string DefaultDataDir() {
  if (const char* env = std::getenv("FRONTIER_DATA_DIR"); env != nullptr && *env != '\0') return env;
  if (std::string installed = InstalledDataDir(); !installed.empty()) return installed;
#ifdef FRONTIER_DEFAULT_DATA_DIR
  return FRONTIER_DEFAULT_DATA_DIR;
#else
  return "data";
#endif
}

}  // namespace frontier
