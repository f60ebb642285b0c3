// pg_store.h: the PostgreSQL back end of Store, for a results database that
// many sweeps on many hosts write into at once.
//
//   OpenPgStore("postgresql://frontier@db.example/results")
//
// `location` is a libpq connection URI (postgresql:// or postgres://; a Unix
// socket folder goes in `?host=/path`). The database must exist (createdb);
// frontier creates and migrates its tables in it, with the same schema and
// migrations as SQLite (schema.h).
//
// Concurrency: opening to write takes a transaction-scoped advisory lock
// while it reads and migrates the schema, so processes that open an empty
// database at once create it once. AddPoint is one transaction holding the
// point and its requests, and takes another advisory lock so that point ids
// are committed in increasing order (ListPointsAfter never skips a point a
// slower writer commits later). UNIQUE(run_id, point_key) makes a second
// copy of a point a FailedPrecondition, never a duplicate row.
//
// kReadOnly opens a session whose transactions are all READ ONLY: nothing it
// does can write, and an older schema is read as it is.
//
// Thread safety: one PgStore per thread (one connection each).
#pragma once

#include <memory>
#include <string>

#include "core/status.h"
#include "store/schema.h"
#include "store/store.h"

namespace frontier::store {

// Opens the database at `location` as OpenStore does, migrating a writable
// one up to `target_version`. Unavailable when the server cannot be reached
// or refuses the login (libpq's message, with the URL); NotFound when the
// database does not exist; InvalidArgument when it holds tables but no
// frontier `meta` (another application's database), or, read-only, none at all.
Result<std::unique_ptr<Store>> OpenPgStore(const std::string& location, OpenMode mode = OpenMode::kCreate,
                                           int target_version = kSchemaVersion);

}  // namespace frontier::store
