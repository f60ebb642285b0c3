// spec_fields.h: the settings of a SimSpec a command line gives, as one
// flag table (core/flag_table.h), so every command that takes a simulated
// system (`frontier simulate`, `serve`, `search`, `calibrate`) binds the same
// flags: cli/sim_flags.cc binds it.
//
// Thread safety: the table is immutable.
#pragma once

#include <span>

#include "core/flag_table.h"
#include "sim/engine/config.h"

namespace frontier::sim {

// Every field, in the order --help lists them, in groups "System", "Engine"
// and "Disaggregation". --max-num-seqs and --prefix-caching are setters.
// Validation beyond the setters' is ResolveSimConfig's, which names the flag
// at fault.
std::span<const FlagRow<SimSpec>> SimSpecFields();

}  // namespace frontier::sim
