// `frontier validate`: the simulator's predictions of published results
// (data/validation/), each with its error and, for the results its stack was
// calibrated on, the leave-one-out error; summarised by model class.
// Parsing and printing only; the work is sim/fit/validate.h.
#include <cmath>
#include <cstdio>

#include "cli/cli_util.h"
#include "cli/command.h"
#include "core/limits.h"
#include "core/parse.h"
#include "sim/engine/data_dir.h"
#include "sim/fit/validate.h"

namespace frontier::cli {
namespace {

constexpr const char* kCmd = "validate";

void PrintRow(const sim::ValidationRow& row) {
  if (!row.failure.empty()) {  // a held-out result that could not be predicted
    std::printf("%-44s %-5s %-11s %-10s %10.0f  no prediction: %s\n", row.published.id.c_str(),
                row.model_class.c_str(), sim::ScenarioName(row.published.scenario), row.published.published.c_str(),
                row.published.value, row.failure.c_str());
    return;
  }
  char loo[32] = "", loo_err[32] = "";
  if (row.loo_predicted) {
    std::snprintf(loo, sizeof loo, "%.0f", *row.loo_predicted);
    std::snprintf(loo_err, sizeof loo_err, "%+.1f%%", 100 * *row.loo_error);
  }
  std::printf("%-44s %-5s %-11s %-10s %10.0f %10.0f %+7.1f%% %10s %8s  %s\n", row.published.id.c_str(),
              row.model_class.c_str(), sim::ScenarioName(row.published.scenario), row.published.published.c_str(),
              row.published.value, row.predicted, 100 * row.error, loo, loo_err, row.role.c_str());
}

void PrintTransferRow(const sim::ValidationRow& row) {
  char band[32] = "-";
  if (row.band.points > 0) std::snprintf(band, sizeof band, "+/-%.0f%%", 100 * row.band.half_width);
  std::string flags;
  for (const auto& f : row.band.flags) flags += (flags.empty() ? "" : "; ") + f;
  if (!row.failure.empty()) {
    std::printf("%-44s %-5s %-11s %-14s %10.0f %10s %8s %7s %-3s  no prediction: %s\n", row.published.id.c_str(),
                row.model_class.c_str(), sim::ScenarioName(row.published.scenario), row.published.stack.c_str(),
                row.published.value, "-", "-", band, "no", row.failure.c_str());
    return;
  }
  std::printf("%-44s %-5s %-11s %-14s %10.0f %10.0f %+7.1f%% %7s %-3s  %s  [%s]\n", row.published.id.c_str(),
              row.model_class.c_str(), sim::ScenarioName(row.published.scenario), row.published.stack.c_str(),
              row.published.value, row.predicted, 100 * row.error, band, row.within_band ? "yes" : "no",
              row.band.basis.c_str(), flags.c_str());
}

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

  std::printf("== calibration: results on the calibration GPUs (H100, H200, MI300X, MI325X), any date ==\n");
  std::printf("%-44s %-5s %-11s %-10s %10s %10s %8s %10s %8s  %s\n", "result", "class", "scenario", "published",
              "published", "predicted", "error", "LOO pred", "LOO err", "role");
  std::string stack;
  for (const auto& row : report->rows) {
    if (row.published.stack != stack) {
      stack = row.published.stack;
      std::printf("-- %s\n", stack.c_str());
    }
    PrintRow(row);
  }
  if (!report->held_out.empty()) {
    std::printf("-- held out (marked held_out in data/validation; never fitted)\n");
    for (const auto& row : report->held_out) PrintRow(row);
  }
  std::printf("throughput in output tokens/s; error = predicted / published - 1; LOO = the stack's free parameters "
              "refitted without that result\n");
  if (!report->loo_recorded.empty() || !report->loo_refitted.empty())
    std::printf("LOO errors: %zu stacks read from their current record (data/stacks, written by frontier calibrate; "
                "fresh predictions within 1 %%, Server 10 %%, of it), %zu refitted now%s\n",
                report->loo_recorded.size(), report->loo_refitted.size(),
                report->loo_refitted.empty() ? " (--refit refits every stack)" : "");
  if (!report->loo_refitted.empty() && !report->loo_recorded.empty()) {
    std::string names;
    for (const auto& id : report->loo_refitted) names += (names.empty() ? "" : ", ") + id;
    std::printf("refitted (no record, or a record its fresh predictions no longer match): %s\n", names.c_str());
  }
  if (!report->classes.empty()) {
    std::printf("\n%-6s %7s %18s %15s %18s\n", "class", "points", "median |LOO err|", "max |LOO err|",
                "median |fit err|");
    for (const auto& c : report->classes)
      std::printf("%-6s %7d %17.1f%% %14.1f%% %17.1f%%\n", c.model_class.c_str(), c.points, 100 * c.median_abs_loo,
                  100 * c.max_abs_loo, 100 * c.median_abs_fit);
  }
  if (!report->transfer.empty()) {
    std::printf("\n== transfer: results on the validation GPUs (B200, GB200, MI355X, newer), never fitted ==\n");
    std::printf("%-44s %-5s %-11s %-14s %10s %10s %8s %7s %-3s  %s\n", "result", "class", "scenario", "stack",
                "published", "predicted", "error", "band", "in", "band basis  [extrapolations]");
    for (const auto& row : report->transfer) PrintTransferRow(row);
    std::printf("band = the 90th percentile of |LOO err| of calibrated results of the class (model class x "
                "deployment x vendor, widened to fewer criteria below 5 results), root sum of squares with the "
                "transfer part (rate x spec distance to the nearest calibrated GPU); in = published value inside it\n");
    for (const auto& [vendor, t] : report->transfer_rates) {
      if (t.points == 0) {
        std::printf("transfer rate for %s: none (no cross-GPU refit recorded)\n", vendor.c_str());
        continue;
      }
      std::printf("transfer rate for %s: %.2f per unit of spec distance (90th percentile of the cross-GPU err "
                  "beyond the LOO err / distance, over %d results of %s)\n",
                  vendor.c_str(), t.rate, t.points, t.basis.c_str());
    }
    std::printf("\n%-6s %7s %14s %11s %15s %14s\n", "class", "points", "median |err|", "max |err|", "inside band",
                "no prediction");
    for (const auto& t : report->transfer_classes)
      std::printf("%-6s %7d %13.1f%% %10.1f%% %9d of %-3d %14d\n", t.model_class.c_str(), t.points,
                  100 * t.median_abs, 100 * t.max_abs, t.within_band, t.points, t.failed);
  }
  std::printf("(%.1f s)\n", report->seconds);
  return 0;
}

}  // namespace
}  // namespace frontier::cli

FRONTIER_REGISTER_COMMAND(validate, "Compare the simulator's predictions with published results",
                          frontier::cli::RunValidate);
