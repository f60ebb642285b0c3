#include "sim/concurrency_sweep.h"

#include <algorithm>

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

int64_t SweepPrompts(int64_t num_prompts, int64_t max_concurrency) {
  return std::max(num_prompts, 4 * max_concurrency);
}

Result<std::vector<SweepPoint>> SweepConcurrency(
    const SimConfig& config, const std::vector<workload::RequestSpec>& requests,
    const workload::LoadOptions& load, const std::vector<int64_t>& concurrencies,
    const metrics::SummaryOptions& summary_options, const SweepOptions& options,
    const std::function<Status(const SweepPoint&, const RunResult&)>& on_point) {
  std::vector<SweepPoint> points;
  for (int64_t c : concurrencies) {
    if (c < 1) return InvalidArgument("--concurrency values must be at least 1, got " + std::to_string(c));
    const int64_t n = std::min<int64_t>(static_cast<int64_t>(requests.size()), SweepPrompts(load.num_prompts, c));
    if (n < 4 * c)
      return InvalidArgument("concurrency " + std::to_string(c) + " needs at least " + std::to_string(4 * c) +
                             " requests (4 rounds), the workload has " + std::to_string(requests.size()));
    SimConfig point_config = config;
    if (options.max_num_seqs_auto) {
      FRONTIER_ASSIGN_OR_RETURN(point_config,
                                WithMaxNumSeqs(config, static_cast<int>((c + config.dp - 1) / config.dp)));
    }
    workload::LoadOptions l = load;
    l.max_concurrency = c;
    l.num_prompts = n;
    SweepPoint p;
    p.concurrency = c;
    p.num_prompts = n;
    p.max_running = static_cast<int64_t>(point_config.max_num_seqs) * point_config.dp;
    p.capped = p.max_running < c;
    const std::span<const workload::RequestSpec> used(requests.data(), static_cast<size_t>(n));
    FRONTIER_ASSIGN_OR_RETURN(RunResult run, Simulate(point_config, used, l, options.sim, &p.stats));
    p.summary = metrics::Summarize(run, summary_options);
    if (on_point) FRONTIER_RETURN_IF_ERROR(on_point(p, run));
    points.push_back(std::move(p));
  }
  MarkPareto(points);
  return points;
}

}  // namespace frontier::sim
