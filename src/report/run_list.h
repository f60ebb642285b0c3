// run_list.h: the runs of a results database as `frontier db ls` shows them:
// one table row per run (id, sweep/system, source, status, points, hardware,
// GPUs, creation time) and a closing count. Text only; the command prints it.
//
// Thread safety: reads the Store the caller owns.
#pragma once

#include <string>

#include "core/status.h"
#include "store/store.h"

namespace frontier::report {

// `location` is the database as given (redacted in the count line).
Result<std::string> RunListText(store::Store& s, const std::string& location);

}  // namespace frontier::report
