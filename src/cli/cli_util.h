// cli_util.h: shared flag-parsing behaviour for every subcommand (CLI11), and
// the flags several commands share (--db and --run-label, --price).
//
// Bad usage prints one line, "frontier <cmd>: <flag>: <what is allowed>", to
// stderr and exits with status 2; --help prints the flags and exits 0.
#pragma once

#include <CLI/CLI.hpp>

#include <string>
#include <vector>

#include "core/status.h"
#include "sweep/point_store.h"

namespace frontier::cli {

// Parses argv into `app`. Returns -1 when the command should go on, else the
// exit status to return (0 after --help, 2 after a usage error).
int Parse(CLI::App& app, int argc, char** argv);

// Prints "frontier <cmd>: <status message>" (secrets redacted) to stderr and returns the exit
// status for it: 2 for kInvalidArgument/kNotFound (the user can fix the
// input), 1 otherwise; for OK nothing is printed and the status is 0.
int Fail(const std::string& command, const Status& status);

using sweep::kDbHelp;  // the --db help of every verb that opens the results database

// Prints "frontier <cmd>: <message>" to stderr and returns 2.
int UsageError(const std::string& command, const std::string& message);

// --db and --run-label of the verbs that store what they run (bench, simulate,
// search, probe); plain values, sweep/point_store.h.
using DbFlags = sweep::ResultsDb;

// Registers --db and --run-label (default `default_label`) in the "Results"
// group; `what` says what is stored, e.g. "every point is stored as ...".
void AddDbFlags(CLI::App& app, DbFlags* flags, const std::string& what, const std::string& default_label);

// "" when the parsed flags fit together, else the usage message: --run-label
// without --db, or an empty --run-label.
std::string CheckDbFlags(const CLI::App& app, const DbFlags& flags);

// --price and --price-tier of `frontier report` and `frontier dashboard`; the
// facts they select are report/hardware_facts.h's.
struct PriceFlags {
  std::vector<std::string> prices;  // --price HW=USD (repeatable; report::ParsePriceOverrides reads them)
  std::string tier = "neocloud";    // --price-tier
};

// Adds --price and --price-tier to `app`.
void AddPriceFlags(CLI::App& app, PriceFlags& flags);

}  // namespace frontier::cli
