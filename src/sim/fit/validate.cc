#include "sim/fit/validate.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <deque>
#include <functional>
#include <map>
#include <memory>
#include <optional>

#include "sim/engine/catalog_json.h"
#include "sim/fit/calibration.h"
#include "sim/fit/internal/parallel.h"

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
  Result<ResultModel> m = ResultModel::Create(r, set, o);
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

// A stack file's record of one fitted result.
struct RecordedPoint {
  double predicted = 0, loo_predicted = 0, loo_error = 0;
};
using Record = std::map<std::string, RecordedPoint>;

// The stack's recorded fit, if it lists exactly the stack's calibratable
// results in `set`, each with its leave-one-out figures.
std::optional<Record> ReadRecord(const Stack& stack, const ValidationSet& set) {
  Result<nlohmann::json> j = catalog::ReadJsonFile(stack.file);
  if (!j.ok() || !j->contains("calibration") || !(*j)["calibration"].is_object()) return std::nullopt;
  const nlohmann::json points = (*j)["calibration"].value("points", nlohmann::json::array());
  if (!points.is_array()) return std::nullopt;
  Record record;
  for (const auto& p : points) {
    if (!p.is_object() || !p.contains("id") || !p["id"].is_string()) return std::nullopt;
    for (const char* k : {"predicted", "loo_predicted", "loo_error"})
      if (!p.contains(k) || !p[k].is_number()) return std::nullopt;
    RecordedPoint pt{p["predicted"].get<double>(), p["loo_predicted"].get<double>(), p["loo_error"].get<double>()};
    if (!(pt.predicted > 0 && pt.loo_predicted > 0 && std::isfinite(pt.loo_error))) return std::nullopt;
    record[p["id"].get<std::string>()] = pt;
  }
  size_t calibratable = 0;
  for (const auto& r : set.results) {
    if (r.stack != stack.id() || !r.Calibratable()) continue;
    if (!record.count(r.id)) return std::nullopt;
    ++calibratable;
  }
  if (calibratable != record.size()) return std::nullopt;
  return record;
}

// A row of the calibration table: the stack's fitted (or uncalibrated)
// prediction of one of its calibratable results.
Result<ValidationRow> PredictCalibrationRow(const PublishedResult& r, const ValidationSet& set,
                                            const ValidateOptions& o, const Stack& stack) {
  Result<ResultModel> m = ResultModel::Create(r, set, o);
  FRONTIER_RETURN_IF_ERROR(m.status());
  ValidationRow row;
  row.published = r;
  row.model_class = ModelClass(m->config().model);
  FRONTIER_ASSIGN_OR_RETURN(row.predicted, m->Simulate(stack.params));
  row.error = row.predicted / r.value - 1;
  row.median_tpot_ms = m->median_tpot_ms();
  row.role = stack.free_params.empty() ? "uncalibrated" : "fitted";
  return row;
}

// One prediction, run on the pool; `row` holds its outcome.
struct PredictTask {
  const PublishedResult* r;
  const Stack* stack;
  bool calibration;  // a row of the calibration table (else held out or transfer)
  Result<ValidationRow> row = InvalidArgument("not run");
};
// One stack's leave-one-out refit, run on the pool.
struct RefitTask {
  const Stack* stack;
  Result<CalibrationResult> cal = InvalidArgument("not run");
};

// Files each prediction into the report: the calibration rows with their
// leave-one-out figures (recorded, or from the stack's refit), the others as
// held out or transfer. Fails with the first failed refit or prediction.
Status FileRows(std::vector<PredictTask>& predictions, const std::deque<RefitTask>& refits,
                const std::map<const Stack*, Record>& records, ValidationReport& report) {
  std::map<const Stack*, const CalibrationResult*> cal_of;
  for (const RefitTask& f : refits) {
    FRONTIER_RETURN_IF_ERROR(f.cal.status());
    cal_of[f.stack] = &*f.cal;
  }
  for (PredictTask& p : predictions) {
    FRONTIER_RETURN_IF_ERROR(p.row.status());
    ValidationRow& row = *p.row;
    if (!p.calibration) {
      (row.role == "transfer" ? report.transfer : report.held_out).push_back(std::move(row));
      continue;
    }
    const auto cal = cal_of.find(p.stack);
    const auto record = records.find(p.stack);
    if (record != records.end()) {
      const RecordedPoint& pt = record->second.at(row.published.id);
      row.loo_predicted = pt.loo_predicted;
      row.loo_error = pt.loo_error;
    } else if (cal != cal_of.end()) {
      for (const auto& pt : cal->second->points) {
        if (pt.id != row.published.id || pt.loo_predicted <= 0) continue;
        row.loo_predicted = pt.loo_predicted;
        row.loo_error = pt.loo_error;
      }
    }
    report.rows.push_back(std::move(row));
  }
  return Status::Ok();
}

// The per-class summaries of the report's calibration and transfer rows.
void SummarizeByClass(ValidationReport& report) {
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
}

using V = ValidateOptions;
const FlagRow<V> kFlags[] = {
    {"--id", &V::only_id, "Only results whose id contains this text", "Options"},
    {"--stack", &V::only_stack, "Only results on this stack (name or name@version)", "Options"},
    {"--offline-requests", &V::offline_requests, "Samples drawn per Offline run (the steady state) [6000]", "Options"},
    {"--server-requests", &V::server_requests, "Requests per probe of the Server rate search [4000]", "Options"},
    {"--seed", &V::seed, "Seeds the drawn request lengths and arrivals [1]", "Options"},
    {"--no-loo", &V::no_loo, "Skip the leave-one-out refits (in-sample errors only)", "Options"},
    {"--refit", &V::refit,
     "Refit every stack for its leave-one-out errors, instead of reading those its file records where the record is "
     "current (its fresh predictions within 1 % of the recorded ones, Server results 10 %)",
     "Options"},
};

}  // namespace

std::span<const FlagRow<ValidateOptions>> ValidateFlagRows() { return kFlags; }

Result<ValidationReport> Validate(const ValidationSet& set, const ValidateOptions& o) {
  const auto t0 = std::chrono::steady_clock::now();
  const std::string dir = o.data_dir.empty() ? DefaultDataDir() : o.data_dir;
  ValidationReport report;
  FRONTIER_ASSIGN_OR_RETURN(BandTable bands, BandTable::Load(set, dir));
  // Group the selected results by stack version.
  std::map<std::string, std::vector<const PublishedResult*>> by_stack;
  for (const auto& r : set.results) {
    if (!o.only_id.empty() && r.id.find(o.only_id) == std::string::npos) continue;
    if (!StackMatches(r.stack, o.only_stack)) continue;
    by_stack[r.stack].push_back(&r);
  }
  // Every prediction and every stack's leave-one-out refits are independent:
  // they run side by side (the refits first, as they take longest), and the
  // rows are assembled afterwards in the catalog's order.
  std::vector<std::unique_ptr<Stack>> stacks;
  std::vector<PredictTask> predictions;
  std::deque<RefitTask> refits;  // stable addresses: a second round may add some
  std::map<const Stack*, Record> records;
  for (const auto& [stack_id, results] : by_stack) {
    FRONTIER_ASSIGN_OR_RETURN(Stack loaded, LoadStack(stack_id, dir));
    stacks.push_back(std::make_unique<Stack>(std::move(loaded)));
    const Stack* stack = stacks.back().get();
    bool fits = false;
    for (const PublishedResult* r : results) {
      if (!o.held_out && !r->Calibratable()) continue;
      predictions.push_back(PredictTask{r, stack, r->Calibratable()});
      fits = fits || (r->Calibratable() && !stack->free_params.empty());
    }
    // Leave-one-out: the whole stack's calibration (every one of its
    // calibratable results, not only the selected ones) refitted without each.
    size_t calibratable = 0;
    for (const auto& r : set.results) calibratable += r.stack == stack_id && r.Calibratable();
    if (!(!o.no_loo && fits && calibratable > 1)) continue;
    std::optional<Record> record;
    if (!o.refit) record = ReadRecord(*stack, set);
    if (record) {
      records[stack] = std::move(*record);
    } else {
      refits.push_back(RefitTask{stack});
    }
  }
  auto refit_task = [&set, &o](RefitTask& f) {
    return [&f, &set, &o] {
      std::vector<ResultModel> models;
      for (const auto& r : set.results) {
        if (r.stack != f.stack->id() || !r.Calibratable()) continue;
        Result<ResultModel> m = ResultModel::Create(r, set, o);
        if (!m.ok()) {
          f.cal = m.status();
          return;
        }
        models.push_back(std::move(*m));
      }
      CalibrationOptions co;
      co.threads = o.threads;
      co.cross_gpu = false;  // the bands read the cross-GPU errors the stack files record
      f.cal = Calibrate(*f.stack, models, co);
    };
  };
  std::vector<std::function<void()>> tasks;
  for (RefitTask& f : refits) tasks.push_back(refit_task(f));
  for (PredictTask& p : predictions) {
    tasks.push_back([&p, &set, &o, &bands, &dir]() {
      if (!p.calibration) {
        // A pure prediction: one that cannot be made (the deployment does
        // not fit, no rate meets the limits) is shown with its reason.
        p.row = PredictOnly(*p.r, set, o, *p.stack, bands, dir);
        return;
      }
      p.row = PredictCalibrationRow(*p.r, set, o, *p.stack);
    });
  }
  internal::RunAll(tasks, o.threads);
  // A record whose stack now predicts its results differently (by more than
  // kRecordTolerance) is stale: that stack is refitted.
  const size_t first_stale = refits.size();
  for (auto it = records.begin(); it != records.end();) {
    bool current = true;
    for (const PredictTask& p : predictions) {
      if (p.stack != it->first || !p.calibration || !p.row.ok()) continue;
      const auto rec = it->second.find(p.r->id);
      const double tolerance = p.r->scenario == Scenario::kServer ? kServerRecordTolerance : kRecordTolerance;
      current = current && rec != it->second.end() &&
                std::fabs(p.row->predicted / rec->second.predicted - 1) <= tolerance;
    }
    if (current) {
      ++it;
      continue;
    }
    refits.push_back(RefitTask{it->first});
    it = records.erase(it);
  }
  tasks.clear();
  for (size_t i = first_stale; i < refits.size(); ++i) tasks.push_back(refit_task(refits[i]));
  internal::RunAll(tasks, o.threads);
  for (const auto& [stack, record] : records) report.loo_recorded.push_back(stack->id());
  for (const RefitTask& f : refits) report.loo_refitted.push_back(f.stack->id());

  FRONTIER_RETURN_IF_ERROR(FileRows(predictions, refits, records, report));
  SummarizeByClass(report);
  for (const char* vendor : {"nvidia", "amd"}) report.transfer_rates.push_back({vendor, bands.Transfer(vendor)});
  report.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  return report;
}

}  // namespace frontier::sim
