// describe.h: the simulator's own concepts as text for a terminal: a resolved
// deployment, where a run's step time goes, the catalogs, a concurrency
// sweep's table and a deployment search's result. `frontier simulate` prints
// these strings; each ends with a newline ("" when there is nothing to say).
//
// Thread safety: functions of their arguments (DescribeCatalogs reads the
// catalog files).
#pragma once

#include <string>
#include <vector>

#include "sim/concurrency_sweep.h"
#include "sim/deployment_search.h"
#include "sim/engine/config.h"
#include "sim/simulate_options.h"

namespace frontier::sim {

// The deployment (model, GPUs, layout, precisions, stack), its memory per GPU
// and its MTP settings.
std::string DescribeConfig(const SimConfig& config);

// A run's steps and preemptions, and the cost of its busiest decode-only step
// and last mixed step (--explain).
std::string ExplainRun(const SimConfig& config, const SimulationStats& stats);

// The prefix cache's hits and evictions; "" when no prompt was looked up.
std::string PrefixCacheLine(const SimulationStats& stats);

// The models, hardware and stack versions catalogued under `dir` (--list).
std::string DescribeCatalogs(const std::string& dir);

// A concurrency sweep's table: the header (printed before the points run),
// then one row per point with the Pareto and cap notes.
std::string SweepTableHeader();
std::string SweepTable(const std::vector<SweepPoint>& points);

// What bounds each point's largest decode step (--explain of a sweep).
std::string ExplainSweep(const SimConfig& config, const std::vector<SweepPoint>& points);

// --best-deployment: every layout tried, and the best at each interactivity.
std::string DescribeSearch(const SearchResult& result);

}  // namespace frontier::sim
