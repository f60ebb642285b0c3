#include "loadgen/runner.h"

#include <algorithm>
#include <cmath>
#include <functional>
#include <limits>
#include <string>

#include <fmt/format.h>

#include "loadgen/books.h"
#include "workload/arrival.h"

namespace frontier::loadgen {
namespace {

// The checks on the options and the workload made before anything is planned.
Status CheckLoad(const Target& target, std::span<const workload::RequestSpec> specs,
                 const workload::LoadOptions& load) {
  if (load.warmup < 0) return InvalidArgument("--warmup must be 0 or more");
  if (load.num_prompts < 1) return InvalidArgument("--num-prompts must be at least 1");
  if (static_cast<int64_t>(specs.size()) <= load.warmup)
    return InvalidArgument("the workload has " + std::to_string(specs.size()) +
                           " requests, not more than --warmup " + std::to_string(load.warmup));
  if (load.max_concurrency && *load.max_concurrency < 1)
    return InvalidArgument("--max-concurrency must be at least 1");
  if (load.duration_s && !(*load.duration_s > 0))
    return InvalidArgument("--duration must be a positive number of seconds");
  if (load.shard_count < 1 || load.shard_index < 0 || load.shard_index >= load.shard_count)
    return InvalidArgument("--shard " + std::to_string(load.shard_index) + "/" + std::to_string(load.shard_count) +
                           ": the shard must be in 0.." + std::to_string(load.shard_count - 1));

  bool cancels = false;
  for (const auto& s : specs) cancels = cancels || s.cancel_after_ns > 0 || s.cancel_after_tokens > 0;
  return Ending::CheckCancels(target, cancels);
}

// The arrival plan for the measured phase, made before anything is sent
// (empty for a closed loop). An open loop sets *total, the measured requests
// to issue at most, to the count planned.
Result<std::vector<Nanos>> PlanMeasured(const workload::LoadOptions& load, const RunOptions& options,
                                        int64_t* total) {
  std::vector<Nanos> plan;
  if (!std::isinf(load.request_rate)) {
    int64_t count = *total;
    if (load.duration_s) {
      const double expected = load.request_rate * *load.duration_s;
      const auto enough = static_cast<int64_t>(std::ceil(expected * 1.25)) + 100;
      count = std::min(count, std::min(enough, options.max_planned));
    }
    workload::ArrivalOptions a;
    a.request_rate = load.request_rate;
    a.burstiness = load.burstiness;
    a.seed = load.seed;
    FRONTIER_ASSIGN_OR_RETURN(plan, workload::PlanArrivals(count, a));
    *total = count;
  } else if (!(load.burstiness > 0)) {
    return InvalidArgument("--burstiness must be a positive number");
  }
  return plan;
}

// The run's result once every request has ended: its requests, and the
// measured span from the first measured send to the last end.
RunResult FinishRun(Target& target, Books& books, const Ending& ending, Nanos t0) {
  RunResult run;
  run.origin_ns = t0;
  run.interrupted = ending.stopping();
  run.served_model = target.ServedModel();
  run.requests = books.Take();
  Nanos first = std::numeric_limits<Nanos>::max(), last = std::numeric_limits<Nanos>::min();
  for (const auto& r : run.requests) {
    if (r.warmup) continue;
    first = std::min(first, r.sent_ns);
    last = std::max(last, r.end_ns);
  }
  run.duration_ns = last > first ? last - first : 0;
  return run;
}

}  // namespace

Result<RunResult> RunLoad(Target& target, std::span<const workload::RequestSpec> specs,
                          const workload::LoadOptions& load, const RunOptions& options,
                          Observer* observer, const std::atomic<bool>* stop) {
  FRONTIER_RETURN_IF_ERROR(CheckLoad(target, specs, load));

  const Clock& clock = target.clock();
  const int64_t warm = load.warmup;
  const size_t measured_specs = specs.size() - static_cast<size_t>(warm);
  const bool open_loop = !std::isinf(load.request_rate);
  int64_t total = load.num_prompts;  // measured requests to issue at most

  // The arrival plan for the measured phase, made before anything is sent.
  FRONTIER_ASSIGN_OR_RETURN(const std::vector<Nanos> plan, PlanMeasured(load, options, &total));
  auto planned = [&](int64_t i) { return open_loop ? plan[static_cast<size_t>(i)] : Nanos{0}; };
  const int64_t cap = load.max_concurrency ? *load.max_concurrency : std::numeric_limits<int64_t>::max();

  const Nanos t0 = load.start_at_ns ? Nanos{*load.start_at_ns} : clock.Now();
  Books books(t0, warm, observer);
  while (clock.Now() < t0) target.Poll(t0, books);  // nothing in flight: waits for the agreed start
  int64_t next_warm = 0, next = 0;
  // A shard issues only its own positions of the measured schedule.
  auto own = [&] {
    while (next < total && next % load.shard_count != load.shard_index) ++next;
  };
  own();
  bool measuring = warm == 0;
  Nanos measured_start = t0;
  bool issuing_done = false;
  Nanos next_progress = t0;
  Ending ending(target, books, stop, options.grace);
  auto issue = [&](int64_t id, const workload::RequestSpec& spec) {
    target.Issue(id, spec);
    ending.Issued(id, spec);
  };

  auto report = [&](Nanos now) {
    if (!observer) return;
    Progress p;
    p.issued = next;
    p.completed = books.completed();
    p.failed = books.failed();
    p.cancelled = books.cancelled();
    p.total = load.duration_s && load.num_prompts == std::numeric_limits<int64_t>::max() ? -1 : total;
    p.in_flight = static_cast<int64_t>(target.InFlight());
    p.warmup_left = warm - books.warmup_done();
    p.elapsed_ns = measuring ? now - measured_start : 0;
    p.duration_s = load.duration_s.value_or(0);
    p.stopping = ending.stopping();
    observer->OnProgress(p);
  };

  while (true) {
    Nanos now = clock.Now();
    if (ending.NoticeStop(now)) issuing_done = true;
    ending.Act(now, books);
    if (!issuing_done && !measuring) {
      while (next_warm < warm && static_cast<int64_t>(target.InFlight()) < cap) {
        books.Issued(next_warm, now - t0, specs[static_cast<size_t>(next_warm)].input_len,
                     specs[static_cast<size_t>(next_warm)].output_len);
        issue(next_warm, specs[static_cast<size_t>(next_warm)]);
        ++next_warm;
      }
      if (books.warmup_done() == warm) {
        measuring = true;
        measured_start = now;
      }
    }
    if (!issuing_done && measuring) {
      if (load.duration_s && now - measured_start >= SecondsToNanos(*load.duration_s)) issuing_done = true;
      while (!issuing_done && next < total && static_cast<int64_t>(target.InFlight()) < cap &&
             measured_start + planned(next) <= now) {
        const auto& spec = specs[static_cast<size_t>(warm) + static_cast<size_t>(next) % measured_specs];
        const int64_t id = warm + next;
        books.Issued(id, measured_start - t0 + planned(next), spec.input_len, spec.output_len);
        issue(id, spec);
        ++next;
        own();
        now = clock.Now();
      }
      if (next >= total) issuing_done = true;
    }
    if (issuing_done && target.InFlight() == 0) break;

    if (now >= next_progress) {
      report(now);
      next_progress = now + options.progress_interval;
    }
    Nanos deadline = now + options.max_poll;
    if (observer) deadline = std::min(deadline, next_progress);  // progress on time, on any clock
    if (measuring && !issuing_done && next < total &&
        static_cast<int64_t>(target.InFlight()) < cap)
      deadline = std::min(deadline, measured_start + planned(next));
    if (measuring && !issuing_done && load.duration_s)
      deadline = std::min(deadline, measured_start + SecondsToNanos(*load.duration_s));
    target.Poll(ending.Deadline(deadline), books);
  }
  report(clock.Now());

  return FinishRun(target, books, ending, t0);
}

namespace {

// "mm:ss", or "h:mm:ss" from an hour; "--:--" when unknown.
std::string ClockText(double s) {
  if (!(s >= 0) || std::isinf(s)) return "--:--";
  const auto t = static_cast<int64_t>(s);
  return t >= 3600 ? fmt::format("{}:{:02}:{:02}", t / 3600, t / 60 % 60, t % 60)
                   : fmt::format("{:02}:{:02}", t / 60, t % 60);
}

}  // namespace

std::string ProgressText(const Progress& p) {
  const double elapsed = NanosToSeconds(p.elapsed_ns);
  const int64_t done = p.completed + p.failed + p.cancelled;
  std::string line;
  if (p.warmup_left > 0) {
    line = fmt::format("warm-up: {} requests left", p.warmup_left);
  } else {
    const double rate = elapsed > 0 ? done / elapsed : 0;
    double eta = -1;
    std::string total = "?";
    if (p.total >= 0) {
      total = std::to_string(p.total);
      if (rate > 0) eta = (p.total - done) / rate;
    }
    if (p.duration_s > 0) eta = eta < 0 ? p.duration_s - elapsed : std::min(eta, p.duration_s - elapsed);
    line = fmt::format("{}/{} done  {:.2f} req/s  in flight {}  elapsed {}  ETA {}  errors {}", done, total, rate,
                       p.in_flight, ClockText(elapsed), ClockText(eta), p.failed);
  }
  if (p.stopping) line += "  (stopping: waiting for requests in flight)";
  return line;
}

}  // namespace frontier::loadgen
