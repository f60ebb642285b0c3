// views.h: the JSON of each dashboard view, built from DashboardData and the
// analysis `frontier report` and `frontier compare` use (api.h routes to them).
//
// Thread safety: functions over a DashboardData the caller owns.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "analysis/regression.h"
#include "dashboard/data.h"
#include "report/compare.h"
#include "report/model.h"

namespace frontier::dashboard {

// The most runs one frontier plot overlays.
inline constexpr size_t kMaxOverlaid = 64;

// A run as the Runs page lists it.
nlohmann::json RunJson(const RunRow& r);

// The runs shown when none are chosen: those of the latest sweep invocation
// that stored points (same sweep name and plan hash as the newest such run),
// at most 8.
std::vector<int64_t> DefaultRuns(const DashboardData& data);

// Series of the report on the chosen axes:
//   y: "total" | "output" tok/s/GPU, "per_dollar" (total tokens per $ at the
//      hardware's price), "per_joule" (total tokens per J at TDP)
//   x: "interactivity" (tok/s/user), "ttft_p50", "ttft_p99", "e2el" (median, ms)
// with each point's mean and 95% half-widths over repetitions, its frontier
// flag and its repetitions' point ids; then the iso-interactivity table per
// workload (throughput, ratio to the first series, cost and energy).
nlohmann::json FrontierJson(const report::Report& rep, const std::string& y, const std::string& x,
                            DashboardData& data);

// A point: metrics, verdict and trial, latency percentiles from its summary,
// per-request histograms, its series over time ("series": the timeslices
// stored with it, else metrics::ComputeTimeslices over its request rows, and
// the server's samples as `frontier report` reads them), its run's provenance
// and the command that reproduces it.
nlohmann::json PointJson(const DashboardData::PointDetail& d);

// One run: its figures, its configuration and provenance, its search outcome
// (runs.search_json as stored, null for a run that is not a search, and
// `frontier report`'s line of it) and every stored point with its metrics, its
// verdict (result, scenario, every reason; null when not judged) and its place
// in the search (null when not a trial). A search's trials come first, in the
// order the search ran them, then the other points by id.
nlohmann::json RunViewJson(const RunRow& row, const std::vector<store::PointRecord>& points);

// `frontier compare`'s verdicts with their noise bounds; with a simulated run
// among the two, each run's "band" (null for a measured run) and each delta's
// "band" (report::BandVerdict: "within ±12%", "beyond ±12%" or "").
nlohmann::json CompareJson(const analysis::RegressionReport& r, const RunRow& baseline,
                           const RunRow& candidate, const analysis::RegressionOptions& o,
                           const report::ComparedBands& bands = {});

// The headline figures of each run of one configuration ("SWEEP/SYSTEM"), by
// date: peak total and output tok/s/GPU, top interactivity, and total tok/s/GPU
// at `at` tok/s/user read off each run's frontier. With config "" the first
// configuration with the most runs is shown. Lists every configuration.
Result<nlohmann::json> OverTimeJson(DashboardData& data, const std::string& config,
                                    const std::string& workload, std::optional<double> at);

// Points stored after `since` (at most 500) and the progress of the latest
// sweep invocation's runs (points stored of planned).
Result<nlohmann::json> LiveJson(DashboardData& data, int64_t since);

// Histogram of `values` in `bins` equal-width bins from min to max:
// {"edges": [bins + 1], "counts": [bins]}; empty arrays when no value.
nlohmann::json Histogram(const std::vector<double>& values, int bins);

}  // namespace frontier::dashboard
