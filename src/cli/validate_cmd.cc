// `frontier validate`: the simulator's predictions of published results
// (data/validation/), each with its error and, for the results its stack was
// calibrated on, the leave-one-out error; summarised by model class.
// Parsing and printing only; the work is sim/fit/validate.h.
#include <cstdio>

#include "cli/cli_util.h"
#include "cli/command.h"
#include "core/limits.h"
#include "core/parse.h"
#include "sim/engine/data_dir.h"
#include "sim/fit/validate.h"
#include "sim/fit/validate_text.h"

namespace frontier::cli {
namespace {

constexpr const char* kCmd = "validate";

int RunValidate(int argc, char** argv) {
  CLI::App app{"Predict published results (data/validation), with leave-one-out errors by model class", kCmd};
  sim::ValidateOptions o;
  bool no_loo = false;
  bool refit = false;
  app.add_option("--id", o.only_id, "Only results whose id contains this text");
  app.add_option("--stack", o.only_stack, "Only results on this stack (name or name@version)");
  app.add_option("--offline-requests", o.sim.offline_requests,
                 "Samples drawn per Offline run (the steady state) [6000]");
  app.add_option("--server-requests", o.sim.server_requests, "Requests per probe of the Server rate search [4000]");
  app.add_option("--seed", o.sim.seed, "Seeds the drawn request lengths and arrivals [1]");
  app.add_flag("--no-loo", no_loo, "Skip the leave-one-out refits (in-sample errors only)");
  app.add_flag("--refit", refit,
               "Refit every stack for its leave-one-out errors, instead of reading those its file records where "
               "the record is current (its fresh predictions within 1 % of the recorded ones, Server results 10 %)");
  if (const int rc = Parse(app, argc, argv); rc >= 0) return rc;
  // Bounded as every run is (core/limits.h): the requests of a run are held in memory.
  if (Status in = CheckRange("--offline-requests", o.sim.offline_requests, 100, 1'000'000); !in.ok())
    return UsageError(kCmd, in.message());
  if (Status in = CheckRange("--server-requests", o.sim.server_requests, 100, 1'000'000); !in.ok())
    return UsageError(kCmd, in.message());
  o.leave_one_out = !no_loo;
  o.refit = refit;

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
