// sim_flags.h: the flags that describe a simulated serving system, defined
// once for every command that takes one (`frontier simulate`, `frontier serve`).
//
//   sim::SimSpec spec;
//   AddSimSpecFlags(app, &spec);   // --model --hardware --gpus --tp ... --acceptance
//
// The flags bind straight into the SimSpec, so a flag left out keeps
// SimSpec's default (optional fields stay unset: the catalog's default).
// Validation is ResolveSimConfig's, which names the flag at fault.
#pragma once

#include <CLI/CLI.hpp>

#include <string>
#include <vector>

#include "sim/config.h"

namespace frontier::cli {

// Adds the deployment flags (group "System") and the engine flags (group
// "Engine") to `app`, bound to *spec. REQUIRES: spec outlives parsing.
void AddSimSpecFlags(CLI::App& app, sim::SimSpec* spec);

// The flag names AddSimSpecFlags adds, with their leading "--".
const std::vector<std::string>& SimSpecFlagNames();

}  // namespace frontier::cli
