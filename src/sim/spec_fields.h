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
// and "Disaggregation": the flag column of sim/engine/spec_table.h, which
// holds each field's plan key and bounds too. --max-num-seqs and
// --prefix-caching are setters. Validation beyond the setters' is
// ResolveSimConfig's (the table's bounds among it), which names the flag at
// fault.
std::span<const FlagRow<SimSpec>> SimSpecFields();

}  // namespace frontier::sim
