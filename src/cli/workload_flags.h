// workload_flags.h: the workload, load, scenario and output flags shared by
// `frontier bench`, `frontier simulate` and `frontier search`, bound to CLI11
// from their one table (loadgen/workload_request.h: the flags, their defaults
// and the conventions ResolveWorkload applies), the binder of such tables, and
// the reader of the flags given.
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

#include <map>
#include <span>
#include <string>
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

// Adds the flag of `row` to `app` in its group, bound to its field of *values
// (a setter's complaint is CLI11's validation error, naming the flag).
template <class Raw>
CLI::Option* AddFlagRow(CLI::App& app, const FlagRow<Raw>& row, std::type_identity_t<Raw>* values) {
  return std::visit(
      [&](auto member) -> CLI::Option* {
        using Member = decltype(member);
        if constexpr (std::is_same_v<Member, typename FlagRow<Raw>::Setter>) {
          auto set = [member, values, flag = std::string(row.name)](const std::string& text) {
            if (std::string bad = member(text, values); !bad.empty()) throw CLI::ValidationError(flag, bad);
          };
          return app.add_option_function<std::string>(row.name, set, row.help)->group(row.group);
        } else if constexpr (std::is_same_v<Member, bool Raw::*>) {
          return app.add_flag(row.name, values->*member, row.help)->group(row.group);
        } else {
          return app.add_option(row.name, values->*member, row.help)->group(row.group);
        }
      },
      row.field);
}

// Adds every row of `rows`, in order; their options, to tell given flags from defaults.
template <class Raw>
std::vector<CLI::Option*> AddFlagRows(CLI::App& app, std::span<const FlagRow<Raw>> rows,
                                      std::type_identity_t<Raw>* values) {
  std::vector<CLI::Option*> options;
  for (const FlagRow<Raw>& row : rows) options.push_back(AddFlagRow(app, row, values));
  return options;
}

// The flags among `options` given on the command line, by their first long
// name without "--": an option's values as typed, joined by spaces; a flag's
// last value, the one it set ("--ignore-eos --no-ignore-eos": "false").
std::map<std::string, std::string> GivenFlags(const std::vector<const CLI::Option*>& options);
// The same for the flags of `app` named in `names` (with "--").
std::map<std::string, std::string> GivenFlags(const CLI::App& app, const std::vector<std::string>& names);
// Whether a flag (with "--") was given to `app`, for the checks below cli/; app outlives the answer.
inline FlagGiven GivenIn(const CLI::App& app) { return [&app](const std::string& f) { return app.count(f) > 0; }; }

// The raw values CLI11 fills, and its options: to tell given flags from defaults.
struct WorkloadFlags : loadgen::WorkloadRequest {
  std::vector<const CLI::Option*> options;
};

// Registers the flags on `app`, bound to `*flags` (which must outlive app).
inline void AddWorkloadFlags(CLI::App& app, WorkloadFlags* flags) {
  for (const CLI::Option* o : AddFlagRows(app, loadgen::WorkloadFlagRows(), flags)) flags->options.push_back(o);
}

// loadgen::ResolveWorkload of the parsed flags, with flags->given filled.
Result<ResolvedWorkload> ResolveWorkload(WorkloadFlags& flags);

}  // namespace frontier::cli
