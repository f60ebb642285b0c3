// `frontier calibrate`: fits a stack version's free parameters to published
// results (data/validation) and/or to runs measured into a results database,
// prints each point's fit and leave-one-out error, and writes the stack
// version file with its provenance. Parsing and printing only; the fit is
// sim/fit/calibration.h, what it fits and writes sim/fit/stack_fit.h, the
// measured runs and the stacks fitted in turn sweep/calibration_points.h, a
// probe's fit probe/stored_fit.h.
//
//   frontier calibrate --stack vllm-rocm@0.4.3 --in-place
//   frontier calibrate --stack vllm-cuda --db runs.db --runs 3,4,5
//       --model llama-3.1-8b --hardware h100 --version 0.9-mine   (one line)
//   frontier calibrate --db runs.db --probe 7      (a probe run: GPU efficiency curves)
#include <cstdio>
#include <cstdint>

#include "cli/cli_util.h"
#include "cli/command.h"
#include "cli/sim_flags.h"
#include "core/parse.h"
#include "probe/stored_fit.h"
#include "sim/engine/data_dir.h"
#include "sweep/calibration_points.h"

namespace frontier::cli {
namespace {

constexpr const char* kCmd = "calibrate";

void AddCalibrateFlags(CLI::App& app, sweep::StackCalibration* f, std::string* probe_run) {
  app.add_option("--fit", f->fit, "Parameters to fit, comma-separated [the stack's calibration.free]");
  app.add_option("--id", f->request.only, "Only published results whose id contains this text");
  app.add_flag("--no-published", f->request.no_published, "Fit only the measured runs (--db, --runs)");
  app.add_option("--db", f->db, std::string(kDbHelp) + "; holds the measured runs (--runs)");
  app.add_option("--runs", f->runs, "Run ids in --db to fit (their concurrency points), comma-separated");
  app.add_option("--probe", *probe_run,
                 "A probe run in --db (frontier probe): fit its GEMM and HBM points as its GPU's efficiency curves, "
                 "written to data/probes/<gpu>.json (or --out)");
  app.add_option("--version", f->request.version, "Version of the stack file written [<version>+cal<date>]");
  app.add_option("--out", f->request.out_path, "Path of the stack file written [data/stacks/<name>@<version>.json]");
  app.add_flag("--in-place", f->request.in_place, "Rewrite the stack version's own file");
  app.add_flag("--dry-run", f->dry_run, "Fit and print; write nothing");
  app.add_flag("--no-loo", f->no_loo, "Skip the leave-one-out refits");
  app.add_option("--note", f->request.note, "One line kept in the file's calibration record");
  app.add_option("--offline-requests", f->request.vo.offline_requests, "Samples drawn per Offline run [6000]");
  app.add_option("--server-requests", f->request.vo.server_requests,
                 "Requests per probe of the Server rate search [4000]");
  // The deployment of measured runs; its --stack names the stack version to
  // fit (name or name@version, or 'all').
  AddSimSpecFlags(app, &f->deployment);
}

// --probe: a GPU's curves from a probe run, written as its override.
int CalibrateProbe(const sweep::StackCalibration& f, const std::string& probe_run) {
  if (f.db.empty()) return UsageError(kCmd, "--probe needs --db, the results database that holds the probe run");
  if (!f.runs.empty() || f.deployment.stack || f.request.in_place || !f.request.version.empty())
    return UsageError(kCmd, "--probe fits a GPU, not a stack: drop --runs, --stack, --in-place and --version");
  const Result<std::vector<std::string>> only = sweep::SplitFlagList(f.fit, "--fit");
  if (!only.ok()) return UsageError(kCmd, only.status().message());
  const Result<int64_t> run_id = ParseInt("--probe", probe_run, 1, INT64_MAX);
  if (!run_id.ok())
    return UsageError(kCmd, "--probe takes a probe run's id (frontier db ls), got '" + probe_run + "'");
  const std::string dir = sim::DefaultDataDir();
  Result<probe::StoredProbeFit> fit = probe::FitStoredProbe(f.db, *run_id, *only, dir);
  if (!fit.ok()) return Fail(kCmd, fit.status());
  std::printf("%s", probe::StoredProbeFitText(*fit).c_str());
  if (f.dry_run) return 0;
  Result<std::string> path = probe::WriteStoredProbeFit(*fit, f.request.out_path, dir);
  if (!path.ok()) return Fail(kCmd, path.status());
  std::printf("  wrote %s: every stack on %s now uses these values (frontier simulate --explain shows them in use)\n",
              path->c_str(), fit->gpu.c_str());
  return 0;
}

// The usage errors of a stack's fit; "" when the flags fit together.
std::string CalibrateUsageProblem(const CLI::App& app, const sweep::StackCalibration& f) {
  if (!f.deployment.stack) return "--stack is required: the stack version to fit, or 'all'";
  if (!f.db.empty() && f.runs.empty()) return "--db needs --runs (frontier db ls lists them)";
  if (f.db.empty() && !f.runs.empty()) return "--runs needs --db";
  if (!f.db.empty() && (!app.count("--model") || !app.count("--hardware")))
    return "measured runs need their deployment: --model and --hardware (and --tp, ... as run)";
  const sim::StackFitRequest& r = f.request;
  if (r.in_place + !r.version.empty() + !r.out_path.empty() > 1) return "give one of --in-place, --version and --out";
  return "";
}

int RunCalibrate(int argc, char** argv) {
  CLI::App app{"Fit a stack version's parameters to published results and/or measured runs", kCmd};
  sweep::StackCalibration f;
  std::string probe_run;
  AddCalibrateFlags(app, &f, &probe_run);
  if (const int rc = Parse(app, argc, argv); rc >= 0) return rc;
  if (!probe_run.empty()) return CalibrateProbe(f, probe_run);
  if (const std::string bad = CalibrateUsageProblem(app, f); !bad.empty()) return UsageError(kCmd, bad);
  auto out = [](const std::string& text) { std::fputs(text.c_str(), stdout); };
  Result<sweep::StacksFitted> fitted = sweep::CalibrateStacks(f, sim::DefaultDataDir(), out);
  if (!fitted.ok()) return Fail(kCmd, fitted.status());
  if (fitted->points == 0)
    return UsageError(kCmd, "nothing to fit: no published result of any stack matches --id '" + f.request.only + "'");
  if (fitted->named > 1)
    std::printf("%d points over %d stacks in %.2f s\n", fitted->points, fitted->stacks, fitted->seconds);
  return 0;
}

}  // namespace
}  // namespace frontier::cli

FRONTIER_REGISTER_COMMAND(calibrate, "Fit a stack version's parameters to published results or measured runs",
                          frontier::cli::RunCalibrate);
