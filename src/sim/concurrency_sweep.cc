#include "sim/concurrency_sweep.h"

#include <algorithm>
#include <atomic>
#include <condition_variable>
#include <mutex>
#include <thread>

#include "analysis/frontier.h"
#include "loadgen/point.h"
#include "sim/sim_target.h"

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
    if (options.sessions != nullptr) continue;  // sessions are reused cyclically
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

// One point of a sweep of sessions into `p` and `run`.
void RunSessionsPoint(const SimConfig& point_config, const workload::LoadOptions& l,
                      const metrics::SummaryOptions& summary_options, const SweepOptions& options, SweepPoint& p,
                      Result<RunResult>& run) {
  // Sessions: the point through the one load core for them (RunPoint
  // summarises it with the same options as a single-turn point).
  SimTarget target(point_config, options.sim);
  loadgen::PointOptions po;
  po.run = VirtualRunOptions(/*observed=*/false);
  po.summary = summary_options;
  po.model = point_config.model.name;
  po.sessions = options.sessions;
  po.ideal_block_tokens = options.ideal_block_tokens;
  Result<loadgen::PointOutcome> out = loadgen::RunPoint(target, {}, l, po, nullptr, &target.stop());
  if (!out.ok()) {
    run = out.status();
    return;
  }
  p.stats = target.stats();
  p.summary = std::move(out->summary);
  run = std::move(out->run);
}

}  // namespace

Result<std::vector<SweepPoint>> SweepConcurrency(
    const SimConfig& config, const std::vector<workload::RequestSpec>& requests,
    const workload::LoadOptions& load, const std::vector<int64_t>& concurrencies,
    const metrics::SummaryOptions& summary_options, const SweepOptions& options,
    const std::function<Status(const SweepPoint&, const RunResult&)>& on_point) {
  FRONTIER_RETURN_IF_ERROR(CheckSizes(requests, load, concurrencies, options));
  struct Slot {
    SweepPoint point;
    Result<RunResult> run = Status::Ok();
    bool done = false;
  };
  const size_t count = concurrencies.size();
  std::vector<Slot> slots(count);
  auto run_point = [&](size_t i) {
    const int64_t c = concurrencies[i];
    const int64_t n = options.sessions != nullptr
                          ? SweepPrompts(load.num_prompts, c, options.min_rounds)
                          : std::min<int64_t>(static_cast<int64_t>(requests.size()),
                                              SweepPrompts(load.num_prompts, c, options.min_rounds));
    Slot& slot = slots[i];
    SweepPoint& p = slot.point;
    SimConfig point_config = config;
    if (options.max_num_seqs_auto) {
      Result<SimConfig> raised = WithMaxNumSeqsFor(config, c);
      if (!raised.ok()) {
        slot.run = raised.status();
        return;
      }
      point_config = std::move(*raised);
    }
    workload::LoadOptions l = load;
    l.max_concurrency = c;
    l.num_prompts = n;
    p.concurrency = c;
    p.num_prompts = n;
    p.max_running = static_cast<int64_t>(point_config.max_num_seqs) * point_config.dp;
    p.capped = p.max_running < c;
    if (options.sessions != nullptr) {
      RunSessionsPoint(point_config, l, summary_options, options, p, slot.run);
      return;
    }
    // The warm-up requests come first, then n measured ones.
    const size_t used_n = std::min(requests.size(), static_cast<size_t>(n + std::max<int64_t>(load.warmup, 0)));
    const std::span<const workload::RequestSpec> used(requests.data(), used_n);
    slot.run = Simulate(point_config, used, l, options.sim, &p.stats);
    if (slot.run.ok()) p.summary = metrics::Summarize(*slot.run, summary_options);
  };

  unsigned threads = options.threads > 0 ? static_cast<unsigned>(options.threads) : std::thread::hardware_concurrency();
  threads = std::max(1u, std::min<unsigned>(threads, static_cast<unsigned>(count)));
  std::vector<SweepPoint> points;
  // Delivers point i (its callback, then drops its run). False on an error.
  Status failed = Status::Ok();
  auto deliver = [&](size_t i) -> bool {
    if (!slots[i].run.ok()) {
      failed = slots[i].run.status();
      return false;
    }
    if (on_point) {
      failed = on_point(slots[i].point, *slots[i].run);
      if (!failed.ok()) return false;
    }
    slots[i].run = Status::Ok();  // frees the run's records
    points.push_back(std::move(slots[i].point));
    return true;
  };
  if (threads == 1) {
    for (size_t i = 0; i < count; ++i) {
      run_point(i);
      if (!deliver(i)) return failed;
    }
    MarkPareto(points);
    return points;
  }

  std::mutex mu;
  std::condition_variable cv;
  std::atomic<size_t> next{0};
  std::vector<std::thread> pool;
  for (unsigned t = 0; t < threads; ++t) {
    pool.emplace_back([&] {
      for (size_t i = next++; i < count; i = next++) {
        run_point(i);
        std::lock_guard<std::mutex> lock(mu);
        slots[i].done = true;
        cv.notify_all();
      }
    });
  }
  // The points in order, on this thread: each as soon as it and every point
  // before it are done.
  for (size_t i = 0; i < count; ++i) {
    {
      std::unique_lock<std::mutex> lock(mu);
      cv.wait(lock, [&] { return slots[i].done; });
    }
    if (!deliver(i)) {
      next = count;  // start no more points
      break;
    }
  }
  for (auto& t : pool) t.join();
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

Result<SweepPointRecord> WriteSweepPointFiles(const loadgen::PointOptions& base, const std::string& served_model,
                                              const workload::LoadOptions& load, const SweepPoint& p,
                                              const RunResult& run) {
  loadgen::PointOptions at = base;
  at.result_json = base.result_json.empty() ? "" : SweepPointPath(base.result_json, p.concurrency);
  at.requests_jsonl = base.requests_jsonl.empty() ? "" : SweepPointPath(base.requests_jsonl, p.concurrency);
  SweepPointRecord r{load, loadgen::PointOutcome{run, p.summary, std::nullopt}};
  r.outcome.run.start_time_utc.clear();
  loadgen::StampProvenance(at, served_model, &r.outcome.run);  // the target's part is in already
  r.load.max_concurrency = p.concurrency;
  r.load.num_prompts = p.num_prompts;
  FRONTIER_RETURN_IF_ERROR(loadgen::WritePointFiles(at, r.load, r.outcome, /*with_requests=*/true));
  return r;
}

}  // namespace frontier::sim
