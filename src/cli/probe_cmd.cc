// `frontier probe`: microbenchmarks of one GPU at a model's own shapes
// (probe/probe.h), printed, written as JSON and stored as a run of kind
// "probe". Parsing and printing only.
//
//   frontier probe --model llama-3.1-8b,llama-3.1-70b --db runs.db
//   frontier probe --probe-backend fake --hardware h200 --result-json p.json
#include <cstdio>
#include <iostream>

#include "cli/cli_util.h"
#include "cli/command.h"
#include "cli/workload_flags.h"
#include "core/atomic_file.h"
#include "core/clock.h"
#include "core/redact.h"
#include "probe/record.h"
#include "probe/setup.h"
#include "probe/text.h"
#include "store/records.h"
#include "store/store.h"
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
  std::unique_ptr<store::Store> store;
  if (!db.db.empty()) {
    Result<std::unique_ptr<store::Store>> s = store::OpenResultsDb(kCmd, db.db, std::cerr);
    if (!s.ok()) return Fail(kCmd, s.status());
    store = std::move(*s);
  }
  const std::string started = UtcTimestampNow();
  Result<probe::ProbeResult> r = probe::RunProbe(*p->backend, p->hardware, p->models, p->options);
  if (!r.ok()) return Fail(kCmd, r.status());
  std::fputs(probe::ProbeResultText(*r).c_str(), stdout);
  if (!f.result_json.empty()) {
    nlohmann::json j = probe::ProbeToJson(*r);
    j["started_utc"] = started;
    if (Status st = WriteFileAtomically(f.result_json, j.dump(2) + "\n"); !st.ok()) return Fail(kCmd, st);
    std::printf("wrote %s\n", f.result_json.c_str());
  }
  if (store) {
    auto provenance = store::RunProvenance(CommandLine(argc, argv));
    provenance["started_utc"] = started;
    Result<store::RunInfo> run = probe::StoreProbe(*store, *r, db.run_label, provenance);
    if (!run.ok()) return Fail(kCmd, run.status());
    std::printf("stored run %lld (%s) in %s\n", static_cast<long long>(run->id), run->Label().c_str(),
                RedactUrl(db.db).c_str());
  }
  return 0;
}

}  // namespace
}  // namespace frontier::cli

FRONTIER_REGISTER_COMMAND(probe, "Measure a GPU's GEMMs, HBM, decode attention and collectives at a model's shapes",
                          frontier::cli::RunProbeCmd);
