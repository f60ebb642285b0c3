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

// --probe: a GPU's curves from a probe run, written as its override.
int CalibrateProbe(const sweep::StackCalibration& f) {
  const Result<std::vector<std::string>> only = sweep::SplitFlagList(f.fit, "--fit");
  if (!only.ok()) return UsageError(kCmd, only.status().message());
  const Result<int64_t> run_id = ParseInt("--probe", f.probe, 1, INT64_MAX);
  if (!run_id.ok()) return UsageError(kCmd, run_id.status().message());
  const std::string dir = sim::DefaultDataDir();
  Result<probe::StoredProbeFit> fit = probe::FitStoredProbe(f.db, *run_id, *only, dir);
  if (!fit.ok()) return Fail(kCmd, fit.status());
  std::printf("%s", probe::StoredProbeFitText(*fit).c_str());
  if (f.dry_run) return 0;
  Result<std::string> path = probe::WriteStoredProbeFit(*fit, f.out_path, dir);
  if (!path.ok()) return Fail(kCmd, path.status());
  std::printf("  wrote %s: every stack on %s now uses these values (frontier simulate --explain shows them in use)\n",
              path->c_str(), fit->gpu.c_str());
  return 0;
}

int RunCalibrate(int argc, char** argv) {
  CLI::App app{"Fit a stack version's parameters to published results and/or measured runs", kCmd};
  sweep::StackCalibration f;
  AddFlagRows(app, sweep::StackCalibrationFlagRows(), &f);
  // The deployment of measured runs; its --stack names the stack version to
  // fit (name or name@version, or 'all').
  AddSimSpecFlags(app, &f.deployment);
  if (const int rc = Parse(app, argc, argv); rc >= 0) return rc;
  if (const std::string bad = sweep::StackCalibrationProblem(f, GivenIn(app)); !bad.empty())
    return UsageError(kCmd, bad);
  if (!f.probe.empty()) return CalibrateProbe(f);
  auto out = [](const std::string& text) { std::fputs(text.c_str(), stdout); };
  Result<sweep::StacksFitted> fitted = sweep::CalibrateStacks(f, sim::DefaultDataDir(), out);
  if (!fitted.ok()) return Fail(kCmd, fitted.status());
  if (fitted->points == 0)
    return UsageError(kCmd, "nothing to fit: no published result of any stack matches --id '" + f.only + "'");
  if (fitted->named > 1)
    std::printf("%d points over %d stacks in %.2f s\n", fitted->points, fitted->stacks, fitted->seconds);
  return 0;
}

}  // namespace
}  // namespace frontier::cli

FRONTIER_REGISTER_COMMAND(calibrate, "Fit a stack version's parameters to published results or measured runs",
                          frontier::cli::RunCalibrate);
