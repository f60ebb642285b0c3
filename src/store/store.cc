#include "store/store.h"

#include <cstdlib>
#include <iostream>

#include "core/redact.h"
#include "core/terminal_text.h"

#include "store/pg_store.h"
#include "store/sqlite_store.h"

namespace frontier::store {

void Store::SkipDamaged(const std::string& where, const std::string& what, const Status& why) {
  if (!skipped_.insert(what).second) return;
  ++skipped_by_table_[what.substr(0, what.find(' '))];
  const std::string line = where + ": " + what + ": " + why.message() +
                           "; the row is skipped (the database is damaged or was written by something else)";
  if (warn_) {
    warn_(line);
  } else {
    std::cerr << "frontier: warning: " << TerminalSafe(line) << "\n";
  }
}

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

Result<std::unique_ptr<Store>> OpenResultsDb(const std::string& command, const std::string& location,
                                             std::ostream& notes) {
  FRONTIER_ASSIGN_OR_RETURN(std::unique_ptr<Store> db, OpenStore(location, OpenMode::kCreate));
  if (db->Created()) notes << "frontier " << command << ": created results database " << RedactUrl(location) << "\n";
  return db;
}

}  // namespace frontier::store
