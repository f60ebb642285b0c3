// stack_fit.h: what `frontier calibrate` fits and writes for a stack version:
// the stack versions its --stack names, the published results each is
// fitted to, the table of a fit, and the stack file written with the fitted
// parameters. The fit itself is calibration.h; the measured runs a fit may
// add are read from a results database above this folder
// (sweep/calibration_points.h).
//
//   FRONTIER_ASSIGN_OR_RETURN(std::vector<std::string> ids, StacksToFit(request, options, dir));
//   ... per stack: models = PublishedModelsToFit(request, set, stack, print_line) (+ measured)
//   Result<CalibrationResult> cal = Calibrate(stack, models, options);
//   std::printf("%s", CalibrationText(stack, *cal).c_str());
//   Result<FittedStackFile> file = WriteFittedStack(request, stack, *cal, dir);
//
// Thread safety: functions of their arguments; they read the catalogs under
// the data directory given.
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "core/status.h"
#include "sim/engine/stack.h"
#include "sim/fit/calibration.h"
#include "sim/fit/validation.h"

namespace frontier::sim {

// What a stack fit is asked for (`frontier calibrate`'s flags); its base is
// how each published result is simulated.
struct StackFitRequest : ValidationOptions {
  std::string stack;              // a stack version (name or name@version), or "all"
  std::string only;               // only published results whose id contains this ("": all)
  bool no_published = false;      // fit the measured runs alone
  bool measured = false;          // measured runs join the fit (--db)
  // Where the fit is written: the stack version's own file (in_place), else
  // out_path ("": data/stacks/<name>@<version>.json) as `version` ("":
  // <version>+cal<YYYYMMDD>, today in UTC).
  bool in_place = false;
  std::string version, out_path;
  std::string note;               // one line kept in the file's calibration record
};

// The stack versions request.stack names: itself, or for "all" every stack
// version under `data_dir` with parameters to fit (its own, or options.free).
// InvalidArgument when "all" is asked with measured runs, out_path or version
// (each stack then writes its own file).
Result<std::vector<std::string>> StacksToFit(const StackFitRequest& request, const CalibrationOptions& options,
                                             const std::string& data_dir);

// The published results of `set` that `stack` is fitted to (none with
// no_published): those on the stack version whose id contains request.only
// and that calibration may use. Each one skipped as never fitted (held out,
// or on a validation GPU) is told to `skipped` as a line without its newline,
// as it is met. ResultModel::Create's error.
Result<std::vector<ResultModel>> PublishedModelsToFit(const StackFitRequest& request, const ValidationSet& set,
                                                      const Stack& stack,
                                                      const std::function<void(const std::string&)>& skipped);

// The table `frontier calibrate` prints of a fit: each point's measured,
// fitted and leave-one-out values and errors, each free parameter's prior and
// fit, those not identified, and the fit's cost. Each line ends in a newline.
std::string CalibrationText(const Stack& stack, const CalibrationResult& cal);

// A stack file written by WriteFittedStack.
struct FittedStackFile {
  std::string path;
  std::string version;
};

// Writes `stack` with `cal`'s parameters (WriteCalibratedStack) where the
// request says, under `data_dir` by default. WriteCalibratedStack's error.
Result<FittedStackFile> WriteFittedStack(const StackFitRequest& request, const Stack& stack,
                                         const CalibrationResult& cal, const std::string& data_dir);

}  // namespace frontier::sim
