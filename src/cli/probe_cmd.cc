// `frontier probe`: microbenchmarks of one GPU at a model's own shapes
// (probe/probe.h), printed, written as JSON and stored as a run of kind
// "probe". Parsing and printing only.
//
//   frontier probe --model llama-3.1-8b,llama-3.1-70b --db runs.db
//   frontier probe --probe-backend fake --hardware h200 --result-json p.json
#include <algorithm>
#include <cctype>
#include <cstdio>
#include <sstream>

#include "cli/cli_util.h"
#include "cli/command.h"
#include "core/ascii.h"
#include "core/atomic_file.h"
#include "core/clock.h"
#include "core/redact.h"
#include "probe/open.h"
#include "probe/record.h"
#include "sim/engine/data_dir.h"

namespace frontier::cli {
namespace {

constexpr const char* kCmd = "probe";

std::vector<std::string> Split(const std::string& text) {
  std::vector<std::string> out;
  std::stringstream ss(text);
  std::string item;
  while (std::getline(ss, item, ','))
    if (!item.empty()) out.push_back(item);
  return out;
}

// The catalog entry whose name or alias appears in the device's name, when exactly one does.
Result<sim::Hardware> GuessHardware(const std::string& device, const std::string& dir) {
  const std::string d = AsciiLower(device);
  std::vector<sim::Hardware> hits;
  for (const auto& name : sim::ListHardware(dir)) {
    Result<sim::Hardware> hw = sim::LoadHardware(name, dir);
    if (!hw.ok()) continue;
    std::vector<std::string> names = hw->aliases;
    names.push_back(hw->name);
    for (const auto& n : names)
      if (d.find(AsciiLower(n)) != std::string::npos) {
        hits.push_back(*hw);
        break;
      }
  }
  if (hits.size() == 1) return hits.front();
  return InvalidArgument("--hardware is needed: the device '" + device + "' matches " + std::to_string(hits.size()) +
                         " catalog entries (frontier simulate --list-hardware names them)");
}

std::string Fixed(double v, int digits) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.*f", digits, v);
  return buf;
}

void PrintResult(const probe::ProbeResult& r) {
  std::printf("device: %s (%s, %s, %d GPU%s) against the catalog's %s\n", r.device.name.c_str(),
              r.device.backend.c_str(), r.device.arch.c_str(), r.device.devices, r.device.devices == 1 ? "" : "s",
              r.hardware.c_str());
  std::printf("%-14s %-8s %-5s %6s %6s %6s  %10s %10s %7s %7s  %s\n", "model", "layer", "prec", "M", "N", "K",
              "default TF", "tuned TF", "of peak", "gain", "tuned algorithm (rank)");
  for (const auto& g : r.gemm) {
    const double gain = g.tuned_seconds > 0 ? g.default_seconds / g.tuned_seconds - 1 : 0;
    std::printf("%-14s %-8s %-5s %6lld %6lld %6lld  %10.1f %10.1f %6.1f%% %+6.1f%%  %s (%d of %d)\n",
                g.model.c_str(), g.layer.c_str(), probe::GemmPrecisionName(g.precision),
                static_cast<long long>(g.m), static_cast<long long>(g.n), static_cast<long long>(g.k),
                g.DefaultTflops(), g.TunedTflops(), 100 * g.TunedFraction(), 100 * gain, g.tuned_algo.c_str(),
                g.tuned_rank, g.candidates);
  }
  for (const auto& s : r.stream)
    std::printf("HBM %-6s %8.1f GB/s  %5.1f%% of %.0f GB/s (%lld MiB per array)\n", s.kernel.c_str(), s.Gbps(),
                100 * s.Fraction(), s.peak_gbps, static_cast<long long>(s.bytes_per_array >> 20));
  for (const auto& d : r.decode)
    std::printf("decode attention %s: batch %d x %d tokens, %d/%d heads: %.1f GB/s, %.1f%% of HBM peak, "
                "max |error| %s vs host reference\n",
                d.model.c_str(), d.problem.batch, d.problem.context, d.problem.heads, d.problem.kv_heads, d.Gbps(),
                100 * d.Fraction(), Fixed(d.max_abs_error, 5).c_str());
  for (const auto& c : r.collectives)
    std::printf("%s over %d GPUs: %.1f GB/s bus bandwidth (%.0f MiB)\n", c.op.c_str(), c.result.gpus,
                c.result.bus_gbps, c.result.bytes / 1048576);
  for (const auto& n : r.notes) std::printf("note: %s\n", n.c_str());
}

int RunProbeCmd(int argc, char** argv) {
  CLI::App app{"Measure a GPU's GEMMs, HBM bandwidth, decode attention and collectives at a model's shapes", kCmd};
  std::string models = "llama-3.1-8b", hardware, backend = "auto", tokens, precisions, result_json;
  probe::ProbeOptions o;
  int64_t stream_mib = 1024;
  DbFlags db;
  app.add_option("--model", models, "Catalog models whose layer shapes are probed, comma-separated [llama-3.1-8b]");
  app.add_option("--hardware", hardware,
                 "Catalog GPU whose peaks the fractions are of [guessed from the device's name]");
  app.add_option("--probe-backend", backend, "auto, cuda or fake (deterministic figures, no GPU) [auto: "
                                             "$FRONTIER_PROBE_BACKEND, else cuda]");
  app.add_option("--tp", o.tp, "Tensor parallelism the layer shapes are split by [1]");
  app.add_option("--tokens", tokens, "GEMM rows M (tokens per step), comma-separated [16,64,256,1024,4096]");
  app.add_option("--precision", precisions, "GEMM precisions, comma-separated: bf16, fp8, fp4 [every one the GPU has]");
  app.add_option("--top-n", o.top_n, "Algorithms of the library's heuristic timed per GEMM [8]");
  app.add_option("--iterations", o.iterations, "Timed launches per algorithm and kernel [10]");
  app.add_option("--stream-mib", stream_mib, "MiB per array of the HBM copy and triad kernels [1024]");
  app.add_option("--decode-batch", o.decode_batch, "Sequences of the decode-attention step [64]");
  app.add_option("--decode-context", o.decode_context, "Cached tokens per sequence of the decode step [4096]");
  app.add_option("--result-json", result_json, "Write the probe's figures to this JSON file");
  AddDbFlags(app, &db, "the probe is stored as one run of kind probe", "probe");
  if (const int rc = Parse(app, argc, argv); rc >= 0) return rc;
  if (std::string why = CheckDbFlags(app, db); !why.empty()) return UsageError(kCmd, why);
  if (!tokens.empty()) {
    o.tokens.clear();
    for (const auto& t : Split(tokens)) {
      char* end = nullptr;
      const long long v = std::strtoll(t.c_str(), &end, 10);
      if (end != t.c_str() + t.size()) return UsageError(kCmd, "--tokens takes comma-separated integers, got '" + t + "'");
      o.tokens.push_back(v);
    }
  }
  for (const auto& p : Split(precisions)) {
    Result<probe::GemmPrecision> gp = probe::ParseGemmPrecision(p, "--precision");
    if (!gp.ok()) return Fail(kCmd, gp.status());
    o.precisions.push_back(*gp);
  }
  if (stream_mib < 1) return UsageError(kCmd, "--stream-mib must be at least 1");
  o.stream_bytes = stream_mib << 20;

  const std::string dir = sim::DefaultDataDir();
  std::vector<sim::ModelSpec> specs;
  for (const auto& m : Split(models)) {
    Result<sim::ModelSpec> spec = sim::LoadModel(m, dir);
    if (!spec.ok()) return Fail(kCmd, spec.status());
    specs.push_back(*spec);
  }
  // The fake needs the catalog's peaks before it exists; a GPU names itself.
  sim::Hardware hw;
  if (!hardware.empty()) {
    Result<sim::Hardware> h = sim::LoadHardware(hardware, dir);
    if (!h.ok()) return Fail(kCmd, h.status());
    hw = *h;
  }
  const bool fake = backend == "fake" || (backend == "auto" && std::getenv("FRONTIER_PROBE_BACKEND") &&
                                          std::string(std::getenv("FRONTIER_PROBE_BACKEND")) == "fake");
  if (fake && hardware.empty())
    return UsageError(kCmd, "the fake backend needs --hardware: the catalog GPU whose peaks it stands in for");
  Result<std::unique_ptr<probe::ProbeBackend>> b = probe::OpenBackend(backend, hw);
  if (!b.ok()) return Fail(kCmd, b.status());
  if (hardware.empty()) {
    Result<sim::Hardware> h = GuessHardware((*b)->Info().name, dir);
    if (!h.ok()) return Fail(kCmd, h.status());
    hw = *h;
  }
  std::unique_ptr<store::Store> store;
  if (!db.db.empty()) {
    Result<std::unique_ptr<store::Store>> s = OpenResultsDb(kCmd, db.db);
    if (!s.ok()) return Fail(kCmd, s.status());
    store = std::move(*s);
  }
  const std::string started = UtcTimestampNow();
  Result<probe::ProbeResult> r = probe::RunProbe(**b, hw, specs, o);
  if (!r.ok()) return Fail(kCmd, r.status());
  PrintResult(*r);
  if (!result_json.empty()) {
    nlohmann::json j = probe::ProbeToJson(*r);
    j["started_utc"] = started;
    if (Status st = WriteFileAtomically(result_json, j.dump(2) + "\n"); !st.ok()) return Fail(kCmd, st);
    std::printf("wrote %s\n", result_json.c_str());
  }
  if (store) {
    auto provenance = RunProvenance(CommandLine(argc, argv));
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
