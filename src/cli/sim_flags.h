// sim_flags.h: the flags that describe a simulated serving system, defined
// once for every command that takes one (`frontier simulate`, `frontier serve`,
// `frontier search`), and the client's round trip of the commands that run
// the simulator in virtual time (`frontier simulate`, `frontier search`).
//
//   sim::SimSpec spec;
//   AddSimSpecFlags(app, &spec);   // --model --hardware --gpus --tp ... --acceptance
//   double rtt_us = kDefaultClientRttUs;
//   AddClientRttFlag(app, &rtt_us);
//   ... cli::Parse ... ResolveWorkload ... ResolveSimConfig ...
//   Result<Nanos> rtt = ClientRttNanos(rtt_us);
//   Status s = UseSimulatedSystem(config, app.count("--num-gpus") > 0, &workload);
//
// The flags bind straight into the SimSpec, so a flag left out keeps
// SimSpec's default (optional fields stay unset: the catalog's default).
// Validation is ResolveSimConfig's, which names the flag at fault.
#pragma once

#include <CLI/CLI.hpp>

#include <map>
#include <optional>
#include <string>
#include <vector>

#include "cli/workload_flags.h"
#include "core/clock.h"
#include "core/status.h"
#include "sim/engine/config.h"
#include "sim/simulate.h"

namespace frontier::cli {

// Adds the deployment flags (group "System") and the engine flags (group
// "Engine") to `app`, bound to *spec. REQUIRES: spec outlives parsing.
void AddSimSpecFlags(CLI::App& app, sim::SimSpec* spec);

// The flag names AddSimSpecFlags adds, with their leading "--".
const std::vector<std::string>& SimSpecFlagNames();

inline constexpr double kDefaultClientRttUs = static_cast<double>(sim::kDefaultClientRttNs) / kNanosPerMicro;

// Adds --client-rtt-us (group "Load"), bound to *us. REQUIRES: us outlives parsing.
void AddClientRttFlag(CLI::App& app, double* us);

// --client-rtt-us as sim::SimulateOptions::client_rtt_ns. InvalidArgument
// naming the flag outside [0, 1e9] microseconds.
Result<Nanos> ClientRttNanos(double us);

// Fits the resolved workload to the simulated system: the summary's GPU count
// is the system's (InvalidArgument when --num-gpus was given and disagrees)
// and random token ids are drawn below the model's vocabulary.
Status UseSimulatedSystem(const sim::SimConfig& config, bool num_gpus_given, ResolvedWorkload* w);

// How sure a prediction of `config` is (sim/fit/band.h): the band table of the
// catalogs under `data_dir` ("": the default), loaded once by the caller for
// its whole run, and the band of `config`'s class. When the catalogs cannot be
// read there is no band and *note says why: the prediction stands without it.
std::optional<PredictionBand> BandOf(const sim::SimConfig& config, const std::string& data_dir, std::string* note);
// "prediction band: +/-12% (MLA / tp / nvidia, 30 results); extrapolates: ..."
// or "prediction band: unavailable (<note>)", with a newline.
std::string BandLine(const std::optional<PredictionBand>& band, const std::string& note);

// The flags among `names` (with "--") given on the command line, as
// name without "--" -> value, for a run's requested settings.
std::map<std::string, std::string> GivenFlags(const CLI::App& app, const std::vector<std::string>& names);

}  // namespace frontier::cli
