#include "loadgen/runner.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <unordered_map>

#include "workload/arrival.h"

namespace frontier::loadgen {
namespace {

// Keeps the records: rebases a Target's absolute times to the run's start and
// counts outcomes.
class Books final : public CompletionSink {
 public:
  Books(Nanos t0, int64_t warmup, Observer* observer) : t0_(t0), warmup_(warmup), observer_(observer) {}

  // Reserves the slot of request `id` (ids are issued in increasing order; a
  // shard's are its positions of the schedule, so not contiguous).
  void Issued(int64_t id, Nanos scheduled_rel, int32_t input_len, int32_t output_len) {
    slot_of_[id] = records_.size();
    RequestRecord r;
    r.id = id;
    r.warmup = id < warmup_;
    r.scheduled_ns = scheduled_rel;
    r.prompt_tokens = input_len;
    r.requested_output_tokens = output_len;
    records_.push_back(std::move(r));
    pending_.push_back(true);
  }

  void OnComplete(RequestRecord&& rec) override {
    const auto at = slot_of_.find(rec.id);
    if (at == slot_of_.end() || !pending_[at->second])
      return;  // not ours or already ended: a Target bug; never double-count
    RequestRecord& slot = records_[at->second];
    pending_[at->second] = false;
    auto rebase = [&](Nanos t) { return t < 0 ? t : t - t0_; };
    rec.sent_ns = rebase(rec.sent_ns);
    rec.first_token_ns = rebase(rec.first_token_ns);
    rec.end_ns = rebase(rec.end_ns);
    if (t0_ != 0)
      for (auto& e : rec.events) e.t_ns -= t0_;
    rec.scheduled_ns = slot.scheduled_ns;
    rec.warmup = slot.warmup;
    rec.requested_output_tokens = slot.requested_output_tokens;
    if (!rec.usage_reported || rec.prompt_tokens <= 0) rec.prompt_tokens = slot.prompt_tokens;
    if (!rec.ok && rec.failure.empty()) rec.failure = failure::kOther;
    slot = std::move(rec);
    if (slot.warmup) {
      ++warmup_done_;
    } else if (slot.ok) {
      ++completed_;
    } else {
      ++failed_;
    }
    if (observer_) observer_->OnRequest(slot);
  }

  std::vector<RequestRecord> Take() {
    for (size_t i = 0; i < records_.size(); ++i) {
      if (!pending_[i]) continue;  // never completed: a Target bug; keep it visible
      records_[i].ok = false;
      records_[i].failure = failure::kOther;
      records_[i].failure_detail = "the target never reported this request's end";
    }
    return std::move(records_);
  }

  int64_t warmup_done() const { return warmup_done_; }
  int64_t completed() const { return completed_; }
  int64_t failed() const { return failed_; }

 private:
  const Nanos t0_;
  const int64_t warmup_;
  Observer* observer_;
  std::vector<RequestRecord> records_;
  std::vector<bool> pending_;
  std::unordered_map<int64_t, size_t> slot_of_;  // request id -> index in records_
  int64_t warmup_done_ = 0, completed_ = 0, failed_ = 0;
};

}  // namespace

Result<RunResult> RunLoad(Target& target, std::span<const workload::RequestSpec> specs,
                          const workload::LoadOptions& load, const RunOptions& options,
                          Observer* observer, const std::atomic<bool>* stop) {
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

  const Clock& clock = target.clock();
  const int64_t warm = load.warmup;
  const size_t measured_specs = specs.size() - static_cast<size_t>(warm);
  const bool open_loop = !std::isinf(load.request_rate);
  int64_t total = load.num_prompts;  // measured requests to issue at most

  // The arrival plan for the measured phase, made before anything is sent.
  std::vector<Nanos> plan;
  if (open_loop) {
    int64_t count = total;
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
    total = count;
  } else if (!(load.burstiness > 0)) {
    return InvalidArgument("--burstiness must be a positive number");
  }
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
  bool issuing_done = false, stop_seen = false, aborted = false;
  Nanos stop_deadline = 0;
  Nanos next_progress = t0;

  auto report = [&](Nanos now) {
    if (!observer) return;
    Progress p;
    p.issued = next;
    p.completed = books.completed();
    p.failed = books.failed();
    p.total = load.duration_s && load.num_prompts == std::numeric_limits<int64_t>::max() ? -1 : total;
    p.in_flight = static_cast<int64_t>(target.InFlight());
    p.warmup_left = warm - books.warmup_done();
    p.elapsed_ns = measuring ? now - measured_start : 0;
    p.duration_s = load.duration_s.value_or(0);
    p.stopping = stop_seen;
    observer->OnProgress(p);
  };

  while (true) {
    Nanos now = clock.Now();
    if (!stop_seen && stop && stop->load(std::memory_order_relaxed)) {
      stop_seen = true;
      issuing_done = true;
      stop_deadline = now + options.grace;
    }
    if (stop_seen && !aborted && now >= stop_deadline && target.InFlight() > 0) {
      target.AbortAll(failure::kInterrupted, books);
      aborted = true;
    }
    if (!issuing_done && !measuring) {
      while (next_warm < warm && static_cast<int64_t>(target.InFlight()) < cap) {
        books.Issued(next_warm, now - t0, specs[static_cast<size_t>(next_warm)].input_len,
                     specs[static_cast<size_t>(next_warm)].output_len);
        target.Issue(next_warm, specs[static_cast<size_t>(next_warm)]);
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
        target.Issue(id, spec);
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
    if (stop_seen && !aborted) deadline = std::min(deadline, stop_deadline);
    target.Poll(deadline, books);
  }
  report(clock.Now());

  RunResult run;
  run.interrupted = stop_seen;
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

}  // namespace frontier::loadgen
