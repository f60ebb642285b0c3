#include "core/data_dir.h"

#include <cstdlib>

namespace frontier {

std::string DefaultDataDir() {
  if (const char* env = std::getenv("FRONTIER_DATA_DIR"); env != nullptr && *env != '\0') return env;
#ifdef FRONTIER_DEFAULT_DATA_DIR
  return FRONTIER_DEFAULT_DATA_DIR;
#else
  return "data";
#endif
}

}  // namespace frontier
