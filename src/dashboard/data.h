// data.h: everything `frontier dashboard` reads from (or, with import, writes
// to) the results store, in one place over the Store interface.
//
//   DashboardData data(*store, lookup);
//   FRONTIER_RETURN_IF_ERROR(data.Refresh());      // picks up what a sweep stored meanwhile
//   for (const RunRow& r : data.runs()) ...
//   FRONTIER_ASSIGN_OR_RETURN(report::Report rep, data.BuildReport({3, 4}, {25}));
//
// Runs are re-read on each Refresh (their status changes while a sweep runs);
// points are read incrementally (ids only grow), so a refresh of a database
// of 20,000 points reads only the new ones. Frontiers, iso-interactivity
// tables and comparisons are computed by the same code as `frontier report`
// and `frontier compare` (report/model.h, report/compare.h).
//
// Thread safety: one DashboardData per thread (it owns no lock; the store is
// one connection).
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "analysis/regression.h"
#include "core/status.h"
#include "report/compare.h"
#include "report/model.h"
#include "store/import_export.h"
#include "store/store.h"

namespace frontier::dashboard {

// Price and power of a hardware name (lower case), or nullopt when unknown.
// The CLI backs it with the hardware catalog, as `frontier report` does.
using HardwareLookup = std::function<std::optional<report::HardwareFacts>(const std::string&)>;

// A run with what its stored points say about it.
struct RunRow {
  store::RunInfo run;
  int64_t points = 0;
  std::vector<std::string> workloads;   // in order of first appearance
  std::string last_point_utc;           // "" when it has no point
  double peak_total_tput_per_gpu = 0;   // best single stored point
  double peak_output_tput_per_gpu = 0;
  double peak_interactivity = 0;
  int64_t planned_points = -1;          // from the sweep's provenance; -1 when unknown
  std::string hardware;                 // the catalog's name of config["hardware"] (report::HardwareKey)

  // The run's configuration value, or "" (model, hardware, precision, engine, ...).
  std::string Config(const std::string& key) const;
  // The serving stack: the engine name, else the simulator's stack, else the kind.
  std::string Stack() const;
  std::string StackVersion() const;
};

// What the lists read of a stored point (the run list's figures, the live
// feed, a point's run): a dozen fields, so the snapshot of every point stays
// small; a point's whole record (summary, settings, verdict) is read from the
// store when a view needs it (DashboardData::Point, RunPoints).
struct PointRow {
  int64_t id = 0, run_id = 0;
  std::string key, workload;
  store::Source source = store::Source::kMeasured;
  std::string created_utc;
  double load_value = 0;
  int repetition = 0;
  // The point's metrics (metrics::Summary's names differ: total_token_throughput_per_gpu, ...).
  double interactivity = 0, total_tput_per_gpu = 0, output_tput_per_gpu = 0, median_ttft_ms = 0;

  static PointRow Of(const store::PointRecord& p);
};

class DashboardData {
 public:
  DashboardData(store::Store& store, HardwareLookup lookup);

  // Re-reads the runs and reads the points stored since the last refresh.
  // IoError from the store (the previous snapshot stays usable).
  Status Refresh();

  // Every run, oldest first, as of the last Refresh.
  const std::vector<RunRow>& runs() const { return runs_; }
  // nullptr when there is no such run.
  const RunRow* FindRun(int64_t id) const;
  // The largest point id seen (0 when none).
  int64_t last_point_id() const { return last_point_id_; }
  // Points with id > after_id, by id, at most `limit` (PointDetail has the
  // rest of a point).
  std::vector<PointRow> PointsAfter(int64_t after_id, size_t limit) const;

  // One stored point with its settings and summary, its run, its request rows
  // and the series stored with it (empty when none were). NotFound naming the id.
  struct PointDetail {
    store::PointRecord point;
    store::RunInfo run;
    std::vector<store::RequestRow> requests;
    store::PointSeries series;
  };
  Result<PointDetail> Point(int64_t point_id);

  // Every stored point of one run, by id, with settings, summary, verdict and
  // trial (read from the store, not the snapshot). NotFound naming the id when
  // there is no such run.
  Result<std::vector<store::PointRecord>> RunPoints(int64_t run_id);

  // `frontier report`'s model of these runs, at these interactivity targets
  // (empty: its defaults). NotFound naming a run id that does not exist.
  Result<report::Report> BuildReport(const std::vector<int64_t>& run_ids,
                                     const std::vector<double>& targets);

  // `frontier compare`'s analysis of two runs.
  Result<analysis::RegressionReport> Compare(int64_t baseline, int64_t candidate,
                                             const analysis::RegressionOptions& options);
  // The prediction bands of the two runs `frontier compare` shows (report::RunBand).
  Result<report::ComparedBands> CompareBands(int64_t baseline, int64_t candidate);

  // Parses and stores an uploaded result file (vLLM or InferenceX), as
  // `frontier db import` does. REQUIRES: the store was opened for writing.
  Result<std::vector<store::RunInfo>> Import(const std::string& text, const std::string& file_name,
                                             const store::ImportOptions& options);

  // Price and power of a hardware name (any case), cached.
  std::optional<report::HardwareFacts> Facts(const std::string& hardware);

 private:
  store::Store& store_;
  HardwareLookup lookup_;
  std::vector<RunRow> runs_;
  std::map<int64_t, size_t> run_index_;         // run id -> index in runs_
  std::vector<PointRow> points_;                // by id
  int64_t last_point_id_ = 0;
  std::map<std::string, std::optional<report::HardwareFacts>> facts_;
};

}  // namespace frontier::dashboard
