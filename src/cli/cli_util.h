// cli_util.h: shared flag-parsing behaviour for every subcommand (CLI11).
//
// Bad usage prints one line, "frontier <cmd>: <flag>: <what is allowed>", to
// stderr and exits with status 2; --help prints the flags and exits 0.
#pragma once

#include <CLI/CLI.hpp>

#include <string>

#include "core/run_result.h"
#include "core/status.h"

namespace frontier::cli {

// Parses argv into `app`. Returns -1 when the command should go on, else the
// exit status to return (0 after --help, 2 after a usage error).
int Parse(CLI::App& app, int argc, char** argv);

// Prints "frontier <cmd>: <status message>" to stderr and returns the exit
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

// The full command line, shell-quoted where needed, for provenance.
std::string CommandLine(int argc, char** argv);

}  // namespace frontier::cli
