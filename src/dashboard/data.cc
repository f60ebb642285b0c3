#include "dashboard/data.h"

#include <algorithm>
#include <cctype>
#include <cstdlib>

#include "core/ascii.h"
#include "report/compare.h"
#include "report/hardware_facts.h"

namespace frontier::dashboard {
namespace {

void AddPoint(RunRow& row, const PointRow& p) {
  ++row.points;
  if (std::find(row.workloads.begin(), row.workloads.end(), p.workload) == row.workloads.end())
    row.workloads.push_back(p.workload);
  row.last_point_utc = std::max(row.last_point_utc, p.created_utc);
  row.peak_total_tput_per_gpu = std::max(row.peak_total_tput_per_gpu, p.total_tput_per_gpu);
  row.peak_output_tput_per_gpu = std::max(row.peak_output_tput_per_gpu, p.output_tput_per_gpu);
  row.peak_interactivity = std::max(row.peak_interactivity, p.interactivity);
}

}  // namespace

PointRow PointRow::Of(const store::PointRecord& p) {
  const metrics::Summary& m = p.metrics;
  return {p.id, p.run_id, p.key, p.workload, p.source, p.created_utc, p.load_value, p.repetition,
          m.interactivity, m.total_token_throughput_per_gpu, m.output_throughput_per_gpu, m.ttft_ms.median};
}

std::string RunRow::Config(const std::string& key) const {
  auto it = run.config.find(key);
  return it == run.config.end() ? "" : it->second;
}

std::string RunRow::Stack() const {
  if (std::string e = Config("engine"); !e.empty()) return e;
  if (std::string s = Config("stack"); !s.empty()) return s;
  return Config(store::kSystemKindKey);  // as stored (store::SystemKindName), shown as text
}

std::string RunRow::StackVersion() const { return Config("engine_version"); }

DashboardData::DashboardData(store::Store& store, HardwareLookup lookup)
    : store_(store), lookup_(std::move(lookup)) {}

Status DashboardData::Refresh() {
  // A point's detail reads its run's plan text; lists do not need it.
  FRONTIER_ASSIGN_OR_RETURN(auto runs, store_.ListRuns(store::Store::PlanText::kWithout));
  FRONTIER_ASSIGN_OR_RETURN(auto fresh, store_.ListPointsAfter(last_point_id_));
  // Runs: keep the point figures of runs seen before, take everything else anew.
  std::vector<RunRow> rows;
  rows.reserve(runs.size());
  std::map<int64_t, size_t> index;
  for (auto& r : runs) {
    RunRow row;
    if (auto it = run_index_.find(r.id); it != run_index_.end()) row = std::move(runs_[it->second]);
    row.run = std::move(r);
    row.hardware = report::HardwareKey(row.Config("hardware"));
    auto planned = row.run.provenance.find("planned_points");
    row.planned_points = planned == row.run.provenance.end() ? -1 : std::atoll(planned->second.c_str());
    index[row.run.id] = rows.size();
    rows.push_back(std::move(row));
  }
  points_.reserve(points_.size() + fresh.size());
  for (auto& p : fresh) {
    PointRow row = PointRow::Of(p);
    p = store::PointRecord{};  // its summary and settings go now, not after the loop
    last_point_id_ = std::max(last_point_id_, row.id);
    if (auto it = index.find(row.run_id); it != index.end()) AddPoint(rows[it->second], row);
    points_.push_back(std::move(row));
  }
  runs_ = std::move(rows);
  run_index_ = std::move(index);
  return Status::Ok();
}

const RunRow* DashboardData::FindRun(int64_t id) const {
  auto it = run_index_.find(id);
  return it == run_index_.end() ? nullptr : &runs_[it->second];
}

std::vector<PointRow> DashboardData::PointsAfter(int64_t after_id, size_t limit) const {
  auto first = std::upper_bound(points_.begin(), points_.end(), after_id,
                                [](int64_t id, const PointRow& p) { return id < p.id; });
  std::vector<PointRow> out;
  for (auto it = first; it != points_.end() && out.size() < limit; ++it) out.push_back(*it);
  return out;
}

Result<DashboardData::PointDetail> DashboardData::Point(int64_t point_id) {
  auto it = std::lower_bound(points_.begin(), points_.end(), point_id,
                             [](const PointRow& p, int64_t id) { return p.id < id; });
  if (it == points_.end() || it->id != point_id) {
    return NotFound("point " + std::to_string(point_id) +
                    " is not in the database; the Frontier page links to every point");
  }
  PointDetail d;
  FRONTIER_ASSIGN_OR_RETURN(d.run, store_.GetRun(it->run_id));
  FRONTIER_ASSIGN_OR_RETURN(auto points, store_.ListPoints(it->run_id));
  for (auto& p : points) {
    if (p.id == point_id) d.point = std::move(p);
  }
  FRONTIER_ASSIGN_OR_RETURN(d.requests, store_.ListRequests(point_id));
  FRONTIER_ASSIGN_OR_RETURN(d.series, store_.GetPointSeries(point_id));
  return d;
}

Result<std::vector<store::PointRecord>> DashboardData::RunPoints(int64_t run_id) {
  if (!FindRun(run_id)) {
    return NotFound("run " + std::to_string(run_id) + " is not in the database; the Runs page lists the runs");
  }
  return store_.ListPoints(run_id);
}

Result<report::Report> DashboardData::BuildReport(const std::vector<int64_t>& run_ids,
                                                  const std::vector<double>& targets) {
  report::ReportOptions o;
  o.run_ids = run_ids;
  o.targets = targets;
  for (int64_t id : run_ids) {
    const RunRow* row = FindRun(id);
    if (!row) {
      return NotFound("run " + std::to_string(id) +
                      " is not in the database; the Runs page lists the runs");
    }
    if (auto f = Facts(row->hardware)) o.hardware[row->hardware] = *f;
  }
  return report::BuildReport(store_, o);
}

Result<analysis::RegressionReport> DashboardData::Compare(int64_t baseline, int64_t candidate,
                                                          const analysis::RegressionOptions& options) {
  return report::CompareRuns(store_, baseline, candidate, options);
}

Result<report::ComparedBands> DashboardData::CompareBands(int64_t baseline, int64_t candidate) {
  report::ComparedBands b;
  FRONTIER_ASSIGN_OR_RETURN(b.baseline, report::RunBand(store_, baseline));
  FRONTIER_ASSIGN_OR_RETURN(b.candidate, report::RunBand(store_, candidate));
  return b;
}

Result<std::vector<store::RunInfo>> DashboardData::Import(const std::string& text,
                                                          const std::string& file_name,
                                                          const store::ImportOptions& options) {
  return store::ImportText(store_, text, file_name, options);
}

std::optional<report::HardwareFacts> DashboardData::Facts(const std::string& hardware) {
  const std::string hw = AsciiLower(hardware);
  if (hw.empty() || !lookup_) return std::nullopt;
  auto it = facts_.find(hw);
  if (it == facts_.end()) it = facts_.emplace(hw, lookup_(hw)).first;
  return it->second;
}

}  // namespace frontier::dashboard
