// validate_text.cc: `frontier validate`'s tables of a ValidationReport.
#include "sim/fit/validate_text.h"

#include <cstdio>

#include "core/append_printf.h"

namespace frontier::sim {
namespace {

void AddRow(std::string& out, const ValidationRow& row) {
  if (!row.failure.empty()) {  // a held-out result that could not be predicted
    AppendPrintf(out, "%-44s %-5s %-11s %-10s %10.0f  no prediction: %s\n",
                 row.published.id.c_str(), row.model_class.c_str(),
                 ScenarioName(row.published.scenario), row.published.published.c_str(),
                 row.published.value, row.failure.c_str());
    return;
  }
  char loo[32] = "", loo_err[32] = "";
  if (row.loo_predicted) {
    std::snprintf(loo, sizeof loo, "%.0f", *row.loo_predicted);
    std::snprintf(loo_err, sizeof loo_err, "%+.1f%%", 100 * *row.loo_error);
  }
  AppendPrintf(out, "%-44s %-5s %-11s %-10s %10.0f %10.0f %+7.1f%% %10s %8s  %s\n",
               row.published.id.c_str(), row.model_class.c_str(),
               ScenarioName(row.published.scenario), row.published.published.c_str(),
               row.published.value, row.predicted, 100 * row.error, loo, loo_err, row.role.c_str());
}

void AddTransferRow(std::string& out, const ValidationRow& row) {
  char band[32] = "-";
  if (row.band.points > 0) std::snprintf(band, sizeof band, "+/-%.0f%%", 100 * row.band.half_width);
  std::string flags;
  for (const auto& f : row.band.flags) flags += (flags.empty() ? "" : "; ") + f;
  if (!row.failure.empty()) {
    AppendPrintf(out, "%-44s %-5s %-11s %-14s %10.0f %10s %8s %7s %-3s  no prediction: %s\n",
                 row.published.id.c_str(), row.model_class.c_str(),
                 ScenarioName(row.published.scenario), row.published.stack.c_str(),
                 row.published.value, "-", "-", band, "no", row.failure.c_str());
    return;
  }
  AppendPrintf(out, "%-44s %-5s %-11s %-14s %10.0f %10.0f %+7.1f%% %7s %-3s  %s  [%s]\n",
               row.published.id.c_str(), row.model_class.c_str(),
               ScenarioName(row.published.scenario), row.published.stack.c_str(),
               row.published.value, row.predicted, 100 * row.error, band,
               row.within_band ? "yes" : "no", row.band.basis.c_str(), flags.c_str());
}

}  // namespace

std::string ValidationReportText(const ValidationReport& report) {
  std::string out;
  out += "== calibration: results on the calibration GPUs (H100, H200 incl. NVL and GH200, MI300X, MI325X), "
         "any date ==\n";
  AppendPrintf(out, "%-44s %-5s %-11s %-10s %10s %10s %8s %10s %8s  %s\n", "result", "class",
               "scenario", "published", "published", "predicted", "error", "LOO pred", "LOO err",
               "role");
  std::string stack;
  for (const auto& row : report.rows) {
    if (row.published.stack != stack) {
      stack = row.published.stack;
      AppendPrintf(out, "-- %s\n", stack.c_str());
    }
    AddRow(out, row);
  }
  if (!report.held_out.empty()) {
    AppendPrintf(out, "-- held out (marked held_out in data/validation; never fitted)\n");
    for (const auto& row : report.held_out) AddRow(out, row);
  }
  AppendPrintf(out,
               "throughput in output tokens/s; error = predicted / published - 1; LOO = the "
               "stack's free parameters "
               "refitted without that result\n");
  if (!report.loo_recorded.empty() || !report.loo_refitted.empty())
    AppendPrintf(out,
                 "LOO errors: %zu stacks read from their current record (data/stacks, written by "
                 "frontier calibrate; "
                 "fresh predictions within 1 %%, Server 10 %%, of it), %zu refitted now%s\n",
                 report.loo_recorded.size(), report.loo_refitted.size(),
                 report.loo_refitted.empty() ? " (--refit refits every stack)" : "");
  if (!report.loo_refitted.empty() && !report.loo_recorded.empty()) {
    std::string names;
    for (const auto& id : report.loo_refitted) names += (names.empty() ? "" : ", ") + id;
    AppendPrintf(out,
                 "refitted (no record, or a record its fresh predictions no longer match): %s\n",
                 names.c_str());
  }
  if (!report.classes.empty()) {
    AppendPrintf(out, "\n%-6s %7s %18s %15s %18s\n", "class", "points", "median |LOO err|",
                 "max |LOO err|", "median |fit err|");
    for (const auto& c : report.classes)
      AppendPrintf(out, "%-6s %7d %17.1f%% %14.1f%% %17.1f%%\n", c.model_class.c_str(), c.points,
                   100 * c.median_abs_loo, 100 * c.max_abs_loo, 100 * c.median_abs_fit);
  }
  if (!report.transfer.empty()) {
    out += "\n== transfer: results on the validation GPUs (B200, GB200, MI355X, newer), "
           "never fitted ==\n";
    AppendPrintf(out, "%-44s %-5s %-11s %-14s %10s %10s %8s %7s %-3s  %s\n", "result", "class",
                 "scenario", "stack", "published", "predicted", "error", "band", "in",
                 "band basis  [extrapolations]");
    for (const auto& row : report.transfer) AddTransferRow(out, row);
    AppendPrintf(
        out,
        "band = the 90th percentile of |LOO err| of calibrated results of the class (model class x "
        "deployment x vendor, widened to fewer criteria below 5 results), root sum of squares with "
        "the "
        "transfer part (rate x spec distance to the nearest calibrated GPU); in = published value "
        "inside it\n");
    for (const auto& [vendor, t] : report.transfer_rates) {
      if (t.points == 0) {
        AppendPrintf(out, "transfer rate for %s: none (no cross-GPU refit recorded)\n",
                     vendor.c_str());
        continue;
      }
      AppendPrintf(out,
                   "transfer rate for %s: %.2f per unit of spec distance (90th percentile of the "
                   "cross-GPU err "
                   "beyond the LOO err / distance, over %d results of %s)\n",
                   vendor.c_str(), t.rate, t.points, t.basis.c_str());
    }
    AppendPrintf(out, "\n%-6s %7s %14s %11s %15s %14s\n", "class", "points", "median |err|",
                 "max |err|", "inside band", "no prediction");
    for (const auto& t : report.transfer_classes)
      AppendPrintf(out, "%-6s %7d %13.1f%% %10.1f%% %9d of %-3d %14d\n", t.model_class.c_str(),
                   t.points, 100 * t.median_abs, 100 * t.max_abs, t.within_band, t.points,
                   t.failed);
  }
  AppendPrintf(out, "(%.1f s)\n", report.seconds);
  return out;
}

}  // namespace frontier::sim
