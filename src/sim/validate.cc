#include "sim/validate.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <map>

#include "sim/calibration.h"

namespace frontier::sim {
namespace {

double Median(std::vector<double> v) {
  if (v.empty()) return 0;
  std::sort(v.begin(), v.end());
  const size_t n = v.size();
  return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

bool StackMatches(const std::string& stack, const std::string& want) {
  if (want.empty()) return true;
  return stack == want || stack.substr(0, stack.find('@')) == want;
}

// A result never fitted: predicted with the stack's parameters, or the
// reason it cannot be.
Result<ValidationRow> PredictOnly(const PublishedResult& r, const ValidationSet& set, const ValidateOptions& o,
                                  const Stack& stack, const BandTable& bands, const std::string& dir) {
  ValidationRow row;
  row.published = r;
  row.role = r.OnCalibrationGpu() ? "held out" : "transfer";
  FRONTIER_ASSIGN_OR_RETURN(BandKey key, KeyOf(r, dir));
  row.model_class = key.model_class;
  if (!r.OnCalibrationGpu()) row.band = bands.For(key);
  Result<ResultModel> m = ResultModel::Create(r, set, o.sim);
  Result<double> predicted = m.ok() ? m->Simulate(stack.params) : Result<double>(m.status());
  if (!predicted.ok()) {
    row.failure = predicted.status().message();
    return row;
  }
  row.predicted = *predicted;
  row.error = row.predicted / r.value - 1;
  row.median_tpot_ms = m->median_tpot_ms();
  row.within_band = row.band.points > 0 && std::fabs(row.error) <= row.band.half_width;
  return row;
}

}  // namespace

Result<ValidationReport> Validate(const ValidationSet& set, const ValidateOptions& o) {
  const auto t0 = std::chrono::steady_clock::now();
  const std::string dir = o.sim.data_dir.empty() ? DefaultDataDir() : o.sim.data_dir;
  ValidationReport report;
  FRONTIER_ASSIGN_OR_RETURN(BandTable bands, BandTable::Load(set, dir));
  // Group the selected results by stack version.
  std::map<std::string, std::vector<const PublishedResult*>> by_stack;
  for (const auto& r : set.results) {
    if (!o.only_id.empty() && r.id.find(o.only_id) == std::string::npos) continue;
    if (!StackMatches(r.stack, o.only_stack)) continue;
    by_stack[r.stack].push_back(&r);
  }
  for (const auto& [stack_id, results] : by_stack) {
    FRONTIER_ASSIGN_OR_RETURN(Stack stack, LoadStack(stack_id, dir));
    std::vector<ResultModel> fit_models;
    std::vector<size_t> fit_rows;
    for (const PublishedResult* r : results) {
      if (!o.held_out && !r->Calibratable()) continue;
      if (!r->Calibratable()) {
        // A pure prediction: one that cannot be made (the deployment does
        // not fit, no rate meets the limits) is shown with its reason.
        FRONTIER_ASSIGN_OR_RETURN(ValidationRow row, PredictOnly(*r, set, o, stack, bands, dir));
        (row.role == "transfer" ? report.transfer : report.held_out).push_back(std::move(row));
        continue;
      }
      FRONTIER_ASSIGN_OR_RETURN(ResultModel m, ResultModel::Create(*r, set, o.sim));
      ValidationRow row;
      row.published = *r;
      row.model_class = ModelClass(m.config().model);
      FRONTIER_ASSIGN_OR_RETURN(row.predicted, m.Simulate(stack.params));
      row.error = row.predicted / r->value - 1;
      row.median_tpot_ms = m.median_tpot_ms();
      row.role = stack.free_params.empty() ? "uncalibrated" : "fitted";
      report.rows.push_back(row);
      if (!stack.free_params.empty()) {
        fit_models.push_back(std::move(m));
        fit_rows.push_back(report.rows.size() - 1);
      }
    }
    // Leave-one-out: the whole stack's calibration (every one of its
    // calibratable results, not only the selected ones) refitted without each.
    size_t calibratable = 0;
    for (const auto& r : set.results) calibratable += r.stack == stack_id && r.Calibratable();
    if (o.leave_one_out && !fit_models.empty() && calibratable > 1) {
      if (fit_models.size() < calibratable) {
        // A selection: refit on all of the stack's calibratable results.
        fit_models.clear();
        for (const auto& r : set.results) {
          if (r.stack != stack_id || !r.Calibratable()) continue;
          FRONTIER_ASSIGN_OR_RETURN(ResultModel m, ResultModel::Create(r, set, o.sim));
          fit_models.push_back(std::move(m));
        }
      }
      CalibrationOptions co;
      FRONTIER_ASSIGN_OR_RETURN(CalibrationResult cal, Calibrate(stack, fit_models, co));
      for (size_t i : fit_rows) {
        ValidationRow& row = report.rows[i];
        for (const auto& p : cal.points) {
          if (p.id != row.published.id || p.loo_predicted <= 0) continue;
          row.loo_predicted = p.loo_predicted;
          row.loo_error = p.loo_error;
        }
      }
    }
  }
  std::map<std::string, std::vector<double>> loo, fit;
  for (const auto& row : report.rows) {
    if (!row.loo_error) continue;
    for (const std::string& cls : {row.model_class, std::string("all")}) {
      loo[cls].push_back(std::fabs(*row.loo_error));
      fit[cls].push_back(std::fabs(row.error));
    }
  }
  for (const char* cls : {"dense", "MoE", "MLA", "all"}) {
    if (!loo.count(cls)) continue;
    ClassSummary c;
    c.model_class = cls;
    c.points = static_cast<int>(loo[cls].size());
    c.median_abs_loo = Median(loo[cls]);
    c.max_abs_loo = *std::max_element(loo[cls].begin(), loo[cls].end());
    c.median_abs_fit = Median(fit[cls]);
    report.classes.push_back(c);
  }
  std::map<std::string, std::vector<double>> transfer;
  std::map<std::string, int> within;
  std::map<std::string, int> failed;
  for (const auto& row : report.transfer) {
    for (const std::string& cls : {row.model_class, std::string("all")}) {
      if (!row.failure.empty()) {
        ++failed[cls];
        continue;
      }
      transfer[cls].push_back(std::fabs(row.error));
      within[cls] += row.within_band;
    }
  }
  for (const char* cls : {"dense", "MoE", "MLA", "all"}) {
    if (!transfer.count(cls) && !failed.count(cls)) continue;
    TransferSummary t;
    t.model_class = cls;
    t.failed = failed[cls];
    t.points = static_cast<int>(transfer[cls].size()) + t.failed;
    t.median_abs = Median(transfer[cls]);
    t.max_abs = transfer[cls].empty() ? 0 : *std::max_element(transfer[cls].begin(), transfer[cls].end());
    t.within_band = within[cls];
    report.transfer_classes.push_back(t);
  }
  report.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  return report;
}

}  // namespace frontier::sim
