// sqlite_store.h: the SQLite back end of Store (the default, and today the only one).
//
// The database is opened in WAL mode with a busy timeout, so a reader (report,
// db ls) can run while a sweep writes. Each AddPoint is one transaction: a
// point and its requests are stored together or not at all, so a sweep killed
// at any moment leaves only whole points behind.
//
// Schema versions: the `meta` table holds `schema_version`. Opening an older
// database applies the missing migrations in order, each in its own
// transaction; a database newer than this build is refused.
//
// Thread safety: one SqliteStore per thread.
#pragma once

#include <memory>
#include <string>

#include "core/status.h"
#include "store/store.h"

namespace frontier::store {

// The schema version this build writes.
inline constexpr int kSchemaVersion = 2;

// Opens or creates `path`, migrating it up to `target_version` (tests pass a
// lower version to create an old database). IoError naming the path when it
// cannot be opened; FailedPrecondition when its schema is newer than this build.
Result<std::unique_ptr<Store>> OpenSqliteStore(const std::string& path,
                                               int target_version = kSchemaVersion);

// Opens an existing `path` read-only (SQLITE_OPEN_READONLY): no file is
// created, no migration runs, the journal mode is left as it is (a WAL
// database stays readable while a sweep writes it). See OpenStoreReadOnly.
Result<std::unique_ptr<Store>> OpenSqliteStoreReadOnly(const std::string& path);

}  // namespace frontier::store
