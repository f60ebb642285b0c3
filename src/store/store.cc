#include "store/store.h"

#include <cstdlib>

#include "store/pg_store.h"
#include "store/sqlite_store.h"

namespace frontier::store {

std::string DefaultLocation() {
  const char* env = std::getenv("FRONTIER_DB");
  return env != nullptr && *env != '\0' ? env : "frontier.db";
}

Result<std::unique_ptr<Store>> OpenStore(const std::string& location, OpenMode mode) {
  if (location.empty()) {
    return InvalidArgument("--db must name a SQLite file or a postgresql:// URL (FRONTIER_DB is set but empty?)");
  }
  if (IsPostgresUrl(location)) return OpenPgStore(location, mode);
  return OpenSqliteStore(location, mode);
}

}  // namespace frontier::store
