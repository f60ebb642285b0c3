// system_run.h: the stored run of one system, from a plan or a command line.
//
// A plan's system and the system `frontier bench`, `simulate` or `search`
// names with its flags are one record: each is described as a SystemSpec,
// and its run stores SystemSpec::Config() (sweep/plan.h), so `db ls`,
// reports and comparisons read the same keys whichever command stored it.
//
// Thread safety: functions of their arguments.
#pragma once

#include <map>
#include <string>

#include "sim/engine/config.h"
#include "store/records.h"
#include "sweep/plan.h"

namespace frontier::sweep {

// The system a simulated command ran: `asked` as its flags gave it, with the
// deployment the simulator resolved from them (model, hardware, GPUs, tp, ep,
// dp, precisions, stack, MTP draft tokens) in place of the defaults, so the
// stored run names what was simulated. Named "simulated MODEL on Nx HARDWARE".
SystemSpec SimulatedSystem(const sim::SimSpec& asked, const sim::SimConfig& resolved);

// A server the command line measures: `model` served at `base_url` +
// `endpoint` on `gpus` GPUs. Named by its URL.
SystemSpec ServerSystem(const std::string& model, const std::string& base_url, const std::string& endpoint, int gpus);

// store::Source::kSimulated for a simulated system, else kMeasured (a server,
// and a `live` simulation measured over HTTP).
store::Source SourceOf(const SystemSpec& system);

// The run `system` is stored as: its name, its source (SourceOf) and its Config(). The caller adds the
// plan or command line, provenance and its own keys.
store::RunInfo SystemRun(const SystemSpec& system);

// The run one command line stores (`bench`, `simulate`, `search` with --db):
// SystemRun(system) with its configuration over `settings` (the workload's
// effective settings: a system key wins) and `command_line` as its plan text.
store::RunInfo CommandRun(const SystemSpec& system, const std::map<std::string, std::string>& settings,
                          const std::string& command_line);

}  // namespace frontier::sweep
