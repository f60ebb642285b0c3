// `frontier probe`: microbenchmarks of one GPU at a model's own shapes
// (probe/probe.h), printed, written as JSON and stored as a run of kind
// "probe". Parsing and printing only; the work is probe/job.h.
//
//   frontier probe --model llama-3.1-8b,llama-3.1-70b --db runs.db
//   frontier probe --probe-backend fake --hardware h200 --result-json p.json
#include <cstdio>
#include <iostream>

#include "cli/cli_util.h"
#include "cli/command.h"
#include "cli/workload_flags.h"
#include "core/redact.h"
#include "probe/job.h"
#include "probe/setup.h"
#include "sim/engine/data_dir.h"

namespace frontier::cli {
namespace {

constexpr const char* kCmd = "probe";

int RunProbeCmd(int argc, char** argv) {
  CLI::App app{"Measure a GPU's GEMMs, HBM bandwidth, decode attention and collectives at a model's shapes", kCmd};
  probe::ProbeFlags f;
  DbFlags db;
  AddFlagRows(app, probe::ProbeFlagRows(), &f);
  AddDbFlags(app, &db, "the probe is stored as one run of kind probe", "probe");
  if (const int rc = Parse(app, argc, argv); rc >= 0) return rc;
  if (std::string why = CheckDbFlags(app, db); !why.empty()) return UsageError(kCmd, why);
  Result<probe::ProbeSetup> p = probe::OpenProbe(f, sim::DefaultDataDir());
  if (!p.ok()) return Fail(kCmd, p.status());
  const probe::ProbeOutputs outputs{f.result_json, db.db, db.run_label, CommandLine(argc, argv)};
  auto show = [](const std::string& text) { std::fputs(text.c_str(), stdout); };
  if (Status st = probe::RunProbeJob(*p, outputs, show, std::cerr); !st.ok()) return Fail(kCmd, st);
  return 0;
}

}  // namespace
}  // namespace frontier::cli

FRONTIER_REGISTER_COMMAND(probe, "Measure a GPU's GEMMs, HBM, decode attention and collectives at a model's shapes",
                          frontier::cli::RunProbeCmd);
