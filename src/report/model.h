// model.h: what a report shows, computed once from the store and handed to
// the terminal and HTML renderers.
//
// Series: one per (run, workload). Repetitions of a point (same workload and
// load, and for imported results the same configuration) are averaged, with a
// 95% Student-t interval as error bars. The frontier, iso-interactivity
// comparison, cost and energy are computed on those means, per workload
// (systems are only compared on the same workload).
//
// Prices ($/GPU-hour) and power (W per GPU) come in per hardware name; the
// report layer knows no catalog.
//
// Thread safety: values; BuildReport reads the store.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <vector>

#include "analysis/frontier.h"
#include "analysis/iso.h"
#include "analysis/repetitions.h"
#include "core/status.h"
#include "report/over_time.h"
#include "store/store.h"

namespace frontier::report {

struct HardwareFacts {
  double price_per_gpu_hour = 0;  // 0: unknown
  std::string price_source;       // where the price came from ("catalog neocloud", "--price")
  double tdp_w = 0;               // 0: unknown
};

struct ReportOptions {
  std::vector<int64_t> run_ids;                 // empty: every run in the store
  std::map<std::string, HardwareFacts> hardware;  // by hardware name (HardwareKey, hardware_facts.h)
  std::vector<double> targets;                  // iso-interactivity targets; empty: defaults
};

// One (workload, load[, configuration]) of a series: its repetitions averaged.
struct AggregatedPoint {
  std::string key;                 // point key without the repetition
  double load = 0;
  store::LoadKind load_kind = store::LoadKind::kConcurrency;
  std::map<std::string, std::string> settings;  // of the first repetition
  analysis::MeanCi interactivity, total_tput_per_gpu, output_tput_per_gpu;
  analysis::MeanCi median_ttft_ms, median_tpot_ms, p99_ttft_ms, median_e2el_ms;
  std::vector<store::PointRecord> repetitions;
  bool on_total_frontier = false, on_output_frontier = false;
  // The MLPerf verdict shown: INVALID with the first reason of the first
  // invalid repetition when any is, else VALID when one is judged; not judged
  // when no repetition has a verdict.
  store::VerdictView verdict;
  // A search trial's step and decision (from its first repetition).
  store::TrialView trial;
  // A simulated point's prediction band (its first repetition that has one;
  // the repetitions of a point share a configuration, so a class); none for a
  // measured point.
  std::optional<PredictionBand> band;
};

// "VALID", "INVALID: <first reason>", or "" when not judged.
std::string VerdictCell(const store::VerdictView& v);

// "±12%" for a point with a band, "none" for a band that rests on no
// calibrated result, "" for a point without one (measured).
std::string BandCell(const std::optional<PredictionBand>& band);
// The band of a point in words for tooltips: "prediction band ±12% (MLA / tp /
// nvidia, 30 results): 880.0 to 1120.0 tok/s/GPU" (around `value`), then
// "\nextrapolates: ..." when flagged; "" without a band.
std::string BandTip(const std::optional<PredictionBand>& band, double value);

struct SeriesReport {
  std::string name;                // "<system>" or "<system> (<workload>)" when ambiguous
  store::RunInfo run;
  std::string workload;
  std::string hardware;
  std::vector<AggregatedPoint> points;  // by load ascending
  std::optional<HardwareFacts> facts;
  bool judged = false;             // some point has a verdict
  bool trials = false;             // some point is a search trial
  bool banded = false;             // some point has a prediction band
  std::vector<std::string> band_flags;  // the extrapolation flags of its points, each once, in order
  // The widest relative half width of the band of a point on the total (or
  // output) frontier, 0 when none has a band: the shaded band drawn around
  // the frontier's curve.
  double frontier_band_total = 0, frontier_band_output = 0;
  // A search run's outcome in one line (goal, answer, stop reason); "" otherwise.
  std::string search;
};

// The line SeriesReport::search shows for a run's search_json ("" when empty).
std::string SearchLine(const std::string& search_json);

struct CostRow {
  double interactivity = 0;
  // Per series of the workload: $/M total tokens, $/M output tokens, total tokens/J.
  std::vector<std::optional<double>> usd_per_m_total, usd_per_m_output, tokens_per_joule;
};

struct WorkloadReport {
  std::string workload;
  std::vector<size_t> series;      // indices into Report::series
  std::vector<analysis::IsoRow> iso_total, iso_output;
  std::vector<CostRow> cost;       // at the same targets as the iso rows
  std::vector<double> targets;
};

struct Report {
  std::vector<store::RunInfo> runs;     // every run shown, points or not (a broken system may have none)
  std::vector<SeriesReport> series;
  std::vector<WorkloadReport> workloads;
  int64_t stored_points = 0;
  std::string generated_utc;
  // Each stored point's series over time, by point id (points without any are absent).
  std::map<int64_t, PointOverTime> over_time;
};

Result<Report> BuildReport(store::Store& store, const ReportOptions& options);

// One aggregated point's energy, for the points where some repetition
// measured it (its metrics.energy has joules > 0): its repetitions' means
// over those that did, with the label "measured (<source>)" (the source from
// the summary JSON's "energy"), beside the TDP bound of the same point
// (total tokens/s/GPU over the hardware's TDP; unset when the TDP is unknown).
struct EnergyRow {
  std::string series, key, label;
  double joules = 0, mean_w = 0, peak_w = 0, tokens_per_joule = 0;
  std::optional<double> tdp_bound_tokens_per_joule;
};
std::vector<EnergyRow> MeasuredEnergyRows(const Report& report);
// The same for one point of a series; none when no repetition measured it.
std::optional<EnergyRow> MeasuredEnergyOf(const SeriesReport& series, const AggregatedPoint& point);

// The source a stored point's summary JSON names under "energy" ("" when none).
std::string EnergySourceOf(const store::PointRecord& point);

// analysis inputs of a series (means).
std::vector<analysis::OperatingPoint> OperatingPoints(const SeriesReport& s);

}  // namespace frontier::report
