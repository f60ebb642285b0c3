// target_flags.h: the flags that name a live server and how to talk to it
// (loadgen/target_request.h), bound to CLI11 for every command that measures
// one (`frontier bench`, `frontier search --base-url`).
//
//   TargetFlags tf;
//   AddTargetFlags(app, &tf, /*with_model=*/true);   // before parsing
//   ... cli::Parse(app, argc, argv) ...
//   Result<loadgen::BenchOptions> b = ResolveTarget(tf, model, *workload);
//
// Thread safety: call from the parsing thread only.
#pragma once

#include <CLI/CLI.hpp>

#include <string_view>

#include "cli/workload_flags.h"
#include "loadgen/target_request.h"

namespace frontier::cli {

using TargetFlags = loadgen::TargetRequest;
using loadgen::ResolveTarget;

// Adds the target flags to `app`. With with_model false the command defines
// --model itself.
inline void AddTargetFlags(CLI::App& app, TargetFlags* f, bool with_model) {
  for (const FlagRow<TargetFlags>& row : loadgen::TargetFlagRows())
    if (with_model || row.name != std::string_view("--model")) AddFlagRow(app, row, f);
}

}  // namespace frontier::cli
