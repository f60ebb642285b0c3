// calibration_points.h: the points `frontier calibrate` fits a stack version
// to, and the fit: its published results (sim/fit/stack_fit.h) and the runs
// measured into a results database (--db, --runs), read here, above sim/fit,
// which does not read the store (sim/fit/measured.h decides which stored
// points and requests a fit uses); the stack versions a calibrate
// invocation fits and writes (CalibrateStacks); and what the command is
// asked, its flags' one table and their validator (StackCalibration).
//
// Thread safety: functions of their arguments; each opens its own snapshot
// of the database.
#pragma once

#include <cstddef>
#include <functional>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "core/flag_table.h"
#include "core/status.h"
#include "sim/engine/config.h"
#include "sim/engine/stack.h"
#include "sim/fit/calibration.h"
#include "sim/fit/stack_fit.h"
#include "sim/fit/validation.h"

namespace frontier::sweep {

// The non-empty items of a comma-separated flag value (--fit, --runs; none
// for ""); InvalidArgument "<flag>: empty list" when `text` holds only commas.
Result<std::vector<std::string>> SplitFlagList(const std::string& text, const char* flag);

// The stored points of `runs` (run ids as text, from --runs) in the database
// at `db`, with their requests, as calibration points replayed on `config`.
// InvalidArgument for a run id that is not a positive integer; the store's
// error; sim::MeasuredModels' when no point can be fitted.
Result<std::vector<sim::ResultModel>> MeasuredRunModels(const std::string& db, const std::vector<std::string>& runs,
                                                        const sim::SimConfig& config);

// The measured runs a fit adds (--db, --runs), on their deployment (the
// flags they ran with; its stack is replaced by the stack fitted).
struct MeasuredRuns {
  std::string db;
  std::vector<std::string> runs;  // run ids as text
  sim::SimSpec deployment;
};

// The points `stack` is fitted to: its published results
// (sim::PublishedModelsToFit, telling `skipped` the results it skips), then,
// with request.measured, the runs of `measured`. The first error.
Result<std::vector<sim::ResultModel>> ModelsToFit(const sim::StackFitRequest& request, const sim::ValidationSet& set,
                                                  const sim::Stack& stack, const MeasuredRuns& measured,
                                                  const std::function<void(const std::string&)>& skipped);

// One stack version fitted.
struct FittedStack {
  sim::Stack stack;
  sim::CalibrationResult cal;
};

// Loads stack version `id` from `data_dir` and fits it (sim::Calibrate with
// `options`) to ModelsToFit's points. None when there is nothing to fit it to
// and request.stack is "all" (the stacks with matching results are fitted);
// InvalidArgument "nothing to fit <id> to: ..." for a stack named alone. The
// catalog's, ModelsToFit's or Calibrate's error.
Result<std::optional<FittedStack>> FitStackVersion(const std::string& id, const sim::StackFitRequest& request,
                                                   const sim::CalibrationOptions& options,
                                                   const sim::ValidationSet& set, const MeasuredRuns& measured,
                                                   const std::string& data_dir,
                                                   const std::function<void(const std::string&)>& skipped);

// What `frontier calibrate` is asked: a stack fit (its base, whose stack and
// measured are set from `deployment` and `db`), or with --probe a GPU's.
struct StackCalibration : sim::StackFitRequest {
  std::string fit;               // --fit: parameters, comma-separated ("": the stack's calibration.free)
  std::string db, runs;          // --db, --runs: measured runs (ids, comma-separated) fitted too
  sim::SimSpec deployment;       // how the measured runs ran; its stack is the one to fit (or "all")
  bool no_loo = false;           // skip the leave-one-out refits
  bool dry_run = false;          // fit and tell; write nothing
  std::string probe;             // --probe: a probe run's id in --db, whose GPU is fitted instead (probe/stored_fit.h)
};

// `frontier calibrate`'s own flags, in --help's order (group "Options");
// SimSpec's (sim/spec_fields.h, `deployment`) follow them.
std::span<const FlagRow<StackCalibration>> StackCalibrationFlagRows();

// "" when the flags fit together, else the usage message naming the flag
// and the fix (`given` tells which were given): with --probe, --db and a
// positive run id, and none of a stack fit's flags; otherwise --stack, --db
// and --runs together, a measured run's --model and --hardware, one of
// --in-place, --version and --out, and the request counts
// (sim::ValidationOptionsProblem, as `frontier validate`'s).
std::string StackCalibrationProblem(const StackCalibration& c, const FlagGiven& given);

// What CalibrateStacks fitted, over every stack.
struct StacksFitted {
  size_t named = 0;          // stack versions named (every one with "all")
  int points = 0, stacks = 0;  // points fitted over the stacks fitted
  double seconds = 0;
};

// Fits every stack version `c` names (sim::StacksToFit) with FitStackVersion
// to the published results under `data_dir` and the measured runs, and
// writes each fit (sim::WriteFittedStack) unless dry_run. `out` is given the
// text as it comes, each piece ending in a newline: the results skipped,
// each fit's table (sim::CalibrationText) and "  wrote PATH (NAME@VERSION)".
// REQUIRES: c.deployment.stack is set. InvalidArgument "--fit: empty list"
// (or --runs) for a list of commas alone; the first error otherwise.
Result<StacksFitted> CalibrateStacks(StackCalibration c, const std::string& data_dir,
                                     const std::function<void(const std::string&)>& out);

}  // namespace frontier::sweep
