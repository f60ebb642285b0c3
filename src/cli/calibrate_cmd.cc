// `frontier calibrate`: fits a stack version's free parameters to published
// results (data/validation) and/or to runs measured into a results database,
// prints each point's fit and leave-one-out error, and writes the stack
// version file with its provenance. Parsing and printing only; the fit is
// sim/fit/calibration.h, what it fits and writes sim/fit/stack_fit.h, the
// measured runs sweep/calibration_points.h, a probe's fit probe/stored_fit.h.
//
//   frontier calibrate --stack vllm-rocm@0.4.3 --in-place
//   frontier calibrate --stack vllm-cuda --db runs.db --runs 3,4,5
//       --model llama-3.1-8b --hardware h100 --version 0.9-mine   (one line)
//   frontier calibrate --db runs.db --probe 7      (a probe run: GPU efficiency curves)
#include <cstdio>
#include <cstdlib>
#include <sstream>

#include "cli/cli_util.h"
#include "cli/command.h"
#include "cli/sim_flags.h"
#include "probe/stored_fit.h"
#include "sim/engine/config.h"
#include "sim/engine/data_dir.h"
#include "sim/fit/calibration.h"
#include "sim/fit/validation.h"
#include "sim/fit/stack_fit.h"
#include "sweep/calibration_points.h"

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

struct CalibrateFlags {
  std::string fit, db, runs, probe_run;
  bool no_loo = false, dry_run = false;
  sim::StackFitRequest request;  // --id, --no-published, --version, --out, --in-place, --note, the requests
  sim::SimSpec spec;
};

void AddCalibrateFlags(CLI::App& app, CalibrateFlags* f) {
  app.add_option("--fit", f->fit, "Parameters to fit, comma-separated [the stack's calibration.free]");
  app.add_option("--id", f->request.only, "Only published results whose id contains this text");
  app.add_flag("--no-published", f->request.no_published, "Fit only the measured runs (--db, --runs)");
  app.add_option("--db", f->db, std::string(kDbHelp) + "; holds the measured runs (--runs)");
  app.add_option("--runs", f->runs, "Run ids in --db to fit (their concurrency points), comma-separated");
  app.add_option("--probe", f->probe_run,
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
  AddSimSpecFlags(app, &f->spec);
}

// --probe: a GPU's curves from a probe run, written as its override.
int CalibrateProbe(const CalibrateFlags& f) {
  if (f.db.empty()) return UsageError(kCmd, "--probe needs --db, the results database that holds the probe run");
  if (!f.runs.empty() || f.spec.stack || f.request.in_place || !f.request.version.empty())
    return UsageError(kCmd, "--probe fits a GPU, not a stack: drop --runs, --stack, --in-place and --version");
  Result<std::vector<std::string>> only = SplitList(f.fit, "--fit");
  if (!only.ok()) return Fail(kCmd, only.status());
  char* end = nullptr;
  const long long run_id = std::strtoll(f.probe_run.c_str(), &end, 10);
  if (end != f.probe_run.c_str() + f.probe_run.size() || run_id < 1)
    return UsageError(kCmd, "--probe takes a probe run's id (frontier db ls), got '" + f.probe_run + "'");
  const std::string dir = sim::DefaultDataDir();
  Result<probe::StoredProbeFit> fit = probe::FitStoredProbe(f.db, run_id, *only, dir);
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
std::string CalibrateUsageProblem(const CLI::App& app, const CalibrateFlags& f) {
  if (!f.spec.stack) return "--stack is required: the stack version to fit, or 'all'";
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
  Result<std::vector<std::string>> free = SplitList(f.fit, "--fit");
  if (!free.ok()) return Fail(kCmd, free.status());
  co.free = *free;
  f.request.stack = *f.spec.stack;
  f.request.measured = !f.db.empty();
  Result<std::vector<std::string>> stacks = sim::StacksToFit(f.request, co, dir);
  if (!stacks.ok()) return Fail(kCmd, stacks.status());
  Result<std::vector<std::string>> runs = SplitList(f.runs, "--runs");
  if (!runs.ok()) return Fail(kCmd, runs.status());
  const sweep::MeasuredRuns measured{f.db, *runs, f.spec};
  auto print_line = [](const std::string& line) { std::printf("%s\n", line.c_str()); };
  double total_seconds = 0;
  int total_points = 0, fitted_stacks = 0;
  for (const auto& id : *stacks) {
    Result<std::optional<sweep::FittedStack>> fit =
        sweep::FitStackVersion(id, f.request, co, *set, measured, dir, print_line);
    if (!fit.ok()) return Fail(kCmd, fit.status());
    if (!*fit) continue;
    const auto& [stack, cal] = **fit;
    total_seconds += cal.seconds;
    total_points += static_cast<int>(cal.points.size());
    ++fitted_stacks;
    std::printf("%s", sim::CalibrationText(stack, cal).c_str());
    if (f.dry_run) continue;
    Result<sim::FittedStackFile> file = sim::WriteFittedStack(f.request, stack, cal, dir);
    if (!file.ok()) return Fail(kCmd, file.status());
    std::printf("  wrote %s (%s@%s)\n", file->path.c_str(), stack.name.c_str(), file->version.c_str());
  }
  if (total_points == 0)
    return UsageError(kCmd, "nothing to fit: no published result of any stack matches --id '" + f.request.only + "'");
  if (stacks->size() > 1)
    std::printf("%d points over %d stacks in %.2f s\n", total_points, fitted_stacks, total_seconds);
  return 0;
}

}  // namespace
}  // namespace frontier::cli

FRONTIER_REGISTER_COMMAND(calibrate, "Fit a stack version's parameters to published results or measured runs",
                          frontier::cli::RunCalibrate);
