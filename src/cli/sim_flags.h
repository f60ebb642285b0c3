// sim_flags.h: the flags that describe a simulated serving system, defined
// once for every command that takes one (`frontier simulate`, `serve`,
// `search`, `calibrate`) from SimSpec's field table (sim/spec_fields.h), and
// the client's round trip of the commands that run the simulator in virtual
// time. ClientRttNanos, UseSimulatedSystem, BandOf and BandLine live beside
// what they are about (sim/); their names stay usable here.
//
// The flags bind straight into the SimSpec, so a flag left out keeps
// SimSpec's default. Validation is ResolveSimConfig's, which names the flag.
#pragma once

#include <CLI/CLI.hpp>

#include <string>
#include <vector>

#include "cli/workload_flags.h"
#include "sim/engine/config.h"
#include "sim/fit/band.h"
#include "sim/simulate_job.h"
#include "sim/simulate_options.h"

namespace frontier::cli {

// Adds every field of sim::SimSpecFields() to `app`, in its group, bound to
// *spec. REQUIRES: spec outlives parsing.
void AddSimSpecFlags(CLI::App& app, sim::SimSpec* spec);

// The flag names AddSimSpecFlags adds, with their leading "--", in its order.
const std::vector<std::string>& SimSpecFlagNames();

inline constexpr double kDefaultClientRttUs = static_cast<double>(sim::kDefaultClientRttNs) / kNanosPerMicro;

// Adds --client-rtt-us (group "Load"), bound to *us. REQUIRES: us outlives parsing.
void AddClientRttFlag(CLI::App& app, double* us);

using sim::BandLine;
using sim::BandOf;
using sim::ClientRttNanos;
using sim::UseSimulatedSystem;

}  // namespace frontier::cli
