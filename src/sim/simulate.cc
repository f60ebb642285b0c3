#include "sim/simulate.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>

#include "core/version.h"
#include "sim/engine.h"
#include "workload/arrival.h"

namespace frontier::sim {

void StepTrace::Record(const BatchShape& s, int64_t emitted, int64_t firsts, int64_t finished) {
  const bool mark_finish = finished > 0 && first_finish < 0;
  if (!entries.empty() && firsts == 0 && s.prefill_tokens == 0 && !mark_finish &&
      static_cast<int64_t>(entries.size()) - 1 != first_finish) {
    Entry& last = entries.back();
    BatchShape& m = last.shape;
    const int64_t n = last.count;
    // Merge into a run of decode-only steps of the same batch: their costs
    // differ only through the keys read, which enter linearly.
    if (last.firsts == 0 && m.prefill_tokens == 0 && m.decode_seqs == s.decode_seqs * n &&
        m.decode_tokens == s.decode_tokens * n && m.sampled == s.sampled * n) {
      m.decode_seqs += s.decode_seqs;
      m.decode_tokens += s.decode_tokens;
      m.sampled += s.sampled;
      m.decode_keys_full += s.decode_keys_full;
      m.decode_keys_swa += s.decode_keys_swa;
      m.decode_pairs_full += s.decode_pairs_full;
      m.decode_pairs_swa += s.decode_pairs_swa;
      ++last.count;
      last.emitted += emitted;
      return;
    }
  }
  entries.push_back(Entry{s, 1, emitted, firsts});
  if (mark_finish) first_finish = static_cast<int64_t>(entries.size()) - 1;
}

Nanos StepTrace::StepNanos(const StepModel& model, size_t begin, size_t end) const {
  Nanos total = 0;
  end = std::min(end, entries.size());
  for (size_t i = begin; i < end; ++i) {
    const Entry& e = entries[i];
    if (e.count == 1) {
      total += std::max<Nanos>(1, model.StepNanos(e.shape));
      continue;
    }
    // The mean step of the run, `count` times.
    BatchShape m = e.shape;
    const double n = static_cast<double>(e.count);
    m.decode_seqs /= e.count;
    m.decode_tokens /= e.count;
    m.sampled /= e.count;
    m.decode_keys_full /= n;
    m.decode_keys_swa /= n;
    m.decode_pairs_full /= n;
    m.decode_pairs_swa /= n;
    total += std::max<Nanos>(1, model.StepNanos(m)) * e.count;
  }
  return total;
}

size_t StepTrace::LastFirstTokenEnd() const {
  for (size_t i = entries.size(); i > 0; --i)
    if (entries[i - 1].firsts > 0) return i;
  return 0;
}

int64_t StepTrace::Emitted(size_t begin, size_t end) const {
  int64_t n = 0;
  end = std::min(end, entries.size());
  for (size_t i = begin; i < end; ++i) n += entries[i].emitted;
  return n;
}

Result<RunResult> Simulate(const SimConfig& config, std::span<const workload::RequestSpec> requests,
                           const workload::LoadOptions& load, SimulationStats* stats) {
  return Simulate(config, requests, load, SimulateOptions{}, stats);
}

Result<RunResult> Simulate(const SimConfig& config, std::span<const workload::RequestSpec> requests,
                           const workload::LoadOptions& load, const SimulateOptions& options,
                           SimulationStats* stats) {
  const int64_t size = static_cast<int64_t>(requests.size());
  const Nanos rtt = options.client_rtt_ns;
  if (rtt < 0) return InvalidArgument("--client-rtt-us must be at least 0");
  if (load.max_concurrency && *load.max_concurrency < 1)
    return InvalidArgument("--max-concurrency must be at least 1");
  if (load.warmup < 0 || load.warmup > size)
    return InvalidArgument("--warmup must be between 0 and the number of requests");
  // With --duration, requests cycle through the workload until time is up
  // (or num_prompts + warmup have been sent); otherwise each is sent once.
  int64_t n = size;
  if (load.duration_s && size > 0) {
    const int64_t wanted = load.num_prompts > std::numeric_limits<int64_t>::max() - load.warmup
                               ? std::numeric_limits<int64_t>::max()
                               : load.num_prompts + load.warmup;
    n = std::max(size, wanted);
  }
  workload::ArrivalOptions arrival;
  arrival.request_rate = load.request_rate;
  arrival.burstiness = load.burstiness;
  arrival.seed = load.seed;
  // Arrivals are planned in growing batches; the plan's prefix does not depend
  // on its length, so growing it changes no time already used.
  int64_t planned_count = std::min<int64_t>(n, std::max<int64_t>(size, 1));
  FRONTIER_ASSIGN_OR_RETURN(std::vector<Nanos> planned, workload::PlanArrivals(planned_count, arrival));
  auto ensure_planned = [&](int64_t i) -> Status {
    if (i < planned_count || i >= n) return Status::Ok();
    planned_count = std::min<int64_t>(n, std::max<int64_t>(planned_count * 2, i + 1));
    FRONTIER_ASSIGN_OR_RETURN(planned, workload::PlanArrivals(planned_count, arrival));
    return Status::Ok();
  };

  if (options.max_requests < 1 || options.max_memory_bytes < 1)
    return InvalidArgument("the simulation's request and memory bounds must be positive");
  auto seconds = [](Nanos t) {
    char b[32];
    std::snprintf(b, sizeof b, "%.6g s", static_cast<double>(t) / kNanosPerSecond);
    return std::string(b);
  };
  if (!load.duration_s && n > options.max_requests) {
    return ResourceExhausted(std::to_string(n) + " requests exceed the simulation's bound of " +
                             std::to_string(options.max_requests) +
                             " (--max-requests); ask for fewer (--num-prompts) or raise the bound");
  }
  int64_t memory = 0;  // bytes of the request records so far

  const int64_t cap = load.max_concurrency ? *load.max_concurrency : std::numeric_limits<int64_t>::max();
  const Nanos stop_at = load.duration_s ? SecondsToNanos(*load.duration_s) : std::numeric_limits<Nanos>::max();

  RunResult run;
  run.source = "simulated";
  run.frontier_version = kVersion;
  run.host = "frontier simulator";
  run.model = config.model.name;
  run.served_model = config.model.name;
  run.num_gpus = config.gpus;
  run.effective_settings = config.EffectiveSettings();
  char rtt_us[32];
  std::snprintf(rtt_us, sizeof rtt_us, "%g", static_cast<double>(rtt) / kNanosPerMicro);
  run.effective_settings["client_rtt_us"] = rtt_us;
  run.requests.reserve(static_cast<size_t>(std::min<int64_t>(n, 1 << 20)));

  Engine engine(config);
  Engine::Step step;
  Nanos t = 0;
  // Requests [0, arrived) have reached the engine, [arrived, next) are on
  // their way (each arrives rtt after it was sent; sends, so arrivals, are in
  // index order), `inflight` of [0, next) hold a slot.
  int64_t next = 0, arrived = 0, inflight = 0;
  SimulationStats local;
  double batch_tokens = 0, running_sum = 0;

  // Sends every request planned by `now` while a slot is free. `sent_at_plan`:
  // the slot was free when the request's planned time came (it is sent then);
  // otherwise it waited for a slot that freed at `now`.
  auto send_due = [&](Nanos now, bool sent_at_plan) -> Status {
    while (next < n && inflight < cap) {
      FRONTIER_RETURN_IF_ERROR(ensure_planned(next));
      if (planned[next] > now) break;
      // Nothing is sent after --duration (a held-back request would go out at `now`).
      if ((sent_at_plan ? planned[next] : std::max(planned[next], now)) > stop_at) break;
      const auto& spec = requests[static_cast<size_t>(next % size)];
      const Nanos at = sent_at_plan ? planned[next] : std::max(planned[next], now);
      if (next >= options.max_requests) {
        return ResourceExhausted("the simulation reached its bound of " + std::to_string(options.max_requests) +
                                 " requests (--max-requests) at " + seconds(at) +
                                 " of virtual time; shorten --duration or raise the bound");
      }
      memory += static_cast<int64_t>(sizeof(RequestRecord)) +
                static_cast<int64_t>(std::max(spec.output_len, 0)) * static_cast<int64_t>(sizeof(TokenEvent));
      if (memory > options.max_memory_bytes) {
        return ResourceExhausted("the simulation's request records reached their bound of " +
                                 std::to_string(options.max_memory_bytes >> 20) + " MiB (--max-memory-mb) after " +
                                 std::to_string(next) + " requests, at " + seconds(at) +
                                 " of virtual time; shorten --duration, lower --num-prompts or --output-len, "
                                 "or raise the bound");
      }
      RequestRecord& r = run.requests.emplace_back();
      r.id = next < size ? spec.id : next;
      r.warmup = next < load.warmup;
      r.prompt_tokens = spec.input_len;
      r.requested_output_tokens = spec.output_len;
      r.scheduled_ns = planned[next];
      r.sent_ns = sent_at_plan ? planned[next] : std::max(planned[next], now);
      ++inflight;
      ++next;
    }
    return Status::Ok();
  };
  // Hands the engine every request that arrived before `now` (at `now` too
  // when `inclusive`). Returns how many the engine rejected (slots freed).
  auto admit = [&](Nanos now, bool inclusive) -> int64_t {
    int64_t rejected = 0;
    for (; arrived < next; ++arrived) {
      RequestRecord& r = run.requests[static_cast<size_t>(arrived)];
      const Nanos at = r.sent_ns + rtt;
      if (at > now || (at == now && !inclusive)) break;
      const auto& spec = requests[static_cast<size_t>(arrived % size)];
      Status s = engine.Add(arrived, spec.input_len, spec.output_len);
      if (s.ok()) {
        r.events.reserve(static_cast<size_t>(spec.output_len));
      } else {
        r.ok = false;
        r.failure = failure::kSimulatorRejected;
        r.failure_detail = s.message();
        r.end_ns = at;
        --inflight;
        ++rejected;
      }
    }
    return rejected;
  };

  while (true) {
    // The step starting at t takes what arrived before t; an arrival at t
    // itself only wakes an idle engine (or makes it with an instantaneous client).
    const bool inclusive = rtt == 0 || engine.Idle() || engine.disaggregated();
    do {
      FRONTIER_RETURN_IF_ERROR(send_due(t, /*sent_at_plan=*/false));
    } while (admit(t, inclusive) > 0);
    if (engine.Idle()) {
      // Wait for the next arrival or the next planned send.
      Nanos wake = std::numeric_limits<Nanos>::max();
      if (arrived < next) wake = run.requests[static_cast<size_t>(arrived)].sent_ns + rtt;
      FRONTIER_RETURN_IF_ERROR(ensure_planned(next));
      if (next < n && std::max(t, planned[next]) <= stop_at && inflight < cap) wake = std::min(wake, planned[next]);
      if (wake == std::numeric_limits<Nanos>::max()) break;
      if (options.trace != nullptr && wake > t) options.trace->idle_ns += wake - t;
      t = std::max(t, wake);
      continue;
    }
    if (engine.disaggregated()) {
      // Workers run side by side: an arrival before the next event reaches
      // an idle prefill worker at once, so stop the clock there.
      const Nanos in = engine.NextEventIn();
      Nanos due = std::numeric_limits<Nanos>::max();
      if (arrived < next) due = run.requests[static_cast<size_t>(arrived)].sent_ns + rtt;
      FRONTIER_RETURN_IF_ERROR(ensure_planned(next));
      if (next < n && inflight < cap && planned[next] <= stop_at) due = std::min(due, planned[next]);
      if (in != Engine::kNever && due < std::numeric_limits<Nanos>::max() && due - t < in) {
        engine.Advance(due - t);
        t = due;
        continue;
      }
    }
    engine.RunStep(&step);
    t += step.duration_ns;
    batch_tokens += static_cast<double>(step.shape.tokens());
    running_sum += static_cast<double>(step.shape.decode_seqs + step.shape.prefill_seqs);
    if (step.shape.prefill_tokens == 0) {
      if (step.shape.decode_seqs > local.busiest_decode.decode_seqs) local.busiest_decode = step.shape;
    } else if (step.shape.decode_seqs > 0) {
      local.typical_mixed = step.shape;
    }
    local.peak_kv_usage = std::max(local.peak_kv_usage, engine.kv_usage());
    if (options.trace != nullptr) {
      int64_t emitted = 0, firsts = 0, finished = 0;
      for (const auto& e : step.emissions) {
        emitted += e.tokens;
        firsts += e.first ? 1 : 0;
        finished += e.finished ? 1 : 0;
      }
      options.trace->Record(step.shape, emitted, firsts, finished);
      if (step.duration_ns <= rtt || engine.disaggregated()) options.trace->replayable = false;
    }
    // Requests planned during the step found a free slot then.
    FRONTIER_RETURN_IF_ERROR(send_due(t, /*sent_at_plan=*/true));
    for (const auto& e : step.emissions) {
      RequestRecord& r = run.requests[static_cast<size_t>(e.id)];
      r.events.push_back(TokenEvent{t, e.tokens});
      r.output_tokens += e.tokens;
      if (e.first) r.first_token_ns = t;
      if (e.finished) {
        r.end_ns = t;
        r.ok = true;
        r.usage_reported = true;
        --inflight;
      }
    }
  }

  Nanos first = std::numeric_limits<Nanos>::max(), last = 0;
  for (const auto& r : run.requests) {
    if (r.warmup) continue;
    first = std::min(first, r.sent_ns);
    last = std::max(last, r.end_ns);
  }
  run.duration_ns = last > first ? last - first : 0;
  if (stats != nullptr) {
    const EngineStats es = engine.stats();
    local.steps = es.steps;
    local.preemptions = es.preemptions;
    if (es.steps > 0) {
      local.mean_batch_tokens = batch_tokens / es.steps;
      local.mean_running = running_sum / es.steps;
    }
    *stats = local;
  }
  return run;
}

}  // namespace frontier::sim
