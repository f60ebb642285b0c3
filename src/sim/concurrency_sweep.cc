#include "sim/concurrency_sweep.h"

namespace frontier::sim {

void MarkPareto(std::vector<SweepPoint>& points) {
  for (auto& p : points) {
    const double x = p.summary.interactivity, y = p.summary.output_throughput_per_gpu;
    p.pareto = x > 0 && y > 0;
    for (const auto& q : points) {
      const double qx = q.summary.interactivity, qy = q.summary.output_throughput_per_gpu;
      if (qx >= x && qy >= y && (qx > x || qy > y)) {
        p.pareto = false;
        break;
      }
    }
  }
}

Result<std::vector<SweepPoint>> SweepConcurrency(
    const SimConfig& config, const std::vector<workload::RequestSpec>& requests,
    const workload::LoadOptions& load, const std::vector<int64_t>& concurrencies,
    const metrics::SummaryOptions& summary_options, const SimulateOptions& sim_options,
    const std::function<Status(const SweepPoint&, const RunResult&)>& on_point) {
  std::vector<SweepPoint> points;
  for (int64_t c : concurrencies) {
    if (c < 1) return InvalidArgument("--concurrency values must be at least 1, got " + std::to_string(c));
    workload::LoadOptions l = load;
    l.max_concurrency = c;
    SweepPoint p;
    p.concurrency = c;
    FRONTIER_ASSIGN_OR_RETURN(RunResult run, Simulate(config, requests, l, sim_options, &p.stats));
    p.summary = metrics::Summarize(run, summary_options);
    if (on_point) FRONTIER_RETURN_IF_ERROR(on_point(p, run));
    points.push_back(std::move(p));
  }
  MarkPareto(points);
  return points;
}

}  // namespace frontier::sim
