// `frontier validate`: the simulator's predictions of published results
// (data/validation/), each with its error and, for the results its stack was
// calibrated on, the leave-one-out error; summarised by model class.
// Parsing and printing only; the work is sim/fit/validate.h.
#include <cstdio>

#include "cli/cli_util.h"
#include "cli/command.h"
#include "cli/workload_flags.h"
#include "sim/engine/data_dir.h"
#include "sim/fit/validate.h"
#include "sim/fit/validate_text.h"

namespace frontier::cli {
namespace {

constexpr const char* kCmd = "validate";

int RunValidate(int argc, char** argv) {
  CLI::App app{"Predict published results (data/validation), with leave-one-out errors by model class", kCmd};
  sim::ValidateOptions o;
  AddFlagRows(app, sim::ValidateFlagRows(), &o);
  if (const int rc = Parse(app, argc, argv); rc >= 0) return rc;
  if (const std::string bad = sim::ValidationOptionsProblem(o); !bad.empty()) return UsageError(kCmd, bad);

  Result<sim::ValidationSet> set = sim::LoadValidation(sim::DefaultDataDir());
  if (!set.ok()) return Fail(kCmd, set.status());
  Result<sim::ValidationReport> report = sim::Validate(*set, o);
  if (!report.ok()) return Fail(kCmd, report.status());
  if (report->rows.empty() && report->held_out.empty() && report->transfer.empty())
    return UsageError(kCmd, "no result matches --id '" + o.only_id + "' --stack '" + o.only_stack + "'");

  std::fputs(sim::ValidationReportText(*report).c_str(), stdout);
  return 0;
}

}  // namespace
}  // namespace frontier::cli

FRONTIER_REGISTER_COMMAND(validate, "Compare the simulator's predictions with published results",
                          frontier::cli::RunValidate);
