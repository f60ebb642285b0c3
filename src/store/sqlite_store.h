// sqlite_store.h: the SQLite back end of Store (the default: one file, no server).
//
// The database is opened in WAL mode with a busy timeout, so a reader (report,
// db ls) can run while a sweep writes. Each AddPoint is one transaction: a
// point and its requests are stored together or not at all, so a sweep killed
// at any moment leaves only whole points behind.
//
// Schema versions: the `meta` table holds `schema_version`. Opening an older
// database to write applies the missing migrations in order in one
// transaction; opening it read-only reads it as it is (columns added later
// read as 0). A database newer than this build is refused, and so is a
// schema_version that is not an integer in [1, kSchemaVersion].
//
// Thread safety: one SqliteStore per thread.
#pragma once

#include <memory>
#include <string>

#include "core/status.h"
#include "store/schema.h"
#include "store/store.h"

namespace frontier::store {

// Opens `path` as OpenStore does, migrating a writable one up to
// `target_version` (tests pass a lower version to create an old database).
Result<std::unique_ptr<Store>> OpenSqliteStore(const std::string& path, OpenMode mode = OpenMode::kCreate,
                                               int target_version = kSchemaVersion);

}  // namespace frontier::store
