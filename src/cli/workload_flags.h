// workload_flags.h: the workload, load, scenario and output flags shared by
// `frontier bench`, `frontier simulate` and `frontier search`, bound to CLI11
// from their one table (loadgen/workload_request.h: the flags, their defaults
// and the conventions ResolveWorkload applies), and the binder of such tables.
//
//   CLI::App app{"..."};
//   WorkloadFlags flags;
//   AddWorkloadFlags(app, &flags);          // before parsing
//   ... cli::Parse(app, argc, argv) ...
//   Result<ResolvedWorkload> w = ResolveWorkload(flags);   // after parsing
//   if (!w.ok()) return cli::Fail("bench", w.status());     // one line, exit 2
//
// Thread safety: call from the parsing thread only.
#pragma once

#include <CLI/CLI.hpp>

#include <type_traits>
#include <variant>
#include <vector>

#include "core/flag_table.h"
#include "loadgen/workload_request.h"

namespace frontier::cli {

using workload::kDurationDatasetSize;
using workload::kUnboundedPrompts;
using loadgen::ApplyScenarioLoad;
using loadgen::PreparedWorkload;
using loadgen::PrepareWorkload;
using loadgen::ResolvedWorkload;
using loadgen::ResolveScenarioRules;
using loadgen::UseScenarioPromptPool;

// Adds the flag of `row` to `app` in its group, bound to its field of *values.
template <class Raw>
CLI::Option* AddFlagRow(CLI::App& app, const FlagRow<Raw>& row, std::type_identity_t<Raw>* values) {
  return std::visit(
      [&](auto member) {
        if constexpr (std::is_same_v<decltype(member), bool Raw::*>) {
          return app.add_flag(row.name, values->*member, row.help)->group(row.group);
        } else {
          return app.add_option(row.name, values->*member, row.help)->group(row.group);
        }
      },
      row.field);
}

// The raw values CLI11 fills, and its options: to tell given flags from defaults.
struct WorkloadFlags : loadgen::WorkloadRequest {
  std::vector<CLI::Option*> options;
};

// Registers the flags on `app`, bound to `*flags` (which must outlive app).
void AddWorkloadFlags(CLI::App& app, WorkloadFlags* flags);

// loadgen::ResolveWorkload of the parsed flags, with the flags given.
Result<ResolvedWorkload> ResolveWorkload(const WorkloadFlags& flags);

}  // namespace frontier::cli
