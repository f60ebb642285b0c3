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
  probe::ProbeOptions& o = f.options;
  std::string result_json;
  DbFlags db;
  app.add_option("--model", f.models, "Catalog models whose layer shapes are probed, comma-separated [llama-3.1-8b]");
  app.add_option("--hardware", f.hardware,
                 "Catalog GPU whose peaks the fractions are of [guessed from the device's name]");
  app.add_option("--probe-backend", f.backend, "auto, cuda or fake (deterministic figures, no GPU) [auto: "
                                               "$FRONTIER_PROBE_BACKEND, else cuda]");
  app.add_option("--tp", o.tp, "Tensor parallelism the layer shapes are split by [1]");
  app.add_option("--tokens", f.tokens, "GEMM rows M (tokens per step), comma-separated [16,64,256,1024,4096]");
  app.add_option("--precision", f.precisions,
                 "GEMM precisions, comma-separated: bf16, fp8, fp4 [every one the GPU has]");
  app.add_option("--top-n", o.top_n, "Algorithms of the library's heuristic timed per GEMM [8]");
  app.add_option("--iterations", o.iterations, "Timed launches per algorithm and kernel [10]");
  app.add_option("--stream-mib", f.stream_mib, "MiB per array of the HBM copy and triad kernels [1024]");
  app.add_option("--decode-batch", o.decode_batch, "Sequences of the decode-attention step [64]");
  app.add_option("--decode-context", o.decode_context, "Cached tokens per sequence of the decode step [4096]");
  app.add_option("--result-json", result_json, "Write the probe's figures to this JSON file");
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
  if (!result_json.empty()) {
    nlohmann::json j = probe::ProbeToJson(*r);
    j["started_utc"] = started;
    if (Status st = WriteFileAtomically(result_json, j.dump(2) + "\n"); !st.ok()) return Fail(kCmd, st);
    std::printf("wrote %s\n", result_json.c_str());
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
