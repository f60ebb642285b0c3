#include "report/model.h"

#include <algorithm>
#include <cctype>
#include <regex>
#include <set>

#include <nlohmann/json.hpp>

#include "analysis/cost.h"
#include "core/ascii.h"
#include "core/clock.h"
#include "core/parse.h"
#include "metrics/summary.h"
#include "report/hardware_facts.h"
#include "report/table.h"

namespace frontier::report {
namespace {

// "1k1k|concurrency=16|rep=2|tp=8" -> "1k1k|concurrency=16|tp=8"
std::string WithoutRepetition(const std::string& key) {
  static const std::regex rep(R"(\|rep=\d+)");
  return std::regex_replace(key, rep, "");
}

analysis::MeanCi Ci(const std::vector<store::PointRecord>& reps,
                    double (*figure)(const metrics::Summary&)) {
  std::vector<double> v;
  for (const auto& r : reps) v.push_back(figure(r.metrics));
  return analysis::MeanConfidence(v);
}

}  // namespace

std::vector<analysis::OperatingPoint> OperatingPoints(const SeriesReport& s) {
  std::vector<analysis::OperatingPoint> out;
  for (const auto& p : s.points) {
    analysis::OperatingPoint o;
    o.interactivity = p.interactivity.mean;
    o.total_tput_per_gpu = p.total_tput_per_gpu.mean;
    o.output_tput_per_gpu = p.output_tput_per_gpu.mean;
    o.load = p.load;
    out.push_back(o);
  }
  return out;
}

std::string BandCell(const std::optional<PredictionBand>& band) {
  if (!band) return "";
  return band->points > 0 ? band->Short() : "none";
}

std::string BandTip(const std::optional<PredictionBand>& band, double value) {
  if (!band) return "";
  std::string t = "prediction band " + band->Describe();
  if (band->points > 0) t += ": " + Fixed(band->Lower(value), 1) + " to " + Fixed(band->Upper(value), 1) + " tok/s/GPU";
  if (!band->flags.empty()) t += "\nextrapolates: " + band->FlagsText();
  return t;
}

std::string VerdictCell(const store::VerdictView& v) {
  if (!v.judged) return "";
  return v.valid || v.first_reason.empty() ? v.Label() : v.Label() + ": " + v.first_reason;
}

std::string SearchLine(const std::string& search_json) {
  if (search_json.empty()) return "";
  const auto j = nlohmann::json::parse(search_json, nullptr, /*allow_exceptions=*/false);
  if (!j.is_object()) return "search: (unreadable outcome)";
  auto text = [&](const char* key) { return j.contains(key) && j[key].is_string() ? j[key].get<std::string>() : ""; };
  auto number = [](const nlohmann::json& v) { return FormatSignificant(v.is_number() ? v.get<double>() : 0.0, 4); };
  std::string line = "search " + text("goal") + " over " + text("axis") + ": ";
  const auto answer = j.find("answer");
  if (answer != j.end() && answer->is_object()) {
    line += "answer " + number(answer->value("value", nlohmann::json(0))) + " (trial " +
            std::to_string(answer->value("trial", 0)) + ", " +
            number(answer->value("output_throughput_per_gpu", nlohmann::json(0))) + " output tok/s/GPU)";
  } else {
    line += "no valid trial";
  }
  const std::string stop = text("stop_reason");
  line += stop.empty() ? ", running" : "; " + stop;
  if (j.contains("trial_count") && j["trial_count"].is_number_integer())
    line += " after " + std::to_string(j["trial_count"].get<int64_t>()) + " trials";
  return line;
}

namespace {

// One load point of a series: the mean and confidence of its repetitions,
// the worst verdict, the first band (its flags added to the series') and the
// search trial it was.
AggregatedPoint Aggregate(const std::string& k, const std::vector<store::PointRecord>& reps, SeriesReport* s) {
  AggregatedPoint a;
  a.key = k;
  a.load = reps.front().load_value;
  a.load_kind = reps.front().load_kind;
  a.settings = reps.front().settings;
  using metrics::Summary;
  a.interactivity = Ci(reps, [](const Summary& m) { return m.interactivity; });
  a.total_tput_per_gpu = Ci(reps, [](const Summary& m) { return m.total_token_throughput_per_gpu; });
  a.output_tput_per_gpu = Ci(reps, [](const Summary& m) { return m.output_throughput_per_gpu; });
  a.median_ttft_ms = Ci(reps, [](const Summary& m) { return m.ttft_ms.median; });
  a.median_tpot_ms = Ci(reps, [](const Summary& m) { return m.tpot_ms.median; });
  a.p99_ttft_ms = Ci(reps, [](const Summary& m) { return store::P99(m.ttft_ms); });
  a.median_e2el_ms = Ci(reps, [](const Summary& m) { return m.e2el_ms.median; });
  a.repetitions = reps;
  for (const auto& rep : reps) {
    // Rows that do not parse were refused when read (store::CheckPoint).
    Result<store::VerdictView> parsed = store::ParseVerdict(rep.verdict_json);
    const store::VerdictView v = parsed.ok() ? *parsed : store::VerdictView{};
    if (v.judged && (!a.verdict.judged || (a.verdict.valid && !v.valid))) a.verdict = v;
  }
  for (const auto& rep : reps)
    if (rep.band && !a.band) a.band = rep.band;
  if (a.band) {
    s->banded = true;
    for (const auto& f : a.band->flags)
      if (std::find(s->band_flags.begin(), s->band_flags.end(), f) == s->band_flags.end()) s->band_flags.push_back(f);
  }
  Result<store::TrialView> trial = store::ParseTrial(reps.front().trial_json);
  a.trial = trial.ok() ? *trial : store::TrialView{};
  s->judged = s->judged || a.verdict.judged;
  s->trials = s->trials || a.trial.is_trial;
  return a;
}

// Sorts the series' points by load and marks both Pareto frontiers (with the widest band on each).
void MarkFrontiers(SeriesReport* s) {
  std::stable_sort(s->points.begin(), s->points.end(),
                   [](const AggregatedPoint& x, const AggregatedPoint& y) { return x.load < y.load; });
  const auto ops = OperatingPoints(*s);
  for (size_t i : analysis::ParetoFrontier(ops, analysis::Throughput::kTotal)) {
    s->points[i].on_total_frontier = true;
    if (s->points[i].band) s->frontier_band_total = std::max(s->frontier_band_total, s->points[i].band->half_width);
  }
  for (size_t i : analysis::ParetoFrontier(ops, analysis::Throughput::kOutput)) {
    s->points[i].on_output_frontier = true;
    if (s->points[i].band) s->frontier_band_output = std::max(s->frontier_band_output, s->points[i].band->half_width);
  }
}

// The series of one run and workload, named `name`, from its points (repetitions grouped by key).
SeriesReport BuildSeries(const store::RunInfo& run, const std::string& w, const std::string& name,
                         const ReportOptions& options, std::vector<store::PointRecord>& points) {
  SeriesReport s;
  s.run = run;
  s.workload = w;
  s.name = name;
  auto hw = run.config.find("hardware");
  s.hardware = hw != run.config.end() ? HardwareKey(hw->second) : "";
  if (auto f = options.hardware.find(s.hardware); f != options.hardware.end()) s.facts = f->second;
  s.search = SearchLine(run.search_json);
  std::map<std::string, std::vector<store::PointRecord>> groups;
  std::vector<std::string> order;
  for (auto& p : points) {
    const std::string k = WithoutRepetition(p.key);
    if (!groups.count(k)) order.push_back(k);
    groups[k].push_back(p);
  }
  for (const auto& k : order) s.points.push_back(Aggregate(k, groups[k], &s));
  MarkFrontiers(&s);
  return s;
}

// The series of workload `w` compared at the same interactivity targets: throughput, cost and energy.
WorkloadReport CompareWorkload(const Report& report, const std::string& w, const ReportOptions& options) {
  WorkloadReport wr;
  wr.workload = w;
  std::vector<analysis::Series> series;
  for (size_t i = 0; i < report.series.size(); ++i) {
    if (report.series[i].workload != w) continue;
    wr.series.push_back(i);
    series.push_back({report.series[i].name, OperatingPoints(report.series[i])});
  }
  wr.targets = options.targets.empty() ? analysis::DefaultTargets(series, analysis::Throughput::kTotal)
                                       : options.targets;
  wr.iso_total = analysis::CompareAtInteractivity(series, wr.targets, analysis::Throughput::kTotal);
  wr.iso_output = analysis::CompareAtInteractivity(series, wr.targets, analysis::Throughput::kOutput);
  for (size_t t = 0; t < wr.targets.size(); ++t) {
    CostRow row;
    row.interactivity = wr.targets[t];
    for (size_t k = 0; k < wr.series.size(); ++k) {
      const auto& facts = report.series[wr.series[k]].facts;
      const double price = facts ? facts->price_per_gpu_hour : 0;
      const double watts = facts ? facts->tdp_w : 0;
      const auto total = wr.iso_total[t].tput[k];
      const auto out = wr.iso_output[t].tput[k];
      row.usd_per_m_total.push_back(total ? analysis::CostPerMillionTokens(price, *total) : std::nullopt);
      row.usd_per_m_output.push_back(out ? analysis::CostPerMillionTokens(price, *out) : std::nullopt);
      row.tokens_per_joule.push_back(total ? analysis::TokensPerJoule(*total, watts) : std::nullopt);
    }
    wr.cost.push_back(std::move(row));
  }
  return wr;
}

}  // namespace

Result<Report> BuildReport(store::Store& store, const ReportOptions& options) {
  Report report;
  report.generated_utc = UtcTimestampNow();
  FRONTIER_ASSIGN_OR_RETURN(auto runs, store.ListRuns(store::Store::PlanText::kWithout));
  if (!options.run_ids.empty()) {
    std::vector<store::RunInfo> chosen;
    for (int64_t id : options.run_ids) {
      FRONTIER_ASSIGN_OR_RETURN(store::RunInfo r, store.GetRun(id));
      chosen.push_back(std::move(r));
    }
    runs = std::move(chosen);
  }
  // Names: the system's, made unique with the sweep, then the run id.
  std::map<std::string, int> name_count;
  for (const auto& r : runs) ++name_count[r.system];
  std::map<std::string, int> sweep_count;
  for (const auto& r : runs) ++sweep_count[r.sweep + "/" + r.system];

  report.runs = runs;
  for (const auto& run : runs) {
    FRONTIER_ASSIGN_OR_RETURN(auto points, store.ListPoints(run.id));
    report.stored_points += static_cast<int64_t>(points.size());
    std::map<std::string, std::vector<store::PointRecord>> by_workload;
    std::vector<std::string> workload_order;
    for (auto& p : points) {
      // A `frontier probe` measurement has no serving metrics to tabulate (docs/probe.md).
      if (p.load_kind == store::LoadKind::kProbe) continue;
      FRONTIER_ASSIGN_OR_RETURN(store::PointSeries series, store.GetPointSeries(p.id));
      if (!series.empty()) {
        PointOverTime t = ParseOverTime(series);
        if (!t.empty()) report.over_time.emplace(p.id, std::move(t));
      }
      if (!by_workload.count(p.workload)) workload_order.push_back(p.workload);
      by_workload[p.workload].push_back(std::move(p));
    }
    std::string base = run.system;
    if (name_count[run.system] > 1) {
      base = sweep_count[run.sweep + "/" + run.system] > 1 ? run.Label() : run.sweep + "/" + run.system;
    }
    for (const auto& w : workload_order) {
      const std::string name = workload_order.size() > 1 ? base + " (" + w + ")" : base;
      report.series.push_back(BuildSeries(run, w, name, options, by_workload[w]));
    }
  }

  // Per workload: iso-interactivity comparison, cost and energy at the same targets.
  std::vector<std::string> workloads;
  for (const auto& s : report.series)
    if (std::find(workloads.begin(), workloads.end(), s.workload) == workloads.end())
      workloads.push_back(s.workload);
  for (const auto& w : workloads) report.workloads.push_back(CompareWorkload(report, w, options));
  return report;
}

std::string EnergySourceOf(const store::PointRecord& point) {
  const auto j = nlohmann::json::parse(point.summary_json, nullptr, /*allow_exceptions=*/false);
  if (!j.is_object() || !j.contains("energy") || !j["energy"].is_object()) return "";
  const auto& src = j["energy"]["source"];
  return src.is_string() ? src.get<std::string>() : "";
}

std::optional<EnergyRow> MeasuredEnergyOf(const SeriesReport& s, const AggregatedPoint& p) {
  EnergyRow row;
  int n = 0;
  std::set<std::string> sources;
  for (const auto& rep : p.repetitions) {
    const std::optional<EnergyMeasurement>& e = rep.metrics.energy;
    if (!e || !(e->joules > 0)) continue;
    ++n;
    row.joules += e->joules;
    row.mean_w += e->mean_w;
    row.peak_w = std::max(row.peak_w, e->peak_w);
    row.tokens_per_joule += rep.metrics.tokens_per_joule;
    const std::string src = EnergySourceOf(rep);
    sources.insert(src.empty() ? "unknown source" : src);
  }
  if (n == 0) return std::nullopt;
  row.series = s.name;
  row.key = p.key;
  std::string joined;
  for (const auto& x : sources) joined += (joined.empty() ? "" : ", ") + x;
  row.label = metrics::MeasuredEnergyLabel(joined);
  row.joules /= n;
  row.mean_w /= n;
  row.tokens_per_joule /= n;
  if (s.facts && s.facts->tdp_w > 0)
    row.tdp_bound_tokens_per_joule = analysis::TokensPerJoule(p.total_tput_per_gpu.mean, s.facts->tdp_w);
  return row;
}

std::vector<EnergyRow> MeasuredEnergyRows(const Report& r) {
  std::vector<EnergyRow> rows;
  for (const auto& s : r.series)
    for (const auto& p : s.points)
      if (auto row = MeasuredEnergyOf(s, p)) rows.push_back(std::move(*row));
  return rows;
}

}  // namespace frontier::report
