#include "sim/concurrency_sweep.h"

#include <algorithm>
#include <span>

#include "analysis/frontier.h"
#include "core/ordered_pool.h"
#include "loadgen/point.h"

namespace frontier::sim {

void MarkPareto(std::vector<SweepPoint>& points) {
  std::vector<analysis::OperatingPoint> ops;
  ops.reserve(points.size());
  for (const auto& p : points) {
    analysis::OperatingPoint op;
    op.interactivity = p.summary.interactivity;
    op.output_tput_per_gpu = p.summary.output_throughput_per_gpu;
    ops.push_back(op);
  }
  for (auto& p : points) p.pareto = false;
  for (size_t i : analysis::ParetoFrontier(ops, analysis::Throughput::kOutput)) points[i].pareto = true;
}

int64_t SweepPrompts(int64_t num_prompts, int64_t max_concurrency, int rounds) {
  return std::max(num_prompts, static_cast<int64_t>(rounds) * max_concurrency);
}

Result<SimConfig> WithMaxNumSeqsFor(const SimConfig& config, int64_t concurrency) {
  return WithMaxNumSeqs(config, static_cast<int>((concurrency + config.dp - 1) / config.dp));
}

namespace {

// Every concurrency at least 1 and, for single-turn requests, with enough of
// them for `options.min_rounds` rounds.
Status CheckSizes(const std::vector<workload::RequestSpec>& requests, const workload::LoadOptions& load,
                  const std::vector<int64_t>& concurrencies, const SweepOptions& options) {
  for (int64_t c : concurrencies) {
    if (c < 1) return InvalidArgument("--concurrency values must be at least 1, got " + std::to_string(c));
    if (options.point.sessions != nullptr) continue;  // sessions are reused cyclically
    const int64_t n = std::min<int64_t>(static_cast<int64_t>(requests.size()),
                                        SweepPrompts(load.num_prompts, c, options.min_rounds));
    if (n < options.min_rounds * c)
      return InvalidArgument("concurrency " + std::to_string(c) + " needs at least " +
                             std::to_string(options.min_rounds * c) + " requests (" +
                             std::to_string(options.min_rounds) + " rounds), the workload has " +
                             std::to_string(requests.size()));
  }
  return Status::Ok();
}

// One point of the sweep, from when it is started to when it is delivered.
struct Slot {
  SweepPoint point;
  SweepPointRun run;   // run.outcome is set when `status` is ok
  Status status;
};

// Runs the point of concurrency `c` into `slot`: its load, its engine (raised
// to c with max_num_seqs_auto), its files, and loadgen::RunPoint on a
// SimTarget of its own.
struct PointRunner {
  const SimConfig& config;
  const std::vector<workload::RequestSpec>& requests;
  const workload::LoadOptions& load;
  const SweepOptions& options;

  void Run(int64_t c, Slot& slot) const {
    SweepPoint& p = slot.point;
    workload::LoadOptions& l = slot.run.load;
    const bool sessions = options.point.sessions != nullptr;
    const int64_t wanted = SweepPrompts(load.num_prompts, c, options.min_rounds);
    const int64_t n = sessions ? wanted : std::min<int64_t>(static_cast<int64_t>(requests.size()), wanted);
    SimConfig point_config = config;
    if (options.max_num_seqs_auto) {
      Result<SimConfig> raised = WithMaxNumSeqsFor(config, c);
      if (!raised.ok()) {
        slot.status = raised.status();
        return;
      }
      point_config = std::move(*raised);
    }
    l = load;
    l.max_concurrency = c;
    l.num_prompts = n;
    p.concurrency = c;
    p.num_prompts = n;
    p.max_running = static_cast<int64_t>(point_config.max_num_seqs) * point_config.dp;
    p.capped = p.max_running < c;
    // The warm-up requests come first, then n measured ones (sessions are
    // RunPoint's own and reused cyclically).
    std::span<const workload::RequestSpec> used;
    if (!sessions)
      used = {requests.data(), std::min(requests.size(), static_cast<size_t>(n + std::max<int64_t>(load.warmup, 0)))};
    loadgen::PointOptions o = options.point;
    if (!o.result_json.empty()) o.result_json = SweepPointPath(o.result_json, c);
    if (!o.requests_jsonl.empty()) o.requests_jsonl = SweepPointPath(o.requests_jsonl, c);
    Result<loadgen::PointOutcome> out = SimulatePoint(point_config, options.sim, used, l, std::move(o), &p.stats);
    if (!out.ok()) {
      slot.status = out.status();
      return;
    }
    p.summary = out->summary;
    slot.run.outcome = std::move(*out);
  }
};

}  // namespace

Result<std::vector<SweepPoint>> SweepConcurrency(
    const SimConfig& config, const std::vector<workload::RequestSpec>& requests,
    const workload::LoadOptions& load, const std::vector<int64_t>& concurrencies, const SweepOptions& options,
    const std::function<Status(const SweepPoint&, const SweepPointRun&)>& on_point) {
  FRONTIER_RETURN_IF_ERROR(CheckSizes(requests, load, concurrencies, options));
  const size_t count = concurrencies.size();
  std::vector<Slot> slots(count);
  const PointRunner runner{config, requests, load, options};
  auto run_point = [&](size_t i) { runner.Run(concurrencies[i], slots[i]); };

  std::vector<SweepPoint> points;
  // Delivers point i (its callback, then drops its run). False on an error.
  Status failed = Status::Ok();
  auto deliver = [&](size_t i) -> bool {
    Slot& slot = slots[i];
    if (!slot.status.ok()) {
      failed = slot.status;
      return false;
    }
    if (on_point) {
      failed = on_point(slot.point, slot.run);
      if (!failed.ok()) return false;
    }
    slot.run.outcome = {};  // frees the run's records
    points.push_back(std::move(slot.point));
    return true;
  };
  const unsigned threads = options.threads > 0 ? static_cast<unsigned>(options.threads) : 0;
  RunOrdered(count, {.threads = threads}, run_point, deliver);
  FRONTIER_RETURN_IF_ERROR(failed);
  MarkPareto(points);
  return points;
}

std::string SweepPointPath(const std::string& path, int64_t concurrency) {
  const size_t dot = path.rfind('.');
  const size_t slash = path.rfind('/');
  const std::string tag = ".c" + std::to_string(concurrency);
  if (dot == std::string::npos || (slash != std::string::npos && dot < slash)) return path + tag;
  return path.substr(0, dot) + tag + path.substr(dot);
}

}  // namespace frontier::sim
