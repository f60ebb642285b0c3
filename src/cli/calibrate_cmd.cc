// `frontier calibrate`: fits a stack version's free parameters to published
// results (data/validation) and/or to runs measured into a results database,
// prints each point's fit and leave-one-out error, and writes the stack
// version file with its provenance. Parsing and printing only; the fit is
// sim/fit/calibration.h.
//
//   frontier calibrate --stack vllm-rocm@0.4.3 --in-place
//   frontier calibrate --stack vllm-cuda --db runs.db --runs 3,4,5
//       --model llama-3.1-8b --hardware h100 --version 0.9-mine   (one line)
//   frontier calibrate --db runs.db --probe 7      (a probe run: GPU efficiency curves)
#include <cstdio>
#include <ctime>
#include <sstream>

#include "cli/cli_util.h"
#include "cli/command.h"
#include "cli/sim_flags.h"
#include "core/redact.h"
#include "probe/fit.h"
#include "probe/record.h"
#include "sim/engine/config.h"
#include "sim/engine/data_dir.h"
#include "sim/engine/gpu_override.h"
#include "sim/fit/calibration.h"
#include "sim/fit/measured.h"
#include "store/store.h"

namespace frontier::cli {
namespace {

constexpr const char* kCmd = "calibrate";

Result<std::vector<std::string>> SplitList(const std::string& text, const char* flag) {
  std::vector<std::string> out;
  std::stringstream ss(text);
  std::string item;
  while (std::getline(ss, item, ','))
    if (!item.empty()) out.push_back(item);
  if (out.empty() && !text.empty()) return InvalidArgument(std::string(flag) + ": empty list");
  return out;
}

// The stored points of `runs` in `db` with their requests, fitted on `config`
// (sim/fit/measured.h decides which points and requests a fit uses).
Result<std::vector<sim::ResultModel>> MeasuredModels(const std::string& db, const std::vector<std::string>& runs,
                                                     const sim::SimConfig& config) {
  FRONTIER_ASSIGN_OR_RETURN(auto store, store::OpenStore(db, store::OpenMode::kSnapshot));
  std::vector<sim::MeasuredPoint> points;
  for (const auto& text : runs) {
    char* end = nullptr;
    const long long run_id = std::strtoll(text.c_str(), &end, 10);
    if (end != text.c_str() + text.size() || run_id < 1)
      return InvalidArgument("--runs takes comma-separated run ids (frontier db ls), got '" + text + "'");
    FRONTIER_ASSIGN_OR_RETURN(store::RunInfo info, store->GetRun(run_id));
    FRONTIER_ASSIGN_OR_RETURN(std::vector<store::PointRecord> stored, store->ListPoints(run_id));
    for (const auto& p : stored) {
      sim::MeasuredPoint m{info.Label() + "/" + p.key, db + " point " + std::to_string(p.id), p.load_kind,
                           p.load_value, p.metrics.output_throughput, {}};
      if (m.load_kind == "concurrency" && m.output_throughput > 0) {
        FRONTIER_ASSIGN_OR_RETURN(std::vector<store::RequestRow> rows, store->ListRequests(p.id));
        for (const auto& r : rows) m.requests.push_back({r.ok, r.warmup, r.prompt_tokens, r.output_tokens});
      }
      points.push_back(std::move(m));
    }
  }
  return sim::MeasuredModels(points, config, RedactUrl(db));
}

// --probe: fits the probe run's GEMM and HBM points as the efficiency curves
// of its GPU and writes them as that GPU's override (sim/engine/gpu_override.h).
int CalibrateFromProbe(const std::string& db, const std::string& run_text, const std::vector<std::string>& only,
                       const std::string& out_path, bool dry_run) {
  char* end = nullptr;
  const long long run_id = std::strtoll(run_text.c_str(), &end, 10);
  if (end != run_text.c_str() + run_text.size() || run_id < 1)
    return UsageError(kCmd, "--probe takes a probe run's id (frontier db ls), got '" + run_text + "'");
  auto store = store::OpenStore(db, store::OpenMode::kSnapshot);
  if (!store.ok()) return Fail(kCmd, store.status());
  Result<store::RunInfo> info = (*store)->GetRun(run_id);
  if (!info.ok()) return Fail(kCmd, info.status());
  Result<probe::ProbeResult> r = probe::LoadProbeRun(**store, run_id);
  if (!r.ok()) return Fail(kCmd, r.status());
  const std::string dir = sim::DefaultDataDir();
  Result<sim::Hardware> hw = sim::LoadHardware(r->hardware, dir);
  if (!hw.ok()) return Fail(kCmd, hw.status());
  Result<probe::ProbeFit> fit = probe::FitProbe(*r, info->Label(), info->created_utc, only);
  if (!fit.ok()) return Fail(kCmd, fit.status());
  std::printf("== probe run %s: %s on %s (%s)\n", info->Label().c_str(), r->device.name.c_str(), hw->name.c_str(),
              r->device.backend.c_str());
  for (const auto& c : fit->curves)
    std::printf("  gemm.%s: max %.4f, half %.1f rows over %d points (rms %.1f%% in log)\n",
                probe::GemmPrecisionName(c.precision), c.curve.max, c.curve.half, c.points, 100 * c.rms_log_error);
  Result<std::optional<sim::GpuOverride>> before = sim::LoadGpuOverride(dir, hw->name);
  for (const auto& [name, v] : fit->override_file.params) {
    std::string was = "";
    if (before.ok() && *before && (*before)->params.count(name))
      was = " (this GPU's override had " + std::to_string((*before)->params.at(name).value) + ")";
    std::printf("  %-22s -> %g%s\n", name.c_str(), v.value, was.c_str());
  }
  if (dry_run) return 0;
  const std::string path = out_path.empty() ? sim::GpuOverridePath(dir, hw->name) : out_path;
  if (Status st = sim::WriteGpuOverride(fit->override_file, path); !st.ok()) return Fail(kCmd, st);
  std::printf("  wrote %s: every stack on %s now uses these values (frontier simulate --explain shows them in use)\n",
              path.c_str(), hw->name.c_str());
  return 0;
}

struct CalibrateFlags {
  std::string fit, only, out_path, version, db, runs, note, probe_run;
  bool in_place = false, no_loo = false, dry_run = false, no_published = false;
  sim::ValidationOptions vo;
  sim::SimSpec spec;
};

void AddCalibrateFlags(CLI::App& app, CalibrateFlags* f) {
  app.add_option("--fit", f->fit, "Parameters to fit, comma-separated [the stack's calibration.free]");
  app.add_option("--id", f->only, "Only published results whose id contains this text");
  app.add_flag("--no-published", f->no_published, "Fit only the measured runs (--db, --runs)");
  app.add_option("--db", f->db, std::string(kDbHelp) + "; holds the measured runs (--runs)");
  app.add_option("--runs", f->runs, "Run ids in --db to fit (their concurrency points), comma-separated");
  app.add_option("--probe", f->probe_run,
                 "A probe run in --db (frontier probe): fit its GEMM and HBM points as its GPU's efficiency curves, "
                 "written to data/probes/<gpu>.json (or --out)");
  app.add_option("--version", f->version, "Version of the stack file written [<version>+cal<date>]");
  app.add_option("--out", f->out_path, "Path of the stack file written [data/stacks/<name>@<version>.json]");
  app.add_flag("--in-place", f->in_place, "Rewrite the stack version's own file");
  app.add_flag("--dry-run", f->dry_run, "Fit and print; write nothing");
  app.add_flag("--no-loo", f->no_loo, "Skip the leave-one-out refits");
  app.add_option("--note", f->note, "One line kept in the file's calibration record");
  app.add_option("--offline-requests", f->vo.offline_requests, "Samples drawn per Offline run [6000]");
  app.add_option("--server-requests", f->vo.server_requests, "Requests per probe of the Server rate search [4000]");
  // The deployment of measured runs; its --stack names the stack version to
  // fit (name or name@version, or 'all').
  AddSimSpecFlags(app, &f->spec);
}

// --probe: a GPU's curves from a probe run.
int CalibrateProbe(const CalibrateFlags& f) {
  if (f.db.empty()) return UsageError(kCmd, "--probe needs --db, the results database that holds the probe run");
  if (!f.runs.empty() || f.spec.stack || f.in_place || !f.version.empty())
    return UsageError(kCmd, "--probe fits a GPU, not a stack: drop --runs, --stack, --in-place and --version");
  std::vector<std::string> probe_fit;
  if (!f.fit.empty()) {
    Result<std::vector<std::string>> names = SplitList(f.fit, "--fit");
    if (!names.ok()) return Fail(kCmd, names.status());
    probe_fit = *names;
  }
  return CalibrateFromProbe(f.db, f.probe_run, probe_fit, f.out_path, f.dry_run);
}

// The usage errors of a stack's fit; "" when the flags fit together.
std::string CalibrateUsageProblem(const CLI::App& app, const CalibrateFlags& f) {
  if (!f.spec.stack) return "--stack is required: the stack version to fit, or 'all'";
  if (!f.db.empty() && f.runs.empty()) return "--db needs --runs (frontier db ls lists them)";
  if (f.db.empty() && !f.runs.empty()) return "--runs needs --db";
  if (!f.db.empty() && (!app.count("--model") || !app.count("--hardware")))
    return "measured runs need their deployment: --model and --hardware (and --tp, ... as run)";
  if (f.in_place + !f.version.empty() + !f.out_path.empty() > 1) return "give one of --in-place, --version and --out";
  return "";
}

// The stack versions --stack names: one, or every one with parameters to fit.
Result<std::vector<std::string>> StacksToFit(const CalibrateFlags& f, const sim::CalibrationOptions& co,
                                             const std::string& dir) {
  if (*f.spec.stack != "all") return std::vector<std::string>{*f.spec.stack};
  std::vector<std::string> stacks;
  for (const auto& s : sim::ListStackVersions(dir))
    if (!s.free_params.empty() || !co.free.empty()) stacks.push_back(s.id());
  if (!f.db.empty()) return InvalidArgument("--stack all fits published results only; name one stack for --db");
  if (!f.out_path.empty() || !f.version.empty())
    return InvalidArgument("--stack all writes each stack's own file: use --in-place or --dry-run");
  return stacks;
}

// The points a stack is fitted to: its published results (those it may be
// fitted on) and the measured runs of --db.
Result<std::vector<sim::ResultModel>> ModelsToFit(const CalibrateFlags& f, const sim::ValidationSet& set,
                                                  const sim::Stack& stack, const std::vector<std::string>& run_ids) {
  std::vector<sim::ResultModel> models;
  for (const auto& r : set.results) {
    if (f.no_published) break;
    if (r.stack != stack.id() || (!f.only.empty() && r.id.find(f.only) == std::string::npos)) continue;
    if (!r.Calibratable()) {
      std::printf("skipping %s: %s (never fitted)\n", r.id.c_str(),
                  r.OnCalibrationGpu() ? "marked held_out" : ("on " + r.hardware + ", a validation GPU").c_str());
      continue;
    }
    FRONTIER_ASSIGN_OR_RETURN(sim::ResultModel m, sim::ResultModel::Create(r, set, f.vo));
    models.push_back(std::move(m));
  }
  if (f.db.empty()) return models;
  sim::SimSpec spec = f.spec;
  spec.stack = stack.id();
  FRONTIER_ASSIGN_OR_RETURN(const sim::SimConfig config, sim::ResolveSimConfig(spec));
  FRONTIER_ASSIGN_OR_RETURN(std::vector<sim::ResultModel> measured, MeasuredModels(f.db, run_ids, config));
  for (auto& m : measured) models.push_back(std::move(m));
  return models;
}

void PrintCalibration(const sim::Stack& stack, const sim::CalibrationResult& cal) {
  std::printf("== %s: %zu points, %zu free parameters\n", stack.id().c_str(), cal.points.size(), cal.free.size());
  std::printf("%-48s %11s %11s %8s %11s %8s\n", "point", "measured", "fitted", "error", "LOO pred", "LOO err");
  for (const auto& p : cal.points) {
    char loo[32] = "", loo_err[32] = "";
    if (p.loo_predicted > 0) {
      std::snprintf(loo, sizeof loo, "%.1f", p.loo_predicted);
      std::snprintf(loo_err, sizeof loo_err, "%+.1f%%", 100 * p.loo_error);
    }
    std::printf("%-48s %11.1f %11.1f %+7.1f%% %11s %8s\n", p.id.c_str(), p.measured, p.predicted, 100 * p.error, loo,
                loo_err);
  }
  for (const auto& name : cal.free)
    std::printf("  %-28s prior %-10g -> %g\n", name.c_str(), sim::GetParam(stack.priors, name),
                sim::GetParam(cal.params, name));
  for (const auto& [name, why] : cal.not_identified)
    std::printf("  %-28s kept at %g: not identified (%s)\n", name.c_str(), sim::GetParam(cal.params, name),
                why.c_str());
  std::printf("  %.2f s: %d Levenberg-Marquardt iterations, %lld trace replays, %d simulations\n", cal.seconds,
              cal.iterations, static_cast<long long>(cal.replays), cal.simulations);
}

// Writes the fitted stack version where the flags say.
Status WriteFitted(const CalibrateFlags& f, const sim::Stack& stack, const sim::CalibrationResult& cal,
                   const std::string& dir) {
  std::string v = f.version, path = f.out_path;
  if (f.in_place) {
    v = stack.version;
    path = stack.file;
  } else {
    if (v.empty()) {
      std::string date = "cal";
      const std::time_t t = std::time(nullptr);
      char buf[16];
      std::strftime(buf, sizeof buf, "%Y%m%d", std::gmtime(&t));
      v = stack.version + "+" + date + buf;
    }
    if (path.empty()) path = dir + "/stacks/" + stack.name + "@" + v + ".json";
  }
  FRONTIER_RETURN_IF_ERROR(sim::WriteCalibratedStack(stack, cal, stack.file, path, v, f.note));
  std::printf("  wrote %s (%s@%s)\n", path.c_str(), stack.name.c_str(), v.c_str());
  return Status::Ok();
}

int RunCalibrate(int argc, char** argv) {
  CLI::App app{"Fit a stack version's parameters to published results and/or measured runs", kCmd};
  CalibrateFlags f;
  AddCalibrateFlags(app, &f);
  if (const int rc = Parse(app, argc, argv); rc >= 0) return rc;
  if (!f.probe_run.empty()) return CalibrateProbe(f);
  if (const std::string bad = CalibrateUsageProblem(app, f); !bad.empty()) return UsageError(kCmd, bad);
  const std::string dir = sim::DefaultDataDir();
  Result<sim::ValidationSet> set = sim::LoadValidation(dir);
  if (!set.ok()) return Fail(kCmd, set.status());
  sim::CalibrationOptions co;
  co.leave_one_out = !f.no_loo;
  if (!f.fit.empty()) {
    Result<std::vector<std::string>> names = SplitList(f.fit, "--fit");
    if (!names.ok()) return Fail(kCmd, names.status());
    co.free = *names;
  }
  Result<std::vector<std::string>> stacks = StacksToFit(f, co, dir);
  if (!stacks.ok()) return Fail(kCmd, stacks.status());
  std::vector<std::string> run_ids;
  if (!f.runs.empty()) {
    Result<std::vector<std::string>> r = SplitList(f.runs, "--runs");
    if (!r.ok()) return Fail(kCmd, r.status());
    run_ids = *r;
  }
  double total_seconds = 0;
  int total_points = 0, fitted_stacks = 0;
  for (const auto& id : *stacks) {
    Result<sim::Stack> stack = sim::LoadStack(id, dir);
    if (!stack.ok()) return Fail(kCmd, stack.status());
    Result<std::vector<sim::ResultModel>> models = ModelsToFit(f, *set, *stack, run_ids);
    if (!models.ok()) return Fail(kCmd, models.status());
    if (models->empty()) {
      // --stack all (with --id) fits the stacks that have matching results.
      if (*f.spec.stack == "all") continue;
      return UsageError(kCmd, "nothing to fit " + stack->id() + " to: no published result names it (data/validation) "
                              "and no --db runs were given");
    }
    Result<sim::CalibrationResult> cal = sim::Calibrate(*stack, *models, co);
    if (!cal.ok()) return Fail(kCmd, cal.status());
    total_seconds += cal->seconds;
    total_points += static_cast<int>(cal->points.size());
    ++fitted_stacks;
    PrintCalibration(*stack, *cal);
    if (f.dry_run) continue;
    if (Status st = WriteFitted(f, *stack, *cal, dir); !st.ok()) return Fail(kCmd, st);
  }
  if (total_points == 0)
    return UsageError(kCmd, "nothing to fit: no published result of any stack matches --id '" + f.only + "'");
  if (stacks->size() > 1)
    std::printf("%d points over %d stacks in %.2f s\n", total_points, fitted_stacks, total_seconds);
  return 0;
}

}  // namespace
}  // namespace frontier::cli

FRONTIER_REGISTER_COMMAND(calibrate, "Fit a stack version's parameters to published results or measured runs",
                          frontier::cli::RunCalibrate);
