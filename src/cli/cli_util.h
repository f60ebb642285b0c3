// cli_util.h: shared flag-parsing behaviour for every subcommand (CLI11).
//
// Bad usage prints one line, "frontier <cmd>: <flag>: <what is allowed>", to
// stderr and exits with status 2; --help prints the flags and exits 0.
#pragma once

#include <CLI/CLI.hpp>

#include <cstdint>
#include <map>
#include <memory>
#include <string>

#include "core/run_result.h"
#include "core/status.h"
#include "metrics/summary.h"
#include "store/store.h"
#include "sweep/point_store.h"
#include "workload/dataset.h"
#include "workload/load.h"

namespace frontier::cli {

// Parses argv into `app`. Returns -1 when the command should go on, else the
// exit status to return (0 after --help, 2 after a usage error).
int Parse(CLI::App& app, int argc, char** argv);

// Prints "frontier <cmd>: <status message>" (secrets redacted) to stderr and returns the exit
// status for it: 2 for kInvalidArgument/kNotFound (the user can fix the
// input), 1 otherwise.
int Fail(const std::string& command, const Status& status);

// The --db help of every verb that opens the results database.
inline constexpr const char* kDbHelp =
    "Results database: a SQLite file, or postgresql://USER@HOST[:PORT]/DB (default: $FRONTIER_DB, else "
    "frontier.db)";

// Prints "frontier <cmd>: <message>" to stderr and returns 2.
int UsageError(const std::string& command, const std::string& message);

// The commonest failure reasons of a run's measured (not warm-up) requests,
// most frequent first, at most `top` of them, one line each:
//   "  1000 rejected (request 0: 131072 input + 128 output tokens exceed ...)"
// with the first request's detail as the example. "" when none failed.
std::string TopFailureReasons(const RunResult& run, size_t top = 3);

// The full command line, shell-quoted where needed, for provenance: every
// secret in it (--api-key's value, an Authorization header's, a database
// URL's password) replaced by "***" (RedactArgs, core/redact.h).
std::string CommandLine(int argc, char** argv);

// --- Storing what a verb runs in the results database -----------------------
//
// `frontier bench`, `simulate` and `search` take the same two flags; with
// --db each invocation is one run of the database and each point it measures
// or simulates is stored as it finishes (the same record a sweep stores,
// store::PointFromRun), so an interrupted command keeps what it finished.

struct DbFlags {
  std::string db;          // "" = nothing is stored
  std::string run_label;   // the stored run's sweep name (`db ls`, reports)
};

// Registers --db and --run-label (default `default_label`) in the "Results"
// group; `what` says what is stored, e.g. "every point is stored as ...".
void AddDbFlags(CLI::App& app, DbFlags* flags, const std::string& what, const std::string& default_label);

// "" when the parsed flags fit together, else the usage message: --run-label
// without --db, or an empty --run-label.
std::string CheckDbFlags(const CLI::App& app, const DbFlags& flags);

// Opens `location` for writing (a missing SQLite file is created, and
// "frontier <command>: created results database ..." printed), before
// anything runs: a missing folder, a read-only file or a foreign file is an
// error then, not after the run. The store's error otherwise.
Result<std::unique_ptr<store::Store>> OpenResultsDb(const std::string& command, const std::string& location);

// The provenance every stored run carries: frontier_version, command_line, host
// and started_utc. bench, simulate, search and sweep all start from it (a
// sweep's runner adds its plan's plan_file and, for a grid, planned_points).
std::map<std::string, std::string> RunProvenance(const std::string& command_line);

// Opens flags.db (OpenResultsDb) and starts storing the points of one
// `bench --db` or `simulate --db` invocation as `run` (sweep/point_store.h),
// with sweep flags.run_label and, when it has none, the provenance of its
// plan_text (RunProvenance).
Result<sweep::PointRecorder> StartPointRecorder(const std::string& command, const DbFlags& flags,
                                                store::RunInfo run);

}  // namespace frontier::cli
